/**
 * `gamepilot mcp` with the official SDK's own client, as an MCP client (Claude Code, an agent
 * framework) would use it: over stdio and over streamable HTTP, the built-in 2048 played through
 * its real window with observe → act, the run folder scored as any run and listed under the
 * client's name; on a real third-party window (sgt-puzzles' Fifteen, with its shipped profile):
 * a key outside the profile's list comes back refused, stop mode holds the game's process
 * stopped between observe and act and lets it run during the acts, and a client killed while
 * holding a key leaves no key held and no frozen game; the session is in the Live view, whose
 * Stop ends it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { BIN, firstStdoutLine, json, ROOT, runCli, spawnCli } from '../helpers/cli.ts';
import { startWindow, stop } from '../helpers/windows.ts';
import { heldInput, keycodeOf, releaseKeysyms } from '../helpers/xinput.ts';
import { spawnTs } from '../helpers/ts-child.ts';
import { launchUiBrowser } from '../helpers/web-ui.ts';
import { readRun } from '../../electron/store/run-store.ts';
import { processState } from '../../native/process.ts';
import { getGame } from '../../games/index.ts';
import { seededRng } from '../../games/shared/rng.ts';
import { createWindowManager, findWindows, type WindowInfo } from '../../native/index.ts';

const tmp = () => mkdtempSync(path.join(tmpdir(), 'gp-mcp-'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
type Content = { type: string; text?: string; data?: string; mimeType?: string }[];
type ToolResult = { content: Content; isError?: boolean };

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}
const textOf = (r: ToolResult) => r.content.find((c) => c.type === 'text')?.text ?? '';
const jsonOf = (r: ToolResult) => JSON.parse(textOf(r));

function stdioTransport(runsDir: string, extra: string[] = []): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--runs-dir', runsDir, ...extra],
    cwd: ROOT,
    env: process.env as Record<string, string>,
    stderr: 'pipe',
  });
}

/** The moves of a 2048 episode as a client plays them: a fixed cycle that changes the board. */
const CYCLE = ['left', 'up', 'right', 'down'];

/**
 * Plays 2048 for ten steps through `transport` and checks what a client sees and what the run
 * folder holds; returns the run folder.
 */
async function play2048(transport: Transport, clientName: string): Promise<string> {
  const client = new Client({ name: clientName, version: '1.0.0' });
  await client.connect(transport);
  try {
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(
      expect.arrayContaining([
        'list_targets',
        'start_session',
        'observe',
        'act',
        'set_latency',
        'pause',
        'resume',
        'end_episode',
        'end_session',
      ]),
    );
    const targets = jsonOf(await call(client, 'list_targets'));
    expect(targets.games).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: '2048', profiles: ['2048'] })]),
    );
    expect(targets.busy).toBeNull();

    const started = jsonOf(await call(client, 'start_session', { game: '2048', max_steps: 10, seed: 3 }));
    expect(started).toMatchObject({ player: `mcp:${clientName}`, maxSteps: 10 });

    const images: string[] = [];
    for (let i = 0; i < 10; i++) {
      const seen = await call(client, 'observe');
      expect(seen.isError, textOf(seen)).toBeFalsy();
      const image = seen.content.find((c) => c.type === 'image');
      expect(image?.mimeType).toBe('image/jpeg');
      images.push(image!.data!);
      expect(textOf(seen)).toMatch(new RegExp(`step ${i + 1} of at most 10`));
      if (i === 0) expect(seen.content.map((c) => c.text ?? '').join('\n')).toMatch(/## The game\n2048 on a 4×4 grid/);
      const acted = jsonOf(
        await call(client, 'act', {
          actions: [{ action_type: 'PRESS', parameters: { key: CYCLE[i % 4] } }],
          reasoning: `step ${i + 1}: slide ${CYCLE[i % 4]}`,
        }),
      );
      expect(acted).toMatchObject({ step: i + 1, outcomes: [{ action: 'PRESS', ok: true }] });
      if (i < 9) expect(acted.next).toBe('observe');
      else
        expect(acted.ended).toMatchObject({
          status: 'completed',
          endedBecause: 'the run completed (episodes ended by: max_steps)',
        });
    }
    // The board changed under the client's keys.
    expect(new Set(images).size).toBeGreaterThan(5);
    const ended = jsonOf(await call(client, 'end_session'));
    expect(ended.status).toBe('completed');
    return ended.runDir as string;
  } finally {
    await client.close();
  }
}

