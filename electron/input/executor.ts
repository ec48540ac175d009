/**
 * Executes GUI actions with real OS input (an InputBackend: SendInput on Windows, Quartz events
 * on macOS, XTest on X11; see input-backend.ts), confined to the target window.
 * Every action is checked against the window before anything is injected; a refused action
 * stops the rest of that step's plan and releases what the executor holds. Held keys and buttons are tracked so that every way a
 * run ends can release them. Window-manager and system key combinations are refused unless the
 * game allows them (see key-policy.ts).
 */
import type { GuiAction } from '../actions/schema.ts';
import { imageToScreen, inputRegion, type FrameGeometry } from './coordinates.ts';
import { resolveKeyName, isModifier } from '../actions/keys.ts';
import { createInputBackend } from './input-backend.ts';
import { KeyPolicy } from './key-policy.ts';
import { injectedKeys, notingKeys } from './key-ledger.ts';
import { reservedHotkeys, type GamepilotHotkeys } from './accelerator.ts';
import { contains, type InputBackend, type MouseButton } from '../../native/types.ts';
import { sleep } from '../util/time.ts';
import { processHeldInput, type HeldInputTracker } from '../safety/held-input.ts';

export interface ActionOutcome {
  action: string;
  ok: boolean;
  error?: string;
  /** Screen point the pointer acted at, for overlays. */
  at?: { x: number; y: number };
  /** A semantic call's GUI actions (wire form, image pixels): what it became. */
  expanded?: unknown[];
  /** On a refusal: the keys and buttons still held that were released after it (nut names, `mouse:left`). */
  released?: string[];
}

type Button = MouseButton;

export class ActionExecutor {
  private heldKeys = new Set<string>();
  private heldButtons = new Set<Button>();
  private readonly keyPolicy: KeyPolicy;
  private readonly heldInput: HeldInputTracker;
  private readonly input: InputBackend;

  /**
   * `allowedKeys`: system combinations this game may press, e.g. ['alt+f4'] (default: none).
   * `heldInput` keeps what is held where the process exit handler and, after a crash, the next
   * start find it (default: this process's registry). `input`: the OS input (default: this OS's).
   * `onlyKeys`: the only keys that may be pressed at all (a profile's allowedKeys; default: any).
   * `hotkeys`: the person's stop and take-over hotkeys, never pressed (the defaults are refused as well).
   */
  constructor(
    opts: {
      allowedKeys?: readonly string[];
      onlyKeys?: readonly string[] | undefined;
      heldInput?: HeldInputTracker;
      input?: InputBackend;
      hotkeys?: GamepilotHotkeys | undefined;
    } = {},
  ) {
    this.keyPolicy = new KeyPolicy(opts.allowedKeys, opts.onlyKeys, reservedHotkeys(opts.hotkeys));
    this.heldInput = opts.heldInput ?? processHeldInput();
    // Every key down is noted first, so this process's hotkeys never take it for a person's.
    this.input = notingKeys(opts.input ?? createInputBackend(), [injectedKeys]);
  }

  /**
   * Runs one step's actions in order; stops at the first refusal or when `signal` aborts. A
   * refusal then releases everything this executor holds, listed in the refused outcome's
   * `released`: a refused PRESS between `KEY_DOWN alt` and `KEY_UP alt` must not leave alt down
   * into later steps, and the plan's own releases never ran.
   */
  async execute(actions: GuiAction[], g: FrameGeometry, signal?: AbortSignal): Promise<ActionOutcome[]> {
    const outcomes: ActionOutcome[] = [];
    for (const a of actions) {
      if (signal?.aborted) break;
      let outcome: ActionOutcome;
      try {
        outcome = await this.one(a, g, signal);
      } catch (err) {
        outcome = { action: a.type, ok: false, error: `input failed: ${(err as Error).message}` };
      }
      outcomes.push(outcome);
      if (!outcome.ok) {
        const released = await this.releaseAll();
        if (released.length) outcome.released = released;
        break;
      }
    }
    return outcomes;
  }

