/**
 * Only the control window's main frame may call the core over IPC. The in-memory ipcMain pair
 * delivers invocations as Electron does (an event naming the sending webContents and frame);
 * a real core answers the ones the check lets through.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { GamepilotCore } from '../../electron/api/core.ts';
import { JsonFileSettingsStore, MemorySecretStore } from '../../electron/api/settings-store.ts';
import { fromMainFrameOf, serveIpc, type ContentsLike } from '../../electron/api/ipc-transport.ts';
import { createWindowManager } from '../../native/index.ts';
import { ipcPair, type IpcPair } from '../helpers/ipc-pair.ts';
import type { WireResponse } from '../../electron/api/contract.ts';

/** The error (with its code) and result of a wire response, whichever it has. */
const parts = (r: WireResponse) => r as { error?: string; code?: string; result?: unknown };

const PAGE = 'file:///app/dist/renderer/index.html';
let pair: IpcPair;
let destroyed = false;

beforeAll(() => {
  const tmp = mkdtempSync(path.join(tmpdir(), 'gp-ipc-'));
  const core = new GamepilotCore({
    wm: createWindowManager(),
    settings: new JsonFileSettingsStore(path.join(tmp, 'settings.json')),
    secrets: new MemorySecretStore(),
    runsDir: path.join(tmp, 'runs'),
    exportDir: path.join(tmp, 'exports'),
    shell: 'electron',
    version: '0.0.0-test',
  });
  pair = ipcPair();
  const contents: ContentsLike = Object.assign(pair.contents, { isDestroyed: () => destroyed });
  serveIpc(
    core,
    pair.ipcMain,
    () => [pair.sink],
    (e) => fromMainFrameOf(e, contents, PAGE),
  );
});

describe('IPC sender check', () => {
  it('answers the control window’s main frame', async () => {
    const r = parts(await pair.bridge.request('health', {}));
    expect(r.error).toBeUndefined();
    expect(r.result).toMatchObject({ ok: true });
  });

  it('refuses a subframe of the control window, another window, a frame already gone, and a page navigated to', async () => {
    const main = pair.contents.mainFrame;
    const senders = {
      subframe: pair.bridgeFrom(pair.contents, {
        processId: main.processId,
        routingId: main.routingId + 1,
        url: 'https://ads.example/frame',
      }),
      'a game window': pair.bridgeFrom(
        { mainFrame: { processId: 9, routingId: 1 } },
        { processId: 9, routingId: 1, url: 'http://127.0.0.1:41234/game/2048' },
      ),
      'a frame that is gone': pair.bridgeFrom(pair.contents, null),
      'the main frame on another page': pair.bridgeFrom(pair.contents, {
        processId: main.processId,
        routingId: main.routingId,
        url: 'https://evil.example/',
      }),
    };
    for (const [who, bridge] of Object.entries(senders)) {
      const r = parts(await bridge.request('getSettings', {}));
      expect(r.result, who).toBeUndefined();
      expect(r.error, who).toMatch(/only the Gamepilot control window/);
      expect(r.code, who).toBe('forbidden');
    }
  });

  it('refuses everyone once the control window is destroyed', async () => {
    destroyed = true;
    try {
      expect(parts(await pair.bridge.request('health', {})).error).toMatch(/refused/);
    } finally {
      destroyed = false;
    }
  });
});