/** The run folder scores as the game's engine does for the same seed and keys (as any run is scored). */
function expectScoredLikeAnyRun(runDir: string, player: string) {
  const { meta, steps } = readRun(runDir);
  expect(meta).toMatchObject({ kind: 'agent', agent: player, model: null, game: '2048', status: 'completed' });
  expect(steps).toHaveLength(10);
  expect(steps.map((s) => s.reasoning)).toEqual(
    Array.from({ length: 10 }, (_, i) => `step ${i + 1}: slide ${CYCLE[i % 4]}`),
  );
  const game = getGame('2048').create({ seed: 3, episode: 0, rng: seededRng(3 * 1000003) });
  for (const s of steps) {
    const key = (s.actions[0] as { parameters: { key: string } }).parameters.key;
    game.applyMove(key);
  }
  expect(meta.episodes).toEqual([expect.objectContaining({ episode: 0, steps: 10, end: 'max_steps' })]);
  expect(meta.episodes[0]!.score).toBeCloseTo(game.score(), 2);
  expect(meta.mean).toBeCloseTo(game.score(), 2);
}

describe('gamepilot mcp on the built-in 2048', () => {
  it('over stdio: the SDK client plays ten steps through the real window; the run scores and is listed as mcp:<client>', async () => {
    const runs = tmp();
    const runDir = await play2048(stdioTransport(runs), 'stdio-test-client');
    expectScoredLikeAnyRun(runDir, 'mcp:stdio-test-client');
    const board = json(await runCli(['leaderboard', '--runs-dir', runs, '--json']));
    expect(board).toEqual([
      expect.objectContaining({ game: '2048', player: 'mcp:stdio-test-client', runs: 1, episodes: 1 }),
    ]);
  });

  it('over streamable HTTP on loopback, with the web shell’s token rule', async () => {
    const runs = tmp();
    const server = spawnCli(['mcp', '--http', '--runs-dir', runs]);
    try {
      const url = await firstStdoutLine(server);
      const u = new URL(url);
      expect(u.pathname).toBe('/api/mcp');
      // Without the token (or with a foreign Origin) nothing is served.
      const bare = `${u.origin}${u.pathname}`;
      const init = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      };
      const post = (to: string, headers: Record<string, string> = {}) =>
        fetch(to, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
          body: JSON.stringify(init),
        });
      expect((await post(bare)).status).toBe(401);
      expect((await post(url, { origin: 'http://evil.example' })).status).toBe(403);
      const runDir = await play2048(new StreamableHTTPClientTransport(u), 'http-test-client');
      expectScoredLikeAnyRun(runDir, 'mcp:http-test-client');
    } finally {
      await stop(server);
    }
  });
});

