/**
 * An in-memory stand-in for Electron's ipcMain/ipcRenderer pair with its semantics: invoke()
 * reaches the one handler of a channel with an event naming the sending webContents and frame,
 * and every payload crosses by structured clone (as across processes), so nothing
 * unserialisable can slip through the contract unnoticed.
 */
import type {
  IpcMainLike,
  IpcEventLike,
  EventSink,
  ContentsLike,
  FrameLike,
} from '../../electron/api/ipc-transport.ts';
import { IPC_EVENT, IPC_REQUEST } from '../../electron/api/ipc-transport.ts';
import type { PreloadBridge } from '../../renderer/src/api/clients.ts';
import type { CoreEvent, WireResponse } from '../../electron/api/contract.ts';

export interface IpcPair {
  ipcMain: IpcMainLike;
  sink: EventSink;
  /** The control window's webContents (its main frame is the renderer's page). */
  contents: ContentsLike;
  /** The preload bridge of the control window's main frame. */
  bridge: PreloadBridge;
  /** A bridge as seen from any other sender and frame (a subframe, another window…). */
  bridgeFrom(sender: unknown, senderFrame: FrameLike | null): PreloadBridge;
}

export function ipcPair(): IpcPair {
  const handlers = new Map<string, (event: IpcEventLike, request: unknown) => unknown>();
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
  const contents: ContentsLike = {
    mainFrame: { processId: 7, routingId: 1, url: 'file:///app/dist/renderer/index.html' },
    isDestroyed: () => false,
  };
  const bridgeFrom = (sender: unknown, senderFrame: FrameLike | null): PreloadBridge => ({
    async request(method, params) {
      const h = handlers.get(IPC_REQUEST);
      if (!h) throw new Error(`No handler registered for '${IPC_REQUEST}'`);
      return structuredClone(await h({ sender, senderFrame }, structuredClone({ method, params }))) as WireResponse;
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  });
  return { ipcMain, sink, contents, bridge: bridgeFrom(contents, contents.mainFrame), bridgeFrom };
}
