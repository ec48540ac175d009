/** The executors' key presses, told apart from a person's by the ledger they are noted in. */
import { describe, expect, it } from 'vitest';
import { KeyLedger, notingKeys } from '../../electron/input/key-ledger.ts';
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

  it('is fed by the input backend as keys go down', async () => {
    const pressed: string[] = [];
    const inner = { name: 'fake', keyDown: async (k: string) => void pressed.push(k) } as unknown as InputBackend;
    const [a, b] = [new KeyLedger(), new KeyLedger()];
    await notingKeys(inner, [a, b]).keyDown('D');
    expect(pressed).toEqual(['D']);
    expect([a.take('d'), b.take('d')]).toEqual([true, true]);
  });
});
