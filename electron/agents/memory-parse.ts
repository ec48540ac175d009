/**
 * The memory agent's answers, read as tolerantly as the house parser reads `### Reasoning` /
 * `### Actions` (any heading level, bold, a colon, any case, `_` or a space): the review's
 * Observation / History_summary / Reasoning / Plan, and the action answer's New_memory /
 * Should_save. Also keeps the running summary within its word budget by importance.
 */
import type { Parsed } from './model-client.ts';

const IMPORTANCE = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;
export type Importance = (typeof IMPORTANCE)[number];

/** Heading lines naming one of `names` (spaces, underscores and dashes alike). */
function headingPattern(names: string[]): RegExp {
  const alt = names.map((n) => n.replace(/[_ -]+/g, '[_ -]*')).join('|');
  return new RegExp(
    `^[ \\t]*(?:#{1,6}[ \\t]*|\\*\\*)?[ \\t]*(${alt})[ \\t]*(?:\\*\\*)?[ \\t]*:?[ \\t]*(?:\\*\\*)?[ \\t]*$`,
    'gim',
  );
}

/** Bodies of the named sections (first occurrence of each), keyed by the canonical name. */
function sections(
  raw: string,
  names: string[],
  boundaries: string[],
): Map<string, { start: number; end: number; body: string }> {
  const canon = (s: string) => s.toLowerCase().replace(/[_ -]+/g, '');
  const marks = [...raw.matchAll(headingPattern([...names, ...boundaries]))].map((m) => ({
    name: canon(m[1]!),
    start: m.index!,
    bodyStart: m.index! + m[0].length,
  }));
  const out = new Map<string, { start: number; end: number; body: string }>();
  marks.forEach((m, i) => {
    const end = i + 1 < marks.length ? marks[i + 1]!.start : raw.length;
    const key = names.find((n) => canon(n) === m.name);
    if (key && !out.has(key)) out.set(key, { start: m.start, end, body: raw.slice(m.bodyStart, end).trim() });
  });
  return out;
}

const ACTION_HEADINGS = ['Reasoning', 'Actions', 'Action'];

/**
 * Takes the New_memory and Should_save sections out of an action answer, leaving the rest for
 * the house parser (so a memory written before the actions cannot leak into the reasoning).
 */
export function splitMemorySections(raw: string): {
  rest: string;
  newMemory: string | undefined;
  shouldSave: boolean | undefined;
} {
  const found = sections(raw, ['New_memory', 'Should_save'], ACTION_HEADINGS);
  let rest = raw;
  // Cut from the end so earlier offsets stay right.
  const cuts = [...found.values()].sort((a, b) => b.start - a.start);
  for (const c of cuts) rest = rest.slice(0, c.start) + rest.slice(c.end);
  const memory = found.get('New_memory')?.body;
  const save = found.get('Should_save')?.body;
  return {
    rest,
    newMemory: memory && !/^(none|n\/a|nothing|-)?\.?$/i.test(stripQuotes(memory)) ? stripQuotes(memory) : undefined,
    shouldSave: save === undefined ? undefined : parseYes(save),
  };
}

function stripQuotes(s: string): string {
  return s
    .replace(/^```\w*\s*|```$/g, '')
    .replace(/^["'“]+|["'”]+$/g, '')
    .trim();
}

/** Yes/true/save → true; No/false → false; anything else → undefined (the agent treats it as yes: when in doubt, save). */
function parseYes(s: string): boolean | undefined {
  const word = stripQuotes(s)
    .toLowerCase()
    .match(/[a-z]+/)?.[0];
  if (word === 'yes' || word === 'true' || word === 'save' || word === 'y') return true;
  if (word === 'no' || word === 'false' || word === 'n') return false;
  return undefined;
}

export interface Review {
  observation: string;
  summary: string;
  plan: string;
}

/** The review answer: a History_summary is required; the other sections may be missing. */
export function parseReview(raw: string): Parsed<Review> {
  const found = sections(raw, ['Observation', 'History_summary', 'Reasoning', 'Plan'], []);
  const get = (n: string) => found.get(n)?.body ?? '';
  const reasoning = get('Reasoning');
  const summary = get('History_summary');
  if (!raw.trim()) return { ok: false, reasoning: '', error: 'empty answer' };
  if (!summary) return { ok: false, reasoning, error: 'no "### History_summary" section found' };
  return { ok: true, reasoning, observation: get('Observation'), summary, plan: get('Plan') };
}

export function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** A summary line's importance: its leading tag (`[HIGH]`, `HIGH:`, `- **HIGH**`), MEDIUM when untagged. */
export function importanceOf(line: string): Importance {
  const m = /^[\s*>-]*(?:\[|\*\*|\()?\s*(critical|high|medium|low)\b/i.exec(line);
  return m ? (m[1]!.toUpperCase() as Importance) : 'MEDIUM';
}

/**
 * Keeps a summary within `maxWords` by importance: drops LOW lines first, then MEDIUM, then
 * HIGH (the earliest of a level first), never CRITICAL; if CRITICAL lines alone are too long,
 * the text is cut at the word budget. Returns the summary and how many lines went.
 */
export function boundSummary(text: string, maxWords: number): { summary: string; dropped: number } {
  const lines = text.split('\n');
  let words = wordCount(text);
  let dropped = 0;
  for (const level of IMPORTANCE.slice(0, 3)) {
    for (let i = 0; i < lines.length && words > maxWords; i++) {
      const line = lines[i]!;
      if (!line.trim() || importanceOf(line) !== level) continue;
      words -= wordCount(line);
      lines.splice(i--, 1);
      dropped++;
    }
  }
  let summary = lines.join('\n').trim();
  if (words > maxWords) {
    summary = `${summary.split(/\s+/).slice(0, maxWords).join(' ')} …`;
  }
  return { summary, dropped };
}
