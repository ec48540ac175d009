/**
 * X11 windows through wmctrl (managed window list with pids), xwininfo (exact client
 * geometry, map state, EWMH state and frame extents), xprop (stacking order) and xdotool
 * (activation). All Debian packages; tested under Xvfb + openbox.
 */
import { run } from './exec.ts';
import type { Rect, WindowInfo, WindowManager } from './types.ts';

function normId(id: string): string {
  return `0x${parseInt(id, 16).toString(16).padStart(8, '0')}`;
}

interface ClientFacts {
  bounds: Rect;
  title: string;
  pid: number;
  viewable: boolean;
  /** _NET_WM_STATE_HIDDEN: the window manager iconified it. */
  hidden: boolean;
  /** _NET_FRAME_EXTENTS as left, right, top, bottom. */
  extents?: [number, number, number, number];
}

/** One `xwininfo -stats -wm` call: geometry, map state, EWMH state, pid and frame extents. */
async function clientFacts(id: string): Promise<ClientFacts | undefined> {
  let out: string;
  try {
    out = await run('xwininfo', ['-id', id, '-stats', '-wm']);
  } catch {
    return undefined;
  }
  const num = (label: string) => Number(new RegExp(`${label}:\\s*(-?\\d+)`).exec(out)?.[1] ?? NaN);
  // The state names sit on the lines indented under "Window state:".
  const stateBlock = /^([ \t]*)Window state:\n((?:\1[ \t]+\S.*\n?)*)/m.exec(out)?.[2] ?? '';
  const extents = /Frame extents:\s*(\d+),\s*(\d+),\s*(\d+),\s*(\d+)/.exec(out);
  return {
    bounds: {
      x: num('Absolute upper-left X'),
      y: num('Absolute upper-left Y'),
      width: num('Width'),
      height: num('Height'),
    },
    title: /Window id: \S+ "(.*)"/.exec(out)?.[1] ?? '',
    pid: Number(/Process id:\s*(\d+)/.exec(out)?.[1] ?? 0),
    viewable: /Map State:\s*IsViewable/.test(out),
    hidden: /^[ \t]*Hidden[ \t]*$/m.test(stateBlock),
    ...(extents
      ? {
          extents: [Number(extents[1]), Number(extents[2]), Number(extents[3]), Number(extents[4])] as [
            number,
            number,
            number,
            number,
          ],
        }
      : {}),
  };
}

/**
 * A window as the session sees it: shown, or minimized (the window manager's hidden state,
 * even while it may still be mapped). Unmapped without that state (withdrawn, being
 * destroyed) counts as gone, as before.
 */
function toInfo(id: string, f: ClientFacts, title: string, pid: number): WindowInfo | undefined {
  const minimized = f.hidden;
  if (!f.viewable && !minimized) return undefined;
  const b = f.bounds;
  const [l, r, t, btm] = f.extents ?? [0, 0, 0, 0];
  return {
    id: normId(id),
    title,
    pid,
    bounds: b,
    scaleFactor: 1,
    minimized,
    frame: { x: b.x - l, y: b.y - t, width: b.width + l + r, height: b.height + t + btm },
  };
}

export class X11ToolsWindowManager implements WindowManager {
  readonly platform = 'linux-x11-tools';

  async list(): Promise<WindowInfo[]> {
    // wmctrl fails outright (BadWindow) when a window closes while it reads the list: ask again.
    const out = await run('wmctrl', ['-lp']).catch((err: Error) =>
      /BadWindow/.test(err.message) ? run('wmctrl', ['-lp']) : Promise.reject(err),
    );
    const rows = out
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const m = /^(0x[0-9a-f]+)\s+(-?\d+)\s+(\d+)\s+\S+\s?(.*)$/i.exec(line);
        return m ? { id: normId(m[1]!), desktop: Number(m[2]), pid: Number(m[3]), title: m[4] ?? '' } : undefined;
      });
    const infos = await Promise.all(
      rows
        .filter((r): r is NonNullable<typeof r> => !!r && r.desktop >= 0)
        .map(async (r) => {
          const f = await clientFacts(r.id);
          return f ? toInfo(r.id, f, r.title, r.pid) : undefined;
        }),
    );
    return infos.filter((w): w is WindowInfo => !!w);
  }

  async get(id: string): Promise<WindowInfo | undefined> {
    const f = await clientFacts(id);
    return f ? toInfo(id, f, f.title, f.pid) : undefined;
  }

  async focus(id: string): Promise<void> {
    if ((await this.activeId()) === normId(id)) return;
    // _NET_ACTIVE_WINDOW: the window manager also de-iconifies a minimized window.
    await run('wmctrl', ['-i', '-a', id]).catch(() => run('xdotool', ['windowactivate', id]));
    for (let i = 0; i < 40; i++) {
      if ((await this.activeId()) === normId(id)) return;
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  async activeId(): Promise<string | undefined> {
    try {
      const out = (await run('xdotool', ['getactivewindow'])).trim();
      return out ? normId(Number(out).toString(16)) : undefined;
    } catch {
      return undefined;
    }
  }

  /** _NET_CLIENT_LIST_STACKING: managed windows, bottom to top. */
  async stacking(): Promise<string[]> {
    const out = await run('xprop', ['-root', '_NET_CLIENT_LIST_STACKING']);
    return [...out.matchAll(/0x[0-9a-f]+/gi)].map((m) => normId(m[0]));
  }
}
