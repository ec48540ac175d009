/**
 * The command line as one commander declaration: every command answers --help; an unknown
 * option, a bad value or options that do not fit together print the message and the command's
 * usage and exit 2; a failure while running exits 1; defaults come from the declaration; and
 * docs/cli.md's option reference and every `gamepilot …` example in the docs agree with it.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../electron/cli/program.ts';
import type { Actions, RunFlags } from '../../electron/cli/command-flags.ts';
import { optionReference, REFERENCE_START, withReference } from '../../electron/cli/reference.ts';
import { runFrom } from '../../electron/cli/run-command.ts';
import { getGame } from '../../games/index.ts';
import { runSettings, vlmSettingsOf } from '../../electron/session/compose.ts';
import { loadCatalog } from '../../electron/profiles/registry.ts';
import { ROOT, runCli } from '../helpers/cli.ts';
import { suiteGames } from '../../electron/cli/suite-command.ts';
import { INGVP_SETTINGS, parseLevels, parseSettings } from '../../electron/ingvp/ingvp-settings.ts';

/** Parses `argv` in-process; actions only record what they were given. */
async function parse(argv: string[], actions: Partial<Actions> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const calls: { command: string; args: unknown[] }[] = [];
  const recording = new Proxy(actions as Actions, {
    get: (target, command: string) =>
      (target as unknown as Record<string, unknown>)[command] ??
      ((...args: unknown[]) => {
        calls.push({ command, args });
        return 0;
      }),
  });
  let code: number | undefined;
  const program = buildProgram(recording, (c) => (code = c), {
    writeOut: (s) => out.push(s),
    writeErr: (s) => err.push(s),
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (!(e instanceof CommanderError)) throw e;
    code = e.exitCode === 0 ? 0 : 2;
  }
  return { code, stdout: out.join(''), stderr: err.join(''), calls, program };
}

const COMMANDS = [
  'windows',
  'games',
  'run',
  'bench',
  'record',
  'idc',
  'arena',
  'leaderboard',
  'export',
  'report',
  'sync',
  'video',
  'web',
  'mcp',
  'profiles',
  'profile',
  'memory',
  'milestones',
  'errors',
  'suite',
  'sweep',
  'worker',
];

describe('gamepilot --help', () => {
  it('every command prints its usage and options with --help and exits 0', async () => {
    const { program } = await parse(['--help']);
    expect(
      program.commands
        .map((c) => c.name())
        .filter((n) => n !== 'help')
        .sort(),
    ).toEqual([...COMMANDS].sort());
    for (const name of COMMANDS) {
      const r = await parse([name, '--help']);
      expect(r.code, name).toBe(0);
      expect(r.stdout, name).toMatch(new RegExp(`^Usage: gamepilot ${name} `));
      const cmd = program.commands.find((c) => c.name() === name)!;
      for (const o of cmd.options) {
        // A former name is hidden (the current one is listed); every other option is shown.
        if (o.hidden) expect(r.stdout, `${name} ${o.flags}`).not.toContain(`${o.long} `);
        else expect(r.stdout, `${name} ${o.flags}`).toContain(o.flags);
      }
      expect(r.calls, name).toEqual([]); // help runs nothing
    }
  });

  it('answers `idc --help` from a real process (it used to say "Unknown option")', async () => {
    const r = await runCli(['idc', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Usage: gamepilot idc \[options\]/);
    expect(r.stdout).toMatch(/--rounds <r>\s+reflection rounds after round 0 \(default: 10\)/);
    expect(r.stderr).toBe('');
  });
});

describe('mistakes in a call exit 2 with the command’s usage', () => {
  it('an unknown option', async () => {
    const r = await parse(['leaderboard', '--gmae', '2048']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: unknown option '--gmae'/);
    expect(r.stderr).toMatch(/Usage: gamepilot leaderboard \[options\]/);
    expect(r.calls).toEqual([]);
  });

  it('a bad value names the option and the allowed values', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['run', '--game', '2048', '--latency', 'fast'],
        /option '--latency <mode>' argument 'fast' is invalid\. Allowed choices are stop, slow, normal, lcrt\./,
      ],
      [
        ['run', '--game', '2048', '--quality', '101'],
        /option '--quality <q>' argument '101' is invalid\. Allowed: a whole number from 1 to 100\./,
      ],
      [
        ['run', '--game', '2048', '--history', '1.5'],
        /option '--history <k>' argument '1\.5' is invalid\. Allowed: a whole number from 1 to 16\./,
      ],
      [
        ['run', '--game', '2048', '--temperature', '-1'],
        /option '--temperature <t>' argument '-1' is invalid\. Allowed: a number from 0 to 2\./,
      ],
      [
        ['run', '--window', '(unclosed'],
        /option '--window <regex>' argument '\(unclosed' is invalid\. Allowed: a regular expression/,
      ],
      [
        ['run', '--game', '2048', '--allow-keys', 'alt+f4,hyper+q'],
        /option '--allow-keys <list>' argument 'alt\+f4,hyper\+q' is invalid\..*hyper/,
      ],
      [
        ['record', '--game', '2048', '--role', 'judge', '--participant', 'p1', '--consent'],
        /option '--role <role>' argument 'judge' is invalid\. Allowed choices are rookie, expert\./,
      ],
      [
        ['record', '--game', '2048', '--role', 'expert', '--participant', 'Jane Doe', '--consent'],
        /option '--participant <id>' argument 'Jane Doe' is invalid\. Allowed: a pseudonym/,
      ],
      [
        ['bench', '--record', '--window-size', '10x10'],
        /option '--window-size <WxH>' argument '10x10' is invalid\. Allowed: WIDTHxHEIGHT, each at least 64/,
      ],
      [
        ['idc', '--game', 'chess', '--model', 'm'],
        /option '--game <id>' argument 'chess' is invalid\. Allowed choices are 2048, tictactoe, snake, maze, sokoban, ingvp-maze, queens, sudoku, hanoi, fifteen\./,
      ],
      [
        ['web', '--port', '-1'],
        /option '--port <port>' argument '-1' is invalid\. Allowed: a whole number from 0 to 65535\./,
      ],
    ];
    for (const [argv, message] of cases) {
      const r = await parse(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr, argv.join(' ')).toMatch(message);
      expect(r.stderr, argv.join(' ')).toMatch(new RegExp(`Usage: gamepilot ${argv[0]} `));
      expect(r.calls).toEqual([]);
    }
  });

  it('a missing required option or argument', async () => {
    expect((await parse(['record', '--game', '2048', '--role', 'expert', '--participant', 'p1'])).stderr).toMatch(
      /required option '--consent' not specified/,
    );
    expect((await parse(['idc', '--game', '2048'], {})).stderr).toMatch(
      /required option '--model <name>' not specified/,
    );
    const video = await parse(['video']);
    expect(video.code).toBe(2);
    expect(video.stderr).toMatch(/missing required argument 'dir'/);
  });

  it('options that do not fit together, checked before anything opens', async () => {
    const run = async (o: RunFlags) => {
      runFrom(o);
      return 0;
    };
    for (const [argv, message] of [
      [['run'], /give a target: --game <id>, --window <title regex> or --window-id <id>/],
      [['run', '--game', '2048', '--window', 'x'], /give one of --game, --window or --window-id/],
      [
        ['run', '--window', 'x', '--action-space', 'semantic', '--no-profile'],
        /--action-space semantic on a window plays its profile's moves: do not turn --profile off/,
      ],
      [['run', '--game', '2048', '--agent', 'vlm'], /--agent vlm needs a model/],
      [['run', '--game', '2048', '--agent', 'mcp'], /--agent mcp is an MCP client: connect one to `gamepilot mcp`/],
    ] as const) {
      const saved = process.env.GAMEPILOT_MODEL;
      delete process.env.GAMEPILOT_MODEL;
      try {
        const r = await parse([...argv], { run });
        expect(r.code, argv.join(' ')).toBe(2);
        expect(r.stderr).toMatch(message);
        expect(r.stderr).toMatch(/Usage: gamepilot run /);
      } finally {
        if (saved !== undefined) process.env.GAMEPILOT_MODEL = saved;
      }
    }
  });

  it('from a real process: exit 2 and nothing on stdout; a failure while running exits 1', async () => {
    const config = mkdtempSync(path.join(tmpdir(), 'gp-cli-'));
    const bad = await runCli(['leaderboard', '--runs-dir', config, '--json', '--bogus'], {
      env: { GAMEPILOT_CONFIG_DIR: config },
    });
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/unknown option '--bogus'[\s\S]*Usage: gamepilot leaderboard/);
    const failed = await runCli(['video', path.join(config, 'no-such-run')], { env: { GAMEPILOT_CONFIG_DIR: config } });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^gamepilot video: /m);
    const none = await runCli([], { env: { GAMEPILOT_CONFIG_DIR: config } });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/Usage: gamepilot <command> \[options\]/);
    const ok = await runCli(['leaderboard', '--runs-dir', config, '--json'], { env: { GAMEPILOT_CONFIG_DIR: config } });
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual([]);
  });
});