describe('two MCP clients on one server', () => {
  it('one session at a time: the other client is refused and cannot drive or end it; resources read the run folder', async () => {
    const server = spawnCli(['mcp', '--http', '--runs-dir', tmp()]);
    const a = new Client({ name: 'client-a', version: '1.0.0' });
    const b = new Client({ name: 'client-b', version: '1.0.0' });
    try {
      const url = new URL(await firstStdoutLine(server));
      await a.connect(new StreamableHTTPClientTransport(url));
      await b.connect(new StreamableHTTPClientTransport(url));
      const started = jsonOf(await call(a, 'start_session', { game: '2048', max_steps: 50 }));
      await call(a, 'observe');
      await call(a, 'act', { actions: ['left'] }).then((r) => expect(textOf(r)).toMatch(/bad-input/)); // gui run: a bare move is no GUI action
      jsonOf(await call(a, 'act', { actions: [{ action_type: 'PRESS', parameters: { key: 'left' } }] }));

      const busy = await call(b, 'start_session', { game: '2048' });
      expect(busy.isError).toBe(true);
      expect(textOf(busy)).toMatch(/busy: another MCP client is playing/);
      expect(jsonOf(await call(b, 'list_targets')).busy).toMatchObject({ runId: started.runId, agent: 'mcp:client-a' });
      for (const name of ['observe', 'end_session', 'pause'])
        expect(textOf(await call(b, name))).toMatch(/forbidden: run .* belongs to another MCP client/);
      await expect(b.readResource({ uri: 'gamepilot://session/steps' })).rejects.toThrow(
        /belongs to another MCP client/,
      );

      const steps = JSON.parse(
        ((await a.readResource({ uri: 'gamepilot://session/steps' })).contents[0] as { text: string }).text,
      );
      expect(steps).toEqual([
        expect.objectContaining({ step: 0, actions: [{ action_type: 'PRESS', parameters: { key: 'left' } }] }),
      ]);
      const profile = JSON.parse(
        ((await a.readResource({ uri: 'gamepilot://session/profile' })).contents[0] as { text: string }).text,
      );
      expect(profile).toMatchObject({ id: '2048', prompt: expect.objectContaining({ task: expect.any(String) }) });

      // Paused, an observe says so instead of waiting for a step that will not come.
      await call(a, 'act', { actions: [{ action_type: 'PRESS', parameters: { key: 'right' } }] });
      await call(a, 'pause');
      await call(a, 'act', { actions: [{ action_type: 'PRESS', parameters: { key: 'down' } }] });
      expect(textOf(await call(a, 'observe'))).toMatch(/The run is paused: call resume/);
      await call(a, 'resume');
      expect(textOf(await call(a, 'observe'))).toMatch(/step 4 of at most 50/);
      expect(jsonOf(await call(a, 'set_latency', { mode: 'stop' })).latency).toMatchObject({ mode: 'stop' });
      // From the next step on: this observation was taken running, the next one frozen.
      expect(textOf(await call(a, 'observe'))).toMatch(/Latency mode: stop; the game is running while you think/);
      await call(a, 'act', { actions: [{ action_type: 'PRESS', parameters: { key: 'up' } }] });
      expect(textOf(await call(a, 'observe'))).toMatch(/Latency mode: stop; the game is frozen until you act/);
      const ended = jsonOf(await call(a, 'end_session'));
      expect(ended).toMatchObject({ status: 'stopped', runId: started.runId });
      // The observation no act answered when the client ended the session is no step.
      expect(readRun(ended.runDir).steps.map((s) => s.step)).toEqual([0, 1, 2, 3]);
      expect(jsonOf(await call(b, 'start_session', { game: '2048', max_steps: 5 }))).toMatchObject({
        player: 'mcp:client-b',
      });
      await call(b, 'end_session');
    } finally {
      await a.close().catch(() => {});
      await b.close().catch(() => {});
      await stop(server);
    }
  });
});

