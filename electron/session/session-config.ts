/**
 * What a session plays by (SessionConfig): the spec's settings under their own names, as the
 * composition root resolved them, and the loop's own settings with their defaults.
 */
import type { EncodeOptions } from '../capture/encode.ts';
import { DEFAULT_LATENCY } from '../latency/clock-policy.ts';
import { RUN_SPEC_DEFAULTS, type RunSpec, SESSION_FIELDS, type SessionField } from '../run-spec.ts';
import type { EpisodeSummary } from '../store/run-store.ts';
import type { Session } from './session.ts';

/**
 * What a session plays by: the run's settings under the RunSpec's own names (run-spec.ts), as
 * the profile and the game resolved them, and the loop's own settings below. `settleMs`: where
 * the window's drawing can be followed (X11), the longest wait for it to start drawing;
 * elsewhere, and for a window that animates by itself, a fixed wait.
 */
export type SessionConfig = Pick<RunSpec, SessionField | 'seed'> &
  Required<Pick<RunSpec, 'episodes' | 'maxSteps' | 'latency' | 'stopIntervalMs' | 'slowBufferMs'>> & {
    /** Once the window draws: it must then hold still this long (ms)… */
    settleQuietMs: number;
    /** …but the settle stage ends after this long in any case (ms). */
    settleMaxMs: number;
    /** Called after each episode, before the next starts (reflection runs here). */
    afterEpisode?: (e: EpisodeSummary, session: Session) => Promise<void>;
    /** A time limit per episode (s), beside the step budget (a profile's maxSeconds). */
    maxSeconds?: number;
  };

/** The session's settings as a spec (or the spec's defaults) gives them: run-spec.ts's SESSION_FIELDS. */
export function sessionSettingsOf(s: Pick<RunSpec, SessionField>): Pick<RunSpec, SessionField> {
  return Object.fromEntries(SESSION_FIELDS.map((k) => [k, s[k]])) as Pick<RunSpec, SessionField>;
}

/** How the session's frames are encoded: its image size, format and quality as the encoder takes them. */
export function encodeOptions(c: Pick<SessionConfig, 'imageSize' | 'format' | 'quality'>): EncodeOptions {
  return { imageSize: c.imageSize, format: c.format, quality: c.quality };
}

/**
 * A built-in view's answer to a step — its inputs arriving, the page's word, the window's
 * drawing — within this (ms). It comes in tens of ms; a busy machine took over 500 ms for an
 * input now and then. Only a lost input or a stalled page waits this long, and the step's
 * `settle` says so.
 */
export const VIEW_SETTLE_MAX_MS = 3000;

/** A session's settings when nothing is given: the spec's defaults, and the loop's own. */
export const DEFAULT_SESSION: SessionConfig = {
  ...sessionSettingsOf(RUN_SPEC_DEFAULTS),
  seed: RUN_SPEC_DEFAULTS.seed,
  episodes: 1,
  maxSteps: 50,
  latency: 'normal',
  ...DEFAULT_LATENCY,
  settleQuietMs: 40,
  settleMaxMs: 1000,
};
