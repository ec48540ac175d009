/**
 * Turns raw global input into the agent's action schema, so human and agent runs are read
 * the same way: short key taps become PRESS, holds KEY_DOWN/KEY_UP; clicks, drags, pointer
 * moves and wheel turns become CLICK, DRAG_TO, MOVE_TO, SCROLL with window-relative
 * coordinates. Keys are kept only while the target has focus; pointer input only inside it.
 */
import type { HookEvent } from '../input/global-hook.ts';
import { contains, type Rect } from '../../native/types.ts';

export interface RecordedEvent {
  t: number;
  action_type: string;
  parameters: Record<string, unknown>;
}

export interface TranslatorOptions {
  /** A key released within this time is one PRESS; held longer, KEY_DOWN … KEY_UP. */
  pressMaxMs: number;
  /** Pointer moves are sampled at most this often. */
  moveIntervalMs: number;
  /** A press and release closer than this (px) is a click, not a drag. */
  clickSlopPx: number;
}

export const DEFAULT_TRANSLATOR: TranslatorOptions = { pressMaxMs: 300, moveIntervalMs: 50, clickSlopPx: 5 };

const BUTTONS: Record<number, string> = { 1: 'left', 2: 'right', 3: 'middle' };

export interface TranslatorContext {
  window: Rect;
  /** Whether the target window has keyboard focus. */
  focused: boolean;
}

export class InputTranslator {
  private keys = new Map<number, { t: number; name: string; announced: boolean }>();
  private press?: { t: number; x: number; y: number; button: number };
  private lastMove = 0;
  /** Events seen but not kept (outside the window or its focus): counted, never stored. */
  ignored = 0;

  constructor(
    private readonly emit: (e: RecordedEvent) => void,
    private readonly keyName: (code: number) => string | undefined,
    private readonly opts: TranslatorOptions = DEFAULT_TRANSLATOR,
  ) {}

  feed(e: HookEvent, ctx: TranslatorContext) {
    const rel = (x: number, y: number) => ({ x: x - ctx.window.x, y: y - ctx.window.y });
    switch (e.kind) {
      case 'keydown': {
        if (this.keys.has(e.keycode)) return; // auto-repeat
        const name = this.keyName(e.keycode);
        if (!ctx.focused || !name) return void this.ignored++;
        this.keys.set(e.keycode, { t: e.t, name, announced: false });
        return;
      }
      case 'keyup': {
        const k = this.keys.get(e.keycode);
        if (!k) return;
        this.keys.delete(e.keycode);
        if (k.announced) this.emit({ t: e.t, action_type: 'KEY_UP', parameters: { key: k.name } });
        else
          this.emit({
            t: k.t,
            action_type: 'PRESS',
            parameters: { key: k.name, duration: round3((e.t - k.t) / 1000) },
          });
        return;
      }
      case 'mousedown':
        if (!contains(ctx.window, e.x, e.y)) return void this.ignored++;
        this.press = { t: e.t, x: e.x, y: e.y, button: e.button };
        return;
      case 'mouseup': {
        const p = this.press;
        if (!p || p.button !== e.button) return;
        this.press = undefined;
        const button = BUTTONS[e.button] ?? 'left';
        if (Math.hypot(e.x - p.x, e.y - p.y) <= this.opts.clickSlopPx) {
          this.emit({
            t: p.t,
            action_type: button === 'right' ? 'RIGHT_CLICK' : 'CLICK',
            parameters: { ...rel(p.x, p.y), ...(button === 'middle' ? { button } : {}) },
          });
        } else {
          this.emit({ t: p.t, action_type: 'MOVE_TO', parameters: rel(p.x, p.y) });
          const end = rel(
            Math.min(Math.max(e.x, ctx.window.x), ctx.window.x + ctx.window.width - 1),
            Math.min(Math.max(e.y, ctx.window.y), ctx.window.y + ctx.window.height - 1),
          );
          this.emit({ t: e.t, action_type: 'DRAG_TO', parameters: { ...end, duration: round3((e.t - p.t) / 1000) } });
        }
        return;
      }
      case 'mousemove':
        if (this.press || !contains(ctx.window, e.x, e.y) || e.t - this.lastMove < this.opts.moveIntervalMs) return;
        this.lastMove = e.t;
        this.emit({ t: e.t, action_type: 'MOVE_TO', parameters: rel(e.x, e.y) });
        return;
      case 'wheel': {
        if (!contains(ctx.window, e.x, e.y)) return void this.ignored++;
        const amount = Math.sign(e.rotation) * Math.max(1, Math.abs(e.rotation));
        this.emit({
          t: e.t,
          action_type: 'SCROLL',
          parameters: e.direction === 4 ? { dx: amount, dy: 0 } : { dx: 0, dy: amount },
        });
        return;
      }
    }
  }

  /** Announces keys held longer than a tap as KEY_DOWN (call periodically and at the end). */
  flush(now: number) {
    for (const k of this.keys.values()) {
      if (!k.announced && now - k.t > this.opts.pressMaxMs) {
        k.announced = true;
        this.emit({ t: k.t, action_type: 'KEY_DOWN', parameters: { key: k.name } });
      }
    }
  }
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;
