/**
 * Which key combinations a model may press. Window-manager and system combinations (alt+F4,
 * alt+tab, anything with super/meta/cmd, ctrl+alt+…, print screen, alt+click…) reach past the
 * game, so they are refused unless the game allows them by name (`allowedKeys: ['alt+f4']`).
 *
 * A combination is judged as the OS sees it: the modifiers already held down (a KEY_DOWN of an
 * earlier action or step) plus the keys pressed now. Pure logic, no native input.
 *
 * Gamepilot's own hotkeys (stop, take over) are never an agent's, whatever a profile allows:
 * pressed by a model or an MCP client they would stop this run and every other one on the
 * display, or start a "person's" takeover. They are judged with every held key, not only
 * modifiers: a held F12 autorepeats, so pressing ctrl and shift while it is down sends the chord.
 */
import type { GuiAction } from '../actions/schema.ts';
import { resolveKeyName } from '../actions/keys.ts';
import { reservedHotkeys, type ReservedHotkey } from './accelerator.ts';

type Family = 'ctrl' | 'alt' | 'shift' | 'super';
const FAMILY_ORDER: Family[] = ['ctrl', 'alt', 'shift', 'super'];

/** Pseudo keys for pointer buttons and the wheel, so `alt+click` can be judged and allowed. */
const CLICK = 'click';
const SCROLL = 'scroll';

function familyOf(nutName: string): Family | undefined {
  if (/Control$/.test(nutName)) return 'ctrl';
  if (/Alt$/.test(nutName)) return 'alt';
  if (/Shift$/.test(nutName)) return 'shift';
  if (/(Super|Meta|Cmd|Win)$/.test(nutName)) return 'super';
  return undefined;
}

/** A combination: modifier families plus other keys (nut names or the pointer pseudo keys). */
interface Chord {
  mods: Set<Family>;
  keys: Set<string>;
}

/** Canonical text of a chord, e.g. "ctrl+alt+Delete"; allow-list entries are compared in this form. */
function chordText(c: Chord): string {
  return [...FAMILY_ORDER.filter((f) => c.mods.has(f)), ...[...c.keys].sort()].join('+');
}

const isFKey = (k: string, max = 24) => {
  const m = /^F(\d+)$/.exec(k);
  return !!m && Number(m[1]) <= max;
};
const ARROWS = new Set(['Up', 'Down', 'Left', 'Right']);

/** Why a chord belongs to the window manager or the system, or undefined when it is the game's. */
function systemReason(c: Chord): string | undefined {
  const has = (k: string) => c.keys.has(k);
  const any = (pred: (k: string) => boolean) => [...c.keys].some(pred);
  const pointer = has(CLICK) || has(SCROLL);
  if (c.mods.has('super'))
    return 'super/meta/cmd keys belong to the desktop (launcher, show desktop, tiling, cmd+q quits apps)';
  if (has('Print')) return 'print screen is a system key (screenshots; with alt it is SysRq)';
  if (pointer && c.mods.has('alt')) return 'alt with the mouse moves or resizes windows and switches desktops';
  if (c.mods.has('ctrl') && c.mods.has('alt') && c.keys.size > 0) {
    return 'ctrl+alt combinations are system keys (ctrl+alt+delete, ctrl+alt+F1–F12 switch consoles, ctrl+alt+backspace kills the X server, workspaces, lock screen, terminal)';
  }
  if (c.mods.has('ctrl') && has('Escape')) return 'ctrl+esc opens the start menu, ctrl+shift+esc the task manager';
  if (c.mods.has('alt')) {
    if (has('Tab') || has('Grave')) return 'alt+tab switches windows';
    if (has('Escape')) return 'alt+esc cycles windows';
    if (has('Space')) return 'alt+space opens the window menu';
    if (any((k) => isFKey(k, 12))) return 'alt+F1–F12 are window-manager keys (alt+F4 closes the window)';
    if (c.mods.has('shift') && any((k) => ARROWS.has(k))) return 'alt+shift+arrows send the window to another desktop';
  }
  return undefined;
}

function resolvePart(part: string): string | undefined {
  const p = part.trim().toLowerCase();
  if (p === CLICK || p === 'mouse') return CLICK;
  if (p === SCROLL || p === 'wheel') return SCROLL;
  return resolveKeyName(part);
}

function chordOf(pressed: string[], held: Iterable<string>): Chord {
  const c: Chord = { mods: new Set(), keys: new Set() };
  for (const k of held) {
    const f = familyOf(k);
    if (f) c.mods.add(f);
  }
  for (const k of pressed) {
    const f = familyOf(k);
    if (f) c.mods.add(f);
    else c.keys.add(k);
  }
  return c;
}

/** The key a typed character needs; characters without a key of their own stand for a letter. */
function keyForChar(ch: string): string {
  if (ch === '\n' || ch === '\r') return 'Enter';
  if (ch === '\t') return 'Tab';
  if (ch === ' ') return 'Space';
  return resolveKeyName(ch) ?? 'A';
}

