/**
 * run.json's `config`: the run's settings under the RunSpec's names (run-spec.ts, snake_case),
 * as the run plays them once the profile and the game have filled what was left open. The one
 * place that turns the composition root's options back into the spec's names.
 */
import { recordedEndpoint } from '../util/endpoint.ts';
import { DEFAULT_VLM } from '../agents/vlm.ts';
import { DEFAULT_SESSION } from './session.ts';
import { isModelAgent, type KeepFrames, type LatencyMode } from '../domain.ts';
import type { LatencySettings } from '../latency/clock-policy.ts';
import { specRecord, type RecordedField, type RunSpec } from '../run-spec.ts';
import type { RunOptions } from './compose.ts';

/** What the profile and the game decided. */
export interface Resolved {
  episodes: number;
  maxSteps: number;
  latency: LatencyMode;
  latencySettings: LatencySettings;
  keepFrames: KeepFrames;
  minFreeMb: number;
  /** The player's frames per request when the options leave it to the profile. */
  history?: number;
}

export function runConfig(opts: RunOptions, r: Resolved): Record<string, unknown> {
  const v = { ...DEFAULT_VLM, ...opts.vlm };
  const history = opts.vlm?.history ?? r.history ?? DEFAULT_VLM.history;
  const settings: Partial<Pick<RunSpec, RecordedField>> = {
    episodes: r.episodes,
    maxSteps: r.maxSteps,
    seed: opts.seed,
    latency: r.latency,
    ...(r.latency === 'stop' ? { stopIntervalMs: r.latencySettings.stopIntervalMs } : {}),
    ...(r.latency === 'slow' ? { slowBufferMs: r.latencySettings.slowBufferMs } : {}),
    capture: opts.capture,
    imageSize: opts.encode.longSide,
    format: opts.encode.format,
    quality: opts.encode.quality,
    settleMs: opts.settleMs ?? DEFAULT_SESSION.settleMs,
    maxErrors: opts.maxConsecutiveErrors ?? DEFAULT_SESSION.maxErrors,
    paceMs: opts.minStepMs ?? DEFAULT_SESSION.paceMs,
    takeOverOnInput: opts.takeOverOnInput ?? DEFAULT_SESSION.takeOverOnInput,
    acceptAnticheatRisk: opts.acceptAnticheatRisk ?? false,
    pauseKey: opts.pauseKey,
    keepFrames: r.keepFrames,
    minFreeMb: r.minFreeMb,
    ...(isModelAgent(opts.agent)
      ? {
          baseUrl: v.baseURL === undefined ? undefined : recordedEndpoint(v.baseURL),
          prompt: v.systemPrompt,
          history,
          detail: v.detail,
          temperature: v.temperature,
          maxTokens: v.maxTokens,
          repairs: v.repairs,
          timeoutMs: v.timeoutMs,
          idleTimeoutMs: v.idleTimeoutMs,
          maxRetries: v.maxRetries,
          retryAfterCapMs: v.retryAfterCapMs,
          maxAnswerBytes: v.maxAnswerBytes,
          priceIn: v.price?.inputPerM,
          priceOut: v.price?.outputPerM,
          gameText: v.includeGameText,
        }
      : {}),
  };
  return { ...specRecord(settings), max_run_mb: opts.maxRunMb ?? null };
}
