/**
 * One name per concept on the command line: every option of every `gamepilot` command (the
 * real declaration, subcommands included) is checked against a table of concept → flag, and
 * every command that reads or writes the runs folder takes it as `--runs-dir`, parsed through
 * to the flags its action gets. Former names stay accepted, hidden, with a note.
 */
import { CommanderError, type Command, type Option } from 'commander';
import { describe, expect, it } from 'vitest';
import type { Actions } from '../../electron/cli/command-flags.ts';
import { buildProgram } from '../../electron/cli/program.ts';

interface Concept {
  /** The one flag that names it. */
  flag: string;
  /** How an option's help says it takes this concept. */
  means: RegExp;
  /** Names it had before: accepted only as hidden aliases. */
  formerly?: string[];
}

const CONCEPTS: Record<string, Concept> = {
  'the runs folder': { flag: '--runs-dir', means: /\bruns folder\b/i, formerly: ['--out', '--runs'] },
  'the config folder': { flag: '--config-dir', means: /settings\.json lives|\bconfig folder\b/i },
  'episodes to play': { flag: '--episodes', means: /^episodes\b/i, formerly: ['--trials'] },
  'the seed of the games played': { flag: '--seed', means: /^seed of\b/i },
  "the dataset split's seed": { flag: '--split-seed', means: /episodes land in validation/, formerly: ['--seed'] },
  'the model endpoint': { flag: '--base-url', means: /^an OpenAI-compatible endpoint/ },
  'the API key': { flag: '--api-key', means: /^API key\b/ },
  'a window by its title': { flag: '--window', means: /^(a|the) window whose title matches/ },
  'a window by its id': { flag: '--window-id', means: /^one exact window, by the id/ },
  'the result as JSON on stdout': { flag: '--json', means: /JSON (object|lines) on stdout/ },
};

/**
 * A concept's former name that still means something else on these commands (a file or folder
 * the command itself writes, a count), and a concept's flag reused for something else.
 */
const OTHER_MEANINGS: Record<string, Record<string, string>> = {
  '--out': {
    suite: 'the suite folder (inside the runs folder by default)',
    export: 'the dataset folder',
    report: 'the HTML page',
    video: 'the video file',
    'profile new': 'the profile file',
  },
  '--runs': { bench: 'how many processes --startup starts' },
  '--json': { report: 'a file the report data is also written to, beside --csv <dir>' },
};

/** The commands that read or write the runs folder, each with the least it needs to parse. */
const RUNS_COMMANDS: Record<string, string[]> = {
  run: ['run', '--game', '2048'],
  record: ['record', '--game', '2048', '--role', 'expert', '--participant', 'p1', '--consent'],
  idc: ['idc', '--game', '2048', '--model', 'm'],
  arena: ['arena', '--game', 'tictactoe-pvp', '--agents', 'solver,random'],
  suite: ['suite', 'ingvp'],
  sweep: ['sweep', 'paper.yaml'],
  worker: ['worker', '--queue', 'redis://127.0.0.1:6379'],
  leaderboard: ['leaderboard'],
  report: ['report'],
  export: ['export', '--out', 'dataset'],
  web: ['web'],
  mcp: ['mcp'],
  'milestones agreement': ['milestones', 'agreement'],
  'errors judge': ['errors', 'judge', '--model', 'm'],
  // bench --storage uploads the folder's newest completed run.
  bench: ['bench'],
};

interface Call {
  command: string;
  args: unknown[];
}

/** Parses `argv` with the real declaration; actions only record what they were given. */
async function parse(argv: string[]) {
  const calls: Call[] = [];
  const err: string[] = [];
  const actions = new Proxy({} as Actions, {
    get:
      (_t, command: string) =>
      (...args: unknown[]) => {
        calls.push({ command, args });
        return 0;
      },
  });
  let code: number | undefined;
  const program = buildProgram(actions, (c) => (code = c), { writeOut: () => {}, writeErr: (s) => err.push(s) });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (!(e instanceof CommanderError)) throw e;
    code = e.exitCode === 0 ? 0 : 2;
  }
  return { code, calls, stderr: err.join('') };
}

/** The flags object an action got (its last object argument). */
function flagsOf(call: Call | undefined): Record<string, unknown> {
  const flags = call?.args.filter((a) => a && typeof a === 'object' && !Array.isArray(a) && !(a instanceof Map)).at(-1);
  expect(flags, 'the action got its flags').toBeDefined();
  return flags as Record<string, unknown>;
}

/** Every command that does something, by its full name (`milestones judge`). */
function leafCommands(): { name: string; cmd: Command }[] {
  const program = buildProgram(new Proxy({} as Actions, { get: () => () => 0 }), () => {});
  return program.commands.flatMap((c) =>
    c.commands.length
      ? c.commands.map((s) => ({ name: `${c.name()} ${s.name()}`, cmd: s }))
      : [{ name: c.name(), cmd: c }],
  );
}

