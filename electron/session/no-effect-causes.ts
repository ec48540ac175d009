/**
 * Why a run of steps changed nothing, checked rather than guessed: what the window system says
 * now about the focus, the window (minimized, covered) and the window manager, and whether the
 * keys pressed are the title's controls. Each finding says what was checked; what cannot be
 * checked here is left out, not assumed.
 */
import { intersect, type WindowInfo, type WindowManager } from '../../native/types.ts';
import type { Profile } from '../profiles/profile-schema.ts';

/** The keys a step's wire actions pressed (PRESS, KEY_DOWN, HOTKEY), by name. */
export function keysPressed(actions: unknown[]): string[] {
  const out: string[] = [];
  for (const a of actions as { action_type?: string; parameters?: { key?: string; keys?: string[] } }[]) {
    if (a.action_type === 'PRESS' || a.action_type === 'KEY_DOWN') out.push(String(a.parameters?.key));
    else if (a.action_type === 'HOTKEY') out.push((a.parameters?.keys ?? []).join('+'));
  }
  return out;
}

/**
 * What the harness finds about a window its steps changed nothing in: one short sentence each.
 * Never throws: a question the window system cannot answer is left out.
 */
export async function noEffectCauses(
  wm: WindowManager,
  win: WindowInfo,
  keys: string[],
  profile: Profile | undefined,
): Promise<string[]> {
  const found: string[] = [];
  const ask = async <T>(q: () => Promise<T> | undefined): Promise<T | undefined> => {
    try {
      return await q();
    } catch {
      return undefined;
    }
  };
  if ((await ask(() => wm.windowManagerRunning?.())) === false)
    found.push('no window manager runs on this display (Gamepilot gives the window the focus itself)');
  const now = await ask(() => wm.get(win.id));
  if (!now) found.push('the window is gone');
  else if (now.minimized) found.push('the window is minimized');
  const active = await ask(() => wm.activeId());
  if (active && active !== win.id) {
    const holder = await ask(() => wm.get(active));
    found.push(`the keyboard focus is on another window: ${active}${holder ? ` "${holder.title}"` : ''}`);
  }
  const order = await ask(() => wm.stacking?.());
  if (now && order?.includes(win.id)) {
    const above = order.slice(order.indexOf(win.id) + 1);
    for (const id of above) {
      const w = await ask(() => wm.get(id));
      if (w && !w.minimized && intersect(w.frame ?? w.bounds, now.bounds)) {
        found.push(`the window is covered by ${id} "${w.title}"`);
        break;
      }
    }
  }
  const allowed = profile?.actions.allowedKeys;
  if (allowed && keys.length) {
    const known = new Set(allowed.map((k) => k.toLowerCase()));
    const strangers = [...new Set(keys.filter((k) => !known.has(k.toLowerCase())))];
    if (strangers.length) found.push(`keys not among the title's controls: ${strangers.join(', ')}`);
  }
  return found;
}
