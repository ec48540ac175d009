/**
 * The stop hotkey follows Settings without a restart: the real `gamepilot web` process, a run
 * of a built-in game, the hotkey changed over the contract, and real key presses (xdotool)
 * caught by the shell's system-wide hook. Before, the hotkey was read once at start.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellClient, startWebShellCli } from '../helpers/web-ui.ts';
import { stop } from '../helpers/windows.ts';
import { heldInput } from '../helpers/xinput.ts';
import type { WsClient } from '../../renderer/src/api/clients.ts';
import { ApiError } from '../../electron/api/contract.ts';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { json, runCli, testModelArgs } from '../helpers/cli.ts';
import { readRun } from '../../electron/store/run-store.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const NEW_HOTKEY = 'Control+Shift+F9';

let child: ChildProcess;
let client: WsClient;
let stderr: () => string;
let tmp: string;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'gp-hotkey-'));
  const shell = await startWebShellCli(
    ['--no-demo', '--runs-dir', path.join(tmp, 'runs'), '--config-dir', path.join(tmp, 'config')],
    { GAMEPILOT_CONFIG_DIR: path.join(tmp, 'registries') },
  );
  child = shell.child;
  stderr = shell.stderr;
  client = shellClient(shell);
  await client.ready;
});

afterAll(async () => {
  client?.close();
  if (child) await stop(child);
});

const status = async () => (await client.request('state')).status;

async function startLongRun() {
  await client.request('startRun', { target: { game: 'tictactoe' }, agent: 'random', episodes: 50, paceMs: 200 });
  await expect.poll(status, { timeout: 30_000 }).toBe('running');
}

describe('the stop hotkey in the web shell', () => {
  it('takes a new hotkey saved in Settings at once: the new one stops the run, the old one no longer does', async () => {
    expect((await client.request('state')).stopHotkey).toBe('CommandOrControl+Shift+F12');
    const saved = await client.request('saveSettings', { settings: { stopHotkey: NEW_HOTKEY } });
    expect(saved.settings.stopHotkey).toBe(NEW_HOTKEY);
    await expect.poll(stderr, { timeout: 10_000 }).toContain(`stop hotkey is now ${NEW_HOTKEY}`);

    await startLongRun();
    try {
      execFileSync('xdotool', ['key', 'ctrl+shift+F12']);
      await sleep(1500);
      expect(await status()).toBe('running');

      execFileSync('xdotool', ['key', 'ctrl+shift+F9']);
      await expect.poll(status, { timeout: 10_000 }).toBe('idle');
      expect(stderr()).toContain(`stop hotkey ${NEW_HOTKEY}: stopping`);
      expect(heldInput()).toEqual({ keys: [], buttons: [] });
    } finally {
      await client.request('control', { action: 'stop' });
    }
  });

  it('refuses a hotkey that is no key combination, and keeps the one that works', async () => {
    const refused = await client.request('saveSettings', { settings: { stopHotkey: 'Control+Shift' } }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({
      code: 'bad-input',
      message: expect.stringMatching(/stopHotkey: hotkey "Control\+Shift" has no key/),
    });
    expect((await client.request('getSettings')).settings.stopHotkey).toBe(NEW_HOTKEY);

    await startLongRun();
    try {
      execFileSync('xdotool', ['key', 'ctrl+shift+F9']);
      await expect.poll(status, { timeout: 10_000 }).toBe('idle');
    } finally {
      await client.request('control', { action: 'stop' });
    }
  });

  it("is never pressed by a model in another Gamepilot process: its run goes on, the model's steps are refused", async () => {
    const act = (type: string, parameters: Record<string, unknown>) => ({ action_type: type, parameters });
    // The shell's own hotkeys (ctrl+shift+F9 since the first test; take over: the default
    // ctrl+shift+F11) and the default stop hotkey, spelled in one HOTKEY, across KEY_DOWNs, and
    // with the key held first (its autorepeat would send the chord).
    const plans = [
      [act('HOTKEY', { keys: ['ctrl', 'shift', 'f9'] })],
      [act('KEY_DOWN', { key: 'ctrl' }), act('KEY_DOWN', { key: 'shift' }), act('PRESS', { key: 'f9' })],
      [act('KEY_DOWN', { key: 'f9' }), act('KEY_DOWN', { key: 'shift' }), act('KEY_DOWN', { key: 'ctrl' })],
      [act('HOTKEY', { keys: ['shift', 'control', 'F12'] })],
      [act('HOTKEY', { keys: ['ctrl', 'shift', 'f11'] })],
    ];
    const model = await new FakeOpenAI((_b, i) => ({
      text: answer('press the controls', plans[Math.min(i, plans.length - 1)]!),
    })).start();
    await startLongRun();
    const said = stderr().length;
    try {
      const r = await runCli(
        [
          'run',
          '--game',
          '2048',
          ...testModelArgs(model.baseURL),
          '--max-retries',
          '0',
          '--episodes',
          '1',
          '--max-steps',
          String(plans.length),
          '--runs-dir',
          path.join(tmp, 'cli-runs'),
          '--json',
        ],
        // The same settings file as the shell's: the CLI knows the person's hotkeys.
        { env: { GAMEPILOT_CONFIG_DIR: path.join(tmp, 'config') } },
      );
      const res = json(r);
      const { meta, steps } = readRun(res.run_dir);
      expect(steps).toHaveLength(plans.length);
      const refusals = steps.map((s) => (s.outcomes as { ok: boolean; error?: string }[]).find((o) => !o.ok)?.error);
      expect(refusals.slice(0, 3)).toEqual(
        Array(3).fill(expect.stringMatching(/would press Gamepilot's stop hotkey \(Control\+Shift\+F9\)/)),
      );
      expect(refusals[3]).toMatch(/would press Gamepilot's stop hotkey \(CommandOrControl\+Shift\+F12\)/);
      expect(refusals[4]).toMatch(/would press Gamepilot's take over hotkey \(CommandOrControl\+Shift\+F11\)/);
      // The CLI run did not take itself over, and nothing stayed held.
      expect(steps.every((s) => s.actor !== 'human')).toBe(true);
      expect(meta.takeovers ?? []).toEqual([]);
      expect(heldInput()).toEqual({ keys: [], buttons: [] });
      // The shell's run was never stopped.
      expect(await status()).toBe('running');
      expect(stderr().slice(said)).not.toContain('stopping');
    } finally {
      await client.request('control', { action: 'stop' });
      await model.close();
    }
  });
});