describe('defaults come from the declaration', () => {
  it('a bare run gets the documented defaults; the profile, else the game, decides episodes, steps and latency', async () => {
    const r = await parse(['run', '--game', '2048']);
    expect(r.code).toBe(0);
    const flags = r.calls[0]!.args[0] as RunFlags;
    expect(flags).toMatchObject({
      agent: 'random',
      actionSpace: 'gui',
      seed: 0,
      runsDir: 'runs',
      detail: 'auto',
      repairs: 1,
      timeoutMs: 120000,
      idleTimeoutMs: 30000,
      maxRetries: 3,
      retryAfterCapMs: 20000,
      maxAnswerBytes: 16 * 1024 * 1024,
      imageSize: 1280,
      format: 'jpeg',
      quality: 80,
      capture: 'auto',
      maxErrors: 5,
      paceMs: 0,
      reflection: 'none',
    });
    // Left to the profile (then the built-in, then the defaults): not given, not defaulted here.
    for (const k of [
      'history',
      'latency',
      'stopIntervalMs',
      'slowBufferMs',
      'episodes',
      'maxSteps',
      'profile',
    ] as const)
      expect(flags[k], k).toBeUndefined();
    const { spec } = runFrom(flags);
    expect(spec).toMatchObject({ game: '2048', seed: 0 });
    expect([spec.episodes, spec.stopIntervalMs, spec.slowBufferMs]).toEqual([undefined, undefined, undefined]);
    const def = getGame('2048');
    expect(runSettings(spec, undefined, def)).toMatchObject({
      episodes: 5,
      maxSteps: 1000,
      latency: 'normal',
      latencySettings: { stopIntervalMs: 2000, slowBufferMs: 5000 },
    });
    expect(runSettings({}, undefined, undefined)).toMatchObject({ episodes: 1, maxSteps: 50, latency: 'normal' });
    // A profile fills what the command line leaves open; what the command line gives wins.
    const pvz = loadCatalog().entries.find((e) => e.profile.id === 'plants-vs-zombies')!.profile;
    expect(runSettings({}, pvz, undefined)).toMatchObject({ episodes: 5, maxSteps: 50, latency: 'normal' });
    const given = runFrom(
      (await parse(['run', '--window', 'Plants', '--latency', 'stop', '--max-steps', '9', '--stop-interval-ms', '500']))
        .calls[0]!.args[0] as RunFlags,
    ).spec;
    expect(runSettings(given, pvz, undefined)).toMatchObject({
      episodes: 5,
      maxSteps: 9,
      latency: 'stop',
      latencySettings: { stopIntervalMs: 500, slowBufferMs: 5000 },
    });
    expect((await parse(['run', '--window', 'x', '--no-profile'])).calls[0]!.args[0]).toMatchObject({ profile: false });
    expect((await parse(['run', '--window', 'x', '--profile', 'sgt-mines'])).calls[0]!.args[0]).toMatchObject({
      profile: 'sgt-mines',
    });
  });

  it('numbers arrive as numbers', async () => {
    const r = await parse([
      'run',
      '--game',
      'snake',
      '--episodes',
      '3',
      '--temperature',
      '0.5',
      '--price-in',
      '2.5',
      '--allow-keys',
      'alt+f4, alt+click',
    ]);
    const { spec } = runFrom(r.calls[0]!.args[0] as RunFlags);
    expect(spec).toMatchObject({ episodes: 3, allowKeys: ['alt+f4', 'alt+click'], temperature: 0.5, priceIn: 2.5 });
    expect(vlmSettingsOf(spec)).toMatchObject({ temperature: 0.5, price: { inputPerM: 2.5, outputPerM: 0 } });
  });
});

