import type { JobOutcome } from '../../electron/sweep/job-run.ts';

/** A completed job's outcome for storage and progress tests: one episode scoring 1, no cost. */
export function jobOutcome(jobId: string, overrides: Partial<JobOutcome> = {}): JobOutcome {
  return {
    job_id: jobId,
    sweep: 's',
    status: 'completed',
    attempt: 1,
    run_id: null,
    mean: 1,
    std: 0,
    scores: [1],
    steps: 1,
    tokens_in: 0,
    tokens_out: 0,
    cost_usd: null,
    started: '',
    ended: '',
    worker: { host: 'h', pid: 1, display: null },
    ...overrides,
  };
}
