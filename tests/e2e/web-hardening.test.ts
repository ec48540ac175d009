/**
 * What a hostile page or client can do to the web shell: malformed requests and frames (raw
 * sockets), foreign Host headers (DNS rebinding), and reading the token off a command line.
 * The shell under attack is the real `gamepilot web` process; it must answer 4xx, close only
 * the offending socket, and keep serving.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WebSocket } from 'ws';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebShellCli, TEST_BROWSER_FLAGS } from '../helpers/web-ui.ts';
import { stop } from '../helpers/windows.ts';
import { GamepilotCore } from '../../electron/api/core.ts';
import { JsonFileSettingsStore, MemorySecretStore } from '../../electron/api/settings-store.ts';
import { startWebShell, type WebShell } from '../../electron/web/loopback-server.ts';
import { ensureRenderer } from '../../electron/web/web-shell.ts';
import { createWindowManager } from '../../native/index.ts';
import { GameViewServer } from '../../electron/games/view-server.ts';
import { BuiltinGame } from '../../electron/games/builtin-game.ts';
import { getGame } from '../../games/index.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts `gamepilot web` and reads the URL it prints first. */
async function startShell(
  extra: string[] = [],
): Promise<{ child: ChildProcess; url: URL; token: string; port: number; stderr: () => string }> {
  const tmp = mkdtempSync(path.join(tmpdir(), 'gp-harden-'));
  const shell = await startWebShellCli([
    '--no-demo',
    '--runs-dir',
    path.join(tmp, 'runs'),
    '--config-dir',
    path.join(tmp, 'config'),
    ...extra,
  ]);
  const url = new URL(shell.url);
  return {
    child: shell.child,
    url,
    token: url.searchParams.get('token')!,
    port: Number(url.port),
    stderr: shell.stderr,
  };
}

/** Sends raw bytes and collects everything the server answers until it closes (or 3 s pass). */
function raw(port: number, text: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => s.write(text));
    let got = '';
    s.on('data', (d) => (got += d.toString('latin1')));
    s.on('error', reject);
    s.on('close', () => resolve(got));
    setTimeout(() => s.destroy(), 3000);
  });
}

function get(
  port: number,
  pathname: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: pathname, headers }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A WebSocket opened by hand: the handshake's answer, and the socket for hand-made frames. */
