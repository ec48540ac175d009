/**
 * Composition root of the web shell: the core with file settings and in-memory secrets,
 * the renderer (built on first use), the loopback server, and the global stop hotkey (the one
 * in Settings, registered again whenever a save changes it).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import { defaultConfigDir } from '../util/paths.ts';
export { defaultConfigDir };
import path from 'node:path';
import { createWindowManager } from '../../native/index.ts';
import { GamepilotCore } from '../api/core.ts';
import { JsonFileSettingsStore, MemorySecretStore } from '../api/settings-store.ts';
import { startWebShell, type ApiRoute, type WebShell } from './loopback-server.ts';
import { startStopHotkey } from '../input/hook-stop-hotkey.ts';
import { bindHotkeys } from '../api/hotkey-bindings.ts';
import { recoverCrashLeftovers } from '../safety/recovery.ts';
import { appVersion, resources } from '../util/resources.ts';
import type { ViewLauncher } from '../session/targets.ts';

function newestFile(file: string): number {
  if (!existsSync(file)) return 0;
  const st = statSync(file);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = 0;
  for (const e of readdirSync(file)) newest = Math.max(newest, newestFile(path.join(file, e)));
  return newest;
}

/**
 * The built renderer's folder. In a checkout whose renderer sources are newer than the build, or
 * with no build yet, Vite (a dev dependency) builds it first; an installed package or a packaged
 * app has no sources and serves what it shipped.
 */
export async function ensureRenderer(log: (s: string) => void, force = false): Promise<string> {
  const r = resources();
  const built = path.join(r.renderer, 'index.html');
  const newestSource = Math.max(...r.rendererSources.map(newestFile));
  const fresh = existsSync(built) && (newestSource === 0 || statSync(built).mtimeMs >= newestSource);
  if (!force && fresh) return r.renderer;
  if (newestSource === 0)
    throw new Error(`the renderer is missing (${built}) and there are no sources to build it from`);
  log('building the renderer…');
  const { build } = await import('vite');
  await build({ configFile: r.viteConfig, logLevel: 'warn' });
  return r.renderer;
}

export interface WebShellOptions {
  port?: number;
  runsDir: string;
  configDir: string;
  demo: boolean;
  log: (s: string) => void;
  /** How built-in games' windows open (`--open`: beside the UI window, ui-layout.ts); default: launchViewWindow. */
  launchView?: ViewLauncher;
  /** More API routes for the server, built over the shell's core (the MCP endpoint). */
  routes?: (core: GamepilotCore) => Record<string, ApiRoute>;
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
    version: appVersion(),
    ...(opts.launchView ? { launchView: opts.launchView } : {}),
  });
  const shell = await startWebShell(core, {
    ...(opts.port !== undefined ? { port: opts.port } : {}),
    staticDir,
    log: opts.log,
    ...(opts.routes ? { routes: opts.routes(core) } : {}),
  });
  const stopHook = await bindHotkeys(core, startStopHotkey, opts.log);
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
