/**
 * Sweeps over the contract, on both transports (the web shell's WebSocket and the Electron IPC
 * adapter) against one real core: sweep files listed by name from the config and runs folders,
 * names that are paths refused, a bad file refused with its line, a matrix from the form written
 * as a sweep file, and a real local-pool sweep (a private display per worker) streamed, stopped
 * at once and resumed without rerunning finished jobs.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GamepilotCore } from '../../electron/api/core.ts';
import type { WebShell } from '../../electron/web/loopback-server.ts';
import type { WsClient } from '../../renderer/src/api/clients.ts';
import type { ApiClient, CoreEvent } from '../../electron/api/contract.ts';
import { coreIn, serveBothTransports } from '../helpers/contract-setup.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'gp-sweep-contract-'));
const runsDir = path.join(tmp, 'runs');
const configDir = path.join(tmp, 'config');
let core: GamepilotCore;
let shell: WebShell;
let ws: WsClient;
let ipc: ApiClient;
const events: CoreEvent[] = [];

beforeAll(async () => {
  const staticDir = path.join(tmp, 'static');
  mkdirSync(staticDir, { recursive: true });
  writeFileSync(path.join(staticDir, 'index.html'), '<title>Gamepilot</title>');
  mkdirSync(path.join(runsDir, 'sweeps'), { recursive: true });
  writeFileSync(path.join(runsDir, 'sweeps', 'broken.yaml'), 'games: [2048]\nagents: [random, wizard]\n');
  writeFileSync(path.join(runsDir, 'sweeps', 'notes.txt'), 'not a sweep');
  core = coreIn(tmp);
  core.on('event', (e) => events.push(e));
  ({ shell, ws, ipc } = await serveBothTransports(core, staticDir));
});

afterAll(async () => {
  await core.stop();
  ws.close();
  await shell.close();
  rmSync(tmp, { recursive: true, force: true });
});

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('the request succeeded');
    },
    (err: unknown) => err,
  );

async function until(f: () => boolean, ms = 120_000) {
  await expect.poll(f, { timeout: ms, interval: 100 }).toBe(true);
}

/** Completed runs in the runs folder made by the sweep's jobs, by job id. */
function jobRuns(): { job: string; sweep: string; id: string; status: string }[] {
  return readdirSync(runsDir)
    .filter((n) => existsSync(path.join(runsDir, n, 'run.json')))
    .map((n) => JSON.parse(readFileSync(path.join(runsDir, n, 'run.json'), 'utf8')))
    .filter((m) => m.job)
    .map((m) => ({ job: m.job.id, sweep: m.job.sweep, id: m.id, status: m.status }));
}

