/**
 * The renderer's two ways to reach the core, one interface: Electron IPC through the preload
 * bridge, or the web shell's WebSocket. Both reject with an ApiError: the core's own message
 * and its `code` (busy, bad-input, not-found, target-gone, …), so the UI can react to kinds
 * of failure.
 */
import {
  ApiError,
  apiErrorFrom,
  type ApiClient,
  type CoreEvent,
  type Method,
  type Params,
  type Results,
  type WireResponse,
} from '../../../electron/api/contract.ts';

export interface PreloadBridge {
  request(method: string, params: unknown): Promise<WireResponse>;
  onEvent(listener: (e: CoreEvent) => void): () => void;
}

export function ipcClient(bridge: PreloadBridge): ApiClient {
  return {
    async request<M extends Method>(method: M, params?: Params<M>): Promise<Results[M]> {
      const res = await bridge.request(method, params ?? {});
      if ('error' in res) throw apiErrorFrom(res);
      return res.result as Results[M];
    },
    onEvent: (listener) => bridge.onEvent(listener),
  };
}

type SocketCtor = new (
  url: string,
) => {
  readyState: number;
  send(data: string): void;
  close(): void;
  onopen: ((ev: unknown) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
};

export interface WsClient extends ApiClient {
  ready: Promise<void>;
  close(): void;
  onConnection(listener: (connected: boolean) => void): () => void;
}

/** Connects (and reconnects) to the web shell; requests wait for the connection. */
export function wsClient(
  url: string,
  Socket: SocketCtor = (globalThis as unknown as { WebSocket: SocketCtor }).WebSocket,
): WsClient {
  let seq = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const listeners = new Set<(e: CoreEvent) => void>();
  const connListeners = new Set<(c: boolean) => void>();
  let socket: InstanceType<SocketCtor>;
  let closed = false;
  let markReady: () => void = () => {};
  let ready = new Promise<void>((r) => (markReady = r));

  const connect = () => {
    socket = new Socket(url);
    socket.onopen = () => {
      markReady();
      connListeners.forEach((l) => {
        l(true);
      });
    };
    socket.onmessage = (m) => {
      const msg = JSON.parse(String(m.data)) as {
        event?: CoreEvent;
        id?: number;
        result?: unknown;
        error?: unknown;
        code?: unknown;
      };
      const event = msg.event;
      if (event) {
        listeners.forEach((l) => {
          l(event);
        });
        return;
      }
      if (typeof msg.id !== 'number') return;
      const p = pending.get(msg.id);
      if (!p) return;
      pending.delete(msg.id);
      if (typeof msg.error === 'string') p.reject(apiErrorFrom({ error: msg.error, code: msg.code }));
      else p.resolve(msg.result);
    };
    socket.onclose = () => {
      connListeners.forEach((l) => {
        l(false);
      });
      for (const p of pending.values()) p.reject(new ApiError('internal', 'connection to Gamepilot lost'));
      pending.clear();
      if (closed) return;
      ready = new Promise<void>((r) => (markReady = r));
      setTimeout(connect, 1000);
    };
    socket.onerror = () => {};
  };
  connect();

  return {
    get ready() {
      return ready;
    },
    async request<M extends Method>(method: M, params?: Params<M>): Promise<Results[M]> {
      await ready;
      const id = ++seq;
      return new Promise<Results[M]>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        socket.send(JSON.stringify({ id, method, params: params ?? {} }));
      });
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onConnection(listener) {
      connListeners.add(listener);
      return () => connListeners.delete(listener);
    },
    close() {
      closed = true;
      socket.close();
    },
  };
}

const TOKEN_KEY = 'gamepilot-token';

/**
 * The web shell's session token: taken from the URL fragment (`#token=`, how a launch code
 * hands it over) or query (`?token=`, the printed URL), kept in sessionStorage for reloads of
 * this tab, and removed from the address bar so it is not left in view, history or bookmarks.
 */
export function takeSessionToken(
  loc: Pick<Location, 'pathname' | 'search' | 'hash'> = location,
  storage: Pick<Storage, 'getItem' | 'setItem'> = sessionStorage,
  hist: Pick<History, 'replaceState'> = history,
): string {
  const query = new URLSearchParams(loc.search);
  const fragment = new URLSearchParams(loc.hash.replace(/^#/, ''));
  const given = fragment.get('token') ?? query.get('token');
  if (given === null) return storage.getItem(TOKEN_KEY) ?? '';
  storage.setItem(TOKEN_KEY, given);
  query.delete('token');
  fragment.delete('token');
  const q = query.toString();
  const f = fragment.toString();
  hist.replaceState(null, '', `${loc.pathname}${q ? `?${q}` : ''}${f ? `#${f}` : ''}`);
  return given;
}
