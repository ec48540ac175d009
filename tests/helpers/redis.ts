/**
 * A real redis-server (Debian package) on a free loopback port, in its own process group, with
 * an append-only file so a stop and restart keeps the queue (as a production Redis would).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import net from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = net.connect(port, '127.0.0.1', () => c.write('PING\r\n'));
    c.on('data', (d) => {
      resolve(d.toString().startsWith('+PONG'));
      c.destroy();
    });
    c.on('error', () => resolve(false));
  });
}

export class RedisServer {
  private proc: ChildProcess | undefined;
  constructor(
    readonly port: number,
    readonly dir: string,
  ) {}

  get url() {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start() {
    mkdirSync(this.dir, { recursive: true });
    this.proc = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--dir',
        this.dir,
      ],
      { detached: true, stdio: 'ignore' },
    );
    const until = Date.now() + 10_000;
    while (!(await ping(this.port))) {
      if (this.proc.exitCode !== null) throw new Error('redis-server exited (is the redis-server package installed?)');
      if (Date.now() > until) throw new Error('redis-server did not answer within 10 s');
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async alive(): Promise<boolean> {
    return ping(this.port);
  }

  /** SIGTERM: Redis flushes its append-only file and exits. */
  async stop() {
    await this.kill('SIGTERM');
  }

  /** Ends the server with `signal` (SIGKILL: a crash; the append-only file keeps what was synced). */
  async kill(signal: NodeJS.Signals) {
    const p = this.proc;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill(signal);
    await exited;
  }
}
