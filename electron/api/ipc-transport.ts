/**
 * The contract over Electron IPC. Typed against the few ipcMain/webContents members it uses,
 * so the same adapter runs in the app and, with an in-memory pair, in the contract test.
 */
import type { CoreEvent, WireResponse } from './contract.ts';
import type { GamepilotCore } from './core.ts';

export const IPC_REQUEST = 'gamepilot:request';
export const IPC_EVENT = 'gamepilot:event';

export interface IpcMainLike {
  handle(channel: string, listener: (event: unknown, ...args: any[]) => unknown): void;
  removeHandler(channel: string): void;
}

export interface EventSink {
  send(channel: string, payload: unknown): void;
  isDestroyed?(): boolean;
}

/** Serves requests and relays events to every sink `sinks()` returns at that moment. */
export function serveIpc(core: GamepilotCore, ipcMain: IpcMainLike, sinks: () => EventSink[]): () => void {
  let seq = 0;
  ipcMain.handle(IPC_REQUEST, async (_event, req: { method?: unknown; params?: unknown }): Promise<WireResponse> => {
    const id = ++seq;
    try {
      if (typeof req?.method !== 'string') throw new Error('request without a method');
      return { id, result: await core.handle(req.method, req.params) };
    } catch (err) {
      return { id, error: (err as Error).message };
    }
  });
  const relay = (e: CoreEvent) => {
    for (const s of sinks()) if (!s.isDestroyed?.()) s.send(IPC_EVENT, e);
  };
  core.on('event', relay);
  return () => {
    ipcMain.removeHandler(IPC_REQUEST);
    core.off('event', relay);
  };
}
