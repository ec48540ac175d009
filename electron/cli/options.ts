/**
 * Typed option declarations for the command line: each option says once what it takes (a whole
 * number in a range, a number, one of a few words, a pattern), its default and its help text.
 * commander turns a bad value into "option '--x <n>' argument 'y' is invalid. Allowed: …",
 * printed with the command's usage (exit code 2, see main.ts).
 */
import type { EventEmitter } from 'node:events';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { textPattern } from '../util/text-pattern.ts';
import { specOption } from './spec-option.ts';

/** A mistake in how a command was called (not a failure while it ran): exit code 2 with its usage. */
export class UsageError extends Error {}

interface Range {
  min?: number;
  max?: number;
}

function rangeText(kind: string, r: Range): string {
  if (r.min !== undefined && r.max !== undefined) return `${kind} from ${r.min} to ${r.max}`;
  if (r.min !== undefined) return `${kind} ≥ ${r.min}`;
  if (r.max !== undefined) return `${kind} ≤ ${r.max}`;
  return kind;
}

function parseNumber(v: string, int: boolean, r: Range): number {
  const n = v.trim() === '' ? Number.NaN : Number(v);
  const ok =
    Number.isFinite(n) &&
    (!int || Number.isInteger(n)) &&
    (r.min === undefined || n >= r.min) &&
    (r.max === undefined || n <= r.max);
  if (!ok) throw new InvalidArgumentError(`Allowed: ${rangeText(int ? 'a whole number' : 'a number', r)}.`);
  return n;
}

/** `--flags <n>`: a whole number within the range. */
export function intOption(flags: string, description: string, range: Range = {}): Option {
  return new Option(flags, description).argParser((v) => parseNumber(v, true, range));
}

/** `--flags <x>`: any finite number within the range. */
export function numberOption(flags: string, description: string, range: Range = {}): Option {
  return new Option(flags, description).argParser((v) => parseNumber(v, false, range));
}

/** `--flags <word>`: one of `choices`. */
export function choiceOption(flags: string, description: string, choices: readonly string[]): Option {
  return new Option(flags, description).choices(choices);
}

/** `--flags <text>` matching `pattern`; `allowed` says in words what may be given. */
export function patternOption(flags: string, description: string, pattern: RegExp, allowed: string): Option {
  return new Option(flags, description).argParser((v) => {
    if (!pattern.test(v)) throw new InvalidArgumentError(`Allowed: ${allowed}.`);
    return v;
  });
}

/** `--flags <text>` checked by `check`, which throws an Error saying what is wrong. */
export function checkedOption<T>(flags: string, description: string, check: (v: string) => T): Option {
  return new Option(flags, description).argParser((v) => {
    try {
      return check(v);
    } catch (err) {
      throw new InvalidArgumentError((err as Error).message);
    }
  });
}

/** `--allow-endpoint <url>`, repeatable: endpoints besides the key's own that a file or job may send the key to. */
export function allowEndpointOption(who: string): Option {
  return new Option(
    '--allow-endpoint <url>',
    `an endpoint ${who} may send the API key to besides OPENAI_BASE_URL's (repeat for more)`,
  ).argParser((v: string, prior: string[] | undefined) => {
    try {
      new URL(v);
    } catch {
      throw new InvalidArgumentError(`"${v}" is not a URL (http://… or https://…)`);
    }
    return [...(prior ?? []), v];
  });
}

/** `WxH`, each side at least 64 px. */
export function parseWindowSize(v: string): { width: number; height: number } {
  const m = /^(\d+)x(\d+)$/.exec(v);
  if (!m || Number(m[1]) < 64 || Number(m[2]) < 64)
    throw new Error('Allowed: WIDTHxHEIGHT, each at least 64, e.g. 1280x720.');
  return { width: Number(m[1]), height: Number(m[2]) };
}

/** A title pattern: a valid regular expression (matched case-insensitively). */
export function parseTitlePattern(v: string): string {
  try {
    textPattern(v);
  } catch (err) {
    throw new Error(`Allowed: a regular expression (${(err as Error).message}).`);
  }
  return v;
}

/** `--profile <id|file>`: the title's profile a run or a recorded session follows. */
export function profileOption(): Option {
  return new Option(
    '--profile <id|file>',
    "the title's profile: an id (`gamepilot profiles`) or a YAML/JSON file (default: the one whose match fits the target)",
  );
}

/** `--no-profile`, with what it means for this command. */
export function noProfileOption(description: string): Option {
  return new Option('--no-profile', description);
}

/** `--json`: the command's result as one JSON object on stdout. */
export const jsonFlag = () => new Option('--json', 'print one JSON object on stdout (progress stays on stderr)');

/** `--model`, `--base-url`, `--api-key`: the model a command asks (the milestone judge, a judge detector). */
export function judgeModelOptions(
  cmd: Command,
  what: string,
  o: { mandatory: boolean } = { mandatory: true },
): Command {
  return cmd
    .addOption(new Option('--model <name>', what).env('GAMEPILOT_MODEL').makeOptionMandatory(o.mandatory))
    .addOption(specOption('baseUrl')) // the same declaration as run's: one endpoint, one key, under one name
    .addOption(specOption('apiKey'));
}

/** `--runs-dir <dir>`: the runs folder, under this one name on every command that reads or writes runs. */
export function runsDirOption(description = 'the runs folder'): Option {
  return new Option('--runs-dir <dir>', description).default('runs');
}

/**
 * Adds `current` to `cmd` and keeps `oldFlags`, its former name, working: hidden from --help, it
 * says once on stderr that it was renamed and then sets `current` exactly as `current` would
 * (same parser, same checks).
 */
export function renamedOption(cmd: Command, current: Option, oldFlags: string): Command {
  const old = new Option(oldFlags, `former name of ${current.long}`).hideHelp();
  cmd.addOption(current).addOption(old);
  cmd.on(`option:${old.name()}`, (value: string) => {
    cmd.configureOutput().writeErr?.(`note: ${old.long} is now ${current.long}\n`);
    cmd.setOptionValue(old.attributeName(), undefined);
    // commander's own handler for `current` (a Command is an EventEmitter; its typings do not say so).
    (cmd as unknown as EventEmitter).emit(`option:${current.name()}`, value);
  });
  return cmd;
}
