/**
 * Finds the first balanced JSON array or object in free text and parses it, repairing the
 * syntax models commonly get wrong with `jsonrepair`. Never evaluates anything.
 *
 * The span must be balanced: a cut-off answer or mismatched brackets is refused here rather
 * than completed by the repair (which would guess how the plan ended). Strings count as
 * strings in every quoting style a model uses (double, single, typographic), so a bracket
 * inside text never ends the span, and the repair never changes the text inside a string.
 */
import { jsonrepair } from 'jsonrepair';

/** Closing quote(s) for each opening quote character. */
const QUOTES: Record<string, string> = {
  '"': '"',
  "'": "'",
  '\u201c': '\u201d\u201c', // “…” (or “…“)
  '\u2018': '\u2019\u2018', // ‘…’
};

export function findJsonSpan(text: string): string | undefined {
  const start = text.search(/[[{]/);
  if (start < 0) return undefined;
  const stack: string[] = [];
  let closers = ''; // non-empty while inside a string: the characters that end it
  let escaped = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (closers) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (closers.includes(c)) closers = '';
      continue;
    }
    if (c in QUOTES) closers = QUOTES[c]!;
    else if (c === '[' || c === '{') stack.push(c === '[' ? ']' : '}');
    else if (c === ']' || c === '}') {
      if (stack.pop() !== c) return undefined;
      if (stack.length === 0) return text.slice(start, i + 1);
    }
  }
  return undefined;
}

export type JsonResult = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * Strict JSON first; then jsonrepair (trailing commas, single or typographic quotes, unquoted
 * keys, Python's True/False/None, comments, missing commas). String contents stay as written.
 */
export function parseJsonLenient(span: string): JsonResult {
  try {
    return { ok: true, value: JSON.parse(span) };
  } catch (first) {
    try {
      return { ok: true, value: JSON.parse(jsonrepair(span)) };
    } catch {
      return { ok: false, error: `invalid JSON: ${(first as Error).message}` };
    }
  }
}