export class KeyPolicy {
  private readonly allowed: Set<string>;
  /** The only keys that may be pressed at all (a profile's allowedKeys), as nut names; unset: any key. */
  private readonly only: Set<string> | undefined;
  private readonly onlyText: string;
  private readonly reserved: readonly ReservedHotkey[];

  /**
   * `allowed`: combinations a game permits, written as people write them ("alt+f4", "super+d", "alt+click").
   * `onlyKeys`: when given, every other key is refused (an allowed combination passes whole).
   * `reserved`: Gamepilot's own hotkeys, refused always (default: the default stop and take-over keys).
   */
  constructor(
    allowed: readonly string[] = [],
    onlyKeys?: readonly string[],
    reserved: readonly ReservedHotkey[] = reservedHotkeys(),
  ) {
    this.allowed = new Set(allowed.map(parseAllowed));
    this.only = onlyKeys ? new Set(onlyKeys.map((k) => parseKey(k))) : undefined;
    this.onlyText = onlyKeys?.join(', ') ?? '';
    this.reserved = reserved;
  }

  /** Why the chord would press one of Gamepilot's own hotkeys (it holds at least that hotkey's keys), or undefined. */
  private reservedHit(pressed: string[], held: readonly string[]): string | undefined {
    const all = chordOf([...held, ...pressed], []);
    const hit = this.reserved.find((r) => all.keys.has(r.key) && r.mods.every((m) => all.mods.has(m)));
    if (!hit) return undefined;
    return `${chordText(all)} would press Gamepilot's ${hit.role} hotkey (${hit.accelerator}); an agent never presses the person's controls, whatever a profile allows`;
  }

  /** Why pressing these keys is refused by the profile's key list, or undefined. */
  private outsideList(pressed: string[], chord: Chord): string | undefined {
    if (!this.only || this.allowed.has(chordText(chord))) return undefined;
    const stray = pressed.find((k) => k !== CLICK && k !== SCROLL && !this.only!.has(k));
    return stray
      ? `${stray} is not a key this title's profile allows (allowedKeys: ${this.onlyText}); nothing was pressed`
      : undefined;
  }

  /** The allowed combinations in canonical form. */
  get allowedChords(): string[] {
    return [...this.allowed];
  }

  /**
   * Why pressing `pressed` (nut key names, or "click"/"scroll") while `held` is down would reach
   * past the game, or undefined when it may go ahead.
   */
  check(pressed: string[], held: Iterable<string> = []): string | undefined {
    const heldKeys = [...held];
    const reserved = this.reservedHit(pressed, heldKeys);
    if (reserved) return reserved;
    const chord = chordOf(pressed, heldKeys);
    const outside = this.outsideList(pressed, chord);
    if (outside) return outside;
    const why = systemReason(chord);
    if (!why) return undefined;
    const text = chordText(chord);
    if (this.allowed.has(text)) return undefined;
    return `${text} is a system combination: ${why}; a game profile may allow it (allowedHotkeys, or --allow-keys ${text.toLowerCase()})`;
  }

  /** The refusal for one GUI action given what is held (nut key names; "mouse:*" entries are ignored), or undefined. */
  refusalFor(a: GuiAction, held: Iterable<string>): string | undefined {
    const heldKeys = [...held].filter((k) => !k.startsWith('mouse:'));
    switch (a.type) {
      case 'PRESS':
      case 'KEY_DOWN': {
        const k = resolveKeyName(a.params.key);
        return k ? this.check([k], heldKeys) : undefined; // unknown keys fail later, plainly
      }
      case 'HOTKEY': {
        const keys = a.params.keys.map(resolveKeyName);
        return keys.every((k): k is string => !!k) ? this.check(keys, heldKeys) : undefined;
      }
      case 'TYPING':
        for (const ch of new Set(a.params.text)) {
          const why = this.check([keyForChar(ch)], heldKeys);
          if (why) return why;
        }
        return undefined;
      case 'CLICK':
      case 'RIGHT_CLICK':
      case 'DOUBLE_CLICK':
      case 'MOUSE_DOWN':
      case 'DRAG_TO':
        return this.check([CLICK], heldKeys);
      case 'SCROLL':
        return this.check([SCROLL], heldKeys);
      default:
        return undefined;
    }
  }
}

/** One key name as nut names it; an unknown name is a clear error. */
function parseKey(name: string): string {
  const k = resolveKeyName(name);
  if (!k) throw new Error(`allowed key "${name}" is not a key name`);
  return k;
}

/** "Alt+F4" → "alt+F4"; unknown names are a clear error, so a typo never allows something else. */
function parseAllowed(entry: string): string {
  const parts = entry
    .split('+')
    .map((p) => p.trim())
    .filter(Boolean);
  if (!parts.length) throw new Error(`allowed key combination "${entry}" is empty`);
  const names = parts.map((p) => {
    const k = resolvePart(p);
    if (!k) throw new Error(`allowed key combination "${entry}": unknown key name "${p}"`);
    return k;
  });
  return chordText(chordOf(names, []));
}
