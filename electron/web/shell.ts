/**
 * Composition root of the web shell: the core with file settings and in-memory secrets,
 * the renderer (built on first use), the loopback server, and the global stop hotkey (the one
 * in Settings, registered again whenever a save changes it).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import { defaultConfigDir } from '../util/paths.ts';
export { defaultConfigDir };
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createWindowManager } from '../../native/index.ts';
import { GamepilotCore } from '../api/core.ts';
import { JsonFileSettingsStore, MemorySecretStore } from '../api/settings-store.ts';
import { startWebShell, type WebShell } from './server.ts';
import { startStopHotkey } from '../input/stop-hotkey.ts';
import { bindStopHotkey } from '../api/stop-hotkey.ts';
import { recoverCrashLeftovers } from '../safety/recovery.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const RENDERER_DIR = path.join(ROOT, 'dist', 'renderer');

export function version(): string {
  return (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

function newestSource(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestSource(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** Builds the React renderer with Vite when it is missing or older than its sources. */
export async function ensureRenderer(log: (s: string) => void, force = false): Promise<string> {
  const built = path.join(RENDERER_DIR, 'index.html');
  const sources = path.join(ROOT, 'renderer');
  const fresh =
    existsSync(built) &&
    (!existsSync(sources) ||
      statSync(built).mtimeMs >=
        Math.max(newestSource(sources), statSync(path.join(ROOT, 'electron', 'api', 'contract.ts')).mtimeMs));
  if (!force && fresh) return RENDERER_DIR;
  log('building the renderer…');
  const { build } = await import('vite');
  await build({ configFile: path.join(ROOT, 'vite.config.ts'), logLevel: 'warn' });
  return RENDERER_DIR;
}

export interface WebShellOptions {
  port?: number;
  runsDir: string;
  configDir: string;
  demo: boolean;
  log: (s: string) => void;
}

export async function runWebShell(
  opts: WebShellOptions,
): Promise<{ shell: WebShell; core: GamepilotCore; close: () => Promise<void> }> {
  // The registries live in the config folder of every command (GAMEPILOT_CONFIG_DIR), not --config-dir's settings.
  recoverCrashLeftovers(defaultConfigDir(), opts.log);
  const staticDir = await ensureRenderer(opts.log);
  const core = new GamepilotCore({
    wm: createWindowManager(),
    settings: new JsonFileSettingsStore(path.join(opts.configDir, 'settings.json')),
    configDir: opts.configDir,
    secrets: new MemorySecretStore(),
    runsDir: path.resolve(opts.runsDir),
    exportDir: path.join(os.homedir(), 'Gamepilot exports'),
    shell: 'web',
    version: version(),
  });
  const shell = await startWebShell(core, {
    ...(opts.port !== undefined ? { port: opts.port } : {}),
    staticDir,
    log: opts.log,
  });
  const stopHook = await bindStopHotkey(core, startStopHotkey, opts.log);
  if (opts.demo) core.startDemo().catch((err) => opts.log(`demo did not start: ${(err as Error).message}`));
  return {
    shell,
    core,
    close: async () => {
      stopHook();
      await core.stop();
      await shell.close();
    },
  };
}
