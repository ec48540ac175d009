/**
 * Chaos by events: a fixed plan of kills, each made at a point of the sweep's own progress (a
 * job started, a job's result was stored) rather than at a moment on the clock, so a fast and
 * a slow machine get the same number and kinds of kills from the same seed. The plan comes
 * from the seed; which job a kill lands on depends on the order jobs start in, and that alone.
 */
import { readdirSync, readFileSync } from 'node:fs';

export type Signal = 'SIGKILL' | 'SIGTERM';
/**
 * The event a kill waits for: the next job started, the next job's result stored, or (from the
 * storage server's log) a file of a run answered while the rest of its upload is still to come.
 */
export type Trigger = 'job-start' | 'job-end' | 'upload';

export interface PlannedKill<K extends string> {
  kind: K;
  on: Trigger;
  signal: Signal;
}

/** Each kind `n` times, in an order and with signals drawn from `random`. */
export function planKills<K extends string>(
  random: () => number,
  kinds: readonly { kind: K; on: Trigger; n: number }[],
): PlannedKill<K>[] {
  const plan = kinds.flatMap(({ kind, on, n }) =>
    Array.from({ length: n }, () => ({ kind, on, signal: (random() < 0.5 ? 'SIGKILL' : 'SIGTERM') as Signal })),
  );
  for (let i = plan.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [plan[i], plan[j]] = [plan[j]!, plan[i]!];
  }
  return plan;
}

/** A sweep event as the driver reads it (job-start / job-end lines of `--json`). */
export interface JobEvent {
  type: string;
  job?: string;
  attempt?: number;
  status?: string;
}

/**
 * Carries out `plan` in order: each kill waits for its trigger among the events fed to it and
 * is made by `act`, which answers whether it could be made (the job it was meant for may
 * already have ended); a kill not made waits for the next trigger. Events are handled one at
 * a time, in the order they came; a job already hit `maxPerJob` times is left alone, so no job
 * runs out of attempts.
 */
export class ChaosDriver<K extends string, S = unknown> {
  private next = 0;
  private chain: Promise<void> = Promise.resolve();
  private readonly ended = new Set<string>();
  private readonly hits = new Map<string, number>();
  readonly made: Record<string, number> = {};
  failure: unknown;

  constructor(
    readonly plan: readonly PlannedKill<K>[],
    private readonly act: (
      kill: PlannedKill<K>,
      e: Required<Pick<JobEvent, 'job'>> & JobEvent,
      source: S,
    ) => Promise<boolean>,
    private readonly maxPerJob = 3,
  ) {}

  get count(): number {
    return this.next;
  }

  /** Whether `job`'s attempt `attempt` has ended (as far as the events fed so far say). */
  hasEnded(job: string, attempt: number): boolean {
    return this.ended.has(`${job}#${attempt}`);
  }

  feed(e: JobEvent, source: S): void {
    if (e.type === 'job-end' && e.job) this.ended.add(`${e.job}#${e.attempt}`);
    this.chain = this.chain
      .then(() => this.handle(e, source))
      .catch((err) => {
        this.failure ??= err;
      });
  }

  private async handle(e: JobEvent, source: S): Promise<void> {
    const kill = this.plan[this.next];
    if (!kill || e.type !== kill.on || !e.job) return;
    if (kill.on === 'job-end' && e.status !== 'completed') return;
    if ((this.hits.get(e.job) ?? 0) >= this.maxPerJob) return;
    if (!(await this.act(kill, { ...e, job: e.job }, source))) return;
    this.hits.set(e.job, (this.hits.get(e.job) ?? 0) + 1);
    const key = `${kill.kind} ${kill.signal}`;
    this.made[key] = (this.made[key] ?? 0) + 1;
    this.next++;
  }

  /** The kills made, as `kind signal n` pairs, for a summary line. */
  describe(): string {
    return Object.entries(this.made)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
  }
}

/**
 * The pid of the `gamepilot run` process of `job`'s attempt `attempt`, found by its `--runs-dir`
 * folder (`<staging>/<job>/a<attempt>` under `under`); waits for it to start until `gone()`
 * says the attempt ended or `timeoutMs` passes, then answers null.
 */
export async function runProcessOf(
  under: string,
  job: string,
  attempt: number,
  gone: () => boolean,
  timeoutMs = 60_000,
): Promise<number | null> {
  const until = Date.now() + timeoutMs;
  const tail = `/${job}/a${attempt}`;
  while (!gone() && Date.now() < until) {
    for (const p of readdirSync('/proc')) {
      if (!/^\d+$/.test(p)) continue;
      try {
        const argv = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
        const out = argv[argv.indexOf('--runs-dir') + 1];
        if (argv.includes('run') && argv.includes('--runs-dir') && out?.startsWith(under) && out.endsWith(tail))
          return Number(p);
      } catch {
        // gone
      }
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return null;
}
