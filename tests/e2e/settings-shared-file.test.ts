/**
 * The real `gamepilot web` process on a config folder holding the app's settings file (as
 * electron-store writes it, with the encrypted API key): it shows the app's settings, and a
 * save over its contract keeps the key's ciphertext byte for byte. Before, it read the app's
 * file as defaults and its first save dropped the key.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Conf from 'conf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WsClient } from '../../renderer/src/api/clients.ts';
import { DEFAULT_SETTINGS, type Settings } from '../../electron/api/contract.ts';
import { shellClient, startWebShellCli } from '../helpers/web-ui.ts';
import { stop } from '../helpers/windows.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'gp-shared-settings-e2e-'));
const configDir = path.join(tmp, 'config');
const file = path.join(configDir, 'settings.json');
const enc = Buffer.concat([Buffer.from('v11'), randomBytes(48)]).toString('base64');
const appSettings: Settings = {
  ...DEFAULT_SETTINGS,
  provider: 'ollama',
  baseUrl: 'http://localhost:11434/v1',
  model: 'app-model',
};

let child: ChildProcess;
let client: WsClient;

beforeAll(async () => {
  // The app's file, written as the app (electron-store, i.e. conf) writes it.
  const app = new Conf<{ settings: Settings; apiKeyEncrypted?: string }>({
    cwd: configDir,
    configName: 'settings',
    clearInvalidConfig: false,
    configFileMode: 0o600,
    defaults: { settings: DEFAULT_SETTINGS },
  });
  app.set('settings', appSettings);
  app.set('apiKeyEncrypted', enc);
  // No --config-dir: the web shell finds settings where a user's would, in the config folder.
  const shell = await startWebShellCli(['--no-demo', '--runs-dir', path.join(tmp, 'runs')], {
    GAMEPILOT_CONFIG_DIR: configDir,
    OPENAI_API_KEY: '',
  });
  child = shell.child;
  client = shellClient(shell);
  await client.ready;
});

afterAll(async () => {
  client?.close();
  if (child) await stop(child);
});

describe("the web shell on the app's settings file", () => {
  it("shows the app's settings, and its save keeps the app's encrypted key byte for byte", async () => {
    const view = await client.request('getSettings');
    expect(view.settings).toEqual(appSettings);
    expect(view.apiKeySet).toBe(false); // the ciphertext is the app's: never taken for a key here

    const saved = await client.request('saveSettings', { settings: { model: 'web-model', history: 3 } });
    expect(saved.settings).toEqual({ ...appSettings, model: 'web-model', history: 3 });

    const text = readFileSync(file, 'utf8');
    expect(text).toContain(`"apiKeyEncrypted": "${enc}"`);
    expect(JSON.parse(text)).toEqual({ settings: saved.settings, apiKeyEncrypted: enc });
  });
});
