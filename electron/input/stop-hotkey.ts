/**
 * The global stop hotkey outside Electron (web shell, CLI): a system-wide key hook through
 * uiohook-napi. Accelerators use Electron's syntax, e.g. "CommandOrControl+Shift+F12", so
 * one setting serves both shells. In the app, electron/app uses globalShortcut instead.
 */
import { listenGlobalInput, loadHook } from './global-hook.ts';

export interface Accelerator {
  ctrl: boolean;
  shift: boolean;
  alt: boolean;
  meta: boolean;
  key: string;
}

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

/** The keys (in the action schema's names) of the shell's hotkeys: a person pressing them is not playing. */
export function hotkeyKeys(accelerators: readonly string[]): string[] {
  return accelerators.flatMap((a) => {
    try {
      return [parseAccelerator(a).key.toLowerCase()];
    } catch {
      return [];
    }
  });
}

/** Starts listening; returns a function that stops the hook. Throws when no hook is possible. */
export async function startStopHotkey(accelerator: string, onStop: () => void): Promise<() => void> {
  const acc = parseAccelerator(accelerator);
  const { UiohookKey } = await loadHook();
  const code = (UiohookKey as Record<string, number>)[acc.key === 'Esc' ? 'Escape' : acc.key];
  if (code === undefined) throw new Error(`hotkey key "${acc.key}" is not known to the input hook`);
  return listenGlobalInput((e) => {
    if (
      e.kind === 'keydown' &&
      e.keycode === code &&
      e.ctrl === acc.ctrl &&
      e.shift === acc.shift &&
      e.alt === acc.alt &&
      e.meta === acc.meta
    )
      onStop();
  });
}
