/**
 * A reset step as the form shows it: its verb and its value as one line of text (`press` `n`,
 * `hotkey` `ctrl+n`, `click` `0.5, 0.12` or a point's name, `wait` `1.5`), and back. A step's
 * options (`button`, `seconds`, `repeat`) stay as they were; the core checks the whole step.
 */
import type { ResetStepEdit } from '../../../electron/api/contract.ts';

/** The verbs the form offers; a step with another (written in the profile file) keeps its own. */
export const OFFERED_VERBS = ['press', 'hotkey', 'click', 'doubleClick', 'rightClick', 'type', 'wait'] as const;
/** The verbs whose value is a point, drawn on the window's thumbnail. */
export const POINT_VERBS: readonly string[] = ['click', 'doubleClick', 'rightClick', 'move', 'dragTo'];
const OPTIONS = new Set(['button', 'seconds', 'repeat']);

type Json = ResetStepEdit[string];

export function stepVerb(step: ResetStepEdit): string {
  return Object.keys(step).find((k) => !OPTIONS.has(k)) ?? 'press';
}

const isXY = (v: Json): v is { x: number; y: number } =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  Object.keys(v).length === 2 &&
  typeof v.x === 'number' &&
  typeof v.y === 'number';

/** The step's value as the form's text field shows it. */
export function stepText(step: ResetStepEdit): string {
  const verb = stepVerb(step);
  const v = step[verb];
  if (v === undefined || v === null) return '';
  if (typeof v === 'string' || typeof v === 'number') return String(v);
  if (verb === 'hotkey' && Array.isArray(v) && v.every((k) => typeof k === 'string')) return v.join('+');
  if (POINT_VERBS.includes(verb) && isXY(v)) return `${v.x}, ${v.y}`;
  return JSON.stringify(v);
}

/** A number typed whole ("1.5", not "1." on the way to it), else undefined. */
function typedNumber(text: string): number | undefined {
  const n = Number(text.trim());
  return text.trim() !== '' && Number.isFinite(n) && String(n) === text.trim() ? n : undefined;
}

/** The value a verb's text stands for. */
function stepValue(verb: string, text: string): Json {
  const t = text.trim();
  if (verb === 'type') return text;
  if (verb === 'hotkey') return t.split('+').map((k) => k.trim());
  if (verb === 'wait' || verb === 'repeat') return typedNumber(t) ?? t;
  if (POINT_VERBS.includes(verb)) {
    const xy = /^(\S+?)\s*,\s*(\S+)$/.exec(t);
    const [x, y] = [typedNumber(xy?.[1] ?? ''), typedNumber(xy?.[2] ?? '')];
    if (x !== undefined && y !== undefined) return { x, y };
  }
  if (t.startsWith('{') || t.startsWith('['))
    try {
      return JSON.parse(t) as Json;
    } catch {
      return t;
    }
  return t;
}

/** The step with `verb` set to what `text` says; its options kept. */
export function withStepText(step: ResetStepEdit, verb: string, text: string): ResetStepEdit {
  const options = Object.fromEntries(Object.entries(step).filter(([k]) => OPTIONS.has(k)));
  // `button` goes with click only.
  if (verb !== 'click') delete options.button;
  return { [verb]: stepValue(verb, text), ...options };
}

/** A click point in fractions of the window, as the thumbnail gives it. */
export function withPoint(step: ResetStepEdit, p: { x: number; y: number }): ResetStepEdit {
  return withStepText(step, stepVerb(step), `${p.x}, ${p.y}`);
}

/** The point a step's value names, when it is fractions of the window. */
export function stepPoint(step: ResetStepEdit): { x: number; y: number } | undefined {
  const v = step[stepVerb(step)];
  return v !== undefined && isXY(v) ? v : undefined;
}
