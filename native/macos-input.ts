/**
 * Keyboard and mouse input on macOS through Quartz events, in-process (koffi):
 * CGEventCreateKeyboardEvent / CGEventCreateMouseEvent / CGEventCreateScrollWheelEvent2 posted
 * at the HID tap. Held modifiers are carried in each event's flags, a moving pointer with a
 * button down is a drag, and a second click soon after the first at the same spot is a double
 * click (the click state Quartz needs). Coordinates are points. Needs the Accessibility
 * permission. Not run by CI (no Mac here).
 */
import { type CGPoint, type MacApi, macos, type Ref } from './macos-api.ts';
import { macKeyCode, modifierFlag } from './macos-keys.ts';
import type { InputBackend, MouseButton } from './types.ts';

const kCGHIDEventTap = 0;
const kCGEventSourceStateHIDSystemState = 1;
const kCGEventMouseMoved = 5;
const kCGScrollEventUnitLine = 1;
const kCGMouseEventClickState = 1;
const DOUBLE_CLICK_MS = 500;

const MOUSE: Record<MouseButton, { down: number; up: number; drag: number; button: number }> = {
  left: { down: 1, up: 2, drag: 6, button: 0 },
  right: { down: 3, up: 4, drag: 7, button: 1 },
  middle: { down: 25, up: 26, drag: 27, button: 2 },
};

export class MacInputBackend implements InputBackend {
  readonly name = 'macos-cgevent';
  private readonly api: MacApi;
  private readonly source: Ref;
  private readonly modifiers = new Map<string, number>();
  private readonly buttons = new Set<MouseButton>();
  private lastClick = { t: 0, x: NaN, y: NaN, which: 'left' as MouseButton, count: 0 };

  constructor(api: MacApi = macos()) {
    this.api = api;
    this.source = api.CGEventSourceCreate(kCGEventSourceStateHIDSystemState);
  }

  private flags(): bigint {
    let f = 0;
    for (const bit of this.modifiers.values()) f |= bit;
    return BigInt(f);
  }

  private post(e: Ref) {
    if (!e) throw new Error('Quartz could not make the input event');
    try {
      this.api.CGEventSetFlags(e, this.flags());
      this.api.CGEventPost(kCGHIDEventTap, e);
    } finally {
      this.api.CFRelease(e);
    }
  }

  private key(name: string, down: boolean) {
    const code = macKeyCode(name);
    if (code === undefined) throw new Error(`no macOS key for "${name}"`);
    const flag = modifierFlag(name);
    if (flag && down) this.modifiers.set(name, flag);
    if (flag && !down) this.modifiers.delete(name);
    this.post(this.api.CGEventCreateKeyboardEvent(this.source, code, down));
  }

  async keyDown(name: string) {
    this.key(name, true);
  }
  async keyUp(name: string) {
    this.key(name, false);
  }

  async type(text: string) {
    for (let i = 0; i < text.length; i++) {
      const unit = Buffer.alloc(2);
      unit.writeUInt16LE(text.charCodeAt(i));
      for (const down of [true, false]) {
        const e = this.api.CGEventCreateKeyboardEvent(this.source, 0, down);
        if (e) this.api.CGEventKeyboardSetUnicodeString(e, 1, unit);
        this.post(e);
      }
    }
  }

  async move(x: number, y: number) {
    const held = [...this.buttons][0];
    const type = held ? MOUSE[held].drag : kCGEventMouseMoved;
    this.post(this.api.CGEventCreateMouseEvent(this.source, type, { x, y }, held ? MOUSE[held].button : 0));
  }

  async position(): Promise<CGPoint> {
    const e = this.api.CGEventCreate(null);
    try {
      const p = this.api.CGEventGetLocation(e);
      return { x: p.x, y: p.y };
    } finally {
      this.api.CFRelease(e);
    }
  }

  async button(state: 'down' | 'up', which: MouseButton) {
    const at = await this.position();
    const now = Date.now();
    if (state === 'down') {
      const again =
        this.lastClick.which === which &&
        now - this.lastClick.t < DOUBLE_CLICK_MS &&
        Math.abs(this.lastClick.x - at.x) < 4 &&
        Math.abs(this.lastClick.y - at.y) < 4;
      this.lastClick = { t: now, x: at.x, y: at.y, which, count: again ? this.lastClick.count + 1 : 1 };
      this.buttons.add(which);
    } else this.buttons.delete(which);
    const e = this.api.CGEventCreateMouseEvent(this.source, MOUSE[which][state], at, MOUSE[which].button);
    if (e) this.api.CGEventSetIntegerValueField(e, kCGMouseEventClickState, BigInt(this.lastClick.count || 1));
    this.post(e);
  }

  /** dy > 0 scrolls down, dx > 0 right (Quartz counts up and left as positive). */
  async scroll(dx: number, dy: number) {
    this.post(
      this.api.CGEventCreateScrollWheelEvent2(
        this.source,
        kCGScrollEventUnitLine,
        2,
        -Math.round(dy),
        -Math.round(dx),
        0,
      ),
    );
  }
}
