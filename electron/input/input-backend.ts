/**
 * The OS input the executor drives (native/types.ts `InputBackend`): SendInput in-process on
 * Windows, Quartz events in-process on macOS, XTest in-process on X11 (nut-js when libX11
 * cannot be loaded, with a warning), nut-js elsewhere.
 */
import type { InputBackend, MouseButton } from '../../native/types.ts';
import { MacInputBackend } from '../../native/macos-input.ts';
import { Win32InputBackend } from '../../native/win32-input.ts';
import { X11InputBackend } from '../../native/x11-input.ts';
import { xlibAvailable } from '../../native/x11.ts';
import { loadNut } from './nut.ts';

/** Through nut-js (XTest on X11). Loads nut-js (and opens the display) on first use. */
export class NutInputBackend implements InputBackend {
  readonly name = 'nut-js';

  private async key(name: string) {
    const nut = await loadNut();
    const key = nut.Key[name as keyof typeof nut.Key];
    if (key === undefined) throw new Error(`unknown key "${name}"`);
    return { nut, key };
  }
  private static button(nut: Awaited<ReturnType<typeof loadNut>>, which: MouseButton) {
    return nut.Button[which.toUpperCase() as 'LEFT' | 'RIGHT' | 'MIDDLE'];
  }

  async keyDown(name: string) {
    const { nut, key } = await this.key(name);
    await nut.keyboard.pressKey(key);
  }
  async keyUp(name: string) {
    const { nut, key } = await this.key(name);
    await nut.keyboard.releaseKey(key);
  }
  async type(text: string) {
    await (await loadNut()).keyboard.type(text);
  }
  async move(x: number, y: number) {
    const nut = await loadNut();
    await nut.mouse.setPosition(new nut.Point(Math.round(x), Math.round(y)));
  }
  async position() {
    const p = await (await loadNut()).mouse.getPosition();
    return { x: p.x, y: p.y };
  }
  async button(state: 'down' | 'up', which: MouseButton) {
    const nut = await loadNut();
    const b = NutInputBackend.button(nut, which);
    await (state === 'down' ? nut.mouse.pressButton(b) : nut.mouse.releaseButton(b));
  }
  async scroll(dx: number, dy: number) {
    const { mouse } = await loadNut();
    if (dy > 0) await mouse.scrollDown(dy);
    if (dy < 0) await mouse.scrollUp(-dy);
    if (dx > 0) await mouse.scrollRight(dx);
    if (dx < 0) await mouse.scrollLeft(-dx);
  }
}

let warned = false;

/** The input backend for this OS. */
export function createInputBackend(platform: NodeJS.Platform = process.platform): InputBackend {
  if (platform === 'win32') return new Win32InputBackend();
  if (platform === 'darwin') return new MacInputBackend();
  const can = xlibAvailable();
  if (can.ok) return new X11InputBackend();
  if (!warned) {
    warned = true;
    process.emitWarning(`${can.why}; injecting input through nut-js instead`, { code: 'GAMEPILOT_X11_INPUT' });
  }
  return new NutInputBackend();
}
