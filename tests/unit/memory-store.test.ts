/**
 * The memory agent's store and answer parsing: a real file per scope, Orama search (vector and
 * BM25), dedupe, a damaged file moved aside, the summary kept within its words by importance.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { clearScope, listScopes, memoryFile, MemoryStore } from '../../electron/agents/memory-store.ts';
import {
  boundSummary,
  importanceOf,
  parseReview,
  splitMemorySections,
  wordCount,
} from '../../electron/agents/memory-parse.ts';
import { hashedEmbedding } from '../helpers/fake-openai.ts';
import { spawnTs } from '../helpers/ts-child.ts';
import { lockOwner, withFileLockSync } from '../../electron/util/file-lock.ts';

const dir = () => mkdtempSync(path.join(tmpdir(), 'gp-mem-'));

describe('MemoryStore', () => {
  it('persists memories to <config>/memory/<scope>.json and reads them back in a new store', () => {
    const cfg = dir();
    const a = MemoryStore.open(cfg, 'ace-attorney.p07');
    a.add({ text: 'The witness said the clock struck nine', episode: 0, step: 3 });
    const file = path.join(cfg, 'memory', 'ace-attorney.p07.json');
    expect(a.file).toBe(file);
    const b = MemoryStore.open(cfg, 'ace-attorney.p07');
    expect(b.memories.map((m) => [m.text, m.episode, m.step])).toEqual([
      ['The witness said the clock struck nine', 0, 3],
    ]);
    expect(listScopes(cfg)).toEqual([{ scope: 'ace-attorney.p07', memories: 1, bytes: expect.any(Number), file }]);
    expect(clearScope(cfg, 'ace-attorney.p07')).toBe(1);
    expect(existsSync(file)).toBe(false);
    expect(MemoryStore.open(cfg, 'ace-attorney.p07').memories).toHaveLength(0);
  });

  it('refuses a scope that could name another path', () => {
    for (const bad of ['../x', 'a/b', '', '.hidden', 'x'.repeat(65)])
      expect(() => memoryFile('/tmp/c', bad)).toThrow(/plain name/);
  });

  it('retrieves by cosine similarity above the threshold, top k, each query part searched on its own', () => {
    const cfg = dir();
    const s = MemoryStore.open(cfg, 'g');
    const texts = [
      'the cellar door opens with the red key from the kitchen drawer',
      'the guard at the bridge wants three gold coins',
      'the red key is hidden in the kitchen drawer',
      'a merchant in the market sells maps',
    ];
    for (const t of texts) s.add({ text: t, vector: hashedEmbedding(t) }, 'hash');
    const query = 'I stand before the locked cellar door; where is the red key';
    const hits = s.searchVectors([hashedEmbedding(query), hashedEmbedding('nothing about anything')], 3, 0.4);
    expect(hits.length).toBeGreaterThan(0);
    for (const h of hits) expect(h.similarity).toBeGreaterThanOrEqual(0.4);
    expect(hits[0]!.text).toMatch(/cellar door/);
    expect(hits.map((h) => h.text)).not.toContain('a merchant in the market sells maps');
    // The same store read back keeps its vectors and model.
    const again = MemoryStore.open(cfg, 'g');
    expect(again.embeddingModel).toBe('hash');
    expect(again.searchVectors([hashedEmbedding(query)], 3, 0.4)[0]!.text).toBe(hits[0]!.text);
  });

  it('retrieves lexically with BM25 candidates scored by word coverage, and finds near-duplicates', () => {
    const s = MemoryStore.open(dir(), 'lex');
    s.add({ text: 'The red key opens the cellar door' });
    s.add({ text: 'Bridge guard wants three gold coins' });
    const hits = s.searchLexical(['Where is the red key for the cellar door?'], 3, 0.4);
    expect(hits).toEqual([{ id: expect.any(String), text: 'The red key opens the cellar door', similarity: 0.8 }]);
    expect(s.searchLexical(['a quiet meadow'], 3, 0.4)).toEqual([]);
    expect(s.nearest('the red key opens the cellar door.')!.similarity).toBe(1);
    expect(s.nearest('the blue key opens the attic')!.similarity).toBeLessThan(0.8);
  });

  it('moves a damaged store aside, starts empty and says so', () => {
    const cfg = dir();
    mkdirSync(path.join(cfg, 'memory'), { recursive: true });
    const file = path.join(cfg, 'memory', 'broken.json');
    for (const junk of ['{"version":1,"scope":"broken","memories":[{"id":', '{"version":2,"memories":[]}']) {
      writeFileSync(file, junk);
      const warnings: string[] = [];
      const s = MemoryStore.open(cfg, 'broken', (w) => warnings.push(w));
      expect(s.memories).toHaveLength(0);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/damaged .*moved aside to broken\.json\.corrupt-\d+/);
      expect(existsSync(file)).toBe(false);
      s.add({ text: 'a fresh start' });
      expect(JSON.parse(readFileSync(file, 'utf8')).memories[0].text).toBe('a fresh start');
    }
    const aside = readdirSync(path.join(cfg, 'memory')).filter((f) => f.includes('.corrupt-'));
    expect(aside.length).toBeGreaterThanOrEqual(1);
    expect(readFileSync(path.join(cfg, 'memory', aside[0]!), 'utf8')).toMatch(/"version"/); // nothing lost
  });

  it('drops vectors of another embedding model and reports what needs embedding', () => {
    const s = MemoryStore.open(dir(), 'm');
    s.add({ text: 'one', vector: [1, 0] }, 'model-a');
    s.add({ text: 'two' });
    expect(s.missingVectors('model-a').map((m) => m.text)).toEqual(['two']);
    expect(s.missingVectors('model-b').map((m) => m.text)).toEqual(['one', 'two']);
    s.setVectors('model-b', new Map(s.memories.map((m, i) => [m.id, [0, 1, i]])));
    expect(s.embeddingModel).toBe('model-b');
    expect(s.missingVectors('model-b')).toEqual([]);
  });

  it('two runs saving to one scope at once keep both runs’ memories (two processes, each loaded at its start)', async () => {
    const cfg = dir();
    MemoryStore.open(cfg, 'shared').add({ text: 'there before either run started' });
    const count = 40;
    const writers = ['alpha', 'beta'].map((label) =>
      spawnTs('memory-writer.ts', [cfg, 'shared', label, String(count)]),
    );
    for (const w of writers) expect(await w.line()).toBe('ready'); // both have loaded the store
    for (const w of writers) w.child.stdin!.write('go\n');
    const reports = await Promise.all(writers.map(async (w) => JSON.parse(await w.line()) as { ids: string[] }));
    expect(await Promise.all(writers.map((w) => w.exited))).toEqual([0, 0]);
    const after = MemoryStore.open(cfg, 'shared');
    expect(after.memories).toHaveLength(1 + 2 * count);
    const ids = new Set(after.memories.map((m) => m.id));
    for (const r of reports) for (const id of r.ids) expect(ids.has(id)).toBe(true);
    expect(after.memories[0]!.text).toBe('there before either run started');
    expect(readdirSync(path.join(cfg, 'memory'))).toEqual(['shared.json']); // no lock or temp file left
  }, 60_000);

  it('a store sees what another run saved before its duplicate check, and neither drops the other’s', () => {
    const cfg = dir();
    const a = MemoryStore.open(cfg, 'g');
    const b = MemoryStore.open(cfg, 'g');
    a.add({ text: 'The red key opens the cellar door' });
    expect(b.nearest('the red key opens the cellar door.')!.similarity).toBe(1); // a's memory, read from the file
    b.add({ text: 'Bridge guard wants three gold coins' });
    a.add({ text: 'A merchant in the market sells maps' });
    for (const s of [a, b, MemoryStore.open(cfg, 'g')]) {
      s.refresh(); // what the others wrote since
      expect(s.memories.map((m) => m.text).sort()).toEqual([
        'A merchant in the market sells maps',
        'Bridge guard wants three gold coins',
        'The red key opens the cellar door',
      ]);
    }
    // Vectors a run gives the memories (a re-embedding) reach the file with the other run's memories kept.
    b.setVectors('model-x', new Map(b.memories.map((m, i) => [m.id, [1, i]])));
    a.add({ text: 'The well is dry', vector: [0, 1] }, 'model-x');
    const c = MemoryStore.open(cfg, 'g');
    expect(c.embeddingModel).toBe('model-x');
    expect(c.memories).toHaveLength(4);
    expect(c.missingVectors('model-x')).toEqual([]);
    // A cleared scope stays cleared: a run's next save does not write back what was cleared.
    expect(clearScope(cfg, 'g')).toBe(4);
    a.add({ text: 'after the clear' });
    expect(MemoryStore.open(cfg, 'g').memories.map((m) => m.text)).toEqual(['after the clear']);
  });

  it('a lock left by a SIGKILLed process is taken over; a live holder is waited for, then named', async () => {
    const cfg = dir();
    const s = MemoryStore.open(cfg, 'k');
    const holder = spawnTs('lock-holder.ts', ['file', s.file]);
    const held = JSON.parse(await holder.line()) as { lock: string; owner: { pid: number } };
    expect(held.lock).toBe(`${s.file}.lock`);
    expect(lockOwner(held.lock)?.pid).toBe(holder.child.pid);
    const t0 = Date.now();
    let err: Error | undefined;
    try {
      withFileLockSync(s.file, () => {}, { timeoutMs: 300 });
    } catch (e) {
      err = e as Error;
    }
    expect(err?.message).toContain(`${s.file}: gave up after 0.`);
    expect(err?.message).toContain(`waiting for the lock held by pid ${holder.child.pid} `);
    expect(err?.message).toContain(`remove ${s.file}.lock`);
    expect(Date.now() - t0).toBeLessThan(3000);
    holder.child.kill('SIGKILL');
    expect(await holder.exited).toBe('SIGKILL');
    expect(existsSync(held.lock)).toBe(true); // nothing released it
    const t1 = Date.now();
    s.add({ text: 'saved once the dead holder’s lock was taken over' });
    expect(Date.now() - t1).toBeLessThan(2000);
    expect(existsSync(held.lock)).toBe(false);
    expect(MemoryStore.open(cfg, 'k').memories).toHaveLength(1);
  }, 60_000);
});

describe('memory answers', () => {
  it('takes New_memory and Should_save out of an action answer, wherever they are', () => {
    const raw =
      '### New_memory\nThe butler lied about the key.\n\n### Reasoning\nPress the button.\n\n### Actions\n[{"action_type":"PRESS","parameters":{"key":"x"}}]\n\n**Should_save:** \nYes';
    const r = splitMemorySections(raw);
    expect(r.newMemory).toBe('The butler lied about the key.');
    expect(r.shouldSave).toBe(true);
    expect(r.rest).not.toMatch(/butler|Should/);
    expect(r.rest).toMatch(/### Actions/);
    expect(
      splitMemorySections('### Reasoning\nx\n### New memory\nNone\n### should_save\nNo').newMemory,
    ).toBeUndefined();
    expect(splitMemorySections('### New_memory\n"x"\n### Should_save\nmaybe').shouldSave).toBeUndefined();
  });

  it('reads a review and requires a history summary', () => {
    const r = parseReview(
      '## Observation\nA courtroom.\n## History_summary\n[CRITICAL] the clock was stopped\n## Reasoning\nwhy\n## Plan\n1. press',
    );
    expect(r).toMatchObject({ ok: true, observation: 'A courtroom.', reasoning: 'why', plan: '1. press' });
    expect(parseReview('### Reasoning\nhmm')).toMatchObject({ ok: false, error: /History_summary/ });
  });

  it('keeps the summary within its words: LOW lines go first, then MEDIUM, never CRITICAL', () => {
    const line = (tag: string, i: number) => `[${tag}] ${`${tag.toLowerCase()} fact ${i} `.repeat(5).trim()}`;
    const lines = [
      line('CRITICAL', 1),
      line('LOW', 1),
      line('MEDIUM', 1),
      line('HIGH', 1),
      line('LOW', 2),
      'untagged routine note about walking around the hall',
    ];
    const text = lines.join('\n');
    const total = wordCount(text);
    const { summary, dropped } = boundSummary(text, total - 20);
    expect(dropped).toBe(2);
    expect(summary).not.toMatch(/\[LOW\]/);
    expect(summary).toMatch(/\[CRITICAL\]/);
    expect(summary).toMatch(/\[MEDIUM\]/);
    const tight = boundSummary(text, 20);
    expect(tight.summary).toMatch(/^\[CRITICAL\]/);
    expect(wordCount(tight.summary)).toBeLessThanOrEqual(21);
    expect(importanceOf('- **HIGH**: x')).toBe('HIGH');
    expect(importanceOf('plain')).toBe('MEDIUM');
  });
});
