/**
 * Keeps a shell's global stop hotkey the one in Settings: registered when the shell starts,
 * registered again when a save changes it (the new one first, then the old one let go, so a
 * stop hotkey works throughout). A hotkey that cannot be registered leaves the old one working
 * and says so. The shell brings the mechanism: uiohook in the web shell, globalShortcut in the app.
 */
import type { GamepilotCore } from './core.ts';
import type { Settings } from './contract.ts';

/** Registers `accelerator` to call `onStop`; resolves with its release, or rejects saying why not. */
export type HotkeyRegistrar = (accelerator: string, onStop: () => void) => Promise<() => void>;

export async function bindStopHotkey(
  core: GamepilotCore,
  register: HotkeyRegistrar,
  log: (s: string) => void,
): Promise<() => void> {
  let active: { accelerator: string; release: () => void } | undefined;
  let wanted = core.state().stopHotkey;
  const stopper = (accelerator: string) => () => {
    log(`stop hotkey ${accelerator}: stopping`);
    void core.stop();
  };
  const use = async (accelerator: string) => {
    try {
      const release = await register(accelerator, stopper(accelerator));
      active?.release();
      active = { accelerator, release };
      return true;
    } catch (err) {
      const still = active ? `${active.accelerator} still stops` : 'use the Stop button or Escape in the UI';
      log(`warning: no global stop hotkey ${accelerator} (${(err as Error).message}); ${still}`);
      return false;
    }
  };
  await use(wanted);
  // Saves are applied in order, one registration at a time.
  let queue = Promise.resolve();
  const onSaved = (s: Settings) => {
    if (s.stopHotkey === wanted) return;
    wanted = s.stopHotkey;
    const next = wanted;
    queue = queue.then(async () => {
      if (next === wanted && (await use(next))) log(`stop hotkey is now ${next}`);
    });
  };
  core.on('settings-saved', onSaved);
  return () => {
    core.off('settings-saved', onSaved);
    active?.release();
    active = undefined;
  };
}
