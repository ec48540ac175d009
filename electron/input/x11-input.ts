import { BUTTON, XTestInput } from '../../native/x11/input.ts';
import type { Button, InputBackend } from './backend.ts';
import { keysymOf } from './x11-keys.ts';

/** Input through XTest on Gamepilot's own X connection: microseconds an event, nothing spawned. */
export class X11Input implements InputBackend {
  readonly name = 'xtest';
  private xtest: XTestInput | undefined;

  private get x() {
    this.xtest ??= new XTestInput();
    return this.xtest;
  }

  async pointer() {
    return this.x.pointer();
  }

  async moveTo(x: number, y: number) {
    this.x.moveTo(x, y);
  }

  async button(b: Button, down: boolean) {
    this.x.button(BUTTON[b], down);
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

  async key(name: string, down: boolean) {
    const sym = keysymOf(name);
    if (sym === undefined) throw new Error(`unknown key "${name}"`);
    this.x.key(sym, down);
  }

  async type(text: string) {
    await this.x.type(text);
  }
}
