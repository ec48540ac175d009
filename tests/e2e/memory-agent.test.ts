/**
 * `gamepilot run --agent memory` on built-in 2048 (its real window, real capture and input)
 * against the local OpenAI-compatible server: a memory saved at one step is not saved again,
 * is retrieved into the prompt of a later step where it is relevant (in the next episode, and
 * in the next run from the store file), and `gamepilot memory list|clear` see it; an endpoint
 * without embeddings falls back to lexical retrieval and says so; a damaged store is moved
 * aside and rebuilt.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { isMemoryReview, lastUserText } from '../helpers/agent-fixtures.ts';
import { json, ROOT, runCli } from '../helpers/cli.ts';
import { readRun, type StepRecord } from '../../electron/store/run-store.ts';
import type { MemoryStepRecord } from '../../electron/domain.ts';

const KEY_FACT = 'Keep the biggest tile in the bottom-left corner and merge toward it';
const KEYS = ['left', 'down', 'left', 'down'];
let server: FakeOpenAI;

const where = (body: any) => {
  const m = /Step (\d+) of episode (\d+)/.exec(lastUserText(body));
  return { step: Number(m?.[1] ?? 1) - 1, episode: Number(m?.[2] ?? 1) - 1 };
};

/**
 * Episode 1: step 2 learns the fact and asks to save it, step 3 asks again (a duplicate).
 * The first step of every later episode looks at the corner, where the fact is relevant.
 */
function script(body: any) {
  const { step, episode } = where(body);
  if (isMemoryReview(body)) {
    const observation =
      episode > 0 && step === 0
        ? 'The biggest tile sits in the bottom-left corner of the board'
        : 'A 2048 board with small scattered tiles';
    return {
      text: `### Observation\n${observation}\n### History_summary\n[HIGH] episode ${episode + 1} step ${step + 1}: sliding tiles\n### Reasoning\nkeep sliding\n### Plan\npress a key`,
    };
  }
  const saving = episode === 0 && (step === 1 || step === 2);
  const memory = saving
    ? `### New_memory\n${KEY_FACT}\n### Should_save\nYes`
    : '### New_memory\nNone\n### Should_save\nNo';
  return {
    text: `${answer('slide', [{ action_type: 'PRESS', parameters: { key: KEYS[step % KEYS.length] } }])}\n\n${memory}`,
  };
}

beforeAll(async () => {
  server = await new FakeOpenAI((b) => script(b), ['test-vlm', 'test-embed']).start();
});
afterAll(() => server.close());

function memoryRun(cfg: string, out: string, extra: string[]) {
  return runCli(
    [
      'run',
      '--game',
      '2048',
      '--agent',
      'memory',
      '--model',
      'test-vlm',
      '--base-url',
      server.baseURL,
      '--api-key',
      'sk-test',
      '--max-retries',
      '0',
      '--embedding-model',
      'test-embed',
      '--runs-dir',
      out,
      '--json',
      ...extra,
    ],
    { env: { GAMEPILOT_CONFIG_DIR: cfg } },
  );
}

const memoryOf = (s: StepRecord) => s.memory as MemoryStepRecord;

