/**
 * The Electron app as it is built (dist-electron/main.mjs, by the suites' global setup), run
 * under plain Node with a stand-in for Electron (tests/helpers/fake-electron*.mjs): the binary
 * cannot run here, so this checks everything the bundle itself does with Electron's APIs —
 * Squirrel events and the single-instance lock before anything else, the crash reporter kept
 * local, the control window on the renderer and preload that exist, its title with the version,
 * the core answering the control window over IPC, game windows beside the control window, and
 * quitting through the core's stop.
 */
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { IPC_REQUEST } from '../../electron/api/ipc-transport.ts';
import { ROOT } from '../helpers/cli.ts';
import { type ElectronRecord, type FakeElectronApp, launchBundledApp } from '../helpers/fake-electron-app.ts';

const version = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const shippedProfiles = readdirSync(path.join(ROOT, 'games'))
  .map((d) => path.join(ROOT, 'games', d, 'profile.yaml'))
  .filter((f) => existsSync(f))
  .sort();

type Rect = { x: number; y: number; width: number; height: number };
const overlaps = (a: Rect, b: Rect) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
const inside = (r: Rect, area: Rect) =>
  r.x >= area.x && r.y >= area.y && r.x + r.width <= area.x + area.width && r.y + r.height <= area.y + area.height;

const made: string[] = [];
let running: FakeElectronApp | undefined;
afterEach(async () => {
  if (running) {
    running.kill();
    await running.exited;
    running = undefined;
  }
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true }); // node_modules there is a link
});

function launch(opts: Parameters<typeof launchBundledApp>[0] = {}) {
  running = launchBundledApp(opts);
  made.push(running.dir);
  return running;
}

/** The first record that `match` accepts, once it is there. */
async function waitFor(app: FakeElectronApp, match: (r: ElectronRecord) => boolean): Promise<ElectronRecord> {
  await expect.poll(() => app.records().some(match), { timeout: 30_000 }).toBe(true);
  return app.records().find(match)!;
}

/** A contract request as the window's main frame sends it; the core's answer. */
async function request(app: FakeElectronApp, window: number, method: string, seq: number, params?: unknown) {
  app.send({ do: 'invoke', channel: IPC_REQUEST, window, method, params, seq });
  return (await waitFor(app, (r) => r.api === 'reply' && r.seq === seq)).reply;
}

