/**
 * An in-memory stand-in for Electron's ipcMain/ipcRenderer pair with its semantics: invoke()
 * reaches the one handler of a channel, and every payload crosses by structured clone (as
 * across processes), so nothing unserialisable can slip through the contract unnoticed.
 */
import type { IpcMainLike, EventSink } from '../../electron/api/ipc-transport.ts';
import { IPC_EVENT, IPC_REQUEST } from '../../electron/api/ipc-transport.ts';
import type { PreloadBridge } from '../../renderer/src/api/clients.ts';
import type { CoreEvent, WireResponse } from '../../electron/api/contract.ts';

export function ipcPair(): { ipcMain: IpcMainLike; sink: EventSink; bridge: PreloadBridge } {
  const handlers = new Map<string, (event: unknown, ...args: unknown[]) => unknown>();
  const listeners = new Set<(e: CoreEvent) => void>();
  const ipcMain: IpcMainLike = {
    handle(channel, fn) {
      if (handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
      handlers.set(channel, fn);
    },
    removeHandler(channel) {
      handlers.delete(channel);
    },
  };
  const sink: EventSink = {
    send(channel, payload) {
      if (channel !== IPC_EVENT) return;
      const copy = structuredClone(payload) as CoreEvent;
      for (const l of listeners) l(copy);
    },
  };
  const bridge: PreloadBridge = {
    async request(method, params) {
      const h = handlers.get(IPC_REQUEST);
      if (!h) throw new Error(`No handler registered for '${IPC_REQUEST}'`);
      return structuredClone(await h({ sender: 'renderer' }, structuredClone({ method, params }))) as WireResponse;
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return { ipcMain, sink, bridge };
}
