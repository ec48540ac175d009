/**
 * macOS backend: System Events through JavaScript for Automation (osascript). Needs the
 * Accessibility permission for the terminal or app; coordinates are points, scaled by the
 * main display's backing factor. Not exercised by CI (no Mac here) — see README.
 */
import { run } from './exec.ts';
import type { WindowInfo, WindowManager } from './types.ts';

const LIST = `
ObjC.import('AppKit');
const scale = $.NSScreen.mainScreen.backingScaleFactor;
const se = Application('System Events');
const out = [];
se.processes.whose({ backgroundOnly: false })().forEach((p) => {
  const pid = p.unixId();
  p.windows().forEach((w, i) => {
    try {
      const [x, y] = w.position(); const [width, height] = w.size();
      out.push({ id: pid + ':' + i, pid, title: w.name() || p.name(), bounds: { x: x * scale, y: y * scale, width: width * scale, height: height * scale }, scaleFactor: scale });
    } catch (e) {}
  });
});
JSON.stringify(out);`;

export class MacWindowManager implements WindowManager {
  readonly platform = 'darwin';

  async list(): Promise<WindowInfo[]> {
    return JSON.parse(await run('osascript', ['-l', 'JavaScript', '-e', LIST], 15000)) as WindowInfo[];
  }

  async get(id: string): Promise<WindowInfo | undefined> {
    return (await this.list()).find((w) => w.id === id);
  }

  async focus(id: string): Promise<void> {
    const [pid, index] = id.split(':');
    await run('osascript', [
      '-l',
      'JavaScript',
      '-e',
      `const p = Application('System Events').processes.whose({ unixId: ${Number(pid)} })()[0]; p.frontmost = true; p.windows()[${Number(index)}].actions['AXRaise'].perform();`,
    ]);
  }

  async activeId(): Promise<string | undefined> {
    const pid = (
      await run('osascript', [
        '-l',
        'JavaScript',
        '-e',
        `Application('System Events').processes.whose({ frontmost: true })()[0].unixId()`,
      ])
    ).trim();
    return pid ? `${pid}:0` : undefined;
  }
}