describe('the docs agree with the declaration', () => {
  const cliDoc = readFileSync(path.join(ROOT, 'docs', 'cli.md'), 'utf8');
  const program = buildProgram(new Proxy({} as Actions, { get: () => () => 0 }), () => {});

  it('docs/cli.md holds the option reference generated from the declaration (npm run cli-reference)', () => {
    expect(withReference(cliDoc, optionReference(program))).toBe(cliDoc);
    // One copy only: the README links to it rather than carrying its own.
    expect(readFileSync(path.join(ROOT, 'README.md'), 'utf8')).not.toContain(REFERENCE_START);
  });

  it('a stale reference fails that check: an option gone, a default changed, a command gone', () => {
    const reference = optionReference(program);
    const stale = [
      reference.replace(/^\| `--max-steps <n>` .*\n/m, ''),
      reference.replace(
        '| `--workers <n>` | parallel workers, each on its own private display | `2` |',
        '| `--workers <n>` | parallel workers, each on its own private display | `3` |',
      ),
      reference.replace(/\n\n#### `gamepilot worker \[options\]`[\s\S]*$/, ''),
    ];
    for (const r of stale) {
      expect(r).not.toBe(reference);
      const staleDoc = withReference(cliDoc, r);
      expect(withReference(staleDoc, reference), r.slice(0, 60)).not.toBe(staleDoc);
    }
  });

  it('every option a `gamepilot …` example passes is one its command declares (README, docs/*.md, electron/api)', () => {
    const files = [
      'README.md',
      'electron/api/README.md',
      ...readdirSync(path.join(ROOT, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    const flagsOf = (s: string) => s.match(/--[a-z][\w-]*/g) ?? [];
    let examples = 0;
    for (const file of files) {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      for (const [line, first, second, tail] of text.matchAll(/gamepilot ([a-z][\w-]*)(?: ([a-z][\w-]*))?([^\n`]*)/g)) {
        const where = `${file}: ${line}`;
        const top = program.commands.find((c) => c.name() === first);
        const sub = top?.commands.find((c) => c.name() === second);
        const command = top?.commands.length ? sub : top;
        const rest = top?.commands.length ? tail! : `${second ? ` ${second}` : ''}${tail}`;
        if (!command) {
          // Prose ("gamepilot is …") passes no options; an example of a command that does not exist does.
          expect(flagsOf(`${second ?? ''}${tail}`), `not a command: ${where}`).toEqual([]);
          continue;
        }
        examples++;
        // Under its current name: a former one (hidden, still accepted) is not an example to copy.
        const declared = new Set(command.options.filter((o) => !o.hidden).map((o) => o.long));
        for (const flag of flagsOf(rest!))
          expect(declared.has(flag) || flag === '--help', `${flag} in ${where}`).toBe(true);
      }
    }
    expect(examples).toBeGreaterThan(100);
  });
});

describe('gamepilot milestones', () => {
  it('takes the judge budget and pace on run, and refuses a budget of 0 before anything runs', async () => {
    const r = await parse(['run', '--game', '2048', '--judge-budget', '4', '--judge-model', 'j', '--judge-every', '2']);
    expect(r.code).toBe(0);
    const flags = r.calls[0]!.args[0] as RunFlags;
    expect(runFrom(flags).spec).toMatchObject({ judge: true, judgeModel: 'j', judgeBudget: 4, judgeEvery: 2 });
    const off = await parse(['run', '--game', '2048', '--no-judge']);
    expect(runFrom(off.calls[0]!.args[0] as RunFlags).spec.judge).toBe(false);
    const bad = await parse(['milestones', 'judge', 'runs/x', '--model', 'm', '--judge-budget', '0']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--judge-budget/);
    expect(bad.calls).toEqual([]);
    const label = await parse(['milestones', 'label', 'runs/x', '--milestone', 'A', '--reached', 'maybe']);
    expect(label.code).toBe(2);
    expect(label.stderr).toMatch(/yes, no, clear|yes.*no.*clear/);
  });
});

describe('gamepilot suite ingvp: options', () => {
  it('parses games, settings and levels, and refuses bad ones with exit 2', async () => {
    const seen: unknown[] = [];
    const ok = await parse(['suite', 'ingvp', '--agent', 'solver', '--games', 'maze,hanoi', '--levels', '1-3,9'], {
      suite: async (name, o) => {
        seen.push([name, suiteGames(o.games), parseLevels(o.levels), parseSettings(o.settings)]);
        return 0;
      },
    });
    expect(ok.code).toBe(0);
    expect(seen).toEqual([['ingvp', ['ingvp-maze', 'hanoi'], [1, 2, 3, 9], [...INGVP_SETTINGS]]]);
    expect(() => parseLevels('0-3')).toThrow(/levels run from 1 to 50/);
    expect(() => parseSettings('one-step,text')).toThrow(/unknown setting one-step, text/);
    expect(() => suiteGames('chess')).toThrow(/unknown ING-VP game chess/);
    const bad = await parse(['suite', 'ingvp', '--agent', 'human']);
    expect(bad.code).toBe(2);
  });
});

describe('gamepilot sweep / worker options', () => {
  it('takes the sweep file and its options, and refuses bad ones before anything runs', async () => {
    const ok = await parse(['sweep', 'm.yaml', '--workers', '3', '--budget-usd', '2.5']);
    expect(ok.calls).toEqual([
      {
        command: 'sweep',
        args: [
          'm.yaml',
          expect.objectContaining({ workers: 3, budgetUsd: 2.5, runsDir: 'runs', queueName: 'gamepilot' }),
        ],
      },
    ]);
    expect((await parse(['sweep', 'm.yaml', '--workers', '0'])).code).toBe(2);
    expect((await parse(['sweep'])).code).toBe(2);
    expect((await parse(['worker'])).stderr).toMatch(/--queue/);
    const w = await parse(['worker', '--queue', 'redis://127.0.0.1:6379', '--displays', '2']);
    expect(w.calls[0]!.args[0]).toMatchObject({ queue: 'redis://127.0.0.1:6379', displays: 2, runsDir: 'runs' });
    expect((await parse(['worker', '--queue', 'redis://x', '--queue-name', 'a b'])).code).toBe(2);
  });
});
