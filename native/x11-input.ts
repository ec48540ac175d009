/**
 * Keyboard and mouse input on X11 through XTest, over Gamepilot's own display connection
 * (native/x11/xlib.ts): one small request an event, flushed at once; no process, no round trip.
 * Keys are nut-js Key names (native/x11/keys.ts maps them to keysyms); the keycode comes from
 * the server's current keyboard mapping. The connection opens at the first event, so creating
 * the backend needs no display.
 */
import type { InputBackend, MouseButton } from './types.ts';
import { BUTTON, XTestInput } from './x11/input.ts';
import { keysymOf } from './x11/keys.ts';

export class X11InputBackend implements InputBackend {
  readonly name = 'xtest';
  private xtest: XTestInput | undefined;

  private get x() {
    this.xtest ??= new XTestInput();
    return this.xtest;
  }

  async keyDown(key: string) {
    this.x.key(keysym(key), true);
  }
  async keyUp(key: string) {
    this.x.key(keysym(key), false);
  }
  async type(text: string) {
    await this.x.type(text);
  }
  async move(x: number, y: number) {
    this.x.moveTo(x, y);
  }
  async position() {
    return this.x.pointer();
  }
  async button(state: 'down' | 'up', which: MouseButton) {
    this.x.button(BUTTON[which], state === 'down');
  }
  async scroll(dx: number, dy: number) {
    const clicks = (button: number, n: number) => {
      for (let i = 0; i < n; i++) {
        this.x.button(button, true);
        this.x.button(button, false);
      }
    };
    clicks(dy > 0 ? BUTTON.wheelDown : BUTTON.wheelUp, Math.abs(dy));
    clicks(dx > 0 ? BUTTON.wheelRight : BUTTON.wheelLeft, Math.abs(dx));
  }
}

function keysym(name: string): number {
  const sym = keysymOf(name);
  if (sym === undefined) throw new Error(`unknown key "${name}"`);
  return sym;
}