describe('an HTTP client that vanishes', () => {
  it.each([
    ['between', 'between its requests'],
    ['during', 'in the middle of its act'],
  ] as const)(
    'killed while holding shift (%s: %s): shift is up within 5 s, the run goes on until its idle limit',
    async (mode, _label) => {
      const shiftL = keycodeOf('Shift_L');
      const server = spawnCli(['mcp', '--http', '--runs-dir', tmp(), '--idle-timeout', '60']);
      let stderr = '';
      server.stderr!.on('data', (d) => (stderr += d));
      try {
        const url = await firstStdoutLine(server);
        const helper = spawnTs('mcp-http-client.ts', [url, '2048', mode]);
        const report = JSON.parse(await helper.line(90_000)) as { runDir: string; outcomes?: unknown[] };
        if (mode === 'between')
          expect(report.outcomes).toEqual([expect.objectContaining({ action: 'KEY_DOWN', ok: true })]);
        await expect.poll(() => heldInput().keys, { timeout: 30_000 }).toContain(shiftL);
        helper.child.kill('SIGKILL');
        await helper.exited;
        const killed = Date.now();
        await expect.poll(() => heldInput().keys, { timeout: 20_000, interval: 100 }).not.toContain(shiftL);
        const heldMs = Date.now() - killed;
        process.stderr.write(`mcp http (${mode}): shift held ${heldMs} ms after the client was killed\n`);
        expect(heldMs).toBeLessThanOrEqual(5_000);
        // The server says why (its line may reach us a little after the key went up).
        await expect
          .poll(() => stderr, { timeout: 10_000 })
          .toMatch(
            mode === 'between'
              ? /released LeftShift: no request from the MCP client for \d+ s/
              : /the MCP client went away from its request: its act is cancelled/,
          );
        // The run itself is not ended by this: only by its idle limit, or the session closing.
        expect(readRun(report.runDir).meta.status).toBe('running');
      } finally {
        await stop(server);
        releaseKeysyms(['Shift_L']);
      }
    },
  );
});

