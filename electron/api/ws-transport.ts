/**
 * The contract over a WebSocket: `{id, method, params}` in, `{id, result | error}` out, and
 * `{event}` pushed. Authentication and origin checks happen at the upgrade (web/loopback-server.ts).
 * A frame the socket layer rejects (too large: 1009, invalid UTF-8: 1007) closes only that
 * socket; nothing a client sends can end the process.
 */
import type { WebSocket } from 'ws';
import type { CoreEvent, WireRequest, WireResponse } from './contract.ts';
import type { GamepilotCore } from './core.ts';
import { wireError } from './errors.ts';

export function serveSocket(core: GamepilotCore, ws: WebSocket, log: (s: string) => void = () => {}): void {
  const send = (msg: WireResponse | { event: CoreEvent }) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(msg));
  };
  const relay = (e: CoreEvent) => send({ event: e });
  core.on('event', relay);
  ws.on('close', () => core.off('event', relay));
  // ws has already begun closing with the right code (1009, 1007, 1002) when it reports this.
  ws.on('error', (err) => log(`web shell: closed a socket: ${err.message}`));
  ws.on('message', async (data, isBinary) => {
    let req: WireRequest;
    try {
      if (isBinary) throw new Error('expected a text message');
      req = JSON.parse(String(data)) as WireRequest;
      if (typeof req?.id !== 'number' || typeof req.method !== 'string')
        throw new Error('expected {id, method, params}');
    } catch (err) {
      send({ id: -1, error: `bad request: ${(err as Error).message}`, code: 'bad-input' });
      return;
    }
    try {
      send({ id: req.id, result: await core.handle(req.method, req.params) });
    } catch (err) {
      send({ id: req.id, ...wireError(err) });
    }
  });
}