  /** Releases every key and button this executor pressed and did not release. Never throws. */
  async releaseAll(): Promise<string[]> {
    const released: string[] = [];
    for (const k of [...this.heldKeys]) {
      try {
        await this.input.keyUp(k);
        released.push(k);
      } catch {
        /* keep releasing the rest */
      }
      this.keyUp(k);
    }
    for (const b of [...this.heldButtons]) {
      try {
        await this.input.button('up', b);
        released.push(`mouse:${b}`);
      } catch {
        /* keep releasing the rest */
      }
      this.buttonUp(b);
    }
    return released;
  }

  // Called just before a key or button goes down (`lasting`: held beyond this one action, so
  // recorded on disk first) and just after it is up.
  private keyDown(k: string, lasting: boolean) {
    this.heldInput.pressing(this, k, lasting);
    this.heldKeys.add(k);
  }
  private keyUp(k: string) {
    this.heldKeys.delete(k);
    this.heldInput.released(this, k);
  }
  private buttonDown(b: Button, lasting: boolean) {
    this.heldInput.pressing(this, `mouse:${b}`, lasting);
    this.heldButtons.add(b);
  }
  private buttonUp(b: Button) {
    this.heldButtons.delete(b);
    this.heldInput.released(this, `mouse:${b}`);
  }

  held(): string[] {
    return [...this.heldKeys, ...[...this.heldButtons].map((b) => `mouse:${b}`)];
  }

