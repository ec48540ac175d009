/**
 * A third-party MCP client against `gamepilot mcp` over stdio: the official MCP Inspector
 * (`@modelcontextprotocol/inspector`, a pinned devDependency), from its command lines, started
 * with only the `env` a user's client configuration would give (the Inspector passes a stdio
 * server a short list of variables, plus its `-e` entries).
 *
 * `mcp-inspector --cli` lists the tools with `--strict`, its tool-schema portability lint,
 * which must find nothing. That CLI is one process, and so one server, per call: a session
 * cannot span two of its calls. The session's calls therefore go through the same package's
 * connection CLI, `mcpdo`, whose private daemon holds one stdio connection across commands:
 * one `tools/call` of each tool on the built-in 2048, each answer's shape checked; episodes
 * the client ends with end_episode score as the game's engine says for the same seed and keys,
 * the run is completed and on the leaderboard, and the observations no act answered are no
 * steps. A run ended with end_session before its episodes are is stopped and not pooled.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, json, ROOT, runCli } from '../helpers/cli.ts';
import { TEST_FILE_MARK } from '../helpers/leak-check.ts';
import { readRun } from '../../electron/store/run-store.ts';
import { getGame } from '../../games/index.ts';
import { seededRng } from '../../games/shared/rng.ts';

const BIN_DIR = path.join(ROOT, 'node_modules', '.bin');
const tmp = () => mkdtempSync(path.join(tmpdir(), 'gp-inspector-'));

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(bin: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(BIN_DIR, bin), args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${bin} ${args.join(' ')} timed out\n${stderr}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The Inspector's own files (catalog, settings) in a home of the test's, its secrets in memory. */
const home = tmp();
const inspectorEnv: NodeJS.ProcessEnv = { ...process.env, HOME: home, MCP_INSPECTOR_SECRET_STORE: 'memory' };

/** The server a client configuration starts: the command, and the `env` entries it needs. */
function serverTarget(runsDir: string): string[] {
  const env = {
    DISPLAY: process.env.DISPLAY!,
    GAMEPILOT_CONFIG_DIR: process.env.GAMEPILOT_CONFIG_DIR!,
    // The leak check's mark: the server is this file's process.
    [TEST_FILE_MARK]: process.env[TEST_FILE_MARK]!,
  };
  return [
    ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
    '--cwd',
    ROOT,
    '--',
    process.execPath,
    BIN,
    'mcp',
    '--runs-dir',
    runsDir,
  ];
}

type Content = { type: string; text?: string; data?: string; mimeType?: string }[];
interface ToolResult {
  content: Content;
  isError?: boolean;
}
const textOf = (r: ToolResult) => r.content.find((c) => c.type === 'text')?.text ?? '';
const jsonOf = (r: ToolResult) => JSON.parse(textOf(r));

