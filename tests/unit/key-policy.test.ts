/**
 * The key policy: window-manager and system combinations are refused by default, also when
 * built across actions (a modifier held by an earlier KEY_DOWN); a game may allow some by name.
 */
import { describe, expect, it } from 'vitest';
import { KeyPolicy } from '../../electron/input/key-policy.ts';
import type { GuiAction } from '../../electron/actions/schema.ts';
import { resolveKeyName } from '../../electron/actions/keys.ts';
import { reservedHotkeys } from '../../electron/input/accelerator.ts';

const hotkey = (...keys: string[]): GuiAction => ({ kind: 'gui', type: 'HOTKEY', params: { keys } });
const press = (key: string): GuiAction => ({ kind: 'gui', type: 'PRESS', params: { key } });
const keyDown = (key: string): GuiAction => ({ kind: 'gui', type: 'KEY_DOWN', params: { key } });
const click: GuiAction = { kind: 'gui', type: 'CLICK', params: { x: 10, y: 10 } };
const scroll: GuiAction = { kind: 'gui', type: 'SCROLL', params: { dx: 0, dy: 3 } };
const typing = (text: string): GuiAction => ({ kind: 'gui', type: 'TYPING', params: { text } });

const policy = new KeyPolicy();

describe('KeyPolicy', () => {
  it.each([
    ['alt', 'f4'],
    ['super'],
    ['win'],
    ['cmd'],
    ['meta'],
    ['super', 'd'],
    ['ctrl', 'alt', 'delete'],
    ['ctrl', 'alt', 'F2'],
    ['ctrl', 'alt', 'backspace'],
    ['printscreen'],
    ['alt', 'printscreen'],
    ['shift', 'print'],
    ['alt', 'tab'],
    ['alt', 'shift', 'tab'],
    ['alt', 'esc'],
    ['alt', 'space'],
    ['alt', '`'],
    ['ctrl', 'esc'],
    ['ctrl', 'shift', 'esc'],
    ['ctrl', 'alt', 'left'],
    ['ctrl', 'alt', 'up'],
    ['ctrl', 'alt', 'l'],
    ['ctrl', 'alt', 't'],
    ['cmd', 'q'],
    ['cmd', 'tab'],
    ['cmd', 'space'],
    ['alt', 'f2'],
    ['alt', 'shift', 'right'],
    ['RightAlt', 'F4'],
    ['rctrl', 'ralt', 'Delete'],
  ])('refuses %j', (...keys) => {
    const why = policy.refusalFor(hotkey(...keys), []);
    expect(why).toMatch(/system combination: .+; a game profile may allow it/);
  });

  it.each([
    ['left'],
    ['space'],
    ['enter'],
    ['ctrl', 'z'],
    ['shift', 'up'],
    ['ctrl', 'shift', 'z'],
    ['alt', 'enter'],
    ['f11'],
    ['escape'],
    ['ctrl', 's'],
    ['w'],
    ['alt', 'left'],
  ])('lets the game have %j', (...keys) => {
    expect(policy.refusalFor(hotkey(...keys), [])).toBeUndefined();
  });

  it('names the combination and the flag that would allow it', () => {
    expect(policy.refusalFor(hotkey('ALT', 'F4'), [])).toMatch(
      /^alt\+F4 is a system combination: .*--allow-keys alt\+f4\)$/,
    );
  });

  it('judges a combination built across actions from what is held', () => {
    expect(policy.refusalFor(keyDown('alt'), [])).toBeUndefined();
    expect(policy.refusalFor(press('f4'), ['LeftAlt'])).toMatch(/^alt\+F4 is a system combination/);
    expect(policy.refusalFor(press('delete'), ['LeftControl', 'LeftAlt'])).toMatch(/^ctrl\+alt\+Delete/);
    expect(policy.refusalFor(keyDown('tab'), ['RightAlt', 'mouse:left'])).toMatch(/^alt\+Tab/);
    expect(policy.refusalFor(keyDown('d'), ['LeftSuper'])).toMatch(/^super\+D/);
    // Held non-modifiers do not make a combination (the window manager only sees modifier state).
    expect(policy.refusalFor(press('alt'), ['F4'])).toBeUndefined();
    expect(policy.refusalFor(press('f4'), ['W', 'mouse:left'])).toBeUndefined();
  });

  it('refuses pointer buttons and the wheel under alt or super (window move/resize, desktop switch)', () => {
    expect(policy.refusalFor(click, ['LeftAlt'])).toMatch(/^alt\+click is a system combination/);
    expect(policy.refusalFor(scroll, ['LeftAlt'])).toMatch(/^alt\+scroll/);
    expect(policy.refusalFor(click, ['LeftSuper'])).toMatch(/^super\+click/);
    expect(policy.refusalFor(click, ['LeftShift'])).toBeUndefined();
    expect(policy.refusalFor(click, [])).toBeUndefined();
  });

  it('refuses typing that completes a combination with a held modifier', () => {
    expect(policy.refusalFor(typing('hello world'), [])).toBeUndefined();
    expect(policy.refusalFor(typing('t'), ['LeftControl', 'LeftAlt'])).toMatch(/^ctrl\+alt\+T/);
    expect(policy.refusalFor(typing(' '), ['LeftAlt'])).toMatch(/^alt\+Space/);
    expect(policy.refusalFor(typing('\t'), ['LeftAlt'])).toMatch(/^alt\+Tab/);
  });

  it('allows exactly the combinations a game names, however they are written', () => {
    const p = new KeyPolicy(['Alt+F4', 'super', 'alt+click', ' ctrl + alt + t ']);
    expect(p.allowedChords.sort()).toEqual(['alt+F4', 'alt+click', 'ctrl+alt+T', 'super'].sort());
    expect(p.refusalFor(hotkey('alt', 'f4'), [])).toBeUndefined();
    expect(p.refusalFor(press('f4'), ['RightAlt'])).toBeUndefined();
    expect(p.refusalFor(press('win'), [])).toBeUndefined();
    expect(p.refusalFor(click, ['LeftAlt'])).toBeUndefined();
    expect(p.refusalFor(hotkey('ctrl', 'alt', 't'), [])).toBeUndefined();
    // Not a wildcard: neighbours stay refused.
    expect(p.refusalFor(hotkey('alt', 'shift', 'f4'), [])).toMatch(/^alt\+shift\+F4/);
    expect(p.refusalFor(hotkey('super', 'd'), [])).toMatch(/^super\+D/);
    expect(p.refusalFor(hotkey('ctrl', 'alt', 'delete'), [])).toMatch(/^ctrl\+alt\+Delete/);
  });

  it('rejects an allow-list entry it cannot read instead of guessing', () => {
    expect(() => new KeyPolicy(['alt+f44'])).toThrow(/allowed key combination "alt\+f44": unknown key name "f44"/);
    expect(() => new KeyPolicy(['+'])).toThrow(/is empty/);
  });
});

