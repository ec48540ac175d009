/**
 * A sweep's budget as its jobs' caps: each starting job gets what is left (less what running
 * jobs hold) split among the idle workers, so the shares handed out never add up past the
 * budget, and what a job leaves unspent comes back when it ends. An IDC's and a suite's cap is one
 * meter for the whole command, refused up front for a model without a price.
 */
import { describe, expect, it } from 'vitest';
import { BudgetShares } from '../../electron/sweep/budget-share.ts';
import { parseIdcArgs } from '../../electron/cli/main.ts';
import { playerFrom } from '../../electron/cli/suite-command.ts';
import type { VlmPlayer } from '../../electron/ingvp/players.ts';
import { CostMeter } from '../../electron/agents/cost-meter.ts';

describe('BudgetShares', () => {
  it('splits what is left among the idle workers, never handing out more than the budget', () => {
    const shares = new BudgetShares(0.02);
    const a = shares.take(0, 2); // two idle workers: half each
    const b = shares.take(0, 1);
    expect([a, b]).toEqual([0.01, 0.01]);
    expect(shares.take(0, 1)).toBe(0); // a third worker finds it all held
    // A finishes having spent 0.004: its share comes back, less what it spent.
    shares.release(a);
    expect(shares.take(0.004, 1)).toBeCloseTo(0.006, 9);
  });

  it('rounds shares down to a millionth of a dollar, and hands none out without a budget', () => {
    const shares = new BudgetShares(0.01);
    expect(shares.take(0, 3)).toBe(0.003333);
    expect(new BudgetShares(undefined).take(5, 1)).toBeUndefined();
  });
});

describe("the IDC's cap", () => {
  it('is one meter for the whole IDC, priced by --price-in/--price-out', () => {
    const { options } = parseIdcArgs([
      '--game',
      '2048',
      '--model',
      'm',
      '--price-in',
      '1',
      '--price-out',
      '2',
      '--budget-usd',
      '0.5',
    ]);
    expect(options.meter?.capUsd).toBe(0.5);
    expect(options.meter?.givenPrice('m')).toEqual({ inputPerM: 1, outputPerM: 2 });
    expect(options.player.price).toEqual({ inputPerM: 1, outputPerM: 2 });
  });

  it('is refused for a model without a known price, naming the flags', () => {
    expect(() => parseIdcArgs(['--game', '2048', '--model', 'm', '--budget-usd', '0.5'])).toThrow(
      /--budget-usd needs the price of m, which has no known list price: give --price-in and --price-out/,
    );
    expect(() =>
      parseIdcArgs(['--game', '2048', '--model', 'gpt-4o', '--reflector-model', 'local-x', '--budget-usd', '1']),
    ).toThrow(/--reflector-model local-x has no known list price/);
  });
});

describe("a suite's cap", () => {
  const flags = {
    agent: 'vlm',
    model: 'm',
    timeoutMs: 1000,
    maxRetries: 0,
    settings: 'all',
    levels: '1',
    seed: 0,
    runsDir: 'x',
    preflight: true,
  } as const;

  it('is refused for a model without a known price, and counted by the one meter with one', () => {
    expect(() => playerFrom({ ...flags, budgetUsd: 1 })).toThrow(
      /--budget-usd needs the price of m.*--price-in and --price-out/,
    );
    const meter = new CostMeter(1);
    const player = playerFrom({ ...flags, budgetUsd: 1, priceIn: 1, priceOut: 2 }, meter) as VlmPlayer;
    expect(player.settings.meter).toBe(meter);
    expect(player.settings.price).toEqual({ inputPerM: 1, outputPerM: 2 });
  });
});
