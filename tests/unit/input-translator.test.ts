import { describe, expect, it } from 'vitest';
import { InputTranslator, type RecordedEvent } from '../../electron/recording/input-translator.ts';
import type { HookEvent } from '../../electron/input/global-hook.ts';

const win = { x: 100, y: 50, width: 400, height: 300 };
const names: Record<number, string> = { 30: 'a', 57416: 'up', 42: 'shift' };

function run(events: HookEvent[], focused = true) {
  const out: RecordedEvent[] = [];
  const tr = new InputTranslator(
    (e) => out.push(e),
    (c) => names[c],
  );
  for (const e of events) {
    tr.flush(e.t);
    tr.feed(e, { window: win, focused });
  }
  tr.flush(Number.POSITIVE_INFINITY);
  return { out, ignored: tr.ignored };
}
const key = (kind: 'keydown' | 'keyup', t: number, keycode: number): HookEvent => ({
  kind,
  t,
  keycode,
  ctrl: false,
  shift: false,
  alt: false,
  meta: false,
});
const mouse = (
  kind: 'mousedown' | 'mouseup' | 'mousemove',
  t: number,
  x: number,
  y: number,
  button = 1,
): HookEvent => ({ kind, t, x, y, button });

describe('InputTranslator', () => {
  it('turns a tap into PRESS at the moment of the key-down', () => {
    expect(run([key('keydown', 1000, 57416), key('keyup', 1040, 57416)]).out).toEqual([
      { t: 1000, action_type: 'PRESS', parameters: { key: 'up', duration: 0.04 } },
    ]);
  });

  it('turns a hold into KEY_DOWN … KEY_UP and ignores auto-repeat', () => {
    const { out } = run([
      key('keydown', 1000, 30),
      key('keydown', 1200, 30),
      key('keydown', 1500, 30),
      key('keyup', 2000, 30),
    ]);
    expect(out).toEqual([
      { t: 1000, action_type: 'KEY_DOWN', parameters: { key: 'a' } },
      { t: 2000, action_type: 'KEY_UP', parameters: { key: 'a' } },
    ]);
  });

  it('keeps no keys while the target is not focused', () => {
    const r = run([key('keydown', 1000, 30), key('keyup', 1010, 30)], false);
    expect(r.out).toEqual([]);
    expect(r.ignored).toBe(1);
  });

  it('clicks, drags and moves become window-relative actions; outside the window nothing', () => {
    const { out, ignored } = run([
      mouse('mousedown', 1000, 150, 100),
      mouse('mouseup', 1050, 151, 101),
      mouse('mousedown', 2000, 200, 200),
      mouse('mousemove', 2100, 250, 220),
      mouse('mouseup', 2300, 300, 250),
      mouse('mousemove', 3000, 120, 60),
      mouse('mousemove', 3010, 121, 60),
      mouse('mousedown', 4000, 10, 10),
      mouse('mouseup', 4010, 10, 10),
      mouse('mousedown', 5000, 150, 100, 2),
      mouse('mouseup', 5010, 150, 100, 2),
    ]);
    expect(out).toEqual([
      { t: 1000, action_type: 'CLICK', parameters: { x: 50, y: 50 } },
      { t: 2000, action_type: 'MOVE_TO', parameters: { x: 100, y: 150 } },
      { t: 2300, action_type: 'DRAG_TO', parameters: { x: 200, y: 200, duration: 0.3 } },
      { t: 3000, action_type: 'MOVE_TO', parameters: { x: 20, y: 10 } },
      { t: 5000, action_type: 'RIGHT_CLICK', parameters: { x: 50, y: 50 } },
    ]);
    expect(ignored).toBe(1);
  });

  it('wheel turns inside the window become SCROLL', () => {
    expect(run([{ kind: 'wheel', t: 1, x: 150, y: 100, rotation: 3, direction: 3, amount: 3 }]).out).toEqual([
      { t: 1, action_type: 'SCROLL', parameters: { dx: 0, dy: 3 } },
    ]);
  });
});
