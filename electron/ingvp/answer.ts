/**
 * The `{"output": …}` of an answer, read tolerantly: the last JSON object with an "output" key
 * anywhere in the text (models often think aloud first), repaired the usual ways; failing that,
 * a bare `"output": value` line. Never evaluates anything. Forced Planning's `{"plan": …}` is
 * read the same way.
 */
import { findJsonSpan, parseJsonLenient } from '../actions/json-extract.ts';

export type OutputResult = { ok: true; value: unknown } | { ok: false; error: string };

export function extractOutput(text: string): OutputResult {
  return extractField(text, 'output');
}

export function extractPlan(text: string): OutputResult {
  return extractField(text, 'plan');
}

function extractField(text: string, key: 'output' | 'plan'): OutputResult {
  const opening = new RegExp(`\\{\\s*["'“]?${key}["'”]?\\s*:`, 'gi');
  const starts = [...text.matchAll(opening)].map((m) => m.index ?? 0).reverse();
  for (const at of starts) {
    const span = findJsonSpan(text.slice(at));
    if (!span) continue;
    const parsed = parseJsonLenient(span);
    if (parsed.ok && parsed.value && typeof parsed.value === 'object' && key in parsed.value)
      return { ok: true, value: (parsed.value as Record<string, unknown>)[key] };
  }
  const bare = new RegExp(`["']?${key}["']?\\s*:\\s*(.+)$`, 'im').exec(text);
  if (bare) {
    const parsed = parseJsonLenient(bare[1]!.trim().replace(/}\s*$/, ''));
    if (parsed.ok) return { ok: true, value: parsed.value };
    return { ok: true, value: bare[1]!.trim().replace(/^["']|["'}\s]+$/g, '') };
  }
  return { ok: false, error: `no {"${key}": …} in the answer` };
}
