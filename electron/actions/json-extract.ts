/**
 * Finds the first balanced JSON array or object in free text (string-aware), and parses it
 * with a few forgiving repairs that models commonly need. Never evaluates anything.
 */
export function findJsonSpan(text: string): string | undefined {
  const start = text.search(/[[{]/);
  if (start < 0) return undefined;
  const stack: string[] = [];
  let inString = false;
  let escaped = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') stack.push(c === '[' ? ']' : '}');
    else if (c === ']' || c === '}') {
      if (stack.pop() !== c) return undefined;
      if (stack.length === 0) return text.slice(start, i + 1);
    }
  }
  return undefined;
}

export type JsonResult = { ok: true; value: unknown } | { ok: false; error: string };

export function parseJsonLenient(span: string): JsonResult {
  try {
    return { ok: true, value: JSON.parse(span) };
  } catch (first) {
    const repaired = span
      .replace(/[\u201c\u201d]/g, '"')
      .replace(/[\u2018\u2019]/g, "'")
      .replace(/,\s*([\]}])/g, '$1')
      .replace(/\bTrue\b/g, 'true')
      .replace(/\bFalse\b/g, 'false')
      .replace(/\bNone\b/g, 'null');
    try {
      return { ok: true, value: JSON.parse(repaired) };
    } catch {
      return { ok: false, error: `invalid JSON: ${(first as Error).message}` };
    }
  }
}
