/**
 * A commander option made from a RunSpec field (run-spec.ts): its flag (the field's name in
 * kebab case), help text, default, allowed values and range all come from the field's schema,
 * so `gamepilot run --help`, docs/cli.md and the app's request cannot disagree about a setting.
 */
import { InvalidArgumentError, Option } from 'commander';
import type { z } from 'zod';
import { flagOf, noFlagOf, RUN_SPEC_FIELDS, RUN_SPEC_HELP, type RunSpecField } from '../run-spec.ts';

interface Shape {
  kind: 'number' | 'enum' | 'boolean' | 'string' | 'other';
  int?: boolean;
  min?: number;
  max?: number;
  choices?: readonly string[];
  default?: unknown;
  description?: string;
}

/** What a field's schema says, under its default/optional wrappers. */
export function fieldShape(schema: z.ZodType): Shape {
  let s = schema as unknown as {
    def: { type: string; defaultValue?: unknown; innerType?: unknown };
    description?: string;
  };
  let description = s.description;
  let dflt: unknown;
  while (s.def.type === 'optional' || s.def.type === 'default') {
    if (s.def.type === 'default') dflt = s.def.defaultValue;
    s = s.def.innerType as typeof s;
    description ??= s.description;
  }
  const base = { description, ...(dflt !== undefined ? { default: dflt } : {}) };
  const inner = s as unknown as { minValue: number | null; maxValue: number | null; isInt: boolean; options: string[] };
  switch (s.def.type) {
    case 'number':
      return {
        ...base,
        kind: 'number',
        int: inner.isInt,
        ...(inner.minValue !== null && Number.isFinite(inner.minValue) ? { min: inner.minValue } : {}),
        ...(inner.maxValue !== null && Number.isFinite(inner.maxValue) ? { max: inner.maxValue } : {}),
      };
    case 'enum':
      return { ...base, kind: 'enum', choices: inner.options };
    case 'boolean':
      return { ...base, kind: 'boolean' };
    case 'string':
      return { ...base, kind: 'string' };
    default:
      return { ...base, kind: 'other' };
  }
}

/** "a whole number from 1 to 50": a number field's range in words, as the error says it. */
export function rangeText(sh: Pick<Shape, 'int' | 'min' | 'max'>): string {
  const kind = sh.int ? 'a whole number' : 'a number';
  if (sh.min !== undefined && sh.max !== undefined) return `${kind} from ${sh.min} to ${sh.max}`;
  if (sh.min !== undefined) return `${kind} ≥ ${sh.min}`;
  if (sh.max !== undefined) return `${kind} ≤ ${sh.max}`;
  return kind;
}

export interface SpecOptionOverrides {
  /** Help text where the command says it differently (e.g. `idc`'s model is the player). */
  description?: string;
  /** Allowed values narrower than the schema's (the built-in games for `--game`). */
  choices?: readonly string[];
  /** Turns the argument into the value (default: the schema's own check); throws saying what is allowed. */
  parse?: (v: string) => unknown;
  /** A default of this command's own instead of the schema's (undefined: none). */
  default?: { value: unknown; text?: string };
}

/** The commander option for a RunSpec field. */
export function specOption(field: RunSpecField, o: SpecOptionOverrides = {}): Option {
  const schema = RUN_SPEC_FIELDS[field] as z.ZodType;
  const sh = fieldShape(schema);
  const help = RUN_SPEC_HELP[field] ?? {};
  // A setting on by default is turned off: `--no-preflight` ("skip the pre-flight check…").
  const onByDefault = sh.kind === 'boolean' && sh.default === true;
  const flags =
    sh.kind === 'boolean'
      ? onByDefault
        ? noFlagOf(field)
        : flagOf(field)
      : `${flagOf(field)} ${help.arg ?? '<value>'}`;
  const described = o.description ?? sh.description ?? '';
  const opt = new Option(flags, onByDefault && !o.description ? `skip ${described}` : described);
  const choices = o.choices ?? sh.choices;
  if (choices) opt.choices(choices);
  else if (o.parse) {
    const parse = o.parse;
    opt.argParser((v: string) => {
      try {
        return parse(v);
      } catch (err) {
        throw new InvalidArgumentError((err as Error).message);
      }
    });
  } else if (sh.kind === 'number')
    opt.argParser((v: string) => {
      const n = v.trim() === '' ? Number.NaN : Number(v);
      if (!schema.safeParse(n).success) throw new InvalidArgumentError(`Allowed: ${rangeText(sh)}.`);
      return n;
    });
  else if (sh.kind !== 'boolean')
    opt.argParser((v: string) => {
      const r = schema.safeParse(v);
      if (!r.success)
        throw new InvalidArgumentError(
          `Allowed: ${(r.error.issues[0]?.message ?? 'another value').replace(/^must be /, '')}.`,
        );
      return r.data;
    });
  if (o.default) opt.default(o.default.value, o.default.text);
  else if (sh.kind !== 'boolean' && (sh.default !== undefined || help.defaultText))
    opt.default(sh.default, help.defaultText);
  return opt;
}
