/**
 * The error taxonomy's part of the `gamepilot` declaration (program.ts): `errors judge` and
 * `errors label`, their options and help.
 */
import type { Command } from 'commander';
import { classesOf, DEFAULT_ERROR_JUDGING, TAXONOMY_NAMES } from '../scoring/error-taxonomy.ts';
import type { Act, Actions, ErrorsJudgeFlags, ErrorsLabelFlags } from './command-flags.ts';
import { intOption, jsonFlag, judgeModelOptions, runsDirOption } from './options.ts';

const ALL_CLASSES = TAXONOMY_NAMES.map((t) => `${t}: ${classesOf(t).join(', ')}`).join('; ');

export function errorsCommands(program: Command, act: Act, actions: Actions) {
  const errors = program
    .command('errors')
    .description("why failed episodes failed: a judge model's class per episode (GameVerse §4.6, ING-VP Fig. 3)");
  judgeModelOptions(
    errors
      .command('judge')
      .description(
        'class each failed episode of finished model runs from its steps and frames; writes errors.json beside each run (an episode judged before by the same judge on the same input is kept)',
      )
      .argument('[runs...]', 'run folders (default: every run in --runs-dir)')
      .addOption(runsDirOption()),
    'the judge',
  )
    .addOption(
      intOption('--max-steps <n>', 'steps described to the judge per episode (evenly spread, the last kept)', {
        min: 1,
      }).default(DEFAULT_ERROR_JUDGING.maxSteps),
    )
    .addOption(
      intOption('--max-frames <n>', 'frames shown per episode (evenly spread, the last kept)', { min: 0 }).default(
        DEFAULT_ERROR_JUDGING.maxFrames,
      ),
    )
    .addOption(
      intOption('--max-side <px>', 'long side of each frame sent', { min: 64 }).default(DEFAULT_ERROR_JUDGING.maxSide),
    )
    .option('--again', 'judge every failed episode again, even those with a verdict for the same input')
    .addOption(jsonFlag())
    .action(act((runs: string[], o: ErrorsJudgeFlags) => actions.errorsJudge(runs, o)));

  errors
    .command('label')
    .description("a person's class for one failed episode, kept apart from the judge's (error-labels.json)")
    .argument('<run>', 'the run folder')
    .addOption(intOption('--episode <n>', 'the episode (from 0)', { min: 0 }).default(0))
    .requiredOption('--class <class>', `the class, or "clear" to remove the label (${ALL_CLASSES})`)
    .addOption(jsonFlag())
    .action(act((run: string, o: ErrorsLabelFlags) => actions.errorsLabel(run, o)));
}
