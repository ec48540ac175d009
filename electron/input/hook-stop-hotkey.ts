/**
 * The global stop hotkey outside Electron (web shell, CLI): a system-wide key hook through
 * uiohook-napi (accelerator.ts reads the setting). In the app, electron/app uses globalShortcut instead.
 */
import { listenGlobalInput, loadHook } from './global-hook.ts';
import { parseAccelerator } from './accelerator.ts';
import { hookPressJudge } from './key-ledger.ts';

/**
 * Starts listening; returns a function that stops the hook. Throws when no hook is possible.
 * A press this process's executors injected is not a person's and does not count (key-ledger.ts).
 */
export async function startStopHotkey(accelerator: string, onStop: () => void): Promise<() => void> {
  const acc = parseAccelerator(accelerator);
  const { UiohookKey } = await loadHook();
  const code = (UiohookKey as Record<string, number>)[acc.key === 'Esc' ? 'Escape' : acc.key];
  if (code === undefined) throw new Error(`hotkey key "${acc.key}" is not known to the input hook`);
  const byHarness = hookPressJudge(acc.key);
  return listenGlobalInput((e) => {
    if ((e.kind !== 'keydown' && e.kind !== 'keyup') || e.keycode !== code) return;
    // Every event of the key is judged, with its modifiers or not, so the echo of the agent's
    // plain F12 is used up here and cannot later be taken for a person's ctrl+shift+F12.
    if (byHarness(e) || e.kind === 'keyup') return;
    if (e.ctrl === acc.ctrl && e.shift === acc.shift && e.alt === acc.alt && e.meta === acc.meta) onStop();
  });
}
