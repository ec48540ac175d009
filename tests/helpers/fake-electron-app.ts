/**
 * The built Electron app (dist-electron/main.mjs) in its own plain-Node process with the fake
 * `electron` (fake-electron.mjs): what it asked of Electron, as records read back from the log
 * file, and commands sent to it over the IPC channel.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from './cli.ts';

export type ElectronRecord = { api: string } & Record<string, any>;

export interface FakeElectronApp {
  /** Its own folder: config/ (GAMEPILOT_CONFIG_DIR), userData/, and the record log. */
  dir: string;
  configDir: string;
  records(): ElectronRecord[];
  /** The records of one API call, in order. */
  calls(api: string): ElectronRecord[];
  send(command: Record<string, unknown>): void;
  exited: Promise<number | null>;
  stderr(): string;
  kill(): void;
}

/**
 * The app laid out as Electron Forge packages it: the project inside `resources/app.asar` (a
 * folder here, which Electron's fs makes the archive look like), with the built renderer and
 * bundle, the shipped profiles and prompts, package.json, and the dependencies (a link to
 * node_modules). Returns the bundle's main.mjs in it.
 */
export function packagedCopy(dir: string): string {
  const app = path.join(dir, 'Gamepilot', 'resources', 'app.asar');
  for (const part of ['dist-electron', path.join('dist', 'renderer'), 'prompts', 'package.json'])
    cpSync(path.join(ROOT, part), path.join(app, part), { recursive: true });
  for (const game of readdirSync(path.join(ROOT, 'games'))) {
    const profile = path.join(ROOT, 'games', game, 'profile.yaml');
    if (!existsSync(profile)) continue;
    mkdirSync(path.join(app, 'games', game), { recursive: true });
    cpSync(profile, path.join(app, 'games', game, 'profile.yaml'));
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(app, 'node_modules'), 'dir');
  return path.join(app, 'dist-electron', 'main.mjs');
}

/**
 * Runs the bundle's main.mjs (the checkout's, or `packaged`: a copy laid out as packagedCopy
 * does it, run as a packaged app — app.isPackaged, process.resourcesPath).
 */
export function launchBundledApp(
  opts: { env?: Record<string, string>; args?: string[]; packaged?: boolean } = {},
): FakeElectronApp {
  const dir = mkdtempSync(path.join(tmpdir(), 'gp-fake-electron-'));
  const entry = opts.packaged ? packagedCopy(dir) : path.join(ROOT, 'dist-electron', 'main.mjs');
  const log = path.join(dir, 'electron-calls.jsonl');
  const configDir = path.join(dir, 'config');
  const child = spawn(
    process.execPath,
    ['--import', './tests/helpers/fake-electron.mjs', entry, ...(opts.args ?? [])],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        GAMEPILOT_CONFIG_DIR: configDir,
        FAKE_ELECTRON_LOG: log,
        FAKE_ELECTRON_USER_DATA: path.join(dir, 'userData'),
        ...(opts.packaged ? { FAKE_ELECTRON_PACKAGED: '1' } : {}),
        ...opts.env,
      },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    },
  );
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const records = (): ElectronRecord[] =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as ElectronRecord)
      : [];
  return {
    dir,
    configDir,
    records,
    calls: (api) => records().filter((r) => r.api === api),
    send: (command) => {
      if (child.connected) child.send(command);
    },
    exited,
    stderr: () => stderr,
    kill: () => child.kill('SIGKILL'),
  };
}
