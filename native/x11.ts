/**
 * X11 windows through wmctrl (managed window list with pids), xwininfo (exact client
 * geometry) and xdotool (activation). All Debian packages; tested under Xvfb + openbox.
 */
import { run } from './exec.ts';
import type { WindowInfo, WindowManager } from './types.ts';

function normId(id: string): string {
  return `0x${parseInt(id, 16).toString(16).padStart(8, '0')}`;
}

async function clientGeometry(id: string): Promise<{ x: number; y: number; width: number; height: number; title: string; viewable: boolean } | undefined> {
  let out: string;
  try {
    out = await run('xwininfo', ['-id', id]);
  } catch {
    return undefined;
  }
  const num = (label: string) => Number(new RegExp(`${label}:\\s*(-?\\d+)`).exec(out)?.[1] ?? NaN);
  const title = /Window id: \S+ "(.*)"/.exec(out)?.[1] ?? '';
  return {
    x: num('Absolute upper-left X'),
    y: num('Absolute upper-left Y'),
    width: num('Width'),
    height: num('Height'),
    title,
    viewable: /Map State:\s*IsViewable/.test(out),
  };
}

export class X11WindowManager implements WindowManager {
  readonly platform = 'linux-x11';

  async list(): Promise<WindowInfo[]> {
    const out = await run('wmctrl', ['-lp']);
    const rows = out.split('\n').filter(Boolean).map((line) => {
      const m = /^(0x[0-9a-f]+)\s+(-?\d+)\s+(\d+)\s+\S+\s?(.*)$/i.exec(line);
      return m ? { id: normId(m[1]!), desktop: Number(m[2]), pid: Number(m[3]), title: m[4] ?? '' } : undefined;
    });
    const infos = await Promise.all(
      rows.filter((r): r is NonNullable<typeof r> => !!r && r.desktop >= 0).map(async (r) => {
        const g = await clientGeometry(r.id);
        if (!g || !g.viewable) return undefined;
        return { id: r.id, title: r.title, pid: r.pid, bounds: { x: g.x, y: g.y, width: g.width, height: g.height }, scaleFactor: 1 } satisfies WindowInfo;
      }),
    );
    return infos.filter((w): w is WindowInfo => !!w);
  }

  private pids = new Map<string, number>();

  async get(id: string): Promise<WindowInfo | undefined> {
    const g = await clientGeometry(id);
    if (!g || !g.viewable) return undefined;
    let pid = this.pids.get(normId(id)) ?? 0;
    if (!pid) {
      try {
        pid = Number(/= (\d+)/.exec(await run('xprop', ['-id', id, '_NET_WM_PID']))?.[1] ?? 0);
        this.pids.set(normId(id), pid);
      } catch {
        /* pid is optional */
      }
    }
    return { id: normId(id), title: g.title, pid, bounds: { x: g.x, y: g.y, width: g.width, height: g.height }, scaleFactor: 1 };
  }

  async focus(id: string): Promise<void> {
    if ((await this.activeId()) === normId(id)) return;
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
}
