/**
 * A sweep's time outside play (electron/sweep/progress.ts): the medians and totals the summary
 * gives, the throughput over the uploads' own time, and the lines a person reads.
 */
import { describe, expect, it } from 'vitest';
import type { JobTiming } from '../../electron/sweep/job-run.ts';
import { jobOutcome } from '../helpers/job-outcome.ts';
import { formatEvent, jobEndEvent, outsidePlay, type SweepSummary } from '../../electron/sweep/progress.ts';

const t = (queued: number, store: number, bytes: number, upload?: number, retries = 0): JobTiming => ({
  queued_s: queued,
  run_s: 5,
  store_s: store,
  files: 10,
  bytes,
  ...(upload !== undefined ? { upload_s: upload, retries } : {}),
});

describe('time outside play', () => {
  it('sums storage and gives medians and maxima per job', () => {
    const o = outsidePlay([t(1, 0.5, 2e6, 0.4), t(3, 0.2, 1e6, 0.1, 2), t(2, 0.9, 3e6, 0.5)])!;
    expect(o).toEqual({
      jobs: 3,
      queued_s: { median: 2, max: 3 },
      store_s: { median: 0.5, max: 0.9 },
      bytes: 6e6,
      files: 30,
      upload_s: 1,
      upload_mb_s: 6,
      retries: 2,
    });
    // An even count: the mean of the middle two; a folder store has no upload figures.
    const dir = outsidePlay([
      { store_s: 0.1, files: 1, bytes: 10 },
      { store_s: 0.3, files: 1, bytes: 10 },
    ])!;
    expect(dir).toMatchObject({
      queued_s: null,
      store_s: { median: 0.2, max: 0.3 },
      upload_s: null,
      upload_mb_s: null,
    });
    expect(outsidePlay([])).toBeNull();
  });

  it('is in the job lines and the end line', () => {
    const timing = t(1.24, 0.51, 3_400_000, 0.4, 1);
    const end = jobEndEvent('j1', 'completed', 1, 2, jobOutcome('j1', { run_id: 'r', mean: 3, timing }));
    expect(end.timing).toEqual(timing);
    expect(formatEvent(end)).toContain('queued 1.2 s, stored 3.4 MB in 0.5 s (1 retried)');

    const summary = {
      sweep: 's',
      total: 1,
      completed: 1,
      resumed: 0,
      failed: 0,
      skipped: 0,
      cost_usd: 0,
      budget_usd: null,
      wall_s: 9,
    };
    const line = formatEvent({
      type: 'end',
      summary: { ...summary, outside_play: outsidePlay([timing]) } as SweepSummary,
    })!;
    expect(line.split('\n')[1]).toBe(
      'time outside play, 1 job(s): queued median 1.24 s (max 1.24 s), storing median 0.51 s (max 0.51 s); stored 3.4 MB in 10 files; uploads 0.4 s, 8.5 MB/s, 1 request(s) retried',
    );
  });
});
