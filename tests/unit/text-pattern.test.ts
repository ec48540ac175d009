/**
 * Patterns from files, flags and models run in linear time: a catastrophic pattern (`^(a+)+$`
 * against 32 letters takes hours for a backtracking engine) answers at once in a profile's match,
 * in a window search and in the IDC explorer's grep; what cannot run in linear time is refused.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ModelCaller } from '../../electron/agents/model-endpoint.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PatternError, textPattern } from '../../electron/util/text-pattern.ts';
import { matches } from '../../electron/profiles/registry.ts';
import { explore } from '../../electron/reflection/explorer.ts';
import type { Profile } from '../../electron/profiles/profile-schema.ts';
import { FakeOpenAI } from '../helpers/fake-openai.ts';

const EVIL = '^(a+)+$';
const victim = `${'a'.repeat(32)}b`;
/** Generous: linear matching takes well under a millisecond; backtracking here would take hours. */
const FAST_MS = 2000;
const timed = <T>(f: () => T): { value: T; ms: number } => {
  const t0 = performance.now();
  const value = f();
  return { value, ms: performance.now() - t0 };
};

describe('text patterns', () => {
  it('match as RegExp does, case-insensitively by default', () => {
    expect(textPattern('^Fifteen$').test('fifteen')).toBe(true);
    expect(textPattern('^Fifteen$', { caseSensitive: true }).test('fifteen')).toBe(false);
    expect(textPattern('Slay the Spire').test('Slay the Spire 2 — Act 1')).toBe(true);
    expect(textPattern('\\d+ moves').test('Moves: 12 moves')).toBe(true);
    expect(String(textPattern('^Mines$'))).toBe('/^Mines$/i');
  });

  it('answer a catastrophic pattern at once', () => {
    const { value, ms } = timed(() => textPattern(EVIL).test(victim));
    expect(value).toBe(false);
    expect(ms).toBeLessThan(FAST_MS);
    const nested = timed(() => textPattern('(x+x+)+y').test('x'.repeat(10_000)));
    expect(nested.value).toBe(false);
    expect(nested.ms).toBeLessThan(FAST_MS);
  });

  it('refuse lookaround, backreferences, syntax errors and overlong patterns, saying why', () => {
    expect(() => textPattern('(?=a)b')).toThrow(
      /lookaround .* and backreferences .* are not supported: patterns run in linear time/,
    );
    expect(() => textPattern('(a)\\1')).toThrow(PatternError);
    expect(textPattern('a\\(?=b').test('a(=b')).toBe(true); // an escaped parenthesis is no lookahead
    expect(() => textPattern('(a')).toThrow(/missing closing \)/);
    expect(() => textPattern('a'.repeat(1001))).toThrow(/above 1000/);
  });

  it('keep a profile’s match from hanging on a hostile title', () => {
    const profile = { match: { title: EVIL } } as unknown as Profile;
    const { value, ms } = timed(() => matches(profile, { title: victim }));
    expect(value).toBe(false);
    expect(ms).toBeLessThan(FAST_MS);
    expect(matches(profile, { title: 'aaaa' })).toBe(true);
  });
});

describe('the IDC explorer’s grep', () => {
  let server: FakeOpenAI;
  const patterns = ['(x+x+)+y', '(?<=x)y'];
  beforeAll(async () => {
    server = await new FakeOpenAI((_body, i) =>
      i < patterns.length ? { toolCalls: [{ name: 'grep', arguments: { pattern: patterns[i] } }] } : { text: 'done' },
    ).start();
  });
  afterAll(() => server.close());

  it('runs the model’s catastrophic pattern in linear time and answers a bad one as the tool’s result', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-grep-'));
    writeFileSync(path.join(root, 'steps.jsonl'), `${'x'.repeat(5000)}\n`.repeat(20));
    const caller = new ModelCaller({ model: 'test-vlm', baseUrl: server.baseURL, apiKey: 'k' }, 'idc-explorer');
    const t0 = performance.now();
    const r = await explore(caller, root, 'explore', '');
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(r.toolCalls.map((c) => c.name)).toEqual(['grep', 'grep']);
    const toolAnswers = server.requests
      .at(-1)!
      .body.messages.filter((m: { role: string }) => m.role === 'tool')
      .map((m: { content: string }) => m.content);
    expect(toolAnswers[0]).toBe('(no match)');
    expect(toolAnswers[1]).toMatch(/^grep: the pattern cannot be used: lookaround/);
  });
});
