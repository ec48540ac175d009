/**
 * One contract, two transports: the same suite runs over the web shell's WebSocket and over
 * the Electron IPC adapter, against one real core (real windows, real runs on disk).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GamepilotCore } from '../../electron/api/core.ts';
import { JsonFileSettingsStore, MemorySecretStore } from '../../electron/api/settings-store.ts';
import type { WebShell } from '../../electron/web/loopback-server.ts';
import type { WsClient } from '../../renderer/src/api/clients.ts';
import { ApiError, type ApiClient, type CoreEvent } from '../../electron/api/contract.ts';
import { createWindowManager } from '../../native/index.ts';
import { idleStep, serveBothTransports } from '../helpers/contract-setup.ts';
import { FakeOpenAI } from '../helpers/fake-openai.ts';
import { ingvpGame } from '../../games/ingvp/games.ts';
import { randomRun } from '../helpers/run-fixtures.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'gp-contract-'));
const runsDir = path.join(tmp, 'runs');
const configDir = path.join(tmp, 'config');
const staticDir = path.join(tmp, 'static');
let core: GamepilotCore;
let shell: WebShell;
let ws: WsClient;
let ipc: ApiClient;
let seededRun = '';

beforeAll(async () => {
  mkdirSync(staticDir, { recursive: true });
  writeFileSync(path.join(staticDir, 'index.html'), '<title>Gamepilot — control</title>');
  // A finished run on disk for the library calls.
  const store = randomRun(runsDir);
  const frame = store.writeFrame(0, 0, Buffer.from([0xff, 0xd8, 0xff, 0xd9]), 'jpg');
  store.appendStep(idleStep(frame));
  store.update({ episodes: [{ episode: 0, seed: 0, score: 12.5, steps: 1, end: 'max_steps' }], mean: 12.5, std: 0 });
  store.close('completed');
  seededRun = store.meta.id;

  core = new GamepilotCore({
    wm: createWindowManager(),
    settings: new JsonFileSettingsStore(path.join(configDir, 'settings.json')),
    secrets: new MemorySecretStore(),
    runsDir,
    exportDir: path.join(tmp, 'exports'),
    shell: 'web',
    version: '0.0.0-test',
  });
  ({ shell, ws, ipc } = await serveBothTransports(core, staticDir));
});

/** What a request failed with (it must fail). */
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('the request succeeded');
    },
    (err: unknown) => err,
  );

afterAll(async () => {
  await core.stop();
  ws.close();
  await shell.close();
});

