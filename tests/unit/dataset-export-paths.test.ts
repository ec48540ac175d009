/**
 * What an export writes names runs, never absolute paths (a home folder names its user): the
 * dataset's export.json, card and rows hold no path of the machine; a warning about an
 * unreadable steps.jsonl line names its run, and a broken run — a damaged run.json, a run whose
 * steps cannot be read at all — is in `skipped` with its reason; the export goes on with the rest.
 */
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { exportDataset } from '../../electron/dataset/export.ts';
import type { RunStore, StepRecord } from '../../electron/store/run-store.ts';
import { randomRun } from '../helpers/run-fixtures.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'gp-export-paths-'));

async function makeRun(root: string): Promise<RunStore> {
  const s = randomRun(root);
  const jpeg = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#336699' } })
    .jpeg()
    .toBuffer();
  for (let step = 0; step < 2; step++) {
    const frame = s.writeFrame(0, step, jpeg, 'jpg');
    s.appendStep({
      step,
      episode: 0,
      t_capture: Date.now(),
      frame,
      reasoning: 'slide',
      raw: null,
      actions: [{ action_type: 'PRESS', parameters: { key: 'up' } }],
      errors: [],
      latency_ms: { locate: 1, capture: 1, encode: 1, model: 1, act: 1, total: 5 },
    } as unknown as StepRecord);
  }
  s.close('completed', undefined, {
    episodes: [{ episode: 0, seed: 0, score: 10, steps: 2, end: 'game_over' }],
    mean: 10,
    std: 0,
  });
  return s;
}

/** Every file under `dir`, as text. */
function allText(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && !/\.(jpe?g|png)$/.test(e.name))
    .map((e) => readFileSync(path.join(e.parentPath, e.name), 'utf8'))
    .join('\n');
}

describe('an export', () => {
  it('writes no absolute path, and names the run in every warning', async () => {
    const root = path.join(tmp, 'runs');
    mkdirSync(root);
    const good = await makeRun(root);
    // A line of steps.jsonl that is not a step.
    const torn = await makeRun(root);
    appendFileSync(path.join(torn.dir, 'steps.jsonl'), '{"step": "two"}\n');
    // steps.jsonl a symbolic link: the run's steps cannot be read at all.
    const linked = await makeRun(root);
    rmSync(path.join(linked.dir, 'steps.jsonl'));
    symlinkSync('/etc/hostname', path.join(linked.dir, 'steps.jsonl'));
    // run.json not a run, in the runs folder and given as a source of its own.
    const damaged = await makeRun(root);
    writeFileSync(path.join(damaged.dir, 'run.json'), '{"status": "completed"');
    const single = await makeRun(tmp);
    writeFileSync(path.join(single.dir, 'run.json'), '[]');

    const out = path.join(tmp, 'dataset');
    const summary = await exportDataset({
      sources: [root, single.dir],
      out,
      format: 'hf-imagefolder',
      filter: {},
      validation: 0,
      seed: 0,
    });
    // The good run and the torn one (its readable steps) are exported; the others are not.
    expect(summary.runs).toBe(2);
    expect(summary.rows.train).toBe(2 + 2);
    const id = (s: RunStore) => path.basename(s.dir);
    expect(summary.warnings).toEqual([
      expect.stringMatching(new RegExp(`^run ${id(torn)}: skipped steps\\.jsonl:3: `)),
    ]);
    expect(summary.skipped).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          new RegExp(`^${id(linked)}: its steps cannot be read: steps\\.jsonl in \\. is a symbolic link`),
        ),
        expect.stringMatching(new RegExp(`^${id(damaged)}: run\\.json is not valid JSON`)),
        expect.stringMatching(new RegExp(`^${id(single)}: run\\.json is not a valid run`)),
      ]),
    );
    expect(summary.skipped).toHaveLength(3);
    for (const w of [...summary.warnings, ...summary.skipped]) expect(w).not.toContain(tmp);
    expect(summary.out).toBe(out); // the caller is told where; the dataset does not say
    expect(good.dir).toContain(tmp);

    const written = allText(out);
    expect(written).toContain(id(good));
    expect(written).not.toContain(tmp);
    expect(written).not.toContain(tmpdir());
    expect(JSON.parse(readFileSync(path.join(out, 'export.json'), 'utf8')).out).toBe('.');
  });

  it('finds runs at any depth, a sweep’s work folders too, and names each left out by its path', async () => {
    const root = path.join(tmp, 'deep');
    const work = path.join(root, 'sweep-a', '.sweep', 'work', 'job-1');
    mkdirSync(work, { recursive: true });
    const stopped = randomRun(work);
    stopped.close('stopped', 'stopped by a person');
    const deep = await makeRun(path.join(root, 'sweep-a'));
    const out = path.join(root, 'dataset');
    const summary = await exportDataset({
      sources: [root],
      out,
      format: 'hf-imagefolder',
      filter: {},
      validation: 0,
      seed: 0,
    });
    expect(summary.runs).toBe(1);
    const rows = readFileSync(path.join(out, 'train', 'metadata.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(new Set(rows.map((r) => r.run_id))).toEqual(new Set([`sweep-a/${path.basename(deep.dir)}`]));
    expect(summary.skipped).toEqual([
      `sweep-a/.sweep/work/job-1/${path.basename(stopped.dir)}: stopped, not completed: stopped by a person`,
    ]);
  });
});
