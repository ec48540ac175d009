/**
 * A model must not reach past the game: with real input under Xvfb + openbox (whose default
 * bindings close a window on alt+F4 and show the desktop on super+d), system combinations are
 * refused — also when built across actions and steps — while a game's allow-list lets the
 * named ones through. Refused-only steps count toward the run's error limit.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { json, runCli, testModelArgs, testModelSpec } from '../helpers/cli.ts';
import { heldInput } from '../helpers/xinput.ts';
import { prepareRun } from '../../electron/session/compose.ts';
import { parseRunSpec } from '../../electron/run-spec.ts';
import type { SessionResult } from '../../electron/session/session-types.ts';
import { ActionExecutor } from '../../electron/input/executor.ts';
import { readRun } from '../../electron/store/run-store.ts';
import { createWindowManager } from '../../native/index.ts';
import { g2048 } from '../../games/g2048/index.ts';
import { fullSizeGeometry } from '../../electron/input/coordinates.ts';
import { startStopHotkey } from '../../electron/input/hook-stop-hotkey.ts';
import { listenGlobalInput, loadHook } from '../../electron/input/global-hook.ts';

const act = (type: string, parameters: Record<string, unknown> = {}) => ({ action_type: type, parameters });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const tmp = () => mkdtempSync(path.join(tmpdir(), 'gp-keys-'));
const showingDesktop = () =>
  /"showing the desktop" mode: ON/.test(execFileSync('wmctrl', ['-m'], { encoding: 'utf8' }));

// One plan per step. A refusal releases what the executor holds, so alt is held anew where a
// combination is built across actions: alt held then F4 (a trailing KEY_UP alt never runs),
// alt held then a click, alt held in one step and F4 in the next; then alt+F4 outright, print
// screen, super+d, Gamepilot's own stop hotkey (ctrl+shift+F12) and alt+tab.
const PLANS = [
  [act('KEY_DOWN', { key: 'alt' }), act('PRESS', { key: 'f4' }), act('KEY_UP', { key: 'alt' })],
  [act('KEY_DOWN', { key: 'alt' }), act('CLICK', { x: 200, y: 300 })],
  [act('KEY_DOWN', { key: 'alt' })],
  [act('PRESS', { key: 'f4' })],
  [act('HOTKEY', { keys: ['alt', 'f4'] })],
  [act('PRESS', { key: 'printscreen' })],
  [act('HOTKEY', { keys: ['super', 'd'] })],
  [act('HOTKEY', { keys: ['ctrl', 'shift', 'f12'] })],
  [act('HOTKEY', { keys: ['alt', 'tab'] })],
];

let server: FakeOpenAI;
beforeAll(async () => {
  server = await new FakeOpenAI((_b, i) => ({
    text: answer('leave the game', PLANS[Math.min(i, PLANS.length - 1)]!),
  })).start();
});
afterAll(() => server.close());

describe('system key combinations', () => {
  it('are refused with real input: the window stays, the desktop stays, and the run fails after the refused steps', async () => {
    const { session, target } = await prepareRun(
      parseRunSpec({
        game: '2048',
        ...testModelSpec(server.baseURL),
        episodes: 1,
        maxSteps: 20,
        seed: 3,
        capture: 'nut',
        maxErrors: 6,
        repairs: 0,
        maxRetries: 0,
      }),
      { outDir: tmp() },
    );
    let result: SessionResult;
    try {
      const win = await target.locate();
      result = await session.run();
      // The game window is still there, and the desktop is not being shown.
      expect((await createWindowManager().list()).map((w) => w.id)).toContain(win.id);
      expect(showingDesktop()).toBe(false);
    } finally {
      await target.close();
    }
    expect(heldInput()).toEqual({ keys: [], buttons: [] });

    // Steps 4–9 were refused and nothing else took effect: six unusable steps in a row. The stop
    // hotkey among them did not stop the run: it was never pressed.
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(
      /^6 steps in a row without usable actions; last error: refused HOTKEY: alt\+Tab is a system combination: .*a game profile may allow it/,
    );
    const { steps } = readRun(result.runDir);
    expect(steps).toHaveLength(9);
    type Outcome = { action: string; ok: boolean; error?: string; released?: string[] };
    const outcomes = (i: number) => steps[i]!.outcomes as Outcome[];
    const refusal = (i: number) => outcomes(i).find((o) => !o.ok)?.error;
    // A refusal in the middle of a plan releases the alt it held; the trailing KEY_UP never ran.
    expect(outcomes(0)).toEqual([
      { action: 'KEY_DOWN', ok: true },
      {
        action: 'PRESS',
        ok: false,
        error: expect.stringMatching(/^alt\+F4 is a system combination/),
        released: ['LeftAlt'],
      },
    ]);
    expect(steps[0]!.errors.join('\n')).toMatch(/refused PRESS: alt\+F4 .*; released LeftAlt/);
    expect(outcomes(1)).toEqual([
      { action: 'KEY_DOWN', ok: true },
      {
        action: 'CLICK',
        ok: false,
        error: expect.stringMatching(/^alt\+click is a system combination/),
        released: ['LeftAlt'],
      },
    ]);
    expect(outcomes(2)).toEqual([{ action: 'KEY_DOWN', ok: true }]);
    // alt held since the step before: refused, and released.
    expect(outcomes(3)).toEqual([
      {
        action: 'PRESS',
        ok: false,
        error: expect.stringMatching(/^alt\+F4 is a system combination/),
        released: ['LeftAlt'],
      },
    ]);
    expect(refusal(4)).toMatch(/^alt\+F4 is a system combination: .*\(allowedHotkeys, or --allow-keys alt\+f4\)$/);
    expect(refusal(5)).toMatch(/^Print is a system combination/);
    expect(refusal(6)).toMatch(/^super\+D is a system combination/);
    expect(refusal(7)).toMatch(
      /^ctrl\+shift\+F12 would press Gamepilot's stop hotkey \(CommandOrControl\+Shift\+F12\)/,
    );
    for (const i of [4, 5, 6, 7, 8]) expect(outcomes(i)[0]!.released).toBeUndefined(); // nothing was held
    // The game saw the alt key go down and up, and never F4, D, Print, F12, Tab or a click.
    const received = steps.flatMap((s) =>
      (s.view_inputs as { type: string; key?: string }[]).map((v) => v.key ?? v.type),
    );
    expect(received.filter((k) => k !== 'Alt')).toEqual([]);
  });

  it('that a game allows go through: alt+F4 really closes the window (so the refusal above is what kept it)', async () => {
    const out = tmp();
    server.setResponder(() => ({ text: answer('close it', [act('HOTKEY', { keys: ['alt', 'f4'] })]) }));
    const r = await runCli(
      [
        'run',
        '--game',
        '2048',
        ...testModelArgs(server.baseURL),
        '--max-retries',
        '0',
        '--max-steps',
        '3',
        '--allow-keys',
        'alt+f4',
        '--runs-dir',
        out,
        '--json',
      ],
      { env: { GAMEPILOT_CONFIG_DIR: tmp() } },
    );
    const res = json(r);
    expect(res.status).toBe('failed');
    expect(res.error).toMatch(/window/i);
    const { meta, steps } = readRun(res.run_dir);
    expect(meta.config.allowed_keys).toEqual(['alt+f4']);
    expect(steps[0]!.outcomes).toEqual([{ action: 'HOTKEY', ok: true }]);
    expect(heldInput()).toEqual({ keys: [], buttons: [] });
  });

  it('that a built-in game lists in allowedHotkeys go through', async () => {
    server.setResponder(() => ({ text: answer('close it', [act('HOTKEY', { keys: ['alt', 'f4'] })]) }));
    g2048.allowedHotkeys = ['alt+f4'];
    try {
      const { session, target } = await prepareRun(
        parseRunSpec({
          game: '2048',
          ...testModelSpec(server.baseURL),
          episodes: 1,
          maxSteps: 1,
          seed: 3,
          capture: 'nut',
          maxRetries: 0,
        }),
        { outDir: tmp() },
      );
      try {
        const win = await target.locate();
        const result = await session.run();
        const { meta, steps } = readRun(result.runDir);
        expect(meta.config.allowed_keys).toEqual(['alt+f4']);
        expect(steps[0]!.outcomes).toEqual([{ action: 'HOTKEY', ok: true }]);
        await expect.poll(async () => (await createWindowManager().list()).some((w) => w.id === win.id)).toBe(false);
      } finally {
        await target.close();
      }
    } finally {
      delete g2048.allowedHotkeys;
    }
  });

  it('super+d shows the desktop only when allowed', async () => {
    const geometry = fullSizeGeometry({ x: 0, y: 0, width: 400, height: 300 });
    const superD = [{ kind: 'gui' as const, type: 'HOTKEY' as const, params: { keys: ['super', 'd'] } }];
    expect(showingDesktop()).toBe(false);
    try {
      const refused = await new ActionExecutor().execute(superD, geometry);
      expect(refused).toEqual([
        { action: 'HOTKEY', ok: false, error: expect.stringMatching(/^super\+D is a system combination/) },
      ]);
      await sleep(500);
      expect(showingDesktop()).toBe(false);
      const allowed = await new ActionExecutor({ allowedKeys: ['super+d'] }).execute(superD, geometry);
      expect(allowed).toEqual([{ action: 'HOTKEY', ok: true }]);
      await expect.poll(showingDesktop).toBe(true);
    } finally {
      execFileSync('wmctrl', ['-k', 'off']);
    }
    expect(heldInput()).toEqual({ keys: [], buttons: [] });
  });

  it('a hotkey this process hears is a person’s only: the executor’s own press and its held key’s autorepeat never fire it', {
    timeout: 60_000,
  }, async () => {
    // shift+F9 is no reserved hotkey, so the key policy lets the executor press it: as when
    // Settings changed the hotkey under a running executor. The hook must still not take it.
    const geometry = fullSizeGeometry({ x: 0, y: 0, width: 400, height: 300 });
    const fired: number[] = [];
    const unhook = await startStopHotkey('Shift+F9', () => fired.push(Date.now()));
    // The hook hands on the last events it heard only when later ones come: a marker key pressed
    // after them (another X client's, so no echo) brings in all before it.
    const { F8: marker, F9 } = (await loadHook()).UiohookKey;
    let markers = 0;
    let f9Downs = 0;
    const unlisten = await listenGlobalInput((e) => {
      if (e.kind === 'keyup' && e.keycode === marker) markers++;
      if (e.kind === 'keydown' && e.keycode === F9) f9Downs++;
    });
    const heardAllSoFar = async () => {
      const seen = markers;
      execFileSync('xdotool', ['key', 'F8']);
      await expect.poll(() => markers, { timeout: 10_000 }).toBe(seen + 1);
    };
    try {
      const executor = new ActionExecutor();
      const down = (key: string) => ({ kind: 'gui' as const, type: 'KEY_DOWN' as const, params: { key } });
      const up = (key: string) => ({ kind: 'gui' as const, type: 'KEY_UP' as const, params: { key } });
      const hotkey = { kind: 'gui' as const, type: 'HOTKEY' as const, params: { keys: ['shift', 'f9'] } };
      expect(await executor.execute([hotkey], geometry)).toEqual([{ action: 'HOTKEY', ok: true }]);
      // Held for 1.5 s: the X server autorepeats F9 (after 660 ms by default) while shift is down.
      expect(
        await executor.execute(
          [
            down('shift'),
            down('f9'),
            { kind: 'gui' as const, type: 'WAIT' as const, params: { duration: 1.5 } },
            up('f9'),
            up('shift'),
          ],
          geometry,
        ),
      ).toHaveLength(5);
      await heardAllSoFar();
      expect(f9Downs).toBeGreaterThan(2); // the press, the hold, and the hold's autorepeat
      expect(fired).toEqual([]);
      // The agent's F9 alone, then a person's shift+F9 (another X client, as a keyboard is) well
      // inside the echo window: the lone key's echo was used up by its own press, so the
      // person's is heard. A person's press within 50 ms of the agent's release of the same key
      // is ignored (the hold's edge); a person's reaction is slower: the test waits 150 ms after it.
      expect(
        await executor.execute([{ kind: 'gui' as const, type: 'PRESS' as const, params: { key: 'f9' } }], geometry),
      ).toEqual([{ action: 'PRESS', ok: true }]);
      await new Promise((r) => setTimeout(r, 150));
      execFileSync('xdotool', ['key', 'shift+F9']);
      await heardAllSoFar();
      expect(fired).toHaveLength(1);
    } finally {
      unlisten();
      unhook();
    }
    expect(heldInput()).toEqual({ keys: [], buttons: [] });
  });
});

describe('refused steps', () => {
  it('count as unusable: twelve refused clicks fail the run after --max-errors, not "completed"', async () => {
    // Every answer parses, and every click is aimed outside the window (a WAIT first does not make it usable).
    server.setResponder((_b, i) => ({
      text: answer(
        'click far away',
        i % 2
          ? [act('CLICK', { x: 5000, y: 5000 })]
          : [act('WAIT', { duration: 0.01 }), act('CLICK', { x: -40, y: 10 })],
      ),
    }));
    const r = await runCli(
      [
        'run',
        '--game',
        '2048',
        ...testModelArgs(server.baseURL),
        '--max-retries',
        '0',
        '--max-steps',
        '12',
        '--runs-dir',
        tmp(),
        '--json',
      ],
      { env: { GAMEPILOT_CONFIG_DIR: tmp() } },
    );
    expect(r.code, r.stderr).toBe(1);
    const res = json(r);
    expect(res.status).toBe('failed');
    expect(res.error).toMatch(/^5 steps in a row without usable actions; last error: refused CLICK: /);
    const { steps } = readRun(res.run_dir);
    expect(steps).toHaveLength(5);
    expect(steps.every((s) => s.errors.some((e) => e.startsWith('refused CLICK')))).toBe(true);
    expect(steps.flatMap((s) => s.view_inputs as unknown[])).toEqual([]);
  });
});
