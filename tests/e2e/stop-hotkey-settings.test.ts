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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const NEW_HOTKEY = 'Control+Shift+F9';

let child: ChildProcess;
let client: WsClient;
let stderr: () => string;

beforeAll(async () => {
  const tmp = mkdtempSync(path.join(tmpdir(), 'gp-hotkey-'));
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
});
