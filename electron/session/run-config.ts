/**
 * run.json's `config`: the run's settings under the RunSpec's names (run-spec.ts, snake_case),
 * as the run plays them once the profile and the game have filled what the spec left open.
 * Written from the spec itself: no name is mapped back.
 */
import { recordedEndpoint } from '../util/endpoint.ts';
import { DEFAULT_VLM } from '../agents/vlm.ts';
import type { LatencyMode } from '../domain.ts';
import type { LatencySettings } from '../latency/clock-policy.ts';
import { specRecord, type RecordedField, type RunSpec } from '../run-spec.ts';
import { runSeed } from './front-door.ts';

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
  // A price given on one side only counts the other as free.
  const priced = s.priceIn !== undefined || s.priceOut !== undefined;
  const settings: Partial<Pick<RunSpec, RecordedField>> = {
    episodes: r.episodes,
    maxSteps: r.maxSteps,
    seed: runSeed(s),
    latency: r.latency,
    ...(r.latency === 'stop' ? { stopIntervalMs: r.latencySettings.stopIntervalMs } : {}),
    ...(r.latency === 'slow' ? { slowBufferMs: r.latencySettings.slowBufferMs } : {}),
    capture: s.capture,
    imageSize: s.imageSize,
    format: s.format,
    quality: s.quality,
    settleMs: s.settleMs,
    maxErrors: s.maxErrors,
    paceMs: s.paceMs,
    takeOverOnInput: s.takeOverOnInput,
    acceptAnticheatRisk: s.acceptAnticheatRisk,
    pauseKey: s.pauseKey,
    keepFrames: s.keepFrames,
    minFreeMb: s.minFreeMb,
    ...(o.modelSettings
      ? {
          baseUrl: s.baseUrl === undefined ? undefined : recordedEndpoint(s.baseUrl),
          prompt: s.prompt,
          history: s.history ?? r.history ?? DEFAULT_VLM.history,
          detail: s.detail,
          temperature: s.temperature,
          maxTokens: s.maxTokens,
          repairs: s.repairs,
          timeoutMs: s.timeoutMs,
          idleTimeoutMs: s.idleTimeoutMs,
          maxRetries: s.maxRetries,
          retryAfterCapMs: s.retryAfterCapMs,
          maxAnswerBytes: s.maxAnswerBytes,
          priceIn: priced ? (s.priceIn ?? 0) : undefined,
          priceOut: priced ? (s.priceOut ?? 0) : undefined,
          gameText: s.gameText ? true : undefined,
        }
      : {}),
  };
  return { ...specRecord(settings), max_run_mb: s.maxRunMb ?? null };
}
