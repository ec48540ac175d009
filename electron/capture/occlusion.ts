/**
 * Which windows lie over a window. Without a compositor (plain X11) a capture gives the
 * screen's pixels, so a covered window's picture would show what covers it; callers use this
 * to say "covered" instead. Per-window capture (XComposite) needs a native binding we lack.
 */
import { intersect, type Rect, type WindowInfo, type WindowManager } from '../../native/types.ts';

/** The shown windows among `above` whose outer frame overlaps `area`. */
export function overlapping(above: WindowInfo[], area: Rect): WindowInfo[] {
  return above.filter((w) => !w.minimized && intersect(w.frame ?? w.bounds, area) !== undefined);
}

/**
 * The windows stacked above `target` that overlap `area` (its on-screen part), from the
 * window manager's stacking order; undefined when the backend cannot tell.
 */
export async function windowsOver(
  wm: WindowManager,
  target: WindowInfo,
  area: Rect,
): Promise<WindowInfo[] | undefined> {
  if (!wm.stacking) return undefined;
  const order = await wm.stacking();
  const i = order.indexOf(target.id);
  if (i < 0) return undefined;
  const above = await Promise.all(order.slice(i + 1).map((id) => wm.get(id)));
  return overlapping(
    above.filter((w): w is WindowInfo => !!w),
    area,
  );
}