const visible = (cmd: Command) => cmd.options.filter((o) => !o.hidden);
const where = (name: string, o: Option) => `${name} ${o.flags}: ${o.description}`;

describe('one name per concept', () => {
  const commands = leafCommands();

  it('an option that takes a concept of the table is named by its flag', () => {
    let named = 0;
    for (const { name, cmd } of commands)
      for (const o of visible(cmd))
        for (const [concept, c] of Object.entries(CONCEPTS))
          if (c.means.test(o.description)) {
            named++;
            expect(o.long, `${where(name, o)} takes ${concept}`).toBe(c.flag);
          }
    expect(named).toBeGreaterThan(40); // the table reads the real help texts, not nothing
  });

  it("a concept's flag, or a former name of one, means that concept unless listed as another meaning", () => {
    for (const { name, cmd } of commands)
      for (const o of visible(cmd)) {
        const owner = Object.entries(CONCEPTS).find(([, c]) => c.flag === o.long);
        const former = Object.values(CONCEPTS).some((c) => c.formerly?.includes(o.long!));
        if (!owner && !former) continue;
        const other = OTHER_MEANINGS[o.long!]?.[name];
        if (other) {
          expect(owner?.[1].means.test(o.description) ?? false, `${where(name, o)} is listed as ${other}`).toBe(false);
          continue;
        }
        expect(owner, `${where(name, o)}: a former name, visible`).toBeDefined();
        expect(o.description, `${where(name, o)} does not mean ${owner![0]}`).toMatch(owner![1].means);
      }
  });

  it('every hidden option is the former name of a concept the command names by its flag', () => {
    let hidden = 0;
    for (const { name, cmd } of commands)
      for (const o of cmd.options.filter((x) => x.hidden)) {
        hidden++;
        const concept = Object.values(CONCEPTS).find(
          (c) => c.formerly?.includes(o.long!) && visible(cmd).some((v) => v.long === c.flag),
        );
        expect(concept, `${name} ${o.flags}`).toBeDefined();
      }
    expect(hidden).toBeGreaterThanOrEqual(9); // --out ×6, --runs, --trials, --seed
  });

  it('a former name sets the option under its new name, through its checks, and says it was renamed', async () => {
    const cases: [string[], string, unknown, string][] = [
      [['run', '--game', '2048', '--out', 'old'], 'runsDir', 'old', '--out is now --runs-dir'],
      [['sweep', 'paper.yaml', '--out', 'old'], 'runsDir', 'old', '--out is now --runs-dir'],
      [['report', '--runs', 'old'], 'runsDir', 'old', '--runs is now --runs-dir'],
      [
        ['arena', '--game', 'switches', '--agents', 'solver', '--trials', '3'],
        'episodes',
        3,
        '--trials is now --episodes',
      ],
      [['export', 'runs', '--out', 'd', '--seed', '7'], 'splitSeed', 7, '--seed is now --split-seed'],
    ];
    for (const [argv, key, value, note] of cases) {
      const r = await parse(argv);
      expect(r.code, argv.join(' ')).toBe(0);
      expect(flagsOf(r.calls[0])[key], argv.join(' ')).toEqual(value);
      expect(r.stderr, argv.join(' ')).toContain(`note: ${note}`);
    }
    // The new name's checks hold for the old one: 0 episodes is refused before anything runs.
    const bad = await parse(['arena', '--game', 'switches', '--agents', 'solver', '--trials', '0']);
    expect(bad.code).toBe(2);
    expect(bad.calls).toEqual([]);
    // Under the new name, no note.
    expect((await parse(['run', '--game', '2048', '--runs-dir', 'new'])).stderr).toBe('');
  });
});

describe('--runs-dir', () => {
  it('is taken by exactly the commands that read or write the runs folder', () => {
    const taking = leafCommands()
      .filter(({ cmd }) => visible(cmd).some((o) => o.long === '--runs-dir'))
      .map(({ name }) => name);
    expect(taking.sort()).toEqual(Object.keys(RUNS_COMMANDS).sort());
  });

  for (const [name, argv] of Object.entries(RUNS_COMMANDS))
    it(`reaches ${name}'s action`, async () => {
      const r = await parse([...argv, '--runs-dir', 'somewhere/runs']);
      expect(r.code).toBe(0);
      expect(r.calls).toHaveLength(1);
      // export reads the runs folder when given no folders of its own.
      if (name === 'export') expect(r.calls[0]!.args[0]).toEqual(['somewhere/runs']);
      expect(flagsOf(r.calls[0]).runsDir).toBe('somewhere/runs');
      // Its default is the one every command shares.
      expect(flagsOf((await parse(argv)).calls[0]).runsDir).toBe('runs');
    });

  it('export takes folders or --runs-dir, not both', async () => {
    const r = await parse(['export', 'a', '--runs-dir', 'b', '--out', 'd']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/give run folders or --runs-dir, not both/);
  });
});
