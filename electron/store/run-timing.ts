/**
 * A run's timing (run.json `timing`, domain.ts RunTiming): per latency mode its agent steps were
 * played in, the input-to-screen, model and harness times as compact samples — a count per kept
 * value — so that a table row pools several runs exactly, by adding counts, and reads its
 * percentiles off the sum. A run made before it has no `timing` and adds nothing: its figures
 * are "—", never 0.
 */
import { z } from 'zod';
import {
  LATENCY_MODES,
  type LatencyMode,
  type ModeFigures,
  type ModeTiming,
  type MsFigures,
  type MsSamples,
  type RunTiming,
  type TimingByMode,
} from '../domain.ts';

/**
 * A millisecond value as the samples keep it: to the whole millisecond below 1 s, to three
 * significant figures from 1 s on. Rounding keeps the order of values, so a percentile of kept
 * values is the kept value of the percentile.
 */
export function keptMs(ms: number): number {
  let step = 1;
  while (Math.abs(Math.round(ms / step)) >= 1000) step *= 10;
  return Math.round(ms / step) * step;
}

/** At most this many kept values: 1,000 below 1 s, 900 a decade above, to 9.99 × 10¹² ms (three centuries). */
export const MAX_KEPT_VALUES = 1000 + 900 * 10;

/** The value of nearest rank `p` (as util/time.ts `percentile`) in counts ascending by value; null with none. */
function rankValue(counts: readonly (readonly [number, number])[], n: number, p: number): number | null {
  if (n === 0) return null;
  const rank = Math.min(n, Math.max(1, Math.ceil((p / 100) * n)));
  let seen = 0;
  for (const [value, count] of counts) {
    seen += count;
    if (seen >= rank) return value;
  }
  return null;
}

/** Samples being gathered or pooled: a count per kept value. */
export class MsTally {
  private readonly counts = new Map<number, number>();

  add(ms: number, count = 1) {
    if (!Number.isFinite(ms) || count <= 0) return;
    const v = keptMs(ms);
    this.counts.set(v, (this.counts.get(v) ?? 0) + count);
  }

  /** Adds kept samples (another run's). */
  addSamples(s: MsSamples) {
    for (const [ms, count] of s.counts) this.add(ms, count);
  }

  samples(): MsSamples {
    const counts = [...this.counts].sort((a, b) => a[0] - b[0]);
    const n = counts.reduce((sum, [, c]) => sum + c, 0);
    return { n, p50: rankValue(counts, n, 50), p95: rankValue(counts, n, 95), counts };
  }
}

/** A step's three times: null where it has none (no effect measured, no model answer). */
export interface StepTimes {
  effectMs: number | null;
  modelMs: number | null;
  overheadMs: number;
}

class ModeTally {
  steps = 0;
  readonly effect = new MsTally();
  readonly model = new MsTally();
  readonly overhead = new MsTally();

  timing(): ModeTiming {
    return {
      steps: this.steps,
      effect_ms: this.effect.samples(),
      model_ms: this.model.samples(),
      overhead_ms: this.overhead.samples(),
    };
  }
}

/** Times per latency mode, gathered step by step (a run) or run by run (a table row). */
export class TimingTally {
  private readonly modes = new Map<LatencyMode, ModeTally>();
  /** How many runs' timing was added (addRun). */
  runs = 0;

  private mode(mode: LatencyMode): ModeTally {
    const m = this.modes.get(mode) ?? new ModeTally();
    this.modes.set(mode, m);
    return m;
  }

  addStep(mode: LatencyMode, t: StepTimes) {
    const m = this.mode(mode);
    m.steps++;
    if (t.effectMs !== null) m.effect.add(t.effectMs);
    if (t.modelMs !== null) m.model.add(t.modelMs);
    m.overhead.add(t.overheadMs);
  }

  /** A run's `timing`; a run without one (made before it) adds nothing. */
  addRun(t: RunTiming | undefined) {
    if (!t) return;
    this.runs++;
    for (const mode of LATENCY_MODES) {
      const x = t.by_mode[mode];
      if (!x) continue;
      const m = this.mode(mode);
      m.steps += x.steps;
      m.effect.addSamples(x.effect_ms);
      m.model.addSamples(x.model_ms);
      m.overhead.addSamples(x.overhead_ms);
    }
  }

  /** Each mode's samples, in LATENCY_MODES' order. */
  byMode(): TimingByMode<ModeTiming> {
    return Object.fromEntries(
      LATENCY_MODES.flatMap((mode) => {
        const m = this.modes.get(mode);
        return m ? [[mode, m.timing()]] : [];
      }),
    );
  }

  /** Each mode's figures without the samples (what tables and the Live view show). */
  figures(): TimingByMode<ModeFigures> {
    return modeFigures(this.byMode());
  }
}

const figuresOf = ({ n, p50, p95 }: MsFigures): MsFigures => ({ n, p50, p95 });

/** Figures without their samples, per mode. */
export function modeFigures(byMode: TimingByMode<ModeTiming>): TimingByMode<ModeFigures> {
  return Object.fromEntries(
    Object.entries(byMode).map(([mode, t]) => [
      mode,
      {
        steps: t.steps,
        effect_ms: figuresOf(t.effect_ms),
        model_ms: figuresOf(t.model_ms),
        overhead_ms: figuresOf(t.overhead_ms),
      },
    ]),
  );
}

/** The latency mode a run was started in, as its config records it (normal when it records none). */
export function runLatencyMode(config: Record<string, unknown>): LatencyMode {
  const mode = config.latency;
  return (LATENCY_MODES as readonly unknown[]).includes(mode) ? (mode as LatencyMode) : 'normal';
}

const ms = z.number().finite();
const count = z.number().int().nonnegative();
const MsSamplesSchema = z.looseObject({
  n: count,
  p50: ms.nullable(),
  p95: ms.nullable(),
  counts: z.array(z.tuple([ms, z.number().int().positive()])).max(MAX_KEPT_VALUES),
});
const ModeTimingSchema = z.looseObject({
  steps: count,
  effect_ms: MsSamplesSchema,
  model_ms: MsSamplesSchema,
  overhead_ms: MsSamplesSchema,
});
/** run.json `timing` as read back: the tables pool its counts, so counts that are not counts are refused. */
export const RunTimingSchema = z.looseObject({
  latency_mode: z.enum(LATENCY_MODES),
  by_mode: z.partialRecord(z.enum(LATENCY_MODES), ModeTimingSchema),
});