  private async one(a: GuiAction, g: FrameGeometry, signal?: AbortSignal): Promise<ActionOutcome> {
    // Judged with what is already held, so KEY_DOWN alt then PRESS f4 is caught too.
    const systemKeys = this.keyPolicy.refusalFor(a, this.held());
    if (systemKeys) return { action: a.type, ok: false, error: systemKeys };
    const input = this.input;
    const ok = (at?: { x: number; y: number }): ActionOutcome => ({ action: a.type, ok: true, ...(at ? { at } : {}) });
    const refuse = (error: string): ActionOutcome => ({ action: a.type, ok: false, error });
    // The part of the window on the screen (the image shows only that part).
    const screenWindow = inputRegion(g);
    const pointerInWindow = async () => {
      const p = await input.position();
      return contains(screenWindow, p.x, p.y) ? { x: p.x, y: p.y } : undefined;
    };
    const target = async (x?: number, y?: number): Promise<{ x: number; y: number } | string> => {
      if (x === undefined || y === undefined)
        return (await pointerInWindow()) ?? 'the pointer is outside the target window';
      const m = imageToScreen(g, x, y);
      return m.ok ? { x: m.x, y: m.y } : m.error;
    };
    const moveTo = async (to: { x: number; y: number }, seconds = 0) => {
      if (seconds <= 0) return input.move(Math.round(to.x), Math.round(to.y));
      const from = await input.position();
      const steps = Math.max(2, Math.round(seconds * 60));
      for (let i = 1; i <= steps && !signal?.aborted; i++) {
        const t = i / steps;
        await input.move(Math.round(from.x + (to.x - from.x) * t), Math.round(from.y + (to.y - from.y) * t));
        await sleep((seconds * 1000) / steps, signal);
      }
    };
    const key = (name: string) => {
      const k = resolveKeyName(name);
      if (!k) throw new Error(`unknown key "${name}"`);
      return k;
    };

    switch (a.type) {
      case 'MOVE_TO':
      case 'DRAG_TO': {
        const to = await target(a.params.x, a.params.y);
        if (typeof to === 'string') return refuse(to);
        if (a.type === 'MOVE_TO') {
          await moveTo(to, a.params.duration);
          return ok(to);
        }
        if (!(await pointerInWindow())) return refuse('drag must start inside the target window');
        this.buttonDown('left', true);
        await input.button('down', 'left');
        await moveTo(to, a.params.duration ?? 0.2);
        await input.button('up', 'left');
        this.buttonUp('left');
        return ok(to);
      }
      case 'MOVE_BY': {
        const p = await pointerInWindow();
        if (!p) return refuse('the pointer is outside the target window');
        const to = {
          x: p.x + a.params.dx / g.imageScale / g.inputScale,
          y: p.y + a.params.dy / g.imageScale / g.inputScale,
        };
        if (!contains(screenWindow, to.x, to.y))
          return refuse(`MOVE_BY (${a.params.dx}, ${a.params.dy}) leaves the target window`);
        await moveTo(to, a.params.duration);
        return ok(to);
      }
      case 'CLICK':
      case 'RIGHT_CLICK':
      case 'DOUBLE_CLICK': {
        const to = await target(a.params.x, a.params.y);
        if (typeof to === 'string') return refuse(to);
        await moveTo(to);
        const button: Button =
          a.type === 'RIGHT_CLICK' ? 'right' : a.type === 'CLICK' ? (a.params.button ?? 'left') : 'left';
        const clicks = a.type === 'DOUBLE_CLICK' ? 2 : a.type === 'CLICK' ? (a.params.num_clicks ?? 1) : 1;
        for (let i = 0; i < clicks; i++) {
          this.buttonDown(button, false);
          await input.button('down', button);
          await input.button('up', button);
          this.buttonUp(button);
          if (i + 1 < clicks) await sleep(40, signal);
        }
        return ok(to);
      }
      case 'MOUSE_DOWN': {
        const p = await pointerInWindow();
        if (!p) return refuse('the pointer is outside the target window');
        const b = a.params.button ?? 'left';
        this.buttonDown(b, true);
        await input.button('down', b);
        if (a.params.duration) await sleep(a.params.duration * 1000, signal);
        return ok(p);
      }
      case 'MOUSE_UP': {
        const b = a.params.button ?? 'left';
        await input.button('up', b);
        this.buttonUp(b);
        return ok();
      }
      case 'SCROLL': {
        if (!(await pointerInWindow())) return refuse('the pointer is outside the target window');
        await input.scroll(a.params.dx, a.params.dy);
        if (a.params.duration) await sleep(a.params.duration * 1000, signal);
        return ok();
      }
      case 'TYPING': {
        const interval = a.params.interval ?? 0;
        if (interval <= 0) await input.type(a.params.text);
        else {
          for (const ch of a.params.text) {
            if (signal?.aborted) break;
            await input.type(ch);
            await sleep(interval * 1000, signal);
          }
        }
        return ok();
      }
      case 'PRESS': {
        const k = key(a.params.key);
        this.keyDown(k, !!a.params.duration);
        await input.keyDown(k);
        if (a.params.duration) await sleep(a.params.duration * 1000, signal);
        await input.keyUp(k);
        this.keyUp(k);
        return ok();
      }
      case 'KEY_DOWN': {
        const k = key(a.params.key);
        this.keyDown(k, true);
        await input.keyDown(k);
        if (a.params.duration) await sleep(a.params.duration * 1000, signal);
        return ok();
      }
      case 'KEY_UP': {
        const k = key(a.params.key);
        await input.keyUp(k);
        this.keyUp(k);
        return ok();
      }
      case 'HOTKEY': {
        const keys = a.params.keys.map(key).sort((x, y) => Number(isModifier(y)) - Number(isModifier(x)));
        for (const k of keys) {
          this.keyDown(k, !!a.params.duration);
          await input.keyDown(k);
        }
        if (a.params.duration) await sleep(a.params.duration * 1000, signal);
        for (const k of [...keys].reverse()) {
          await input.keyUp(k);
          this.keyUp(k);
        }
        return ok();
      }
      case 'WAIT':
        await sleep(a.params.duration * 1000, signal);
        return ok();
      case 'DONE':
      case 'FAIL':
        return ok();
    }
  }
}
