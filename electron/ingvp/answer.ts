/**
 * The `{"output": …}` of an answer, read tolerantly: the last JSON object with an "output" key
 * anywhere in the text (models often think aloud first), repaired the usual ways; failing that,
 * a bare `"output": value` line. Never evaluates anything.
 */
import { findJsonSpan, parseJsonLenient } from '../actions/json-extract.ts';

export type OutputResult = { ok: true; value: unknown } | { ok: false; error: string };

export function extractOutput(text: string): OutputResult {
  const starts = [...text.matchAll(/\{\s*["'“]?output["'”]?\s*:/gi)].map((m) => m.index ?? 0).reverse();
  for (const at of starts) {
    const span = findJsonSpan(text.slice(at));
    if (!span) continue;
    const parsed = parseJsonLenient(span);
    if (parsed.ok && parsed.value && typeof parsed.value === 'object' && 'output' in parsed.value)
      return { ok: true, value: (parsed.value as { output: unknown }).output };
  }
  const bare = /["']?output["']?\s*:\s*(.+)$/im.exec(text);
  if (bare) {
    const parsed = parseJsonLenient(bare[1]!.trim().replace(/}\s*$/, ''));
    if (parsed.ok) return { ok: true, value: parsed.value };
    return { ok: true, value: bare[1]!.trim().replace(/^["']|["'}\s]+$/g, '') };
  }
  return { ok: false, error: 'no {"output": …} in the answer' };
}