describe('windows an MCP client may touch', () => {
  // The person's own windows: xev (it prints every key it receives) titled like a mail inbox, and
  // a terminal (xterm). Neither fits a profile.
  const INBOX = 'Inbox (3 unread) - Re: payroll';
  let xev: ChildProcess;
  let xevOut = '';
  let inbox: WindowInfo;
  let term: { child: ChildProcess; window: WindowInfo };
  beforeAll(async () => {
    xev = spawn('xev', ['-name', INBOX, '-event', 'keyboard'], { stdio: ['ignore', 'pipe', 'ignore'] });
    xev.stdout!.on('data', (d) => (xevOut += d));
    const wm = createWindowManager();
    for (let t = Date.now(); !inbox && Date.now() - t < 20_000; await sleep(100))
      inbox = (await findWindows(wm, /^Inbox \(3 unread\)/))[0]!;
    if (!inbox) throw new Error('xev showed no window');
    term = await startWindow('xterm', ['-title', 'build shell', '-e', 'sh'], /^build shell$/);
  });
  afterAll(async () => {
    if (xev) await stop(xev);
    if (term) await stop(term.child);
  });

  it('a window no profile fits: not listed by title, played only once the person allows it in the Live view; a terminal never', async () => {
    const server = spawnCli(['mcp', '--http', '--runs-dir', tmp()]);
    let stderr = '';
    server.stderr!.on('data', (d) => (stderr += d));
    const client = new Client({ name: 'consent-client', version: '1.0.0' });
    const { browser, page } = await launchUiBrowser({ x: 0, width: 1360, height: 860 });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(await firstStdoutLine(server))));
      await expect.poll(() => /Live view: (http\S+)/.exec(stderr)?.[1]).toBeTruthy();
      await page.goto(/Live view: (http\S+)/.exec(stderr)![1]!);
      await page.getByTestId('status').waitFor({ timeout: 30_000 });

      // Listed: no title of either window; the inbox by id only, the terminal not at all.
      const listed = textOf(await call(client, 'list_targets'));
      expect(listed).not.toContain('Inbox');
      expect(listed).not.toContain('build shell');
      const targets = JSON.parse(listed);
      expect(targets.other_windows.map((w: { id: string }) => w.id)).toContain(inbox.id);
      expect(JSON.stringify(targets)).not.toContain(term.window.id);

      // A terminal is refused at once, naming the rule; nobody is asked.
      const refused = await call(client, 'start_session', { window_id: term.window.id });
      expect(textOf(refused)).toMatch(/^forbidden: window \S+ is refused to MCP clients: xterm is a terminal/);
      // A profile must fit the window it is used on.
      const misfit = await call(client, 'start_session', { window_id: inbox.id, profile: 'sgt-fifteen' });
      expect(textOf(misfit)).toMatch(/^forbidden: the profile "sgt-fifteen" does not fit window/);

      // The person is asked, names and all, and denies: nothing reaches the window.
      const denied = call(client, 'start_session', { window_id: inbox.id });
      await expect.poll(() => page.getByTestId('consent-window').textContent(), { timeout: 30_000 }).toContain(INBOX);
      expect(await page.getByTestId('consent').textContent()).toMatch(/mcp:consent-client/);
      await page.screenshot({ path: path.join(ROOT, 'test-artifacts', 'ui', 'mcp-consent.png') });
      await page.getByTestId('consent-deny').click();
      expect(textOf(await denied)).toMatch(/^forbidden: the person did not allow mcp:consent-client to play window/);
      await expect.poll(() => page.getByTestId('consent').count()).toBe(0);
      expect(
        textOf(await call(client, 'act', { actions: [{ action_type: 'TYPING', parameters: { text: 'x' } }] })),
      ).toMatch(/no session is going/);
      expect(xevOut).not.toMatch(/KeyPress/);

      // Asked again and allowed once: the client plays it, and its key reaches the window.
      const allowed = call(client, 'start_session', { window_id: inbox.id, max_steps: 5 });
      await page.getByTestId('consent-allow').click({ timeout: 30_000 });
      expect(jsonOf(await allowed)).toMatchObject({ player: 'mcp:consent-client' });
      await call(client, 'observe');
      const acted = jsonOf(
        await call(client, 'act', { actions: [{ action_type: 'PRESS', parameters: { key: 'q' } }] }),
      );
      expect(acted.outcomes).toEqual([expect.objectContaining({ action: 'PRESS', ok: true })]);
      await expect.poll(() => xevOut, { timeout: 10_000 }).toMatch(/KeyPress event[\s\S]*keysym 0x71, q\)/);

      // Gamepilot's own hotkeys are never a client's: as one HOTKEY, or spelled across KEY_DOWNs
      // (what was held is let go); the session goes on, and no F12 or F11 reaches the window.
      const key = (action_type: string, k: string) => ({ action_type, parameters: { key: k } });
      await call(client, 'observe');
      const stop = jsonOf(
        await call(client, 'act', {
          actions: [{ action_type: 'HOTKEY', parameters: { keys: ['ctrl', 'shift', 'f12'] } }],
        }),
      );
      expect(stop.outcomes).toEqual([
        expect.objectContaining({ action: 'HOTKEY', ok: false, error: expect.stringMatching(/stop hotkey/) }),
      ]);
      await call(client, 'observe');
      const takeover = jsonOf(
        await call(client, 'act', {
          actions: [key('KEY_DOWN', 'shift'), key('KEY_DOWN', 'ctrl'), key('PRESS', 'f11'), key('KEY_UP', 'ctrl')],
        }),
      );
      expect(takeover.outcomes.at(-1)).toMatchObject({
        action: 'PRESS',
        ok: false,
        error: expect.stringMatching(/take over hotkey/),
        released: expect.arrayContaining(['LeftShift', 'LeftControl']),
      });
      expect(heldInput()).toEqual({ keys: [], buttons: [] });
      expect(xevOut).not.toMatch(/keysym 0xffc[89], F1[12]\)/);
      await call(client, 'end_session');
    } finally {
      await browser.close();
      await client.close().catch(() => {});
      await stop(server);
    }
  });
});

