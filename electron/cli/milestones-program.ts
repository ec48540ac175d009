/**
 * The milestone commands' part of the `gamepilot` declaration (program.ts): `milestones extract`,
 * `judge`, `label` and `agreement`, their options and help.
 */
import { type Command, Option } from 'commander';
import { DEFAULT_EXTRACT } from '../scoring/extract.ts';
import type {
  Act,
  Actions,
  MilestonesAgreementFlags,
  MilestonesExtractFlags,
  MilestonesJudgeFlags,
  MilestonesLabelFlags,
} from './command-flags.ts';
import { choiceOption, intOption, jsonFlag, judgeModelOptions, numberOption, runsDirOption } from './options.ts';

/** `gamepilot milestones extract|judge|label|agreement`. */
export function milestonesCommands(program: Command, act: Act, actions: Actions) {
  const m = program.command('milestones').description('milestone scoring: extract, judge, label, agreement');
  judgeModelOptions(
    m
      .command('extract')
      .description(
        "an ordered milestone list from an expert's walkthrough (a video or a session), saved into the user's copy of the profile with an evidence frame each",
      )
      .addOption(new Option('--video <file>', 'the walkthrough video (mp4, webm, mkv, mov, avi)'))
      .addOption(new Option('--session <dir>', 'a recorded session or run folder as the walkthrough'))
      .addOption(new Option('--profile <id>', 'the profile the list is for').makeOptionMandatory()),
    'the model that watches the walkthrough',
  )
    .addOption(
      numberOption('--fps <n>', 'frames sampled per second of video', { min: 0.01 }).default(DEFAULT_EXTRACT.fps),
    )
    .addOption(
      intOption('--chunk-frames <n>', 'frames per model call (long videos go in chunks)', { min: 1 }).default(
        DEFAULT_EXTRACT.chunkFrames,
      ),
    )
    .addOption(
      intOption('--max-frames <n>', 'frames sampled in all (thinned evenly)', { min: 1 }).default(
        DEFAULT_EXTRACT.maxFrames,
      ),
    )
    .addOption(
      intOption('--max-side <px>', 'long side of each frame sent', { min: 64 }).default(DEFAULT_EXTRACT.maxSide),
    )
    .addOption(jsonFlag())
    .action(act((o: MilestonesExtractFlags) => actions.milestonesExtract(o)));

  judgeModelOptions(
    m
      .command('judge')
      .description("judge a finished run or a human session's frames against its profile's milestones; writes run.json")
      .argument('<run>', 'the run or session folder')
      .addOption(
        new Option('--profile <id|file>', "the profile (default: the one the run followed, else run.json's own list)"),
      ),
    'the judge',
  )
    .addOption(intOption('--judge-budget <k>', 'at most this many judge calls (default: no limit)', { min: 1 }))
    .addOption(intOption('--judge-every <n>', 'steps per judgement', { min: 1 }).default(3))
    .addOption(jsonFlag())
    .action(act((run: string, o: MilestonesJudgeFlags) => actions.milestonesJudge(run, o)));

  m.command('label')
    .description(
      "a person's verdict on one milestone of a judged run, kept apart from the judge's (milestone-labels.json)",
    )
    .argument('<run>', 'the run or session folder')
    .addOption(new Option('--milestone <name>', 'the milestone, by its name in the checklist').makeOptionMandatory())
    .addOption(
      choiceOption('--reached <verdict>', 'reached or not; clear removes the label', [
        'yes',
        'no',
        'clear',
      ]).makeOptionMandatory(),
    )
    .addOption(intOption('--episode <n>', 'the episode (from 0)', { min: 0 }).default(0))
    .addOption(jsonFlag())
    .action(act((run: string, o: MilestonesLabelFlags) => actions.milestonesLabel(run, o)));

  m.command('agreement')
    .description('judged vs human-labelled milestone scores per game: mean judged, mean human, percentage difference')
    .argument('[runs...]', 'run or session folders (default: every run in --runs-dir)')
    .addOption(runsDirOption())
    .addOption(jsonFlag())
    .action(act((runs: string[], o: MilestonesAgreementFlags) => actions.milestonesAgreement(runs, o)));
}