describe('the built Electron app', () => {
  it('starts as users get it: locked to one instance, crash dumps kept local, the control window on the built renderer, titled with the version', {
    timeout: 60_000,
  }, async () => {
    const app = launch({ env: { FAKE_ELECTRON_SCREEN: '3000x1200' } });
    await waitFor(app, (r) => r.api === 'ipcMain.handle' && r.channel === IPC_REQUEST);
    const apis = app.records().map((r) => r.api);

    expect(app.calls('app.requestSingleInstanceLock')).toEqual([{ api: 'app.requestSingleInstanceLock', got: true }]);
    expect(apis.indexOf('app.requestSingleInstanceLock')).toBe(0);

    // The dump folder is set before the reporter starts (it is read once), inside the config folder.
    const dumps = app.calls('app.setPath').find((r) => r.name === 'crashDumps');
    const [started] = app.calls('crashReporter.start');
    expect(dumps?.path).toBe(path.join(app.configDir, 'crashes'));
    expect(started?.crashDumps).toBe(dumps?.path);
    expect(started?.options.uploadToServer).toBe(false);
    expect(started?.options).not.toHaveProperty('submitURL');
    expect(apis.indexOf('app.setPath')).toBeLessThan(apis.indexOf('crashReporter.start'));
    expect(apis.indexOf('crashReporter.start')).toBeLessThan(apis.indexOf('ready'));

    // The control window: the renderer's index.html and the bundled preload, both on disk.
    const [load] = app.calls('win.loadFile');
    const control = app.calls('BrowserWindow').find((w) => w.id === load?.id)!;
    expect(load).toMatchObject({ file: path.join(ROOT, 'dist', 'renderer', 'index.html'), exists: true });
    const preload = control.options.webPreferences.preload as string;
    expect(preload).toBe(path.join(ROOT, 'dist-electron', 'preload.cjs'));
    expect(existsSync(preload)).toBe(true);
    // Its title stays the product and version: the page's own <title> does not replace it.
    const titles = [
      control.title,
      ...app
        .calls('win.title')
        .filter((t) => t.id === control.id)
        .map((t) => t.title),
    ];
    expect(titles.at(-1)).toBe(`Gamepilot ${version}`);
    const [about] = app.calls('app.setAboutPanelOptions');
    expect(about?.options).toMatchObject({ applicationName: 'Gamepilot', applicationVersion: version });
    const menu = JSON.stringify(app.calls('Menu.setApplicationMenu')[0]?.template);
    expect(menu).toContain('"about"');

    // The core behind it answers the control window: every shipped profile, from the app's games/.
    const profiles = await request(app, control.id, 'listProfiles', 1);
    expect(profiles.error).toBeUndefined();
    const listed = (profiles.result.profiles as { file: string; source: string }[]).filter(
      (p) => p.source === 'shipped',
    );
    expect(listed.map((p) => p.file).sort()).toEqual(shippedProfiles);
    expect(shippedProfiles.length).toBeGreaterThan(10);
    const health = await request(app, control.id, 'health', 2);
    expect(health.result).toEqual({ ok: true, version });

    // The demo's game window opens beside the control window, inside the work area.
    const game = await waitFor(app, (r) => r.api === 'BrowserWindow' && r.id !== control.id);
    const workArea = app.calls('screen.getDisplayMatching')[0]?.display.workArea as Rect;
    expect(inside(game.bounds, workArea)).toBe(true);
    expect(overlaps(game.bounds, control.bounds)).toBe(false);
    expect(game.bounds.x).toBeGreaterThanOrEqual(control.bounds.x + control.bounds.width); // on the right: it fits there
    expect(game.options.webPreferences).not.toHaveProperty('preload');
    // Only the control window's main frame may call the core.
    expect(await request(app, game.id, 'health', 3)).toMatchObject({ code: 'forbidden' });

    // A second launch brings the control window forward, restored.
    app.send({ do: 'minimize', window: control.id });
    app.send({ do: 'second-instance', argv: [] });
    await waitFor(app, (r) => r.api === 'second-instance.done');
    const after = app.records().slice(app.records().findIndex((r) => r.api === 'win.minimize'));
    expect(after.filter((r) => r.id === control.id).map((r) => r.api)).toEqual([
      'win.minimize',
      'win.restore',
      'win.show',
      'win.focus',
    ]);

    // Quitting stops the core first (before-quit is held until then), then the process ends.
    app.send({ do: 'quit' });
    expect(await app.exited).toBe(0);
    const end = app.records().map((r) => r.api);
    expect(end.slice(end.indexOf('app.quit'))).toEqual(
      expect.arrayContaining(['app.quit.prevented', 'app.quit', 'exit']),
    );
    expect(readFileSync(path.join(app.configDir, 'gamepilot.log'), 'utf8')).toMatch(/"msg":"app quit"/);
  });

  it('on a 1280×800 screen: the control window narrows so the demo’s game window opens beside it, not over it', {
    timeout: 60_000,
  }, async () => {
    const app = launch({ env: { FAKE_ELECTRON_SCREEN: '1280x800' } });
    const load = await waitFor(app, (r) => r.api === 'win.loadFile');
    const control = app.calls('BrowserWindow').find((w) => w.id === load.id)!;
    const game = await waitFor(app, (r) => r.api === 'BrowserWindow' && r.id !== control.id);
    const workArea = { x: 0, y: 32, width: 1280, height: 800 - 32 };
    const geometry = JSON.stringify({ control: control.bounds, game: game.bounds });
    expect(control.bounds.width, geometry).toBeLessThan(1280);
    expect(inside(control.bounds, workArea), geometry).toBe(true);
    expect(inside(game.bounds, workArea), geometry).toBe(true);
    expect(overlaps(game.bounds, control.bounds), geometry).toBe(false);
  });

  it('packaged (the bundle inside resources/app.asar, as Forge lays it out): the renderer, preload and profiles come from inside the archive', {
    timeout: 60_000,
  }, async () => {
    const app = launch({ packaged: true });
    await waitFor(app, (r) => r.api === 'ipcMain.handle' && r.channel === IPC_REQUEST);
    const asar = path.join(app.dir, 'Gamepilot', 'resources', 'app.asar');
    const [load] = app.calls('win.loadFile');
    expect(load).toMatchObject({ file: path.join(asar, 'dist', 'renderer', 'index.html'), exists: true });
    const control = app.calls('BrowserWindow').find((w) => w.id === load?.id)!;
    expect(control.options.webPreferences.preload).toBe(path.join(asar, 'dist-electron', 'preload.cjs'));
    expect(control.title).toBe(`Gamepilot ${version}`);
    const profiles = await request(app, control.id, 'listProfiles', 1);
    const files = (profiles.result.profiles as { file: string }[]).map((p) => path.relative(asar, p.file)).sort();
    expect(files).toEqual(shippedProfiles.map((f) => path.relative(ROOT, f)));
    // Prompts too (no environment patch tells the core where they are): a line added to the
    // copy's system prompt is in the prompt the core builds.
    const marker = `packaged-copy-${process.pid}-${Date.now()}`;
    appendFileSync(path.join(asar, 'prompts', 'system.md'), `\n${marker}\n`);
    const prompt = await request(app, control.id, 'gamePrompt', 2, { game: '2048' });
    expect(prompt.result.prompt).toContain(marker);
    // Sweep jobs are `gamepilot run` children, which a packaged Electron (RunAsNode off) cannot
    // start: refused with the reason, before a sweep file is written.
    const sweep = await request(app, control.id, 'startSweep', 3, { name: 'packaged-probe' });
    expect(sweep).toMatchObject({ code: 'forbidden' });
    expect(JSON.stringify(sweep)).toMatch(/packaged app cannot start gamepilot processes/);
    app.send({ do: 'quit' });
    expect(await app.exited).toBe(0);
  });

  it('a second launch, while the first holds the lock, quits at once: no crash reporter, no window, not even ready', {
    timeout: 30_000,
  }, async () => {
    const app = launch({ env: { FAKE_ELECTRON_LOCK: 'held' } });
    expect(await app.exited).toBe(0);
    expect(app.records().map((r) => r.api)).toEqual(['app.requestSingleInstanceLock', 'app.quit', 'exit']);
    expect(app.calls('app.requestSingleInstanceLock')[0]?.got).toBe(false);
  });

  it('Squirrel on Windows: --squirrel-install has Update.exe make the shortcut and quits at once, before the lock', {
    timeout: 30_000,
  }, async () => {
    // Squirrel's layout: <install>/Update.exe beside <install>/app-<version>/<exe>. This
    // Update.exe only writes down what it was asked.
    const install = mkdtempSync(path.join(tmpdir(), 'gp-squirrel-'));
    made.push(install);
    const exe = path.join(install, `app-${version}`, 'Gamepilot.exe');
    mkdirSync(path.dirname(exe), { recursive: true });
    const asked = path.join(install, 'update-args');
    writeFileSync(path.join(install, 'Update.exe'), `#!/bin/sh\necho "$@" > '${asked}'\n`);
    chmodSync(path.join(install, 'Update.exe'), 0o755);
    const app = launch({
      env: { FAKE_ELECTRON_PLATFORM: 'win32', FAKE_ELECTRON_EXEC_PATH: exe },
      args: ['--squirrel-install'],
    });
    expect(await app.exited).toBe(0);
    expect(app.records().map((r) => r.api)).toEqual(['app.quit', 'exit']);
    await expect
      .poll(() => existsSync(asked) && readFileSync(asked, 'utf8').trim())
      .toBe('--createShortcut=Gamepilot.exe');
  });

  it('(the same argument on Linux is not a Squirrel event: the app starts)', { timeout: 30_000 }, async () => {
    const app = launch({ args: ['--squirrel-install'] });
    await waitFor(app, (r) => r.api === 'win.loadFile');
    expect(app.calls('app.requestSingleInstanceLock')[0]?.got).toBe(true);
    app.send({ do: 'quit' });
    expect(await app.exited).toBe(0);
  });
});