describe('gamepilot mcp on a real third-party window (sgt-puzzles Fifteen, its shipped profile)', () => {
  let fifteen: { child: ChildProcess; window: WindowInfo };
  beforeAll(async () => {
    fifteen = await startWindow('/usr/games/sgt-fifteen', [], /^Fifteen$/);
    await sleep(800); // let GTK draw
  });
  afterAll(async () => {
    await stop(fifteen.child);
  });
  afterEach(() => releaseKeysyms(['Right', 'Left', 'Up', 'Down']));

  it('stop mode: the process is stopped between observe and act and runs during the acts; a refused key is a refusal', async () => {
    const client = new Client({ name: 'stop-mode-client', version: '1.0.0' });
    await client.connect(stdioTransport(tmp()));
    try {
      const started = jsonOf(
        await call(client, 'start_session', { window_id: fifteen.window.id, latency: 'stop', max_steps: 6 }),
      );
      expect(started.latency).toBe('stop');
      const pid = fifteen.window.pid;
      const seen = await call(client, 'observe');
      expect(seen.content.map((c) => c.text ?? '').join('\n')).toMatch(
        /Only these keys work here; any other key is refused: up, down, left, right/,
      );
      // Between observe and act: stopped, and it stays so while the client thinks.
      expect(processState(pid)).toBe('T');
      await sleep(1000);
      expect(processState(pid)).toBe('T');

      // A key outside the profile's list: refused before it reaches the window.
      const refused = jsonOf(
        await call(client, 'act', { actions: [{ action_type: 'PRESS', parameters: { key: 'q' } }] }),
      );
      expect(refused.outcomes).toEqual([
        expect.objectContaining({
          action: 'PRESS',
          ok: false,
          error: expect.stringMatching(/not a key this title's profile allows/),
        }),
      ]);
      expect(refused.errors.join(' ')).toMatch(/refused PRESS/);
      expect(processState(pid)).toBe('T'); // frozen again for the next observation
      expect(processState(pid)).not.toBeUndefined(); // q (quit) never reached it

      // During an act the world runs: sample the process while a 3 s WAIT plays.
      await call(client, 'observe');
      const states: string[] = [];
      let acting = true;
      const sampler = (async () => {
        while (acting) {
          states.push(processState(pid) ?? '?');
          await sleep(50);
        }
      })();
      const waited = jsonOf(
        await call(client, 'act', { actions: [{ action_type: 'WAIT', parameters: { duration: 3 } }] }),
      );
      acting = false;
      await sampler;
      expect(waited.outcomes).toEqual([expect.objectContaining({ action: 'WAIT', ok: true })]);
      // Seen running, again and again, while the WAIT played (a sample every 50 ms or slower under load).
      expect(states.filter((s) => s !== 'T').length).toBeGreaterThanOrEqual(5);
      expect(processState(pid)).toBe('T');

      // A malformed action list is refused without using up the step.
      const bad = await call(client, 'act', { actions: [{ action_type: 'TELEPORT' }] });
      expect(bad.isError).toBe(true);
      expect(textOf(bad)).toMatch(/unknown action type "TELEPORT"/);
      expect(textOf(await call(client, 'observe'))).toMatch(/step 3 of at most 6/);

      const ended = jsonOf(await call(client, 'end_session'));
      expect(ended).toMatchObject({ status: 'stopped', endedBecause: 'the MCP client ended it' });
      expect(processState(pid)).not.toBe('T');
      const { meta } = readRun(ended.runDir);
      expect(meta).toMatchObject({
        agent: 'mcp:stop-mode-client',
        profile: expect.objectContaining({ id: 'sgt-fifteen' }),
      });
    } finally {
      await client.close();
    }
  });

  it('a client killed while holding a key leaves no key held and no frozen game', async () => {
    const right = keycodeOf('Right');
    const runs = tmp();
    const helper = spawnTs('mcp-client.ts', [fifteen.window.id, 'right', runs]);
    const report = JSON.parse(await helper.line(90_000)) as { serverPid: number; runDir: string; outcomes: unknown[] };
    expect(report.outcomes).toEqual([expect.objectContaining({ action: 'KEY_DOWN', ok: true })]);
    expect(heldInput().keys).toContain(right);
    expect(processState(fifteen.window.pid)).toBe('T');

    helper.child.kill('SIGKILL');
    await helper.exited;
    await expect.poll(() => heldInput().keys, { timeout: 20_000 }).not.toContain(right);
    await expect.poll(() => processState(fifteen.window.pid), { timeout: 20_000 }).not.toBe('T');
    await expect.poll(() => processState(report.serverPid) ?? 'gone', { timeout: 30_000 }).toMatch(/gone|Z/);
    expect(readRun(report.runDir).meta.status).toBe('stopped');
  });

  it('one MCP session per window across processes: a second server is refused the window', async () => {
    const a = new Client({ name: 'first-server-client', version: '1.0.0' });
    const b = new Client({ name: 'second-server-client', version: '1.0.0' });
    await a.connect(stdioTransport(tmp()));
    await b.connect(stdioTransport(tmp()));
    try {
      await call(a, 'start_session', { window_id: fifteen.window.id });
      const refused = await call(b, 'start_session', { window_id: fifteen.window.id });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/busy: window .* is being played by another MCP session \(pid \d+\)/);
      await call(a, 'end_session');
      expect(jsonOf(await call(b, 'start_session', { window_id: fifteen.window.id }))).toMatchObject({
        player: 'mcp:second-server-client',
      });
      await call(b, 'end_session');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a client that goes quiet is ended after the idle limit: keys released, the game thawed', async () => {
    const right = keycodeOf('Right');
    const client = new Client({ name: 'quiet-client', version: '1.0.0' });
    await client.connect(stdioTransport(tmp(), ['--idle-timeout', '5']));
    try {
      await call(client, 'start_session', { window_id: fifteen.window.id, latency: 'stop' });
      await call(client, 'observe');
      await call(client, 'act', { actions: [{ action_type: 'KEY_DOWN', parameters: { key: 'right' } }] });
      await call(client, 'observe');
      expect(heldInput().keys).toContain(right);
      expect(processState(fifteen.window.pid)).toBe('T');
      // Quiet from here on.
      await expect.poll(() => heldInput().keys, { timeout: 30_000 }).not.toContain(right);
      await expect.poll(() => processState(fifteen.window.pid), { timeout: 10_000 }).not.toBe('T');
      const after = jsonOf(await call(client, 'observe'));
      expect(after.ended).toMatchObject({
        status: 'stopped',
        endedBecause: expect.stringMatching(/called no tool for \d+ s \(idle limit 5 s\)/),
      });
    } finally {
      await client.close();
    }
  });
});

describe('an MCP session in the Live view', () => {
  it('shows the client’s frames and reasoning, and Stop there ends the session', async () => {
    const runs = tmp();
    const transport = stdioTransport(runs);
    let stderr = '';
    const client = new Client({ name: 'live-view-client', version: '1.0.0' });
    await client.connect(transport);
    transport.stderr!.on('data', (d) => (stderr += d));
    const { browser, page } = await launchUiBrowser({ x: 0, width: 1360, height: 860 });
    try {
      await call(client, 'start_session', { game: '2048', max_steps: 200 });
      await call(client, 'observe');
      await call(client, 'act', {
        actions: [{ action_type: 'PRESS', parameters: { key: 'left' } }],
        reasoning: 'The ZEBRA-LIVE-9 plan: slide left.',
      });
      await expect.poll(() => /Live view: (http\S+)/.exec(stderr)?.[1]).toBeTruthy();
      await page.goto(/Live view: (http\S+)/.exec(stderr)![1]!);
      await page.getByTestId('status').waitFor({ timeout: 30_000 });
      await call(client, 'observe');
      await call(client, 'act', {
        actions: [{ action_type: 'PRESS', parameters: { key: 'up' } }],
        reasoning: 'The ZEBRA-LIVE-9 plan: now up.',
      });
      await page.getByTestId('live-frame').waitFor({ timeout: 30_000 });
      await expect.poll(() => page.getByTestId('reasoning').textContent()).toMatch(/ZEBRA-LIVE-9 plan: now up/);
      await expect.poll(() => page.locator('body').textContent()).toMatch(/mcp:live-view-client/);
      await page.screenshot({ path: path.join(ROOT, 'test-artifacts', 'ui', 'mcp-live.png') });

      // The person stops it while the client's 30 s WAIT plays: the act returns at once with the end.
      const t0 = Date.now();
      const waiting = call(client, 'act', { actions: [{ action_type: 'WAIT', parameters: { duration: 30 } }] });
      await sleep(1000);
      await page.getByRole('button', { name: /Stop/ }).click();
      const after = jsonOf(await waiting);
      expect(Date.now() - t0).toBeLessThan(15_000);
      expect(after.ended).toMatchObject({ status: 'stopped' });
      expect(jsonOf(await call(client, 'observe')).ended).toMatchObject({ status: 'stopped' });
      expect(jsonOf(await call(client, 'end_session'))).toMatchObject({ status: 'stopped' });
      expect(textOf(await call(client, 'act', { actions: ['left'] }))).toMatch(/no session is going/);
    } finally {
      await browser.close();
      await client.close();
    }
  });

  it('a person takes over with the hotkey: the client’s stale answer is refused, and it is told what the person did', async () => {
    const client = new Client({ name: 'takeover-client', version: '1.0.0' });
    const transport = stdioTransport(tmp());
    let stderr = '';
    await client.connect(transport);
    transport.stderr!.on('data', (d) => (stderr += d));
    try {
      await call(client, 'start_session', { game: '2048', max_steps: 3, seed: 3 });
      await call(client, 'observe');
      await call(client, 'act', { actions: [{ action_type: 'PRESS', parameters: { key: 'left' } }] });
      await call(client, 'observe'); // the client now thinks about this frame…
      execFileSync('xdotool', ['key', 'ctrl+shift+F11']); // …and a person takes the controls
      await expect.poll(() => stderr, { timeout: 15_000 }).toMatch(/take-over hotkey .*: you have the controls/);
      const stale = await call(client, 'act', { actions: [{ action_type: 'PRESS', parameters: { key: 'up' } }] });
      expect(stale.isError).toBe(true);
      expect(textOf(stale)).toMatch(/taken back before your actions arrived.*observe again/);
      const win = execFileSync('xdotool', ['search', '--name', '^Gamepilot · 2048 · '], { encoding: 'utf8' }).split(
        '\n',
      )[0]!;
      execFileSync('xdotool', ['windowactivate', '--sync', win]);
      await sleep(300);
      execFileSync('xdotool', ['key', 'Down']);
      await sleep(500);
      execFileSync('xdotool', ['key', 'ctrl+shift+F11']);
      await expect.poll(() => stderr, { timeout: 15_000 }).toMatch(/take-over hotkey .*: handed back/);
      const seen = await call(client, 'observe');
      expect(seen.content.map((c) => c.text ?? '').join('\n')).toMatch(
        /A person had the controls for [\d.]+ s .*PRESS down/,
      );
      for (let i = 0; i < 2; i++) {
        if (i) await call(client, 'observe');
        await call(client, 'act', { actions: [{ action_type: 'PRESS', parameters: { key: 'right' } }] });
      }
      const ended = jsonOf(await call(client, 'end_session'));
      const { meta, steps } = readRun(ended.runDir);
      expect(meta).toMatchObject({ status: 'completed', assisted: true, agent: 'mcp:takeover-client' });
      expect(steps.filter((x) => x.actor === 'agent')).toHaveLength(3);
      expect(steps.filter((x) => x.actor === 'human').flatMap((x) => x.actions)).toEqual([
        expect.objectContaining({ action_type: 'PRESS', parameters: expect.objectContaining({ key: 'down' }) }),
      ]);
    } finally {
      await client.close();
    }
  });

  it('the global stop hotkey ends an MCP session', async () => {
    const client = new Client({ name: 'hotkey-client', version: '1.0.0' });
    const transport = stdioTransport(tmp());
    let stderr = '';
    await client.connect(transport);
    transport.stderr!.on('data', (d) => (stderr += d));
    try {
      await call(client, 'start_session', { game: '2048', max_steps: 200 });
      await call(client, 'observe');
      await call(client, 'act', { actions: [{ action_type: 'PRESS', parameters: { key: 'left' } }] });
      await sleep(500);
      execFileSync('xdotool', ['key', 'ctrl+shift+F12']);
      await expect.poll(() => stderr, { timeout: 15_000 }).toMatch(/stop hotkey .*: stopping/);
      expect(jsonOf(await call(client, 'observe')).ended).toMatchObject({ status: 'stopped' });
    } finally {
      await client.close();
    }
  });
});