for (const transport of ['websocket', 'ipc'] as const) {
  const client = () => (transport === 'websocket' ? ws : ipc);
  // Different max steps per transport: job ids come from the cell, so the two sweeps share no job.
  const maxSteps = transport === 'websocket' ? 3 : 4;
  const name = `form-${transport}`;

  describe(`sweeps over ${transport}`, () => {
    it('lists sweep files by name and refuses paths, unknown files and bad axes', async () => {
      const list = await client().request('listSweeps');
      expect(list.games.map((g) => g.id)).toEqual(expect.arrayContaining(['2048', 'tictactoe']));
      expect(list.agents).toEqual(['random', 'solver', 'vlm']);
      const broken = list.sweeps.find((s) => s.name === 'broken');
      expect(broken).toMatchObject({ folder: 'runs', jobs: 0 });
      expect(broken!.error).toMatch(/broken\.yaml:2: agents\.1/);
      expect(list.sweeps.some((s) => s.name === 'notes')).toBe(false);

      for (const bad of ['../etc/passwd', '/tmp/x', 'a/b', '..', '.hidden', 'x..y'])
        expect(await failure(client().request('startSweep', { name: bad }))).toMatchObject({
          code: 'bad-input',
          message: expect.stringMatching(/^startSweep: name/),
        });
      expect(await failure(client().request('startSweep', { name: 'x', folder: 'home' as never }))).toMatchObject({
        code: 'bad-input',
        message: expect.stringMatching(/^startSweep: folder/),
      });
      expect(await failure(client().request('startSweep', { name: 'nosuch' }))).toMatchObject({ code: 'not-found' });
      expect(await failure(client().request('startSweep', { name: 'broken', folder: 'runs' }))).toMatchObject({
        code: 'bad-input',
        message: expect.stringMatching(/broken\.yaml:2: agents\.1: .*\(nothing was run\)/),
      });
      // An unknown game from the form is refused before any file is written.
      expect(
        await failure(
          client().request('startSweep', {
            name: `chess-${transport}`,
            matrix: { games: ['chess'], agents: ['random'] },
          }),
        ),
      ).toMatchObject({ code: 'bad-input', message: expect.stringMatching(/games\.0: unknown game "chess"/) });
      expect(existsSync(path.join(configDir, 'sweeps', `chess-${transport}.yaml`))).toBe(false);
      // vlm needs the model in Settings.
      expect(
        await failure(client().request('startSweep', { name: 'v', matrix: { games: ['2048'], agents: ['vlm'] } })),
      ).toMatchObject({ code: 'bad-input', message: expect.stringMatching(/no model configured/) });
      expect(await client().request('stopSweep')).toEqual({ stopped: false });
    });

    it('runs a sweep from the form on the local pool: streams, stops at once, resumes without rerunning', async () => {
      const matrix = { games: ['2048'], agents: ['random' as const], trials: 3, maxSteps };
      const mark = events.length;
      const mine = <T extends CoreEvent['type']>(type: T) =>
        events
          .slice(mark)
          .filter(
            (e): e is Extract<CoreEvent, { type: T }> => e.type === type && (e as { sweep?: string }).sweep === name,
          );
      const started = await client().request('startSweep', { name, matrix, workers: 1 });
      expect(started).toEqual({ name, total: 3, resumed: 0, workers: 1 });
      // The form's matrix is now a sweep file in the config folder, listed by name.
      const file = readFileSync(path.join(configDir, 'sweeps', `${name}.yaml`), 'utf8');
      expect(file).toMatch(/games:\s*\n\s*- "?2048"?/);
      // The one busy rule.
      expect(await failure(client().request('startSweep', { name, matrix }))).toMatchObject({
        code: 'busy',
        message: 'a sweep is already going; stop it first',
      });
      const state = await client().request('state');
      expect(state.status).toBe('running');
      expect(state.sweep).toMatchObject({ name, folder: 'config', workers: 1, progress: { total: 3 } });
      expect(state.sweep!.jobs).toHaveLength(3);

      await until(() => mine('sweep-job').some((e) => e.job.status === 'completed'));
      expect(await client().request('stopSweep')).toEqual({ stopped: true });
      expect((await client().request('state')).status).toBe('idle');
      const done1 = mine('sweep-done').at(-1)!;
      expect(done1).toMatchObject({ stopped: true, total: 3 });
      expect(done1.completed).toBeGreaterThanOrEqual(1);
      expect(done1.completed).toBeLessThan(3);
      const runningJob = mine('sweep-job').find((e) => e.job.status === 'running')!.job;
      expect(runningJob.display).toMatch(/^:\d+$/);
      const finished = mine('sweep-job').filter((e) => e.job.status === 'completed');
      for (const e of finished) {
        expect(e.job.runId).toBeTruthy();
        expect(existsSync(path.join(runsDir, e.job.runId!, 'run.json'))).toBe(true);
      }
      expect(mine('sweep-progress').at(-1)!.progress).toMatchObject({ done: done1.completed, total: 3 });
      const before = jobRuns().filter((r) => r.status === 'completed');
      const listed = (await client().request('listSweeps')).sweeps.find((s) => s.name === name);
      expect(listed).toMatchObject({ folder: 'config', jobs: 3, finished: done1.completed });

      // The same sweep again resumes: only the unfinished jobs run.
      const mark2 = events.length;
      const again = await client().request('startSweep', { name, matrix, workers: 1 });
      expect(again).toMatchObject({ total: 3, resumed: done1.completed });
      expect((await client().request('state')).sweep!.jobs.filter((j) => j.status === 'done-before')).toHaveLength(
        done1.completed,
      );
      await until(() => events.slice(mark2).some((e) => e.type === 'sweep-done' && e.sweep === name));
      const done2 = events.slice(mark2).find((e) => e.type === 'sweep-done')! as Extract<
        CoreEvent,
        { type: 'sweep-done' }
      >;
      expect(done2).toMatchObject({ stopped: false, completed: 3, resumed: done1.completed, failed: 0 });
      const ranAgain = events
        .slice(mark2)
        .filter((e) => e.type === 'sweep-job' && e.job.status === 'running')
        .map((e) => (e as Extract<CoreEvent, { type: 'sweep-job' }>).job.id);
      expect(ranAgain.filter((id) => finished.some((f) => f.job.id === id))).toEqual([]);
      const after = jobRuns().filter((r) => r.status === 'completed');
      // One completed run per job, the earlier ones untouched.
      const ids = new Set(finished.map((f) => f.job.id));
      expect(
        after
          .filter((r) => ids.has(r.job))
          .map((r) => r.id)
          .sort(),
      ).toEqual(
        before
          .filter((r) => ids.has(r.job))
          .map((r) => r.id)
          .sort(),
      );
      expect(after.filter((r) => r.sweep === name)).toHaveLength(3);
      expect(new Set(after.filter((r) => r.sweep === name).map((r) => r.job)).size).toBe(3);
      expect((await client().request('state')).status).toBe('idle');
    }, 300_000);
  });
}
