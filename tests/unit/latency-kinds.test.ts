/**
 * GameVerse's Fig. 5 from a runs folder: the reasoning models' and the reactive models' means under
 * each latency protocol, each group's figure the mean of its models' own means; a model of no known
 * kind is named and left out, and a person's takeover or lessons keep a run out of the figure.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildReport } from '../../electron/report/build.ts';
import { reportTables } from '../../electron/report/view.ts';
import { reportCsv } from '../../electron/report/csv.ts';
import { modelKind } from '../../electron/agents/model-kind.ts';
import { finishedRun } from '../helpers/run-fixtures.ts';

describe("GameVerse's Fig. 5: reasoning vs reactive models under latency", () => {
  it('knows the paper’s four models and says nothing of one it does not know', () => {
    expect(['gemini-2.5-pro', 'Seed-1.8', 'openai/gpt-4o', 'Qwen3-VL-8B-Instruct'].map(modelKind)).toEqual([
      'reasoning',
      'reasoning',
      'reactive',
      'reactive',
    ]);
    expect(modelKind('qwen3-vl-8b-thinking')).toBe('reasoning');
    expect(modelKind('test-vlm')).toBeUndefined();
  });

  it('averages each kind’s models per protocol, on titles played under more than one', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-latency-kinds-'));
    // Scores per model under stop, slow, normal (two trials each, the mean given).
    const played: Record<string, [number, number, number]> = {
      'gemini-2.5-pro': [90, 60, 30],
      'seed-1.8': [80, 50, 40],
      'gpt-4o': [60, 58, 50],
      'qwen3-vl-8b-instruct': [54, 52, 48],
      'test-vlm': [10, 10, 10],
    };
    for (const [model, scores] of Object.entries(played))
      for (const [i, latency] of ['stop', 'slow', 'normal'].entries())
        finishedRun(root, { model, latency, scores: [scores[i]! - 5, scores[i]! + 5] });
    // Not in the figure: lessons in the prompt (VR = Yes), and a run a person took over.
    finishedRun(root, {
      model: 'gpt-4o',
      latency: 'stop',
      scores: [0, 0],
      patch: {
        reflection: {
          mode: 'self-f',
          reflector_model: 'gpt-4o',
          lessons: [
            { episode: 0, source: 'self-f' },
            { episode: 1, source: 'self-f' },
          ],
        },
      },
    });
    finishedRun(root, { model: 'seed-1.8', latency: 'normal', scores: [100, 100], patch: { assisted: true } });

    const data = buildReport(root);
    const k = data.latency_kinds;
    expect(k.unknown).toEqual(['test-vlm']);
    expect(k.protocols).toEqual(['stop 2000 ms, freeze engine', 'slow 5000 ms, freeze engine', 'normal']);
    const mean2 = (a: number, b: number) => (a + b) / 2;
    const [stop, slow, normal] = k.protocols;
    const cells = (kind: string) => k.rows.find((r) => r.kind === kind)!.cells;
    expect(cells('reasoning')).toEqual({
      [stop!]: { mean: mean2(90, 80), models: 2 },
      [slow!]: { mean: mean2(60, 50), models: 2 },
      [normal!]: { mean: mean2(30, 40), models: 2 },
    });
    expect(cells('reactive')).toEqual({
      [stop!]: { mean: mean2(60, 54), models: 2 },
      [slow!]: { mean: mean2(58, 52), models: 2 },
      [normal!]: { mean: mean2(50, 48), models: 2 },
    });
    expect(k.rows.map((r) => [r.game, r.actionSpace, r.kind, r.models])).toEqual([
      ['2048', 'gui', 'reactive', ['gpt-4o', 'qwen3-vl-8b-instruct']],
      ['2048', 'gui', 'reasoning', ['gemini-2.5-pro', 'seed-1.8']],
    ]);
    const table = reportTables(data).find((t) => t.id === 'latency-kinds')!;
    expect(table.rows.map((r) => [r.kind, r[stop!], r[normal!]])).toEqual([
      ['Reactive', '57.0 (2)', '49.0 (2)'],
      ['Reasoning', '85.0 (2)', '35.0 (2)'],
    ]);
    expect(table.note).toContain('Of no known kind, left out: test-vlm.');
    expect(reportCsv(data)['latency-kinds.csv']!.split('\r\n')).toContain(
      '2048,gui,reasoning,gemini-2.5-pro seed-1.8,normal,35,2',
    );
  });
});
