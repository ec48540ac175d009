/**
 * The profile commands' part of the `gamepilot` declaration (program.ts): `profiles`, `profile new`
 * and `profile check`, their options and help.
 */
import { type Command, Option } from 'commander';
import type { Act, Actions, ProfileCheckFlags, ProfileNewFlags } from './command-flags.ts';
import { checkedOption, jsonFlag, judgeModelOptions, parseTitlePattern, patternOption } from './options.ts';
import { specOption } from './spec-option.ts';

export function profileCommands(program: Command, act: Act, actions: Actions) {
  program
    .command('profiles')
    .description("list the titles' profiles: shipped, the user's (<config>/profiles), with category, tier and scoring")
    .addOption(jsonFlag())
    .action(act((o: { json?: boolean }) => actions.profiles(o)));

  const profile = program.command('profile').description('work on profiles');
  profile
    .command('new')
    .description('write a starter profile from a live window (title, size, executable, a first screenshot beside it)')
    .addOption(
      checkedOption(
        '--window <regex>',
        'the window whose title matches (case-insensitive); it must match exactly one',
        parseTitlePattern,
      ).makeOptionMandatory(),
    )
    .addOption(new Option('--out <file>', 'where to write it (default: <config>/profiles/<id>.yaml)'))
    .addOption(
      patternOption(
        '--id <id>',
        'the profile id (default: from the title)',
        /^[a-z0-9][a-z0-9-]{0,63}$/,
        'lower-case letters, digits and dashes',
      ),
    )
    .action(act((o: ProfileNewFlags) => actions.profileNew(o)));

  judgeModelOptions(
    profile
      .command('check')
      .description(
        "run a profile's episode-end and reset-ready detectors once on a window as it is now (or a saved frame) and say which fire; sends nothing to the window",
      )
      .argument('<profile>', 'the profile: an id (`gamepilot profiles`) or a YAML/JSON file')
      .addOption(specOption('window', { parse: parseTitlePattern }))
      .addOption(specOption('windowId'))
      .addOption(
        new Option(
          '--frame <file>',
          "a saved PNG or JPEG frame instead of a window (e.g. a run's frames/e000-end.png)",
        ),
      ),
    'the model a `judge` detector asks (without one, a judge detector reports an error)',
    { mandatory: false },
  )
    .addOption(jsonFlag())
    .action(act((ref: string, o: ProfileCheckFlags) => actions.profileCheck(ref, o)));
}