for (const transport of ['websocket', 'ipc'] as const) {
  const client = () => (transport === 'websocket' ? ws : ipc);

  describe(`contract over ${transport}`, () => {
    it('answers health and state', async () => {
      expect(await client().request('health')).toEqual({ ok: true, version: '0.0.0-test' });
      expect(await client().request('state')).toMatchObject({ status: 'idle', run: null, shell: 'web' });
    });

    it('refuses unknown methods and malformed params with a clear message', async () => {
      await expect(client().request('explode' as never)).rejects.toThrow(/unknown method "explode"/);
      await expect(client().request('control', { action: 'fly' } as never)).rejects.toThrow(/control: action/);
      await expect(client().request('getRun', { id: '../etc' })).rejects.toThrow(/getRun: id/);
      await expect(client().request('getFrame', { id: seededRun, frame: 'frames/../../run.json' })).rejects.toThrow(
        /getFrame: frame/,
      );
      await expect(client().request('startRun', { target: { game: '2048' }, agent: 'vlm' })).rejects.toThrow(
        /no model configured/,
      );
    });

    it('says what kind of failure each refusal is: an ApiError with a code beside the message', async () => {
      const unknown = await failure(client().request('explode' as never));
      expect(unknown).toBeInstanceOf(ApiError);
      expect(unknown).toMatchObject({ code: 'bad-input', message: 'unknown method "explode"' });
      expect(await failure(client().request('control', { action: 'fly' } as never))).toMatchObject({
        code: 'bad-input',
      });
      expect(await failure(client().request('startRun', { target: { game: '2048' }, agent: 'vlm' }))).toMatchObject({
        code: 'bad-input',
        message: expect.stringMatching(/no model configured/),
      });
      expect(await failure(client().request('getRun', { id: 'no-such-run' }))).toMatchObject({
        code: 'not-found',
        message: expect.stringMatching(/no run "no-such-run"/),
      });
      expect(await failure(client().request('startRun', { target: { game: 'chess' }, agent: 'solver' }))).toMatchObject(
        { code: 'not-found', message: expect.stringMatching(/unknown game "chess"/) },
      );
      expect(await failure(client().request('control', { action: 'pause' }))).toMatchObject({
        code: 'not-found',
        message: 'no run is going',
      });
      expect(await failure(client().request('thumbnail', { windowId: '0x7ffffff0' }))).toMatchObject({
        code: 'target-gone',
      });
      expect(
        await failure(client().request('startRun', { target: { windowId: '0x7ffffff0' }, agent: 'solver' })),
      ).toMatchObject({ code: 'target-gone', message: expect.stringMatching(/no window with id 0x7ffffff0/) });
      // Two seats: a two-seat game needs them, and a seat takes no memory agent.
      const pvp = { target: { game: 'tictactoe-pvp' } };
      expect(await failure(client().request('startRun', { ...pvp, agent: 'solver' }))).toMatchObject({
        code: 'bad-input',
        message: expect.stringMatching(/has two seats: give seats/),
      });
      expect(await failure(client().request('startRun', { ...pvp, seats: ['solver', 'memory:m'] }))).toMatchObject({
        code: 'bad-input',
        message: expect.stringMatching(/memory agent does not play/),
      });
      expect((await client().request('state')).status).toBe('idle');
    });

    it('saves settings and keeps the API key out of the settings file', async () => {
      const r = await client().request('saveSettings', {
        settings: { provider: 'ollama', model: `m-${transport}`, history: 3 },
        apiKey: 'sk-secret-123',
      });
      expect(r.settings).toMatchObject({
        provider: 'ollama',
        baseUrl: 'http://localhost:11434/v1',
        model: `m-${transport}`,
        history: 3,
      });
      expect(r.apiKeySet).toBe(true);
      const onDisk = readFileSync(path.join(configDir, 'settings.json'), 'utf8');
      expect(onDisk).toContain(`m-${transport}`);
      expect(onDisk).not.toContain('sk-secret');
      expect((await client().request('getSettings')).apiKeySet).toBe(true);
      await expect(client().request('saveSettings', { settings: { history: 99 } })).rejects.toThrow(/history/);
      await client().request('saveSettings', { settings: { model: '' } });
    });

    it('refuses reflection "other" without a reflector model different from the player, before anything opens', async () => {
      await client().request('saveSettings', {
        settings: { provider: 'custom', baseUrl: 'http://127.0.0.1:9/v1', model: 'player-vlm' },
      });
      try {
        const before = (await client().request('listRuns')).runs.length;
        const start = (reflectorModel?: string) =>
          client().request('startRun', {
            target: { game: '2048' },
            agent: 'vlm',
            reflection: 'other',
            ...(reflectorModel ? { reflectorModel } : {}),
          });
        await expect(start()).rejects.toThrow(
          /"other" learns from another model's reflection: give a reflector model different from the player's \("player-vlm"\)/,
        );
        await expect(start('Player-VLM')).rejects.toThrow(/different from the player's/);
        await expect(
          client().request('startRun', {
            target: { game: '2048' },
            agent: 'vlm',
            reflection: 'self-f',
            reflectorModel: 'judge-vlm',
          }),
        ).rejects.toThrow(/"self-f" reflects with the player's own model/);
        expect((await client().request('listRuns')).runs.length).toBe(before);
        expect((await client().request('state')).status).toBe('idle');
      } finally {
        await client().request('saveSettings', { settings: { model: '', provider: 'openai', baseUrl: '' } });
      }
    });

    it('reports an unreachable model endpoint in testConnection', async () => {
      const r = await client().request('testConnection', {
        settings: { provider: 'custom', baseUrl: 'http://127.0.0.1:9/v1' },
      });
      expect(r.ok).toBe(false);
      expect(r.error).toMatch(/127\.0\.0\.1:9/);
    });

    it('serves the runs library: list, open, frames, export', async () => {
      const { runs } = await client().request('listRuns');
      expect(runs.find((r) => r.id === seededRun)).toMatchObject({
        game: '2048',
        agent: 'random',
        mean: 12.5,
        status: 'completed',
        steps: 1,
      });
      const run = await client().request('getRun', { id: seededRun });
      expect(run.steps).toHaveLength(1);
      expect((await client().request('getFrame', { id: seededRun, frame: 'frames/e000-s00000.jpg' })).dataUrl).toBe(
        'data:image/jpeg;base64,/9j/2Q==',
      );
      const name = `export-${transport}`;
      const { path: exported } = await client().request('exportRun', { id: seededRun, name });
      expect(exported).toBe(path.join(tmp, 'exports', name));
      expect(existsSync(path.join(exported, 'steps.jsonl'))).toBe(true);
      await expect(client().request('exportRun', { id: seededRun, name })).rejects.toThrow(/already exists/);
    });

    it('lists targets without Gamepilot’s own windows', async () => {
      const t = await client().request('listTargets');
      expect(t.games.map((g) => g.id)).toEqual(expect.arrayContaining(['2048', 'tictactoe']));
      expect(t.windows.every((w) => !/^Gamepilot/.test(w.title))).toBe(true);
    });

    it('starts a run, streams its events, pauses, steps, resumes and stops it', async () => {
      const events: CoreEvent[] = [];
      const off = client().onEvent((e) => events.push(e));
      const until = async (pred: () => boolean, ms = 20000) => {
        const t0 = Date.now();
        while (!pred()) {
          if (Date.now() - t0 > ms) throw new Error(`timed out; events: ${events.map((e) => e.type).join(',')}`);
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      try {
        const { id } = await client().request('startRun', {
          target: { game: '2048' },
          agent: 'solver',
          actionSpace: 'gui',
          episodes: 1,
          maxSteps: 500,
          paceMs: 100,
        });
        await until(() => events.some((e) => e.type === 'step'));
        const frame = events.find((e) => e.type === 'frame');
        expect(frame).toMatchObject({ runId: id, dataUrl: expect.stringMatching(/^data:image\/jpeg;base64,/) });
        // One busy rule for every activity: another run, an IDC or a recording is refused while this run goes.
        expect(
          await failure(client().request('startRun', { target: { game: '2048' }, agent: 'solver' })),
        ).toMatchObject({ code: 'busy', message: 'a run is already going; stop it first' });
        expect(await failure(client().request('startIdc', { game: '2048' }))).toMatchObject({ code: 'busy' });
        expect(
          await failure(
            client().request('startRecording', {
              target: { game: '2048' },
              role: 'expert',
              participant: 'p1',
              consent: true,
            }),
          ),
        ).toMatchObject({ code: 'busy' });

        // The step in flight when the pause came may still end (and say so) after the paused state.
        const beforePause = events.length;
        await client().request('control', { action: 'pause' });
        await until(() =>
          events
            .slice(beforePause)
            .some((e) => e.type === 'state' && (e as { state: { status: string } }).state.status === 'paused'),
        );
        // The state says why: the UI shows it beside PAUSED.
        expect((await client().request('state')).run?.pausedBecause).toBe('paused from the controls');
        await new Promise((r) => setTimeout(r, 400));
        const stepsPaused = events.filter((e) => e.type === 'step').length;
        await new Promise((r) => setTimeout(r, 600));
        expect(events.filter((e) => e.type === 'step').length).toBe(stepsPaused);
        await client().request('control', { action: 'step' });
        await until(() => events.filter((e) => e.type === 'step').length === stepsPaused + 1);
        await client().request('control', { action: 'resume' });
        await until(() => events.filter((e) => e.type === 'step').length >= stepsPaused + 3);
        expect((await client().request('state')).run?.pausedBecause).toBeNull();

        const r = await client().request('control', { action: 'stop' });
        expect(r.status).toBe('idle');
        expect((await client().request('state')).status).toBe('idle');
        const { runs } = await client().request('listRuns');
        expect(runs.find((x) => x.id === id)).toMatchObject({ status: 'stopped', agent: 'solver' });
      } finally {
        off();
      }
    });

    it('runs an ING-VP suite: refuses bad requests before anything opens, streams, stops at once, resumes', async () => {
      const name = `suite-${transport}`;
      const out = path.join(runsDir, name);
      const events: CoreEvent[] = [];
      const off = client().onEvent((e) => events.push(e));
      const of = <T extends CoreEvent['type']>(type: T) =>
        events.filter(
          (e): e is Extract<CoreEvent, { type: T }> => e.type === type && (e as { suite?: string }).suite === name,
        );
      const until = async (pred: () => boolean, ms = 60000) => {
        const t0 = Date.now();
        while (!pred()) {
          if (Date.now() - t0 > ms) throw new Error(`timed out; events: ${events.map((e) => e.type).join(',')}`);
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      /** Completed level runs in the suite folder: game/setting/level of each. */
      const completed = () =>
        readdirSync(path.join(out, 'runs'))
          .map((id) => JSON.parse(readFileSync(path.join(out, 'runs', id, 'run.json'), 'utf8')))
          .filter((m) => m.status === 'completed')
          .map((m) => `${m.game}/${m.config.setting}/${m.config.level}`);
      const req = {
        games: ['hanoi', 'queens'],
        settings: ['multi-step-text', 'multi-step-image'] as ('multi-step-text' | 'multi-step-image')[],
        levels: '1-2',
        agent: 'solver' as const,
        name,
      };
      try {
        const list = await client().request('listSuites');
        expect(list.games.map((g) => g.id)).toEqual(['sokoban', 'ingvp-maze', 'queens', 'sudoku', 'hanoi', 'fifteen']);
        expect(list.games.find((g) => g.id === 'hanoi')).toMatchObject({
          title: 'Tower of Hanoi',
          levels: 50,
          undo: false,
        });
        expect(list.settings).toHaveLength(6);
        expect(list.suites.some((s) => s.name === name)).toBe(false);

        // Refused at the boundary or before anything opens: a path for a name, unknown games, bad levels, no model.
        for (const bad of ['../escape', 'a/b', '/tmp/x', '..', '']) {
          expect(await failure(client().request('startSuite', { ...req, name: bad }))).toMatchObject({
            code: 'bad-input',
            message: expect.stringMatching(/^startSuite: name/),
          });
        }
        expect(await failure(client().request('startSuite', { ...req, games: ['chess'] }))).toMatchObject({
          code: 'bad-input',
          message: expect.stringMatching(/unknown ING-VP game chess/),
        });
        expect(await failure(client().request('startSuite', { ...req, levels: '0-3' }))).toMatchObject({
          code: 'bad-input',
          message: expect.stringMatching(/levels run from 1 to 50/),
        });
        expect(
          await failure(client().request('startSuite', { ...req, settings: ['two-step'] as never })),
        ).toMatchObject({
          code: 'bad-input',
          message: expect.stringMatching(/^startSuite: settings/),
        });
        expect(await failure(client().request('startSuite', { ...req, agent: 'vlm' }))).toMatchObject({
          code: 'bad-input',
          message: expect.stringMatching(/no model configured/),
        });
        expect(existsSync(out)).toBe(false);
        expect((await client().request('state')).status).toBe('idle');
        expect(await client().request('stopSuite')).toEqual({ stopped: false });

        // Paced so it can be stopped mid-suite: 2 games × 2 settings × 2 levels.
        expect(await client().request('startSuite', { ...req, paceMs: 150 })).toEqual({ name, total: 8, resumed: 0 });
        await until(() => of('suite-table').length >= 1 && of('suite-step').length > of('suite-table')[0]!.last.steps);
        const state = await client().request('state');
        expect(state.status).toBe('running');
        expect(state.suite).toMatchObject({
          name,
          agent: 'solver',
          model: null,
          games: ['queens', 'hanoi'],
          levels: [1, 2],
        });
        expect(state.suite!.settings).toEqual(['multi-step-image', 'multi-step-text']);
        // The one busy rule: nothing else starts while the suite goes.
        expect(
          await failure(client().request('startRun', { target: { game: '2048' }, agent: 'solver' })),
        ).toMatchObject({
          code: 'busy',
          message: 'an ING-VP suite is already going; stop it first',
        });
        expect(await failure(client().request('startSuite', req))).toMatchObject({ code: 'busy' });
        // Image settings send the screenshot the model answered; the first level is queens in multi-step-image.
        const first = of('suite-step')[0]!;
        expect(first.current).toEqual({ game: 'queens', setting: 'multi-step-image', level: 1 });
        expect(first.frame?.dataUrl).toMatch(/^data:image\/jpeg;base64,/);
        expect(first.text).toBeUndefined();
        expect(of('suite-level')[0]!.current).toEqual(first.current);
        expect(of('suite-table')[0]!.last).toMatchObject({ game: 'queens', level: 1, solved: true, completion: 100 });
        expect(of('suite-table')[0]!.table.rows.queens!['multi-step-image']).toMatchObject({
          levels: 1,
          accuracy: 100,
        });

        const t0 = Date.now();
        expect(await client().request('stopSuite')).toEqual({ stopped: true });
        expect(Date.now() - t0).toBeLessThan(5000);
        expect((await client().request('state')).status).toBe('idle');
        const stopped = of('suite-done').at(-1)!;
        expect(stopped).toMatchObject({ stopped: true, resumed: 0 });
        const kept = of('suite-table').length;
        expect(stopped.played).toBe(kept);
        expect(kept).toBeLessThan(8);
        expect(completed()).toHaveLength(kept);
        const listed = (await client().request('listSuites')).suites.find((s) => s.name === name);
        expect(listed).toMatchObject({ agent: 'solver', model: null, finished: kept });

        // The same name again: only the unfinished levels are played.
        const tables = of('suite-table').length;
        expect(await client().request('startSuite', req)).toEqual({ name, total: 8, resumed: kept });
        await until(() => of('suite-done').length === 2);
        expect(of('suite-done')[1]).toMatchObject({ stopped: false, played: 8 - kept, resumed: kept });
        expect(of('suite-table').length - tables).toBe(8 - kept);
        const done = completed();
        expect(done).toHaveLength(8);
        expect(new Set(done).size).toBe(8);
        // Text settings send the text state after each move.
        const text = of('suite-step').find((e) => e.current.setting === 'multi-step-text')!;
        expect(text.text).toEqual(expect.any(String));
        expect(text.frame).toBeUndefined();
        const table = of('suite-done')[1]!.table;
        for (const game of ['queens', 'hanoi', 'all'])
          for (const setting of req.settings)
            expect(table.rows[game]![setting]).toMatchObject({ accuracy: 100, completion: 100, efficiency: 100 });
        // A suite of another player in that folder is refused, naming the one there.
        expect(await failure(client().request('startSuite', { ...req, agent: 'random' }))).toMatchObject({
          code: 'bad-input',
          message: expect.stringMatching(/was played by solver/),
        });
      } finally {
        await client().request('stopSuite');
        off();
      }
    }, 180_000);

    it('plays an ING-VP suite with the model configured in Settings', async () => {
      const hanoi = ingvpGame('hanoi')!.spec;
      const start = hanoi.load(hanoi.levels[0]!);
      const plan = hanoi.formatPlan(start.solution());
      const server = await new FakeOpenAI(() => ({ text: JSON.stringify({ output: plan }) }), ['suite-model']).start();
      const name = `suite-vlm-${transport}`;
      const events: CoreEvent[] = [];
      const off = client().onEvent((e) => events.push(e));
      try {
        await client().request('saveSettings', {
          settings: { provider: 'custom', baseUrl: server.baseURL, model: 'suite-model' },
        });
        await client().request('startSuite', {
          games: ['hanoi'],
          settings: ['one-step-text'],
          levels: '1',
          agent: 'vlm',
          name,
        });
        await expect
          .poll(() => events.some((e) => e.type === 'suite-done' && e.suite === name), { timeout: 60_000 })
          .toBe(true);
        const done = events.find(
          (e): e is Extract<CoreEvent, { type: 'suite-done' }> => e.type === 'suite-done' && e.suite === name,
        )!;
        expect(done).toMatchObject({ stopped: false, played: 1 });
        expect(done.error).toBeUndefined();
        expect(done.table.rows.hanoi!['one-step-text']).toMatchObject({
          levels: 1,
          accuracy: 100,
          completion: 100,
          efficiency: 100,
        });
        // The request went to the configured endpoint with its model, the level's text state in the prompt.
        expect(server.requests).toHaveLength(1);
        expect(server.requests[0]!.body.model).toBe('suite-model');
        expect(JSON.stringify(server.requests[0]!.body.messages)).toContain(JSON.stringify(start.text()).slice(1, -1));
        const suiteFile = JSON.parse(readFileSync(path.join(runsDir, name, 'suite.json'), 'utf8'));
        expect(suiteFile).toMatchObject({ agent: 'vlm', model: 'suite-model' });
      } finally {
        await client().request('stopSuite');
        await client().request('saveSettings', { settings: { model: '', provider: 'openai', baseUrl: '' } });
        await server.close();
        off();
      }
    }, 120_000);

    it('switches the latency mode mid-run: the next steps follow the new mode', async () => {
      const events: CoreEvent[] = [];
      const off = client().onEvent((e) => events.push(e));
      const steps = () =>
        events.filter((e): e is Extract<CoreEvent, { type: 'step' }> => e.type === 'step').map((e) => e.data);
      const until = async (pred: () => boolean, ms = 20000) => {
        const t0 = Date.now();
        while (!pred()) {
          if (Date.now() - t0 > ms) throw new Error('timed out');
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      try {
        await client().request('startRun', {
          target: { game: 'snake' },
          agent: 'solver',
          episodes: 1,
          maxSteps: 100,
          paceMs: 300,
          latency: 'normal',
        });
        expect((await client().request('state')).run!.latency).toMatchObject({ mode: 'normal', world: 'engine' });
        await until(() => steps().length >= 1);
        expect(steps()[0]!.latency_mode).toBe('normal');
        const w = await client().request('setLatency', { mode: 'stop' });
        expect(w.mode).toBe('stop');
        const switchedAt = steps().length;
        await until(() => steps().length >= switchedAt + 2);
        const after = steps().slice(switchedAt + 1);
        for (const s of after) {
          expect(s.latency_mode).toBe('stop');
          expect(s.drift_ticks).toBe(0);
        }
        expect(events.some((e) => e.type === 'world' && e.latency.mode === 'stop' && e.latency.frozen)).toBe(true);
        await expect(client().request('setLatency', { mode: 'warp' } as never)).rejects.toThrow(/setLatency: mode/);
      } finally {
        await client().request('control', { action: 'stop' });
        off();
      }
    });
  });
}

describe('wire errors', () => {
  it('a message that is no request gets a bad-input answer on the raw socket, and the socket stays open', async () => {
    const s = new WebSocket(`ws://127.0.0.1:${shell.port}/api/ws?token=${shell.token}`);
    await new Promise((r, j) => {
      s.once('open', r);
      s.once('error', j);
    });
    const answers: unknown[] = [];
    s.on('message', (d) => answers.push(JSON.parse(String(d))));
    s.send('not json');
    s.send(JSON.stringify({ id: 3, method: 'getRun', params: { id: 'nope' } }));
    await expect.poll(() => answers.filter((a) => !(a as { event?: unknown }).event).length).toBe(2);
    const replies = answers.filter((a) => !(a as { event?: unknown }).event);
    expect(replies[0]).toMatchObject({ id: -1, code: 'bad-input', error: expect.stringMatching(/^bad request: /) });
    expect(replies[1]).toMatchObject({ id: 3, code: 'not-found', error: expect.stringMatching(/no run "nope"/) });
    s.close();
  });
});

describe('web shell access control', () => {
  const base = () => `http://127.0.0.1:${shell.port}`;

  it('GET /api/health answers 401 without the token and 200 with it', async () => {
    expect((await fetch(`${base()}/api/health`)).status).toBe(401);
    expect((await fetch(`${base()}/api/health?token=wrong`)).status).toBe(401);
    const ok = await fetch(`${base()}/api/health?token=${shell.token}`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ ok: true, version: '0.0.0-test' });
    expect((await fetch(`${base()}/api/health`, { headers: { authorization: `Bearer ${shell.token}` } })).status).toBe(
      200,
    );
  });

  it('refuses foreign origins, on routes and on the socket', async () => {
    expect(
      (await fetch(`${base()}/api/health?token=${shell.token}`, { headers: { origin: 'http://evil.example' } })).status,
    ).toBe(403);
    expect((await fetch(`${base()}/api/health?token=${shell.token}`, { headers: { origin: base() } })).status).toBe(
      200,
    );
    const attempt = (url: string, origin?: string) =>
      new Promise<string>((resolve) => {
        const s = new WebSocket(url, origin ? { origin } : {});
        s.on('open', () => {
          s.close();
          resolve('open');
        });
        s.on('error', (e) => resolve(String(e.message)));
      });
    expect(await attempt(`ws://127.0.0.1:${shell.port}/api/ws`)).toMatch(/401/);
    expect(await attempt(`ws://127.0.0.1:${shell.port}/api/ws?token=nope`)).toMatch(/401/);
    expect(await attempt(`ws://127.0.0.1:${shell.port}/api/ws?token=${shell.token}`, 'http://evil.example')).toMatch(
      /403/,
    );
    expect(await attempt(`ws://127.0.0.1:${shell.port}/api/ws?token=${shell.token}`, base())).toBe('open');
  });

  it('listens on loopback only: its socket is bound to 127.0.0.1, and no other address of this machine answers', async () => {
    expect(shell.address()).toMatchObject({ address: '127.0.0.1', family: 'IPv4', port: shell.port });
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((i) => i && !i.internal && i.family === 'IPv4')
      .map((i) => i!.address);
    for (const host of others) {
      const outcome = await new Promise<string>((resolve) => {
        const s = net.connect({ host, port: shell.port }, () => {
          s.destroy();
          resolve('connected');
        });
        s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
      });
      expect(outcome, host).toBe('ECONNREFUSED');
    }
  });
});
