/**
 * The cost cap's worst case: a call is admitted only while spent + (its input, estimated, plus its
 * whole output limit, priced) stays within the cap; the estimate learns how the server counts a
 * role's requests; images are counted by their pixels.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import {
  BudgetReached,
  CostMeter,
  chatRequestSize,
  dataUrlDimensions,
  type CallAsk,
} from '../../electron/agents/cost-meter.ts';
import { frontDoor } from '../../electron/session/front-door.ts';
import { parseRunSpec, RunSpecError } from '../../electron/run-spec.ts';

const price = { inputPerM: 1, outputPerM: 2 };
const ask = (tokens: number, over: Partial<CallAsk> = {}): CallAsk => ({
  role: 'player',
  model: 'm',
  size: { tokens },
  maxOutputTokens: 1000,
  price,
  ...over,
});

describe('CostMeter', () => {
  it('admits a call while spent + its worst case stays within the cap, and refuses the one that could pass it', () => {
    const meter = new CostMeter(0.01);
    // Worst case: 2000 in × $1/M + 1000 out × $2/M = $0.004.
    meter.admit(ask(2000));
    meter.charge(ask(2000), { input: 2000, output: 100 }); // $0.0022
    meter.admit(ask(2000)); // 0.0022 + 0.004 ≤ 0.01
    meter.charge(ask(2000), { input: 2000, output: 100 }); // $0.0044
    expect(meter.spentUsd).toBeCloseTo(0.0044, 10);
    meter.admit(ask(2000)); // 0.0044 + 0.004 = 0.0084
    meter.charge(ask(2000), { input: 2000, output: 100 }); // $0.0066
    expect(() => meter.admit(ask(2000))).toThrow(BudgetReached); // 0.0066 + 0.004 > 0.01
    expect(meter.refusal).toMatch(/^budget: \$0\.0066 of \$0\.01 spent; the next player call could cost \$0\.004/);
    // Once refused, every later call is too, whatever its size.
    expect(() => meter.admit(ask(1, { maxOutputTokens: 1 }))).toThrow(BudgetReached);
  });

  it('counts the worst case exactly at the cap as within it', () => {
    const meter = new CostMeter(0.004);
    expect(() => meter.admit(ask(2000))).not.toThrow();
  });

  it("scales a request's estimate by how the server counted the role's last one", () => {
    const meter = new CostMeter(1);
    expect(meter.inputTokens('player', 'm', { tokens: 500 })).toBe(500);
    meter.charge(ask(500), { input: 1500, output: 10 }); // the server counts 3× the estimate
    expect(meter.inputTokens('player', 'm', { tokens: 1000 })).toBe(3000);
    expect(meter.inputTokens('reflector', 'm', { tokens: 1000 })).toBe(1000); // another role learns on its own
  });

  it('charges an attempt whose input the server did not count at its worst case', () => {
    const meter = new CostMeter();
    expect(meter.charge(ask(4000), { output: 50 })).toBeCloseTo((4000 * 1 + 50 * 2) / 1e6, 12);
  });

  it('refuses a call it cannot price under a cap, and only counts without one', () => {
    expect(() => new CostMeter(1).admit(ask(10, { price: undefined }))).toThrow(/m \(player\) has no known price/);
    expect(() => new CostMeter().admit(ask(10 ** 9))).not.toThrow();
  });

  it('foresees that the next call as big as the last would be refused', () => {
    const meter = new CostMeter(0.005);
    meter.admit(ask(2000));
    expect(meter.foresees('player')).toBe(false);
    meter.charge(ask(2000), { input: 2000, output: 0 }); // 0.002 + 0.004 > 0.005
    expect(meter.foresees('player')).toBe(true);
    expect(meter.refusal).toMatch(/could pass it/);
  });

  it("reads an image's pixels from its PNG or JPEG header, and counts it by them", async () => {
    for (const format of ['png', 'jpeg'] as const) {
      const data = await sharp({ create: { width: 1280, height: 800, channels: 3, background: '#345' } })
        .toFormat(format)
        .toBuffer();
      const url = `data:image/${format};base64,${data.toString('base64')}`;
      expect(dataUrlDimensions(url)).toEqual({ width: 1280, height: 800 });
      const size = chatRequestSize([{ role: 'user', content: [{ type: 'image_url', image_url: { url } }] }]);
      expect(size.tokens).toBe(Math.ceil((1280 * 800) / 750) + 4);
    }
    expect(dataUrlDimensions('data:image/webp;base64,AAAA')).toBeUndefined();
  });
});

describe('a cap at the front door', () => {
  const spec = (extra: Record<string, unknown>) =>
    parseRunSpec({ game: '2048', agent: 'vlm', model: 'test-vlm', budgetUsd: 1, ...extra });

  it('refuses a cap on a model with no known price, naming the price flags', () => {
    const err = (() => {
      try {
        frontDoor(spec({}));
      } catch (e) {
        return e as RunSpecError;
      }
    })();
    expect(err).toBeInstanceOf(RunSpecError);
    expect(err!.field).toBe('priceIn');
    expect(err!.message).toMatch(/budgetUsd needs the price of test-vlm.*priceIn and priceOut/);
  });

  it('accepts it with a price given or a known one, and refuses an unpriced judge or embedding model', () => {
    expect(() => frontDoor(spec({ priceIn: 1, priceOut: 2 }))).not.toThrow();
    expect(() => frontDoor(spec({ model: 'gpt-4o' }))).not.toThrow();
    expect(() => frontDoor(spec({ priceIn: 1, priceOut: 2, judgeModel: 'other-judge' }))).toThrow(
      /judgeModel other-judge has no known list price/,
    );
    expect(() => frontDoor(spec({ priceIn: 1, priceOut: 2, agent: 'memory', embeddingModel: 'nomic' }))).toThrow(
      /embeddingModel nomic/,
    );
    expect(() => frontDoor(spec({ priceIn: 1, priceOut: 2, agent: 'memory' }))).not.toThrow(); // text-embedding-3-small's list price
  });

  it("prices a two-seat run's seats by the price flags, and refuses a seat's unpriced model", () => {
    const seated = (extra: Record<string, unknown>) =>
      parseRunSpec({ game: 'tictactoe-pvp', seats: ['vlm:seat-model', 'solver'], budgetUsd: 1, ...extra });
    expect(() => frontDoor(seated({ priceIn: 1, priceOut: 2 }))).not.toThrow();
    expect(() => frontDoor(seated({}))).toThrow(
      /the seat's seat-model has no known list price: give priceIn and priceOut/,
    );
  });
});
