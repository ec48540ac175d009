/**
 * Gamepilot's own hotkeys (stop, take over / hand back), written in Electron's accelerator
 * syntax ("CommandOrControl+Shift+F12") so one setting serves the app, the web shell and the
 * CLI. Pure: parsing, the defaults, and the chords an agent may never press.
 */
import { resolveKeyName } from '../actions/keys.ts';
import { DEFAULT_HOTKEYS } from '../domain.ts';

export interface Accelerator {
  ctrl: boolean;
  shift: boolean;
  alt: boolean;
  meta: boolean;
  key: string;
}

/** The hotkeys a person set in Settings (the defaults: domain.ts's DEFAULT_HOTKEYS). */
export interface GamepilotHotkeys {
  stop: string;
  takeover: string;
}

export { DEFAULT_HOTKEYS };

export function parseAccelerator(acc: string, platform: NodeJS.Platform = process.platform): Accelerator {
  const parts = acc
    .split('+')
    .map((p) => p.trim())
    .filter(Boolean);
  if (!parts.length) throw new Error('empty hotkey');
  const out: Accelerator = { ctrl: false, shift: false, alt: false, meta: false, key: '' };
  for (const p of parts) {
    const l = p.toLowerCase();
    if (l === 'commandorcontrol' || l === 'cmdorctrl') out[platform === 'darwin' ? 'meta' : 'ctrl'] = true;
    else if (l === 'control' || l === 'ctrl') out.ctrl = true;
    else if (l === 'shift') out.shift = true;
    else if (l === 'alt' || l === 'option') out.alt = true;
    else if (l === 'command' || l === 'cmd' || l === 'super' || l === 'meta') out.meta = true;
    else if (out.key) throw new Error(`hotkey "${acc}" names two keys`);
    else out.key = p.length === 1 ? p.toUpperCase() : p[0]!.toUpperCase() + p.slice(1);
  }
  if (!out.key) throw new Error(`hotkey "${acc}" has no key`);
  return out;
}

/** One of Gamepilot's hotkeys as the key policy judges it: modifier families and the key's nut name. */
export interface ReservedHotkey {
  /** What it does, for the refusal ("stop", "take over"). */
  role: string;
  accelerator: string;
  mods: ('ctrl' | 'alt' | 'shift' | 'super')[];
  key: string;
}

/**
 * The hotkeys an agent may never press: the defaults (another Gamepilot process on the display
 * may still use them) and the person's own. Unreadable entries are skipped: Settings refuses
 * them when saved, and a hotkey that cannot be parsed cannot be registered either.
 */
export function reservedHotkeys(
  hotkeys: GamepilotHotkeys = DEFAULT_HOTKEYS,
  platform: NodeJS.Platform = process.platform,
): ReservedHotkey[] {
  const out: ReservedHotkey[] = [];
  const entries: [string, string][] = [
    ['stop', hotkeys.stop],
    ['take over', hotkeys.takeover],
    ['stop', DEFAULT_HOTKEYS.stop],
    ['take over', DEFAULT_HOTKEYS.takeover],
  ];
  for (const [role, accelerator] of entries) {
    let a: Accelerator;
    try {
      a = parseAccelerator(accelerator, platform);
    } catch {
      continue;
    }
    const key = resolveKeyName(a.key);
    if (!key) continue;
    const mods = (['ctrl', 'alt', 'shift'] as const).filter((m) => a[m]) as ReservedHotkey['mods'];
    if (a.meta) mods.push('super');
    if (!out.some((r) => r.key === key && r.mods.join() === mods.join())) out.push({ role, accelerator, mods, key });
  }
  return out;
}

/** The keys (in the action schema's names) of the shell's hotkeys: a person pressing them is not playing. */
export function hotkeyKeys(hotkeys: GamepilotHotkeys): string[] {
  return [hotkeys.stop, hotkeys.takeover].flatMap((a) => {
    try {
      return [parseAccelerator(a).key.toLowerCase()];
    } catch {
      return [];
    }
  });
}
