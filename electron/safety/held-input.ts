/**
 * Which keys and mouse buttons this process holds down, in memory for its `exit` handler and
 * in `held-input.json` (config folder) for the next start should it be killed outright.
 *
 * What a SIGKILL can still catch: a hold that outlasts its action (KEY_DOWN, MOUSE_DOWN, a drag,
 * a PRESS or HOTKEY with a duration) is written before the key goes down and removed after it
 * is up, so at every instant the file lists at least what is held (a key listed but already up
 * is released again at the next start: the X server ignores that). A momentary press (a tap,
 * a click, a HOTKEY without duration, the presses inside TYPING) is never written, to keep the
 * hot path free of disk writes: a SIGKILL landing between its native down and up calls —
 * microseconds, no I/O or timer in between — leaves that key down.
 */
import path from 'node:path';
import { OwnedRegistry } from './owned-registry.ts';
import { releaseHeldSync } from './release-input.ts';
import { defaultConfigDir } from '../util/paths.ts';

export const HELD_INPUT_FILE = 'held-input.json';

export function heldInputRegistry(configDir: string): OwnedRegistry<string> {
  return new OwnedRegistry<string>(path.join(configDir, HELD_INPUT_FILE), {
    note: 'keys and mouse buttons Gamepilot processes hold down; what a dead process left is released at the next start',
    isItem: (v): v is string => typeof v === 'string' && v.length > 0 && v.length < 64,
  });
}

export class HeldInputTracker {
  /** Per holder (an executor): item → whether it is held beyond one action (and so on disk). */
  private readonly holders = new Map<object, Map<string, boolean>>();
  private persisted = '[]';

  constructor(private readonly registry: OwnedRegistry<string>) {}

  /**
   * Call just before pressing. A lasting hold is on disk before the key goes down; when it
   * cannot be recorded this throws and the key must not be pressed.
   */
  pressing(holder: object, item: string, lasting: boolean): void {
    let mine = this.holders.get(holder);
    if (!mine) {
      mine = new Map();
      this.holders.set(holder, mine);
    }
    const was = mine.get(item);
    mine.set(item, lasting || was === true);
    if (!lasting) return;
    try {
      this.persist();
    } catch (err) {
      if (was === undefined) mine.delete(item);
      else mine.set(item, was);
      throw err;
    }
  }

  /** Call just after releasing. Never throws: the key is up, a stale line on disk is harmless. */
  released(holder: object, item: string): void {
    const mine = this.holders.get(holder);
    if (!mine?.delete(item)) return;
    if (!mine.size) this.holders.delete(holder);
    try {
      this.persist();
    } catch {
      /* retried at the next change; at worst the next start releases an up key */
    }
  }

  /** Everything this process holds, over all holders. */
  held(): string[] {
    const all = new Set<string>();
    for (const mine of this.holders.values()) for (const item of mine.keys()) all.add(item);
    return [...all];
  }

  /** For the process `exit` handler: releases everything at once, natively, and clears this process's entry. */
  releaseAllSync(): string[] {
    const items = this.held();
    let done: string[] = [];
    try {
      const r = releaseHeldSync(items);
      done = [...r.released, ...r.unknown];
    } catch {
      /* libnut did not load: whatever is left stays listed below */
    }
    this.holders.clear();
    const left = items.filter((i) => !done.includes(i));
    if (left.length) this.holders.set(this, new Map(left.map((i) => [i, true]))); // for the next start to release
    try {
      this.persist();
    } catch {
      /* the next start finds the entry of a dead owner and releases it */
    }
    return items.filter((i) => !left.includes(i));
  }

  private persist() {
    const lasting = new Set<string>();
    for (const mine of this.holders.values()) for (const [item, isLasting] of mine) if (isLasting) lasting.add(item);
    const next = JSON.stringify([...lasting].sort());
    if (next === this.persisted) return;
    this.registry.setMine(JSON.parse(next) as string[]);
    this.persisted = next;
  }
}

let processTracker: HeldInputTracker | undefined;

/** The one tracker of this process (registry in the config folder), released by its `exit` handler. */
export function processHeldInput(): HeldInputTracker {
  if (!processTracker) {
    const tracker = new HeldInputTracker(heldInputRegistry(defaultConfigDir()));
    processTracker = tracker;
    process.once('exit', () => tracker.releaseAllSync());
  }
  return processTracker;
}
