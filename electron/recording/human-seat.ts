/**
 * A person in a seat of a two-seat game (OmniGameArena: a person against a model, at the
 * keyboard). The recorder's input path — the global hook and its translator into the action
 * schema, keys kept only while the game window has focus — collects the person's key presses
 * between the seat's steps; each step the seat returns the ones that are its own keys as its
 * actions, and the session plays them like any seat's, through the seat's executor (the game
 * itself keeps the person's keystrokes out: session/seated-compose.ts). A key of the other seat
 * is not taken: the step's errors say so, and `keysNotTaken` counts them. The executors' own
 * presses, which the hook sees too, are told apart by the ledger they are noted in.
 */
import type { Action } from '../actions/schema.ts';
import { resolveKeyName } from '../actions/keys.ts';
import type { Agent, DecideContext, Decision, Observation } from '../agents/agent-types.ts';
import type { KeyLedger } from '../input/key-ledger.ts';
import { keyNames, listenGlobalInput } from '../input/global-hook.ts';
import type { HumanSeatFactory } from '../session/seated-compose.ts';
import { InputTranslator, type RecordedEvent } from './input-translator.ts';
import { sleep } from '../util/time.ts';
import { WindowWatch, type WatchReport } from './window-watch.ts';

export interface HumanSeatOptions {
  /** The seat's name in the game (Blue) and its keys; the other seat's keys, to say when one is typed. */
  name: string;
  keys: readonly string[];
  otherKeys: readonly string[];
  windowId: string;
  /** The executors' presses (seated-compose.ts notes them). */
  echoes: KeyLedger;
  /** The least time between two of the seat's decisions: how long the person's keys are gathered. */
  collectMs?: number;
}

const sameKey = (list: readonly string[], key: string) => {
  const k = resolveKeyName(key);
  return !!k && list.some((x) => resolveKeyName(x) === k);
};

export class HumanSeat implements Agent {
  readonly name = 'human';
  /** Keys of the other seat the person typed: not taken. */
  keysNotTaken = 0;
  private pending: string[] = [];
  private refused: string[] = [];
  private focused = true;
  private lastDecided = 0;

  private constructor(
    private readonly o: HumanSeatOptions,
    private readonly stopInput: () => void,
    private readonly watch: WindowWatch,
  ) {}

  /** Starts listening (fails without a global input hook, e.g. no display). */
  static async start(o: HumanSeatOptions): Promise<HumanSeat> {
    const names = await keyNames();
    let seat: HumanSeat | undefined;
    const translator = new InputTranslator(
      (e) => seat?.heard(e),
      (code) => names.get(code),
    );
    // Keys count only while the game window has focus (checked ten times a second, as the recorder does).
    const watch = WindowWatch.start({ windowId: o.windowId, focusMs: 100, boundsEvery: 1_000_000 });
    const noWindow = { x: 0, y: 0, width: 0, height: 0 }; // pointer input is not the seat's
    const stop = await listenGlobalInput((e) =>
      translator.feed(e, { window: noWindow, focused: seat?.focused ?? false }),
    ).catch(async (err: Error) => {
      await watch.stop();
      throw new Error(`a person's seat needs the keyboard: ${err.message}`);
    });
    seat = new HumanSeat(o, stop, watch);
    watch.on('report', (r: WatchReport) => {
      if (r.kind === 'focus') seat!.focused = r.focused;
    });
    return seat;
  }

  private heard(e: RecordedEvent) {
    if (e.action_type !== 'PRESS') return;
    const key = String(e.parameters.key);
    if (this.o.echoes.take(key)) return; // an executor's own press
    if (sameKey(this.o.keys, key)) this.pending.push(key);
    else if (sameKey(this.o.otherKeys, key)) {
      this.keysNotTaken++;
      this.refused.push(key);
    }
  }

  async decide(_obs: Observation, ctx: DecideContext): Promise<Decision> {
    await sleep(this.lastDecided + (this.o.collectMs ?? 300) - Date.now(), ctx.signal);
    this.lastDecided = Date.now();
    const keys = this.pending;
    const refused = this.refused;
    this.pending = [];
    this.refused = [];
    const actions: Action[] = keys.map((key) => ({ kind: 'gui', type: 'PRESS', params: { key } }));
    return {
      reasoning: keys.length ? `${this.o.name} (a person) pressed ${keys.join(', ')}` : '',
      actions,
      ...(refused.length
        ? {
            error: `not taken: ${refused.join(', ')} (the other seat's key${refused.length > 1 ? 's' : ''}; ${this.o.name} plays ${this.o.keys.join(' ')})`,
          }
        : {}),
    };
  }

  async close() {
    this.stopInput();
    await this.watch.stop();
  }
}

/** The factory seated-compose.ts takes; `opened` gets each seat made, so its caller can close it. */
export function humanSeats(opened: HumanSeat[], collectMs?: number): HumanSeatFactory {
  return async (s) => {
    const seat = await HumanSeat.start({ ...s, ...(collectMs !== undefined ? { collectMs } : {}) });
    opened.push(seat);
    return seat;
  };
}