async function handshake(
  port: number,
  target: string,
  host = `127.0.0.1:${port}`,
): Promise<{ status: string; socket: net.Socket; frames: () => Buffer }> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  let buf = Buffer.alloc(0);
  socket.on('data', (d) => (buf = Buffer.concat([buf, d])));
  socket.on('error', () => {});
  socket.write(
    `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  const t0 = Date.now();
  while (!buf.includes('\r\n\r\n') && Date.now() - t0 < 5000) await sleep(10);
  const end = buf.indexOf('\r\n\r\n') + 4;
  const status = buf.subarray(0, end).toString('latin1').split('\r\n')[0]!;
  return { status, socket, frames: () => buf.subarray(end) };
}

/** A client frame: masked, as RFC 6455 requires; `declared` lies about the length when given. */
function clientFrame(opcode: number, payload: Buffer, declared = payload.length): Buffer {
  const mask = randomBytes(4);
  const masked = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]!));
  let head: Buffer;
  if (declared < 126) head = Buffer.from([0x80 | opcode, 0x80 | declared]);
  else if (declared < 65536) head = Buffer.from([0x80 | opcode, 0x80 | 126, declared >> 8, declared & 0xff]);
  else {
    head = Buffer.alloc(10);
    head[0] = 0x80 | opcode;
    head[1] = 0x80 | 127;
    head.writeBigUInt64BE(BigInt(declared), 2);
  }
  return Buffer.concat([head, mask, masked]);
}

/** Waits for the server's close frame and returns its status code. */
async function closeCode(frames: () => Buffer): Promise<number> {
  const t0 = Date.now();
  while (Date.now() - t0 < 5000) {
    let b = frames();
    while (b.length >= 2) {
      const opcode = b[0]! & 0x0f;
      let len = b[1]! & 0x7f;
      let off = 2;
      if (len === 126) {
        len = b.readUInt16BE(2);
        off = 4;
      } else if (len === 127) {
        len = Number(b.readBigUInt64BE(2));
        off = 10;
      }
      if (b.length < off + len) break;
      if (opcode === 8) return b.readUInt16BE(off);
      b = b.subarray(off + len);
    }
    await sleep(10);
  }
  throw new Error('no close frame within 5 s');
}

describe('the web shell under malformed requests and frames', () => {
  let shell: Awaited<ReturnType<typeof startShell>>;
  beforeAll(async () => {
    shell = await startShell();
  });
  afterAll(async () => {
    if (shell) await stop(shell.child);
  });
  const alive = async () => {
    expect(shell.child.exitCode).toBe(null);
    expect(
      (await get(shell.port, `/api/health?token=${shell.token}`, { host: `127.0.0.1:${shell.port}` })).status,
    ).toBe(200);
  };

  it('answers a malformed escape in the path with 400, without a token, and keeps serving', async () => {
    const answer = await raw(
      shell.port,
      `GET /%E0%A4%A HTTP/1.1\r\nHost: 127.0.0.1:${shell.port}\r\nConnection: close\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    await sleep(300);
    await alive();
  });

  it('answers a request Node cannot parse with 400 and keeps serving', async () => {
    expect(await raw(shell.port, 'NOT A REQUEST\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 /);
    expect(await raw(shell.port, `GET / HTTP/1.1\r\nHost: 127.0.0.1:${shell.port}\r\nBad Header\r\n\r\n`)).toMatch(
      /^HTTP\/1\.1 400 /,
    );
    await alive();
  });

  it('closes a socket that sends an oversized message with 1009, and keeps serving', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${shell.port}/api/ws?token=${shell.token}`);
    await new Promise((r, j) => {
      ws.once('open', r);
      ws.once('error', j);
    });
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    ws.on('error', () => {});
    ws.send(JSON.stringify({ id: 1, method: 'health', params: { pad: 'x'.repeat(2 * 1024 * 1024) } }));
    expect(await closed).toBe(1009);

    // A raw frame that only claims to be huge is refused at its header.
    const h = await handshake(shell.port, `/api/ws?token=${shell.token}`);
    expect(h.status).toMatch(/ 101 /);
    h.socket.write(clientFrame(1, Buffer.from('{}'), 64 * 1024 * 1024));
    expect(await closeCode(h.frames)).toBe(1009);
    h.socket.destroy();
    await sleep(300);
    await alive();
  });

  it('closes a socket that sends invalid UTF-8 with 1007, and keeps serving', async () => {
    const h = await handshake(shell.port, `/api/ws?token=${shell.token}`);
    expect(h.status).toMatch(/ 101 /);
    h.socket.write(clientFrame(1, Buffer.from([0x7b, 0xff, 0xfe, 0x7d])));
    expect(await closeCode(h.frames)).toBe(1007);
    h.socket.destroy();
    await sleep(300);
    await alive();
    // The contract still answers on a fresh socket.
    const ws = new WebSocket(`ws://127.0.0.1:${shell.port}/api/ws?token=${shell.token}`);
    const reply = await new Promise<string>((resolve, reject) => {
      ws.once('open', () => ws.send(JSON.stringify({ id: 7, method: 'health', params: {} })));
      ws.on('message', (d) => resolve(String(d)));
      ws.once('error', reject);
    });
    ws.close();
    expect(JSON.parse(reply)).toMatchObject({ id: 7, result: { ok: true } });
  });

  it('refuses foreign Host headers (DNS rebinding) on routes, static files and the socket', async () => {
    const p = shell.port;
    for (const host of [`evil.example:${p}`, `127.0.0.1.evil.example:${p}`, 'evil.example', `127.0.0.1:${p + 1}`]) {
      expect((await get(p, `/api/health?token=${shell.token}`, { host })).status, host).toBe(403);
      expect((await get(p, '/', { host })).status, host).toBe(403);
      expect((await handshake(p, `/api/ws?token=${shell.token}`, host)).status, host).toMatch(/ 403 /);
    }
    // HTTP/1.0 without any Host header.
    expect(await raw(p, 'GET /api/health HTTP/1.0\r\n\r\n')).toMatch(/^HTTP\/1\.1 403 /);
    for (const host of [`127.0.0.1:${p}`, `localhost:${p}`, `LOCALHOST:${p}`, `[::1]:${p}`]) {
      expect((await get(p, `/api/health?token=${shell.token}`, { host })).status, host).toBe(200);
    }
    const ok = await handshake(p, `/api/ws?token=${shell.token}`, `localhost:${p}`);
    expect(ok.status).toMatch(/ 101 /);
    ok.socket.destroy();
    await alive();
  });
});

