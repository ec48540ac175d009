/**
 * The contract over a WebSocket: `{id, method, params}` in, `{id, result | error}` out, and
 * `{event}` pushed. Authentication and origin checks happen at the upgrade (web/server.ts).
 */
import type { WebSocket } from 'ws';
import type { CoreEvent, WireRequest } from './contract.ts';
import type { GamepilotCore } from './core.ts';

export function serveSocket(core: GamepilotCore, ws: WebSocket): void {
  const relay = (e: CoreEvent) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ event: e }));
  };
  core.on('event', relay);
  ws.on('close', () => core.off('event', relay));
  ws.on('message', async (data) => {
    let req: WireRequest;
    try {
      req = JSON.parse(String(data)) as WireRequest;
      if (typeof req?.id !== 'number' || typeof req.method !== 'string') throw new Error('expected {id, method, params}');
    } catch (err) {
      ws.send(JSON.stringify({ id: -1, error: `bad request: ${(err as Error).message}` }));
      return;
    }
    try {
      const result = await core.handle(req.method, req.params);
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ id: req.id, result }));
    } catch (err) {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ id: req.id, error: (err as Error).message }));
    }
  });
}
