/**
 * A run's cost meter (agents/cost-meter.ts) from its spec: the cap (`budgetUsd`) and the price
 * the person gave (`priceIn/priceOut`, which price the run's model wherever a role calls it), and
 * the front door's rule that a cap is kept only where every model the run calls has a price.
 */
import { CostMeter } from '../agents/cost-meter.ts';
import { priceFor, type Price } from '../agents/pricing.ts';
import { isModelAgent } from '../domain.ts';
import { RunSpecError, type RunSpec, type RunSpecField, type SeatSpec } from '../run-spec.ts';

/** The price a spec gives its model's tokens (USD a million): a price given on one side only counts the other as free. */
export function priceOf(
  s: Pick<RunSpec, 'priceIn' | 'priceOut'>,
): { inputPerM: number; outputPerM: number } | undefined {
  return s.priceIn !== undefined || s.priceOut !== undefined
    ? { inputPerM: s.priceIn ?? 0, outputPerM: s.priceOut ?? 0 }
    : undefined;
}

type PricedSpec = Pick<RunSpec, 'priceIn' | 'priceOut' | 'budgetUsd'>;

/** The prices the person gave, by model: `priceIn/priceOut` price the run's model (a two-seat run's: each seat's). */
export function givenPrices(s: PricedSpec, ...models: (string | undefined)[]): Record<string, Price> {
  const price = priceOf(s);
  if (!price) return {};
  return Object.fromEntries(models.filter((m): m is string => !!m).map((m) => [m, price]));
}

/** A fresh meter for one run (or one command whose runs share it: an IDC, a suite), pricing these models as given. */
export function meterFor(s: PricedSpec, ...models: (string | undefined)[]): CostMeter {
  return new CostMeter(s.budgetUsd, givenPrices(s, ...models));
}

/**
 * Refuses a cap that could not be kept: a model the run calls with no price (given, or a known
 * list price) would be called uncounted. `models`: each model with the field that names it.
 */
export function checkCapPriced(s: PricedSpec, models: readonly { field: RunSpecField; model: string | undefined }[]) {
  if (s.budgetUsd === undefined) return;
  const prices = givenPrices(
    s,
    ...models.filter((m) => m.field === 'model' || m.field === 'seats').map((m) => m.model),
  );
  for (const { field, model } of models) {
    if (!model || priceFor(model, prices[model])) continue;
    throw new RunSpecError(
      field === 'model' ? 'priceIn' : field,
      field === 'model'
        ? `{budgetUsd} needs the price of ${model}, which has no known list price: give {priceIn} and {priceOut} (USD per million tokens)`
        : field === 'seats'
          ? `{budgetUsd} needs the price of every model the run calls: the seat's ${model} has no known list price: give {priceIn} and {priceOut}`
          : `{budgetUsd} needs the price of every model the run calls: {${field}} ${model} has no known list price ({priceIn} and {priceOut} price {model} only)`,
    );
  }
}

/** The models a one-agent run's calls may use under its cap, the run's own first. */
export function cappedModels(
  s: Pick<RunSpec, 'agent' | 'judgeModel' | 'reflection' | 'reflectorModel' | 'embeddingModel'>,
  model: string | undefined,
  seats?: readonly SeatSpec[],
): { field: RunSpecField; model: string | undefined }[] {
  const memory = s.agent === 'memory' || s.agent === 'model';
  return [
    { field: 'model', model },
    ...(seats ?? []).filter((x) => isModelAgent(x.agent)).map((x) => ({ field: 'seats' as const, model: x.model })),
    { field: 'judgeModel', model: s.judgeModel },
    { field: 'reflectorModel', model: s.reflection === 'none' ? undefined : s.reflectorModel },
    { field: 'embeddingModel', model: memory && s.embeddingModel !== 'none' ? s.embeddingModel : undefined },
  ];
}
