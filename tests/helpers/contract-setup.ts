/**
 * What the contract's e2e tests set up: a core over a test folder, served over both transports
 * the renderer uses (the web shell's WebSocket and Electron's IPC, in memory), and a step that
 * did nothing for a run written straight to disk.
 */
import path from 'node:path';
import { WebSocket } from 'ws';
import { GamepilotCore } from '../../electron/api/core.ts';
import { JsonFileSettingsStore, MemorySecretStore } from '../../electron/api/settings-store.ts';
import { createWindowManager } from '../../native/index.ts';
import type { ApiClient } from '../../electron/api/contract.ts';
import { fromMainFrameOf, serveIpc } from '../../electron/api/ipc-transport.ts';
import type { StepRecord } from '../../electron/store/run-store.ts';
import { startWebShell, type WebShell } from '../../electron/web/loopback-server.ts';
import { ipcClient, wsClient, type WsClient } from '../../renderer/src/api/clients.ts';
import { ipcPair } from './ipc-pair.ts';

/** A web-shell core whose runs, config and exports folders are `runs/`, `config/` and `exports/` in `tmp`. */
export function coreIn(tmp: string): GamepilotCore {
  const configDir = path.join(tmp, 'config');
  return new GamepilotCore({
    wm: createWindowManager(),
    settings: new JsonFileSettingsStore(path.join(configDir, 'settings.json')),
    secrets: new MemorySecretStore(),
    runsDir: path.join(tmp, 'runs'),
    configDir,
    exportDir: path.join(tmp, 'exports'),
    shell: 'web',
    version: '0.0.0-test',
  });
}

export async function serveBothTransports(
  core: GamepilotCore,
  staticDir: string,
): Promise<{ shell: WebShell; ws: WsClient; ipc: ApiClient }> {
  const shell = await startWebShell(core, { staticDir });
  const ws = wsClient(`ws://127.0.0.1:${shell.port}/api/ws?token=${shell.token}`, WebSocket as never);
  const pair = ipcPair();
  serveIpc(
    core,
    pair.ipcMain,
    () => [pair.sink],
    (e) => fromMainFrameOf(e, pair.contents),
  );
  return { shell, ws, ipc: ipcClient(pair.bridge) };
}

/** Step 0 of episode 0 on `frame`: no actions, no errors. */
export function idleStep(frame: string | null): StepRecord {
  return {
    step: 0,
    episode: 0,
    t_capture: Date.now(),
    frame,
    reasoning: 'r',
    raw: null,
    actions: [],
    errors: [],
    latency_ms: { locate: 1, capture: 1, encode: 1, model: 1, act: 1, total: 5 },
  };
}