describe('gamepilot run --agent memory', () => {
  it('saves a memory once and retrieves it into a later prompt where it is relevant, across episodes and runs', async () => {
    const cfg = mkdtempSync(path.join(tmpdir(), 'gp-mem-cfg-'));
    const out = mkdtempSync(path.join(tmpdir(), 'gp-mem-out-'));
    server.requests.length = 0;
    server.embeddingsStatus = undefined;
    const r = await memoryRun(cfg, out, ['--episodes', '2', '--max-steps', '3', '--memory-scope', 'e2e.p01']);
    expect(r.code, r.stderr).toBe(0);
    const { meta, steps } = readRun(json(r).run_dir);
    expect(meta.agent).toBe('memory');
    expect(meta.memory).toMatchObject({
      scope: 'e2e.p01',
      retrieval: 'embedding',
      embedding_model: 'test-embed',
      top_k: 3,
      threshold: 0.4,
      dedupe: 0.8,
      short_term: 5,
      file: path.join(cfg, 'memory', 'e2e.p01.json'),
    });
    const at = (episode: number, step: number) => steps.find((s) => s.episode === episode && s.step === step)!;
    // Real input: every key press reached the game window.
    for (const s of steps) expect(s.view_inputs).toHaveLength(1);
    // Saved at step 2 of episode 1, not again at step 3.
    expect(memoryOf(at(0, 0)).saved).toBeNull();
    expect(memoryOf(at(0, 1)).saved?.text).toBe(KEY_FACT);
    expect(memoryOf(at(0, 2)).saved).toBeNull();
    expect(memoryOf(at(0, 2)).skipped).toMatchObject({ text: KEY_FACT, duplicate_of: memoryOf(at(0, 1)).saved!.id });
    expect(memoryOf(at(0, 2)).skipped!.similarity).toBeGreaterThanOrEqual(0.8);
    // Not retrieved where the board says nothing about it; retrieved at the first step of episode 2, where it does.
    expect(memoryOf(at(0, 2)).retrieved).toEqual([]);
    const hit = memoryOf(at(1, 0)).retrieved;
    expect(hit.map((m) => m.text)).toEqual([KEY_FACT]);
    expect(hit[0]!.similarity).toBeGreaterThanOrEqual(0.4);
    // …and it reached that step's action prompt, and no earlier one.
    const actions = server.requests.filter((q) => !isMemoryReview(q.body));
    const prompt = (episode: number, step: number) =>
      lastUserText(actions.find((q) => where(q.body).episode === episode && where(q.body).step === step)!.body);
    expect(prompt(1, 0)).toContain(`1. ${KEY_FACT} (similarity`);
    expect(prompt(0, 1)).not.toContain(KEY_FACT);
    // The summary restarts with each episode; two model calls a step.
    expect(memoryOf(at(1, 0)).summary).toBe('[HIGH] episode 2 step 1: sliding tiles');
    expect(server.requests).toHaveLength(steps.length * 2);
    const file = JSON.parse(readFileSync(meta.memory!.file, 'utf8'));
    expect(file.memories.map((m: { text: string }) => m.text)).toEqual([KEY_FACT]);
    expect(file.embedding).toEqual({ model: 'test-embed', dims: 256 });

    // A second run reads the store: relevant at its first step of episode 2, still stored once.
    const again = await memoryRun(cfg, out, ['--episodes', '2', '--max-steps', '1', '--memory-scope', 'e2e.p01']);
    expect(again.code, again.stderr).toBe(0);
    const second = readRun(json(again).run_dir).steps;
    expect(memoryOf(second.find((s) => s.episode === 1)!).retrieved.map((m) => m.text)).toEqual([KEY_FACT]);

    const list = await runCli(['memory', 'list', '--json'], { env: { GAMEPILOT_CONFIG_DIR: cfg } });
    expect(json(list).scopes).toMatchObject([{ scope: 'e2e.p01', memories: 1 }]);
    const clear = await runCli(['memory', 'clear', 'e2e.p01', '--json'], { env: { GAMEPILOT_CONFIG_DIR: cfg } });
    expect(json(clear)).toMatchObject({ scope: 'e2e.p01', cleared: 1 });
    expect(existsSync(meta.memory!.file)).toBe(false);
    const bad = await runCli(['memory', 'clear', '../settings'], { env: { GAMEPILOT_CONFIG_DIR: cfg } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/plain name/);
  });

  it('falls back to lexical retrieval when the endpoint serves no embeddings, and says so', async () => {
    const cfg = mkdtempSync(path.join(tmpdir(), 'gp-mem-cfg-'));
    const out = mkdtempSync(path.join(tmpdir(), 'gp-mem-out-'));
    server.embeddingsStatus = 404;
    try {
      const r = await memoryRun(cfg, out, ['--episodes', '2', '--max-steps', '3']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(
        /warning: long-term memory: the embeddings endpoint failed \(.*404.*\); retrieval is lexical/,
      );
      const { meta, steps } = readRun(json(r).run_dir);
      expect(meta.memory).toMatchObject({
        scope: '2048',
        retrieval: 'lexical',
        retrieval_note: expect.stringMatching(/404/),
      });
      for (const s of steps) expect(memoryOf(s).retrieval).toBe('lexical');
      const at = (episode: number, step: number) =>
        memoryOf(steps.find((s) => s.episode === episode && s.step === step)!);
      expect(at(0, 1).saved?.text).toBe(KEY_FACT);
      expect(at(0, 2).skipped?.similarity).toBe(1);
      expect(at(1, 0).retrieved.map((m) => m.text)).toEqual([KEY_FACT]);
      expect(JSON.parse(readFileSync(meta.memory!.file, 'utf8')).embedding).toBeNull();
    } finally {
      server.embeddingsStatus = undefined;
    }
  });

  it('moves a damaged store aside with a warning and rebuilds it', async () => {
    const cfg = mkdtempSync(path.join(tmpdir(), 'gp-mem-cfg-'));
    const out = mkdtempSync(path.join(tmpdir(), 'gp-mem-out-'));
    mkdirSync(path.join(cfg, 'memory'));
    const file = path.join(cfg, 'memory', 'e2e.bad.json');
    writeFileSync(file, '{"version":1,"scope":"e2e.bad","memories":[{"text":');
    const r = await memoryRun(cfg, out, ['--episodes', '1', '--max-steps', '2', '--memory-scope', 'e2e.bad']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /warning: the memory store .*e2e\.bad\.json was damaged .*moved aside to e2e\.bad\.json\.corrupt-\d+/,
    );
    const aside = readdirSync(path.join(cfg, 'memory')).filter((f) => f.startsWith('e2e.bad.json.corrupt-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(path.join(cfg, 'memory', aside[0]!), 'utf8')).toContain('"memories":[{"text":'); // kept as it was
    expect(JSON.parse(readFileSync(file, 'utf8')).memories.map((m: { text: string }) => m.text)).toEqual([KEY_FACT]);
  });

  it("--agent model plays the kind the title's profile names: memory for a story profile, zero-shot for 2048's own", async () => {
    const cfg = mkdtempSync(path.join(tmpdir(), 'gp-mem-cfg-'));
    const out = mkdtempSync(path.join(tmpdir(), 'gp-mem-out-'));
    const story = path.join(cfg, 'story-2048.yaml');
    writeFileSync(
      story,
      readFileSync(path.join(ROOT, 'games', 'g2048', 'profile.yaml'), 'utf8')
        .replace('id: "2048"', 'id: story-2048')
        .replace('agent: zero-shot', 'agent: memory'),
    );
    const base = ['--episodes', '1', '--max-steps', '1', '--agent', 'model'];
    const withMemory = await memoryRun(cfg, out, [...base, '--profile', story]);
    expect(withMemory.code, withMemory.stderr).toBe(0);
    const m = readRun(json(withMemory).run_dir).meta;
    expect(m.agent).toBe('memory');
    expect(m.memory).toMatchObject({ scope: 'story-2048', file: path.join(cfg, 'memory', 'story-2048.json') });
    expect(withMemory.stderr).not.toMatch(/plays with the zero-shot/);
    const zeroShot = await memoryRun(cfg, out, base);
    expect(zeroShot.code, zeroShot.stderr).toBe(0);
    const z = readRun(json(zeroShot).run_dir).meta;
    expect(z.agent).toBe('vlm');
    expect(z.memory).toBeUndefined();
  });
});