describe('handing the token to a browser', () => {
  it('gamepilot web --open puts no token on any command line, and the browser gets in with a one-time code', async () => {
    const shell = await startShell(['--open']);
    try {
      // The browser it started, found by its private launch page.
      let browserPid = 0;
      let page = '';
      const t0 = Date.now();
      while (!browserPid && Date.now() - t0 < 20000) {
        for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
          let cmd = '';
          try {
            cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
          } catch {
            continue;
          }
          const m = /--app=file:\/\/(\S*gamepilot-open-[^\0]*)/.exec(cmd);
          if (m) {
            browserPid = Number(pid);
            page = decodeURIComponent(m[1]!);
          }
        }
        if (!browserPid) await sleep(100);
      }
      expect(browserPid).toBeGreaterThan(0);
      // The UI is not a game view: its frames keep Chromium's usual rate limit.
      expect(readFileSync(`/proc/${browserPid}/cmdline`, 'utf8').split('\0')).not.toContain(
        '--disable-frame-rate-limit',
      );
      // No process on the machine shows the token in its arguments.
      for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
        try {
          expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8'), `pid ${pid}`).not.toContain(shell.token);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT' && (err as NodeJS.ErrnoException).code !== 'ESRCH')
            throw err;
        }
      }
      // The launch page is private to the user, and goes away once the browser used its code.
      expect(existsSync(page)).toBe(true);
      expect(execFileSync('stat', ['-c', '%a', path.dirname(page)], { encoding: 'utf8' }).trim()).toBe('700');
      const code = /\/launch\/([\w-]+)/.exec(readFileSync(page, 'utf8'))![1]!;
      const t1 = Date.now();
      while (existsSync(page) && Date.now() - t1 < 30000) await sleep(100);
      expect(existsSync(page)).toBe(false);
      expect((await get(shell.port, `/launch/${code}`, { host: `127.0.0.1:${shell.port}` })).status).toBe(410);
    } finally {
      await stop(shell.child);
    }
  });

  describe('launch codes in the page', () => {
    let core: GamepilotCore;
    let web: WebShell;
    let browser: Browser;
    beforeAll(async () => {
      const tmp = mkdtempSync(path.join(tmpdir(), 'gp-launch-'));
      core = new GamepilotCore({
        wm: createWindowManager(),
        settings: new JsonFileSettingsStore(path.join(tmp, 'config', 'settings.json')),
        secrets: new MemorySecretStore(),
        runsDir: path.join(tmp, 'runs'),
        exportDir: path.join(tmp, 'exports'),
        shell: 'web',
        version: '0.0.0-test',
      });
      web = await startWebShell(core, { staticDir: await ensureRenderer(() => {}), launchTtlMs: 1500 });
      browser = await chromium.launch({
        executablePath: '/usr/bin/chromium',
        headless: false,
        args: [...TEST_BROWSER_FLAGS, '--window-position=300,0'],
      });
    });
    afterAll(async () => {
      await browser?.close();
      await web?.close();
    });

    it('a launch code works once, expires, and redirects with the token in the fragment only', async () => {
      const host = { host: `127.0.0.1:${web.port}` };
      const first = web.launch();
      const r = await get(web.port, new URL(first.url).pathname, host);
      expect(r.status).toBe(302);
      expect(r.headers.location).toBe(`/#token=${web.token}`);
      expect(await first.used).toBe(true);
      expect((await get(web.port, new URL(first.url).pathname, host)).status).toBe(410);

      const late = web.launch();
      expect(await late.used).toBe(false); // expired after 1.5 s unused
      expect((await get(web.port, new URL(late.url).pathname, host)).status).toBe(410);
      expect((await get(web.port, '/launch/made-up-code', host)).status).toBe(410);
    });

    it('the page takes the token from the fragment, keeps it for reloads, and clears the address bar', async () => {
      const page = await browser.newPage();
      const listeners = core.listenerCount('event');
      await page.goto(web.launch().url);
      await expect.poll(() => page.locator('footer kbd').textContent(), { timeout: 20000 }).toMatch(/F12/);
      expect(core.listenerCount('event')).toBe(listeners + 1); // its socket passed the token check
      expect(page.url()).toBe(`http://127.0.0.1:${web.port}/`);
      expect(await page.evaluate(() => sessionStorage.getItem('gamepilot-token'))).toBe(web.token);
      await page.reload();
      await expect.poll(() => page.locator('footer kbd').textContent(), { timeout: 20000 }).toMatch(/F12/);
      await expect.poll(() => core.listenerCount('event')).toBe(listeners + 1);
      // The printed URL (query token) works too, and is cleared from the address bar the same way.
      await page.goto(web.url);
      await expect.poll(() => page.locator('footer kbd').textContent(), { timeout: 20000 }).toMatch(/F12/);
      expect(page.url()).toBe(`http://127.0.0.1:${web.port}/`);
      await page.close();
    });
  });
});

describe('the built-in game view server', () => {
  it('closes a view socket that sends an oversized or non-UTF-8 message, and keeps serving', async () => {
    const server = new GameViewServer();
    await server.start();
    const game = new BuiltinGame(getGame('2048'), '2048');
    try {
      const url = new URL(server.add(game));
      const socketPath = url.pathname.replace('/view/', '/ws/');
      const big = await handshake(server.port, socketPath);
      expect(big.status).toMatch(/ 101 /);
      big.socket.write(clientFrame(1, Buffer.from('{}'), 1024 * 1024));
      expect(await closeCode(big.frames)).toBe(1009);
      const bad = await handshake(server.port, socketPath);
      bad.socket.write(clientFrame(1, Buffer.from([0xc3, 0x28])));
      expect(await closeCode(bad.frames)).toBe(1007);
      big.socket.destroy();
      bad.socket.destroy();
      // Still serving: a fresh socket gets the board.
      const ws = new WebSocket(`ws://127.0.0.1:${server.port}${socketPath}`);
      const first = await new Promise<string>((resolve, reject) => {
        ws.once('message', (d) => resolve(String(d)));
        ws.once('error', reject);
      });
      ws.close();
      expect(JSON.parse(first)).toMatchObject({ type: 'render' });
    } finally {
      await server.close();
      game.dispose();
    }
  });
});
