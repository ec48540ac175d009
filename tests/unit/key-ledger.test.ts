/** The executors' key presses, told apart from a person's by the ledger they are noted in. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { hookPressJudge, injectedKeys, KeyLedger, notingKeys, personOnly } from '../../electron/input/key-ledger.ts';
import type { InputBackend } from '../../native/types.ts';

describe('KeyLedger', () => {
  it('takes each noted press once, under any name of its key, and forgets unanswered ones', () => {
    const l = new KeyLedger(1000);
    l.note('Up', 0);
    l.note('W', 0);
    l.note('W', 10);
    expect(l.take('ArrowUp', 5)).toBe(true); // the view's name
    expect(l.take('up', 6)).toBe(false); // used up: a second one is a person's
    expect(l.take('w', 20)).toBe(true); // the hook's name
    expect(l.take('d', 20)).toBe(false);
    expect(l.take('w', 2000)).toBe(false); // its echo never came: forgotten, not waiting to swallow a key
  });

  it('keeps nothing past its TTL for a key nobody asks about: a long run’s arrows do not pile up', () => {
    const l = new KeyLedger(1000);
    for (let t = 0; t < 100_000; t += 100) l.note('up', t); // 1,000 presses over 100 s, never taken
    expect(l.awaiting('up', 100_000)).toBe(10);
    // at most one TTL's presses are kept (the last note's own 1,000 ms, both ends in)
    expect((l as unknown as { sent: Map<string, number[]> }).sent.get('Up')).toHaveLength(11);
  });

  it('is fed by the input backend as keys go down', async () => {
    const pressed: string[] = [];
    const inner = { name: 'fake', keyDown: async (k: string) => void pressed.push(k) } as unknown as InputBackend;
    const [a, b] = [new KeyLedger(), new KeyLedger()];
    await notingKeys(inner, [a, b]).keyDown('D');
    expect(pressed).toEqual(['D']);
    expect([a.take('d'), b.take('d')]).toEqual([true, true]);
  });

  it('knows when the harness held a key, by the event’s own time, so a late autorepeat is still its', async () => {
    const l = new KeyLedger(1000);
    const inner = { name: 'fake', keyDown: async () => {}, keyUp: async () => {} } as unknown as InputBackend;
    const input = notingKeys(inner, [l]);
    const t0 = Date.now();
    await input.keyDown('f9');
    expect(l.heldAt('F9', t0 + 1)).toBe(true); // held: any keydown now is its autorepeat
    await input.keyUp('f9');
    const up = Date.now();
    expect(l.heldAt('F9', up)).toBe(true); // delivered late, but from while it was held
    expect(l.heldAt('F9', up + 500)).toBe(false);
    expect(l.heldAt('F8', t0 + 1)).toBe(false);
  });
});

describe('personOnly', () => {
  it('fires a hotkey for a person’s press only: never for the echo of an injected key or its autorepeat', () => {
    const fired: string[] = [];
    const press = personOnly(
      'CommandOrControl+Shift+F11',
      () => fired.push('person'),
      () => fired.push('agent'),
    );
    const t = Date.now();
    injectedKeys.note('f11', t);
    press(t + 5); // the injected press's echo
    press(t + 700); // the X server's autorepeat while it is held
    injectedKeys.noteUp('f11', t + 900);
    press(t + 2000); // a person, later
    expect(fired).toEqual(['agent', 'agent', 'person']);
  });

  it('does not take a person’s hotkey for the echo of the agent’s lone key seconds before', () => {
    const fired: string[] = [];
    const press = personOnly(
      'CommandOrControl+Shift+F10',
      () => fired.push('person'),
      () => fired.push('agent'),
    );
    const t = Date.now();
    injectedKeys.note('f10', t); // the agent's plain F10, whose echo no globalShortcut hears
    injectedKeys.noteUp('f10', t + 30);
    press(t + 1500);
    expect(fired).toEqual(['person']);
  });
});

describe('hookPressJudge', () => {
  afterEach(() => vi.useRealTimers());

  it('takes a held key’s autorepeat for the harness’s however late its batch and times come; then hears a person', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const t0 = Date.now();
    const judge = hookPressJudge('f7');
    injectedKeys.note('f7', t0);
    // XRecord hands the whole hold on 4 s late, its event times as late as the first event's.
    vi.setSystemTime(t0 + 4000);
    const late = 4000;
    expect(judge({ kind: 'keydown', t: t0 + late })).toBe(true); // the echo, late
    injectedKeys.noteUp('f7', t0 + 1500);
    for (let i = 0; i < 20; i++) expect(judge({ kind: 'keydown', t: t0 + 660 + 40 * i + late })).toBe(true);
    expect(judge({ kind: 'keyup', t: t0 + 1500 + late })).toBe(false);
    vi.setSystemTime(t0 + 6000);
    expect(judge({ kind: 'keydown', t: t0 + 6000 })).toBe(false); // a person's, after the release
  });

  it('a lost release does not keep ignoring the key: a press after a second’s silence is judged afresh', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const t0 = Date.now();
    const judge = hookPressJudge('f6');
    injectedKeys.note('f6', t0);
    injectedKeys.noteUp('f6', t0 + 10);
    expect(judge({ kind: 'keydown', t: t0 + 5 })).toBe(true);
    vi.setSystemTime(t0 + 2000); // no keyup ever came
    expect(judge({ kind: 'keydown', t: t0 + 2000 })).toBe(false);
  });
});
