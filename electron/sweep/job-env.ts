/**
 * How a sweep tells the `gamepilot run` it starts which job it is and which worker runs it:
 * two environment variables, checked here, recorded in run.json (`job`, `worker`).
 */
import { z } from 'zod';
import { CodedError } from '../domain.ts';
import type { RunJob, RunWorker } from '../store/run-store.ts';

export const JOB_ENV = 'GAMEPILOT_JOB';
export const WORKER_ENV = 'GAMEPILOT_WORKER';

const JobSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/),
  sweep: z.string().max(200),
  cell: z.record(z.string(), z.unknown()),
  attempt: z.number().int().positive(),
  upstream: z.string().max(2000).optional(),
});
const WorkerSchema = z.strictObject({
  host: z.string().min(1).max(255),
  pid: z.number().int().positive(),
  display: z.string().max(64).nullable(),
});

function parse<S extends z.ZodType>(env: NodeJS.ProcessEnv, name: string, schema: S): z.output<S> | undefined {
  const text = env[name];
  if (!text) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new CodedError('bad-input', `${name} is not JSON`);
  }
  const r = schema.safeParse(data);
  if (!r.success)
    throw new CodedError('bad-input', `${name}: ${r.error.issues[0]!.path.join('.')} ${r.error.issues[0]!.message}`);
  return r.data;
}

/** The job and worker a sweep passed in, for run.json; nothing when the run was not started by a sweep. */
export function sweepContextFromEnv(env: NodeJS.ProcessEnv = process.env): { job?: RunJob; worker?: RunWorker } {
  const job = parse(env, JOB_ENV, JobSchema);
  const worker = parse(env, WORKER_ENV, WorkerSchema);
  return { ...(job ? { job } : {}), ...(worker ? { worker } : {}) };
}

export function sweepEnv(job: RunJob, worker: RunWorker): Record<string, string> {
  return { [JOB_ENV]: JSON.stringify(job), [WORKER_ENV]: JSON.stringify(worker) };
}