describe('the MCP Inspector’s CLI against gamepilot mcp', () => {
  it('mcp-inspector --cli --strict lists every tool and finds nothing in their schemas', async () => {
    const runs = tmp();
    const t0 = performance.now();
    const listed = await run(
      'mcp-inspector',
      ['--cli', '--strict', '--format', 'json', '--method', 'tools/list', ...serverTarget(runs)],
      inspectorEnv,
    );
    process.stderr.write(`mcp-inspector --strict tools/list: ${Math.round(performance.now() - t0)} ms\n`);
    expect(listed.code, listed.stderr).toBe(0);
    const out = JSON.parse(listed.stdout) as { result: { tools: { name: string; inputSchema: object }[] } };
    // With --strict and --format json, findings would come as `schemaFindings` (and on stderr).
    expect(out).not.toHaveProperty('schemaFindings');
    expect(listed.stderr).not.toMatch(/^(Warning|Error): tool "/m);
    expect(listed.stderr).not.toMatch(/Schema portability/);
    expect(out.result.tools.map((t) => t.name).sort()).toEqual(
      [
        'act',
        'end_episode',
        'end_session',
        'list_targets',
        'observe',
        'pause',
        'resume',
        'set_latency',
        'start_session',
      ].sort(),
    );
    for (const t of out.result.tools) expect(t.inputSchema).toMatchObject({ type: 'object' });
    // One call standing alone: its own server, which ends with the call.
    const called = await run(
      'mcp-inspector',
      ['--cli', '--format', 'json', '--method', 'tools/call', '--tool-name', 'list_targets', ...serverTarget(runs)],
      inspectorEnv,
    );
    expect(called.code, called.stderr).toBe(0);
    const targets = jsonOf(JSON.parse(called.stdout).result);
    expect(targets).toMatchObject({
      busy: null,
      games: expect.arrayContaining([expect.objectContaining({ id: '2048' })]),
    });
  });

  describe('one call of each tool in one session (mcpdo, the Inspector’s connection CLI)', () => {
    const runs = tmp();
    let daemonEnv: NodeJS.ProcessEnv;
    let daemonDir: string;

    /** `mcpdo … tools/call NAME` on the connection: the tool's result (an error result too). */
    async function call(name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
      const r = await run(
        'mcpdo',
        ['--format', 'json', '--connection', 'gamepilot', 'tools/call', name, '--tool-args-json', JSON.stringify(args)],
        daemonEnv,
      );
      try {
        return JSON.parse(r.stdout) as ToolResult;
      } catch {
        throw new Error(`mcpdo tools/call ${name} exited ${r.code}:\n${r.stdout}\n${r.stderr}`);
      }
    }

    beforeAll(async () => {
      // A daemon of this test's own, reached by its token (mcpdo prints the exports).
      const exports = (await run('mcpdo', ['private'], inspectorEnv)).stdout;
      const vars = Object.fromEntries([...exports.matchAll(/^export (\w+)='([^']*)'$/gm)].map((m) => [m[1], m[2]]));
      expect(Object.keys(vars)).toEqual(
        expect.arrayContaining(['MCP_INSPECTOR_DAEMON_DIR', 'MCP_INSPECTOR_DAEMON_TOKEN']),
      );
      daemonDir = vars.MCP_INSPECTOR_DAEMON_DIR!;
      daemonEnv = { ...inspectorEnv, ...vars };
      const connected = await run(
        'mcpdo',
        ['--format', 'json', 'connect', '--connection', 'gamepilot', ...serverTarget(runs)],
        daemonEnv,
      );
      expect(connected.code, connected.stderr).toBe(0);
    });

    afterAll(async () => {
      if (!daemonEnv) return;
      await run('mcpdo', ['daemon', 'stop'], daemonEnv);
      if (daemonDir) rmSync(daemonDir, { recursive: true, force: true });
    });

    it('plays 2048 with every tool; end_episode scores each episode as the engine does; the run counts', async () => {
      const t0 = performance.now();
      const targets = jsonOf(await call('list_targets'));
      expect(targets.games).toEqual(expect.arrayContaining([expect.objectContaining({ id: '2048' })]));

      const started = jsonOf(await call('start_session', { game: '2048', episodes: 2, max_steps: 5, seed: 3 }));
      expect(started).toMatchObject({ runId: expect.any(String), player: expect.stringMatching(/^mcp:/) });
      expect(started).toMatchObject({ maxSteps: 5, episodes: 2 });

      const seen = await call('observe');
      expect(seen.content.find((c) => c.type === 'image')?.mimeType).toBe('image/jpeg');
      expect(textOf(seen)).toMatch(/Episode 1 of 2, step 1 of at most 5/);

      const acted = jsonOf(
        await call('act', { actions: [{ action_type: 'PRESS', parameters: { key: 'left' } }], reasoning: 'left' }),
      );
      expect(acted).toMatchObject({ episode: 1, step: 1, outcomes: [{ action: 'PRESS', ok: true }], next: 'observe' });

      expect(jsonOf(await call('set_latency', { mode: 'stop' })).latency).toMatchObject({ mode: 'stop' });
      expect(jsonOf(await call('pause'))).toEqual({ status: 'paused' });
      expect(jsonOf(await call('resume'))).toEqual({ status: 'running' });
      expect(textOf(await call('observe'))).toMatch(/Episode 1 of 2, step 2 of at most 5/);

      // The client judges the episode over: the waiting observation is no step.
      const first = jsonOf(await call('end_episode'));
      expect(first).toMatchObject({
        episode: { episode: 0, steps: 1, end: 'ended_by_player', score: expect.any(Number) },
        next: expect.stringMatching(/^observe/),
      });
      expect(textOf(await call('observe'))).toMatch(/Episode 2 of 2, step 1 of at most 5/);
      const last = jsonOf(await call('end_episode'));
      expect(last).toMatchObject({
        episode: { episode: 1, steps: 0, end: 'ended_by_player' },
        ended: { status: 'completed', runId: started.runId },
      });
      const ended = jsonOf(await call('end_session'));
      expect(ended).toMatchObject({ status: 'completed', runId: started.runId });
      process.stderr.write(`mcpdo: one call of each tool in ${Math.round(performance.now() - t0)} ms\n`);

      // Scored as the engine scores the same seed and keys, at the moment each episode ended.
      const engine = (episode: number, moves: string[]) => {
        const g = getGame('2048').create({ seed: 3, episode, rng: seededRng(3 * 1000003 + episode) });
        for (const m of moves) g.applyMove(m);
        return g.score();
      };
      const { meta, steps } = readRun(ended.runDir);
      expect(meta).toMatchObject({ status: 'completed', agent: started.player, game: '2048' });
      expect(meta.episodes.map((e) => [e.episode, e.steps, e.end])).toEqual([
        [0, 1, 'ended_by_player'],
        [1, 0, 'ended_by_player'],
      ]);
      expect(meta.episodes[0]!.score).toBeCloseTo(engine(0, ['left']), 2);
      expect(meta.episodes[1]!.score).toBeCloseTo(engine(1, []), 2);
      // Only the answered observation is a step, and only its frame is kept.
      expect(steps.map((s) => [s.episode, s.step, s.errors])).toEqual([[0, 0, []]]);
      expect(readdirSync(path.join(ended.runDir, 'frames')).map((f) => f.replace(/\.\w+$/, ''))).toEqual([
        'e000-s00000',
      ]);
      const board = json(await runCli(['leaderboard', '--runs-dir', runs, '--json']));
      expect(board).toEqual([expect.objectContaining({ game: '2048', player: started.player, runs: 1, episodes: 2 })]);

      // Ended with end_session during its second episode: stopped, not pooled; the first
      // episode keeps its score, and the observation left waiting is no step.
      jsonOf(await call('start_session', { game: '2048', episodes: 2, max_steps: 5, seed: 3 }));
      await call('observe');
      jsonOf(await call('end_episode'));
      await call('observe');
      const partial = jsonOf(await call('end_session'));
      expect(partial).toMatchObject({ status: 'stopped', endedBecause: 'the MCP client ended it' });
      const stopped = readRun(partial.runDir);
      expect(stopped.meta.episodes.map((e) => e.end)).toEqual(['ended_by_player', 'stopped']);
      expect(stopped.steps).toEqual([]);
      expect(existsSync(path.join(partial.runDir, 'frames', 'e001-s00000.jpg'))).toBe(false);
      expect(json(await runCli(['leaderboard', '--runs-dir', runs, '--json']))).toEqual([
        expect.objectContaining({ runs: 1 }),
      ]);
    });
  });
});
