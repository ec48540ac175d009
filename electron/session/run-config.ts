/**
 * run.json's `config`: the run's settings under the RunSpec's names (run-spec.ts, snake_case),
 * as the run plays them once the profile and the game have filled what the spec left open.
 * Written from the spec itself: no name is mapped back, and a setting added to RECORDED_FIELDS
 * is recorded without a line here.
 */
import { recordedEndpoint } from '../util/endpoint.ts';
import { DEFAULT_VLM } from '../agents/vlm.ts';
import type { LatencyMode } from '../domain.ts';
import type { LatencySettings } from '../latency/clock-policy.ts';
import { RECORDED_FIELDS, RECORDED_MODEL_FIELDS, specRecord, type RecordedField, type RunSpec } from '../run-spec.ts';
import { runSeed } from './front-door.ts';
import { priceOf } from './run-meter.ts';

/** What the profile and the game decided. */
export interface Resolved {
  episodes: number;
  maxSteps: number;
  latency: LatencyMode;
  latencySettings: LatencySettings;
  /** The player's frames per request when the spec leaves it to the profile. */
  history?: number;
}

/** `modelSettings`: record the model agent's settings too (a model plays, in a seat or alone). */
export function runConfig(s: RunSpec, r: Resolved, o: { modelSettings: boolean }): Record<string, unknown> {
  const price = priceOf(s);
  // What the run plays by where that is not the spec's value as given.
  const played: Partial<Record<RecordedField, unknown>> = {
    episodes: r.episodes,
    maxSteps: r.maxSteps,
    seed: runSeed(s),
    latency: r.latency,
    stopIntervalMs: r.latency === 'stop' ? r.latencySettings.stopIntervalMs : undefined,
    slowBufferMs: r.latency === 'slow' ? r.latencySettings.slowBufferMs : undefined,
    baseUrl: s.baseUrl === undefined ? undefined : recordedEndpoint(s.baseUrl),
    history: s.history ?? r.history ?? DEFAULT_VLM.history,
    priceIn: price?.inputPerM,
    priceOut: price?.outputPerM,
    gameText: s.gameText ? true : undefined,
  };
  const fields = [
    ...RECORDED_FIELDS.filter((f) => f !== 'maxRunMb'),
    ...(o.modelSettings ? RECORDED_MODEL_FIELDS : []),
  ];
  const values = Object.fromEntries(fields.map((f) => [f, f in played ? played[f] : s[f]]));
  return { ...specRecord(values), max_run_mb: s.maxRunMb ?? null };
}