describe("KeyPolicy: Gamepilot's own hotkeys are never an agent's", () => {
  const held = (...keys: string[]) => keys.map((k) => resolveKeyName(k)!);

  it.each([
    ['the default stop hotkey as one HOTKEY', hotkey('ctrl', 'shift', 'f12'), []],
    ['the default take-over hotkey, modifiers in another order', hotkey('shift', 'F11', 'control'), []],
    ['with an extra modifier', hotkey('ctrl', 'shift', 'alt', 'f12'), []],
    ['F12 pressed while KEY_DOWN ctrl and shift hold', press('f12'), held('ctrl', 'shift')],
    ['the last modifier pressed while F12 is held (it autorepeats)', keyDown('shift'), held('f12', 'ctrl')],
    ['right-hand modifiers', press('f11'), held('rctrl', 'rshift')],
  ])('%s is refused', (_what, action, h) => {
    expect(policy.refusalFor(action, h)).toMatch(/Gamepilot's (stop|take over) hotkey/);
  });

  it('even when a profile allows the combination by name', () => {
    const lax = new KeyPolicy(['ctrl+shift+f12']);
    expect(lax.refusalFor(hotkey('ctrl', 'shift', 'f12'), [])).toMatch(/stop hotkey/);
  });

  it("the person's own hotkeys from Settings are refused as well as the defaults", () => {
    const mine = new KeyPolicy([], undefined, reservedHotkeys({ stop: 'Alt+Shift+S', takeover: 'F9' }));
    expect(mine.refusalFor(hotkey('alt', 'shift', 's'), [])).toMatch(/stop hotkey \(Alt\+Shift\+S\)/);
    expect(mine.refusalFor(press('f9'), [])).toMatch(/take over hotkey \(F9\)/);
    expect(mine.refusalFor(hotkey('ctrl', 'shift', 'f12'), [])).toMatch(/stop hotkey/);
  });

  it('the keys alone, or with fewer modifiers, are still the game’s', () => {
    expect(policy.refusalFor(press('f12'), [])).toBeUndefined();
    expect(policy.refusalFor(hotkey('shift', 'f11'), [])).toBeUndefined();
    expect(policy.refusalFor(press('f11'), held('ctrl'))).toBeUndefined();
  });

  it('reservedHotkeys skips what it cannot read and lists each chord once', () => {
    const r = reservedHotkeys({ stop: 'CommandOrControl+Shift+F12', takeover: 'not+a+key+at+all' }, 'linux');
    expect(r.map((h) => `${h.mods.join('+')}+${h.key}`).sort()).toEqual(['ctrl+shift+F11', 'ctrl+shift+F12']);
  });
});
