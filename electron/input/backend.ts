/**
 * Where injected input goes out: XTest over Gamepilot's own X connection on Linux (no process,
 * no round trip per event), nut-js elsewhere and as the fallback when libX11 cannot be loaded.
 * The executor decides what to send (policy, confinement, held keys); a backend only sends it.
 */
import { xlibAvailable } from '../../native/x11.ts';
import { NutInput } from './nut-input.ts';
import { X11Input } from './x11-input.ts';

export type Button = 'left' | 'right' | 'middle';

export interface InputBackend {
  readonly name: string;
  /** The pointer's position in screen pixels. */
  pointer(): Promise<{ x: number; y: number }>;
  moveTo(x: number, y: number): Promise<void>;
  button(b: Button, down: boolean): Promise<void>;
  /** Wheel notches: dy > 0 scrolls down, dx > 0 right. */
  scroll(dx: number, dy: number): Promise<void>;
  /** A key by its nut-js Key name ("LeftShift", "A", "F5"), pressed or released as it is. */
  key(name: string, down: boolean): Promise<void>;
  /** Types text character by character, with whatever Shift each character needs. */
  type(text: string): Promise<void>;
}

let shared: InputBackend | undefined;

/** This process's backend, chosen on first use (so that merely creating an executor needs no display). */
export function defaultInputBackend(): InputBackend {
  shared ??= new LazyInput(chooseBackend);
  return shared;
}

let warned = false;
function chooseBackend(): InputBackend {
  if (process.platform !== 'linux') return new NutInput();
  const can = xlibAvailable();
  if (can.ok) return new X11Input();
  if (!warned) {
    warned = true;
    process.emitWarning(`${can.why}; injecting input through nut-js instead`, { code: 'GAMEPILOT_X11_INPUT' });
  }
  return new NutInput();
}

/** Creates the real backend at the first event; an error there (no display) fails that event, not the constructor. */
class LazyInput implements InputBackend {
  private real: InputBackend | undefined;
  constructor(private readonly create: () => InputBackend) {}
  private get b() {
    this.real ??= this.create();
    return this.real;
  }
  get name() {
    return this.real?.name ?? 'not chosen yet';
  }
  pointer() {
    return this.b.pointer();
  }
  moveTo(x: number, y: number) {
    return this.b.moveTo(x, y);
  }
  button(b: Button, down: boolean) {
    return this.b.button(b, down);
  }
  scroll(dx: number, dy: number) {
    return this.b.scroll(dx, dy);
  }
  key(name: string, down: boolean) {
    return this.b.key(name, down);
  }
  type(text: string) {
    return this.b.type(text);
  }
}
