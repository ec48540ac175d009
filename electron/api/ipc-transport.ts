/**
 * The contract over Electron IPC. Typed against the few ipcMain/webContents members it uses,
 * so the same adapter runs in the app and, with an in-memory pair, in the contract test.
 * Only a trusted sender may call: in the app, the control window's main frame (not a subframe,
 * not a game window, not a page the control window was navigated to).
 */
import type { CoreEvent, WireResponse } from './contract.ts';
import type { GamepilotCore } from './core.ts';
import { wireError } from './errors.ts';

export const IPC_REQUEST = 'gamepilot:request';
export const IPC_EVENT = 'gamepilot:event';

export interface IpcMainLike {
  /** `request` is whatever the sender passed (unchecked). */
  handle(channel: string, listener: (event: IpcEventLike, request: unknown) => unknown): void;
  removeHandler(channel: string): void;
}

export interface EventSink {
  send(channel: string, payload: unknown): void;
  isDestroyed?(): boolean;
}

/** The parts of a frame that identify it (Electron's WebFrameMain has them). */
export interface FrameLike {
  readonly processId: number;
  readonly routingId: number;
  readonly url?: string;
}

/** The parts of an invoke event the sender check reads (Electron's IpcMainInvokeEvent). */
export interface IpcEventLike {
  readonly sender?: unknown;
  /** Null when the frame navigated away or was destroyed before the message was handled. */
  readonly senderFrame?: FrameLike | null;
}

export interface ContentsLike {
  readonly mainFrame: FrameLike;
  isDestroyed?(): boolean;
}

const withoutQuery = (u: string) => u.replace(/[?#].*$/, '');

/**
 * True only for a message from the main frame of `contents` (the control window) and, when
 * `page` is given, while that frame shows `page` (query and hash aside).
 */
export function fromMainFrameOf(event: IpcEventLike, contents: ContentsLike | undefined, page?: string): boolean {
  if (!contents || contents.isDestroyed?.()) return false;
  if (event.sender !== contents) return false;
  const frame = event.senderFrame;
  const main = contents.mainFrame;
  if (!frame || !(frame === main || (frame.processId === main.processId && frame.routingId === main.routingId)))
    return false;
  return page === undefined || withoutQuery(frame.url ?? '') === withoutQuery(page);
}

/**
 * Serves requests from senders `allowed` accepts and relays events to every sink `sinks()`
 * returns at that moment. A refused sender gets an error and nothing runs.
 */
export function serveIpc(
  core: GamepilotCore,
  ipcMain: IpcMainLike,
  sinks: () => EventSink[],
  allowed: (event: IpcEventLike) => boolean,
): () => void {
  let seq = 0;
  ipcMain.handle(IPC_REQUEST, async (event: IpcEventLike, request: unknown): Promise<WireResponse> => {
    const id = ++seq;
    if (!allowed(event))
      return { id, error: 'refused: only the Gamepilot control window may call the core', code: 'forbidden' };
    const req: { method?: unknown; params?: unknown } = typeof request === 'object' && request !== null ? request : {};
    if (typeof req.method !== 'string') return { id, error: 'request without a method', code: 'bad-input' };
    try {
      return { id, result: await core.handle(req.method, req.params) };
    } catch (err) {
      return { id, ...wireError(err) };
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
