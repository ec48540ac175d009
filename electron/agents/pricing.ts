/**
 * USD per million tokens for models whose public list prices are known; anything else is
 * priced from settings (`--price-in/--price-out`) or left unpriced (cost null).
 */
export interface Price {
  inputPerM: number;
  outputPerM: number;
}

const KNOWN: [RegExp, Price][] = [
  [/^gpt-4o-mini/, { inputPerM: 0.15, outputPerM: 0.6 }],
  [/^gpt-4o/, { inputPerM: 2.5, outputPerM: 10 }],
  [/^gpt-4\.1-mini/, { inputPerM: 0.4, outputPerM: 1.6 }],
  [/^gpt-4\.1/, { inputPerM: 2, outputPerM: 8 }],
  [/gemini-2\.5-pro/, { inputPerM: 1.25, outputPerM: 10 }],
  [/gemini-2\.5-flash/, { inputPerM: 0.3, outputPerM: 2.5 }],
  [/^text-embedding-3-small/, { inputPerM: 0.02, outputPerM: 0 }],
  [/^text-embedding-3-large/, { inputPerM: 0.13, outputPerM: 0 }],
];

export function priceFor(model: string, override?: Partial<Price>): Price | undefined {
  if (override?.inputPerM !== undefined && override.outputPerM !== undefined) return override as Price;
  const bare = model.replace(/^.*\//, '');
  return KNOWN.find(([re]) => re.test(bare))?.[1];
}

export function costOf(usage: { input: number; output: number }, price: Price | undefined): number | null {
  return price ? (usage.input * price.inputPerM + usage.output * price.outputPerM) / 1e6 : null;
}
