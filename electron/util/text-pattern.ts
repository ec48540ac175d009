/**
 * Patterns that come from files, flags or a model (a profile's `match.title`, `--window`, the IDC
 * explorer's `grep`) run on RE2 (re2js, a linear-time engine): no pattern can take exponential
 * time on any text, so `^(a+)+$` against a long title answers at once instead of freezing the
 * loop. What RE2 has no linear-time meaning for (lookaround, backreferences) is refused with the
 * reason, as a syntax error is.
 */
import { RE2JS } from 're2js';

/** The longest pattern taken: titles and greps need no more, and compile cost grows with size. */
export const MAX_PATTERN_LENGTH = 1000;

export interface TextPattern {
  readonly source: string;
  /** Whether the pattern occurs anywhere in `text` (as RegExp.test). */
  test(text: string): boolean;
  toString(): string;
}

export class PatternError extends Error {}

/** Lookaround and backreferences (not after an escaping backslash): nothing linear can match them. */
const NOT_LINEAR = /(?<!\\)(?:\\\\)*(?:\(\?<?[=!]|\\[1-9]|\\k<)/;

/** Compiles `source` (case-insensitive unless told otherwise); throws PatternError saying why it cannot. */
export function textPattern(source: string, opts: { caseSensitive?: boolean } = {}): TextPattern {
  if (source.length > MAX_PATTERN_LENGTH)
    throw new PatternError(`the pattern is ${source.length} characters long, above ${MAX_PATTERN_LENGTH}`);
  if (NOT_LINEAR.test(source))
    throw new PatternError(
      'lookaround ((?=, (?!, (?<=, (?<!) and backreferences (\\1, \\k<name>) are not supported: patterns run in linear time',
    );
  let re: RE2JS;
  try {
    re = RE2JS.compile(source, opts.caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
  } catch (err) {
    throw new PatternError((err as Error).message.replace(/^error parsing regexp: /, ''));
  }
  return {
    source,
    test: (text) => re.matcher(text).find(),
    toString: () => `/${source}/${opts.caseSensitive ? '' : 'i'}`,
  };
}
