import type { Button, InputBackend } from './backend.ts';
import { loadNut } from './nut.ts';

/** Input through nut-js (libnut): Windows, macOS, and X11 when libX11 cannot be loaded in-process. */
export class NutInput implements InputBackend {
  readonly name = 'nut-js';

  async pointer() {
    const p = await (await loadNut()).mouse.getPosition();
    return { x: p.x, y: p.y };
  }

  async moveTo(x: number, y: number) {
    const nut = await loadNut();
    await nut.mouse.setPosition(new nut.Point(Math.round(x), Math.round(y)));
  }

  async button(b: Button, down: boolean) {
    const nut = await loadNut();
    const button = nut.Button[b.toUpperCase() as 'LEFT' | 'RIGHT' | 'MIDDLE'];
    await (down ? nut.mouse.pressButton(button) : nut.mouse.releaseButton(button));
  }

  async scroll(dx: number, dy: number) {
    const { mouse } = await loadNut();
    if (dy > 0) await mouse.scrollDown(dy);
    if (dy < 0) await mouse.scrollUp(-dy);
    if (dx > 0) await mouse.scrollRight(dx);
    if (dx < 0) await mouse.scrollLeft(-dx);
  }

  async key(name: string, down: boolean) {
    const nut = await loadNut();
    const k = nut.Key[name as keyof typeof nut.Key];
    if (k === undefined) throw new Error(`unknown key "${name}"`);
    await (down ? nut.keyboard.pressKey(k) : nut.keyboard.releaseKey(k));
  }

  async type(text: string) {
    await (await loadNut()).keyboard.type(text);
  }
}
