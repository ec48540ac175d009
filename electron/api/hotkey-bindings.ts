/**
 * Keeps a shell's global hotkeys — stop, and take over / hand back — the ones in Settings:
 * registered when the shell starts, registered again when a save changes one (the new one first,
 * then the old one let go, so a stop hotkey works throughout). A hotkey that cannot be
 * registered leaves the old one working and says so. The shell brings the mechanism: uiohook in
 * the web shell, globalShortcut in the app.
 */
import type { GamepilotCore } from './core.ts';
import type { Settings } from './contract.ts';

/** Registers `accelerator` to call `onStop`; resolves with its release, or rejects saying why not. */
export type HotkeyRegistrar = (accelerator: string, onStop: () => void) => Promise<() => void>;

/** The shell's two hotkeys, bound together; resolves with their release. */
export async function bindHotkeys(
  core: GamepilotCore,
  register: HotkeyRegistrar,
  log: (s: string) => void,
): Promise<() => void> {
  const releases = [
    await bindHotkey(core, register, log, {
      setting: 'stopHotkey',
      what: 'stop',
      press: (acc) => {
        log(`stop hotkey ${acc}: stopping`);
        void core.stop();
      },
      fallback: 'use the Stop button or Escape in the UI',
    }),
    await bindHotkey(core, register, log, {
      setting: 'takeoverHotkey',
      what: 'take-over',
      press: (acc) => {
        core
          .toggleTakeover('hotkey')
          .then((s) => log(`take-over hotkey ${acc}: ${s.active ? 'you have the controls' : 'handed back'}`))
          .catch((err: Error) => log(`take-over hotkey ${acc}: ${err.message}`));
      },
      fallback: 'use Take over in the Live view',
    }),
  ];
  return () => {
    for (const r of releases) r();
  };
}

interface HotkeyUse {
  setting: 'stopHotkey' | 'takeoverHotkey';
  what: string;
  press: (accelerator: string) => void;
  /** What still works without it. */
  fallback: string;
}

async function bindHotkey(
  core: GamepilotCore,
  register: HotkeyRegistrar,
  log: (s: string) => void,
  u: HotkeyUse,
): Promise<() => void> {
  let active: { accelerator: string; release: () => void } | undefined;
  let wanted = core.state()[u.setting];
  const use = async (accelerator: string) => {
    try {
      const release = await register(accelerator, () => u.press(accelerator));
      active?.release();
      active = { accelerator, release };
      return true;
    } catch (err) {
      const still = active ? `${active.accelerator} still works` : u.fallback;
      log(`warning: no global ${u.what} hotkey ${accelerator} (${(err as Error).message}); ${still}`);
      return false;
    }
  };
  await use(wanted);
  // Saves are applied in order, one registration at a time.
  let queue = Promise.resolve();
  const onSaved = (s: Settings) => {
    if (s[u.setting] === wanted) return;
    wanted = s[u.setting];
    const next = wanted;
    queue = queue.then(async () => {
      if (next === wanted && (await use(next))) log(`${u.what} hotkey is now ${next}`);
    });
  };
  core.on('settings-saved', onSaved);
  return () => {
    core.off('settings-saved', onSaved);
    active?.release();
    active = undefined;
  };
}
