/**
 * Serves built-in game views on 127.0.0.1: `/view/<token>` is the page, `/ws/<token>` its
 * socket. Tokens are unguessable, so other local pages cannot drive a game.
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { BuiltinGame, ViewMetrics } from './builtin-game.ts';
import { viewPageHtml } from './view-page.ts';

/** A message from a view page, parsed but unchecked: each field is checked before it is used. */
interface ViewPageMessage {
  type?: unknown;
  version?: unknown;
  hits?: unknown;
  metrics?: unknown;
  key?: unknown;
  hit?: unknown;
}

interface Entry {
  game: BuiltinGame;
  sockets: Set<WebSocket>;
  detach: () => void;
}

export class GameViewServer {
  private server = http.createServer((req, res) => this.serve(req, res));
  private wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  private entries = new Map<string, Entry>();
  port = 0;

  async start(): Promise<void> {
    this.server.on('upgrade', (req, socket, head) => {
      socket.on('error', () => socket.destroy());
      const token = /^\/ws\/([a-f0-9]+)$/.exec(req.url ?? '')?.[1];
      const entry = token ? this.entries.get(token) : undefined;
      if (!entry) return socket.destroy();
      this.wss.handleUpgrade(req, socket, head, (ws) => this.attach(entry, ws));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Registers a game and returns the URL of its view page. */
  add(game: BuiltinGame): string {
    const token = randomBytes(12).toString('hex');
    const entry: Entry = { game, sockets: new Set(), detach: () => {} };
    const push = () => {
      const msg = JSON.stringify(game.renderMessage());
      for (const ws of entry.sockets) ws.send(msg);
    };
    game.on('changed', push);
    entry.detach = () => game.off('changed', push);
    this.entries.set(token, entry);
    return `http://127.0.0.1:${this.port}/view/${token}`;
  }

  remove(game: BuiltinGame) {
    for (const [token, e] of this.entries) {
      if (e.game !== game) continue;
      e.detach();
      for (const ws of e.sockets) ws.close();
      this.entries.delete(token);
    }
  }

  async close(): Promise<void> {
    for (const e of this.entries.values()) {
      e.detach();
      for (const ws of e.sockets) ws.terminate();
    }
    this.entries.clear();
    this.wss.close();
    this.server.closeAllConnections?.();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private serve(req: http.IncomingMessage, res: http.ServerResponse) {
    const token = /^\/view\/([a-f0-9]+)$/.exec(req.url ?? '')?.[1];
    const entry = token ? this.entries.get(token) : undefined;
    if (!entry || req.method !== 'GET') {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(viewPageHtml(token!, entry.game.title));
  }

  private attach(entry: Entry, ws: WebSocket) {
    entry.sockets.add(ws);
    ws.on('close', () => entry.sockets.delete(ws));
    // An oversized or malformed frame: ws is already closing this socket (1009, 1007); the process goes on.
    ws.on('error', () => {});
    ws.on('message', (data) => {
      let msg: ViewPageMessage | null;
      try {
        msg = JSON.parse(String(data));
      } catch {
        return;
      }
      if (
        msg?.type === 'rendered' &&
        typeof msg.version === 'number' &&
        Number.isInteger(msg.version) &&
        Array.isArray(msg.hits)
      ) {
        entry.game.acknowledgeRender(msg.version, msg.hits, msg.metrics as ViewMetrics);
      } else if (msg?.type === 'key' && typeof msg.key === 'string') {
        entry.game.handleViewInput({ type: 'key', key: msg.key.slice(0, 32) });
      } else if (msg?.type === 'click') {
        entry.game.handleViewInput({ type: 'click', hit: typeof msg.hit === 'string' ? msg.hit.slice(0, 32) : null });
      }
    });
    ws.send(JSON.stringify(entry.game.renderMessage()));
  }
}
