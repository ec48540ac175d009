/**
 * The Windows key table (pure data; the injection itself is tested under Wine by
 * `npm run test:windows`): every key a model can name reaches a virtual key, keys with an E0
 * scan code are sent as extended keys, and every key that goes by scan code has a US scan code
 * to fall back on. Window ids: hex HWNDs that read back.
 */
import { Key } from '@nut-tree-fork/shared';
import { describe, expect, it } from 'vitest';
import { resolveKeyName } from '../../electron/actions/keys.ts';
import { formatWindowId, parseWindowId } from '../../native/win32.ts';
import { keyStroke, needsVirtualKey, usScanCode, VIRTUAL_KEYS } from '../../native/win32-keys.ts';

const nutKeyNames = Object.keys(Key).filter((k) => Number.isNaN(Number(k)));
/** Keys a keyboard attached to Windows has no virtual key for. */
const NO_WINDOWS_KEY = ['Fn', 'AudioRewind', 'AudioForward', 'AudioRepeat', 'AudioRandom'];

describe('Windows virtual keys', () => {
  it('cover every nut-js key Windows has, and only names nut-js knows', () => {
    const missing = nutKeyNames.filter((k) => !NO_WINDOWS_KEY.includes(k) && !keyStroke(k));
    expect(missing).toEqual([]);
    expect(Object.keys(VIRTUAL_KEYS).filter((k) => !nutKeyNames.includes(k))).toEqual([]);
  });

  it('reach every key a model may name', () => {
    const said = [
      'enter',
      'esc',
      'space',
      'tab',
      'backspace',
      'shift',
      'rshift',
      'ctrl',
      'rctrl',
      'alt',
      'ralt',
      'win',
      'cmd',
      'up',
      'down',
      'left',
      'right',
      'home',
      'end',
      'pgup',
      'pgdn',
      'insert',
      'delete',
      'capslock',
      'a',
      'Z',
      '0',
      '9',
      'F1',
      'f12',
      'F24',
      'numpad5',
      '-',
      '=',
      ',',
      '.',
      '/',
      '\\',
      ';',
      "'",
      '`',
      '[',
      ']',
      'pause',
      'printscreen',
      'menu',
      'numlock',
      'scrolllock',
    ];
    for (const name of said) {
      const nut = resolveKeyName(name);
      expect(nut, name).toBeDefined();
      expect(keyStroke(nut!), `${name} → ${nut}`).toBeDefined();
    }
  });

  it('maps keys to the codes Windows defines', () => {
    expect(keyStroke('A')).toEqual({ vk: 0x41, extended: false });
    expect(keyStroke('Num7')).toEqual({ vk: 0x37, extended: false });
    expect(keyStroke('F5')).toEqual({ vk: 0x74, extended: false });
    expect(keyStroke('LeftShift')).toEqual({ vk: 0xa0, extended: false });
    expect(keyStroke('Return')).toEqual({ vk: 0x0d, extended: false });
    expect(keyStroke('Escape')).toEqual({ vk: 0x1b, extended: false });
  });

  it('sends the keys with an E0 scan code as extended keys', () => {
    for (const k of ['Up', 'Down', 'Left', 'Right', 'Home', 'End', 'PageUp', 'PageDown', 'Insert', 'Delete'])
      expect(keyStroke(k)?.extended, k).toBe(true);
    for (const k of ['RightControl', 'RightAlt', 'LeftSuper', 'Divide', 'NumLock', 'Print'])
      expect(keyStroke(k)?.extended, k).toBe(true);
    for (const k of ['LeftControl', 'LeftAlt', 'NumPad8', 'A', 'Space', 'Return'])
      expect(keyStroke(k)?.extended, k).toBe(false);
  });

  it('has a US scan code for every key sent by scan code (numpad arrows share the arrows’ codes)', () => {
    const byVk = nutKeyNames.map(keyStroke).filter((s) => s && !needsVirtualKey(s.vk) && s.vk !== 0x92);
    expect(byVk.filter((s) => usScanCode(s!.vk) === undefined)).toEqual([]);
    expect(usScanCode(0x41)).toBe(0x1e); // A
    expect(usScanCode(0x26)).toBe(0x48); // Up (E0 48)
    expect(usScanCode(0x68)).toBe(0x48); // NumPad8 (48)
    expect(usScanCode(0x5b)).toBe(0x5b); // LeftSuper, LeftWin, LeftCmd, LeftMeta
  });

  it('sends Pause, F13–F24 and media keys by virtual key: they have no plain scan code', () => {
    for (const k of ['Pause', 'F13', 'F24', 'AudioMute', 'AudioPlay'])
      expect(needsVirtualKey(keyStroke(k)!.vk)).toBe(true);
    expect(needsVirtualKey(keyStroke('F12')!.vk)).toBe(false);
  });
});

describe('Windows window ids', () => {
  it('are HWNDs in hex that read back, also from decimal', () => {
    expect(formatWindowId(0x1005cn)).toBe('0x0001005c');
    expect(parseWindowId('0x0001005c')).toBe(0x1005cn);
    expect(parseWindowId('65628')).toBe(0x1005cn);
    expect(parseWindowId(formatWindowId(0x7fff_ffff_ffffn))).toBe(0x7fff_ffff_ffffn);
  });

  it('refuse what is no handle', () => {
    for (const id of ['', '0', '0x', '-1', 'abc', '0x1g', '1.5', `0x${'f'.repeat(17)}`])
      expect(parseWindowId(id), id).toBeUndefined();
  });
});
