/**
 * A profiled window's episodes end when its game ends and the next one starts from a new game
 * (the profile's `episode.end` and `episode.reset`). After each step the due end detectors look
 * at the window as it is now; the first that fires ends the episode, and the frame it fired on is
 * kept (frames/e000-end.png) and scored. Before the next episode the reset steps are sent and
 * then checked: the new game is ready once no end detector fires and the window no longer shows
 * the end frame (or a `ready` detector fires), within the reset's timeout — else the run fails
 * saying so, with the window kept (frames/e001-reset-failed.png). A detector that cannot look
 * (OCR failed, no model) is recorded once per episode and ends nothing.
 */
import type { GuiAction } from '../actions/schema.ts';
import type { EncodedFrame } from '../capture/encode.ts';
import type { ActionExecutor, ActionOutcome } from '../input/executor.ts';
import type { EncodeOptions } from '../capture/encode.ts';
import { frameGeometryOf } from '../input/coordinates.ts';
import type { SessionDeps } from './session-types.ts';
import type { TargetView } from './target-view.ts';
import type { ActionSender } from './action-sender.ts';
import type { TakeoverDesk } from './takeover-desk.ts';
import type { Profile } from '../profiles/profile-schema.ts';
import { resetActions } from '../profiles/episode-reset.ts';
import { Detectors, type DetectorResult, type WindowNow } from '../scoring/end-detectors.ts';
import type { RoleEndpoint } from '../agents/model-endpoint.ts';
import type { EpisodeSummary, RunStore } from '../store/run-store.ts';
import { loadSharp } from '../util/sharp.ts';
import { sleep } from '../util/time.ts';
import { pidAlive } from '../util/owner.ts';

export interface EpisodeEndsDeps {
  profile: Profile;
  /** The profile's folder (templates are beside it). */
  profileDir: string;
  /** The model a `judge` detector asks. */
  judge?: RoleEndpoint | undefined;
  /** The window as it is now. */
  look: (signal: AbortSignal) => Promise<WindowNow>;
  /** Sends the reset's actions (window pixels of a window this size) as the agent's input. */
  send: (actions: GuiAction[], signal: AbortSignal) => Promise<ActionOutcome[]>;
  /** The window's client size now, which the reset's fractions are laid out on. */
  windowSize: () => Promise<{ width: number; height: number }>;
}

/** How often the reset's check looks at the window. */
const RESET_POLL_MS = 250;
/** A window is showing another picture once this share of its pixels changed (grey, by more than 16). */
const CHANGED_SHARE = 0.002;

interface Ended {
  result: DetectorResult;
  /** The frame it fired on; undefined when the window could not be seen (it closed). */
  frame: EncodedFrame | undefined;
  file: string | undefined;
}

export class EpisodeEnds {
  private readonly end: Detectors | undefined;
  private readonly ready: Detectors | undefined;
  private ended: Ended | undefined;
  /** Detector errors of this episode, each said once. */
  private errors = new Set<string>();

  constructor(
    private readonly d: EpisodeEndsDeps,
    private readonly store: RunStore,
    private readonly warn: (message: string) => void,
  ) {
    const o = { profileDir: d.profileDir, gameTitle: d.profile.title, judge: d.judge };
    const ep = d.profile.episode;
    this.end = ep.end ? new Detectors(ep.end, o) : undefined;
    this.ready = ep.reset?.ready ? new Detectors(ep.reset.ready, { ...o, list: 'ready' }) : undefined;
  }

  /** The frame that ended this episode (scored as its final state); undefined when no detector fired. */
  get endFrame(): EncodedFrame | undefined {
    return this.ended?.frame;
  }

  /** Whether the game ended after step `step`: the due detectors look at the window now. */
  async afterStep(episode: number, step: number, signal: AbortSignal): Promise<boolean> {
    if (!this.end?.due(step) || signal.aborted) return false;
    const now = await this.d.look(signal);
    const { hit, errors } = await this.end.first(now, step, signal).catch((err) => {
      if (signal.aborted) return { hit: undefined, errors: [] };
      throw err;
    });
    for (const e of errors) this.noteError(`${e.label}: ${e.error}`);
    if (!hit) return false;
    const frame = now.frame;
    this.ended = { result: hit, frame, file: frame ? this.keep(episode, 'end', frame) : undefined };
    return true;
  }

  /** What run.json's episode says of how it ended and what went wrong looking. */
  record(): Partial<EpisodeSummary> {
    const hit = this.ended?.result;
    return {
      ...(hit ? { end_detector: `${hit.label}: ${hit.detail}` } : {}),
      ...(this.ended?.file ? { end_frame: this.ended.file } : {}),
      ...(this.errors.size ? { detector_errors: [...this.errors] } : {}),
    };
  }

  /** A new episode: what the last one saw is forgotten (after record()). */
  private forget() {
    this.ended = undefined;
    this.errors = new Set();
  }

  /**
   * Before episode `episode`: the reset, when the profile has one (and for the first episode only
   * with startWithReset), checked to have started a new game. Throws `reset failed: …` when not.
   */
  async beforeEpisode(episode: number, lastFrame: EncodedFrame | undefined, signal: AbortSignal) {
    const endFrame = this.ended?.frame;
    this.forget();
    const reset = this.d.profile.episode.reset;
    if (!reset || signal.aborted) return;
    if (episode === 0 && !this.d.profile.episode.startWithReset) return;
    const outcome = await resetGame(this.d, { end: this.end, ready: this.ready }, endFrame, signal);
    if (outcome.ok || signal.aborted) return;
    const frame = outcome.frame ?? lastFrame;
    const file = frame ? this.keep(episode, 'reset-failed', frame) : undefined;
    throw new Error(`reset failed: ${outcome.error}${file ? `; the window as it was is kept in ${file}` : ''}`);
  }

  async close() {
    await Promise.all([this.end?.close(), this.ready?.close()]);
  }

  private noteError(message: string) {
    if (this.errors.has(message)) return;
    this.errors.add(message);
    this.warn(`episode end detector ${message}`);
  }

  private keep(episode: number, what: 'end' | 'reset-failed', frame: EncodedFrame): string | undefined {
    try {
      return this.store.writeEvidenceFrame(episode, what, frame.data, frame.mime === 'image/png' ? 'png' : 'jpg');
    } catch (err) {
      this.warn(`could not keep the ${what} frame: ${(err as Error).message}`);
      return undefined;
    }
  }
}

export type ResetOutcome =
  | { ok: true; ms: number; frame: EncodedFrame | undefined; detail: string }
  | { ok: false; error: string; frame: EncodedFrame | undefined };

/**
 * Sends the profile's reset steps once and waits for the new game: ready when a `ready` detector
 * fires, or else when no end detector fires and the frame differs from `endFrame` (when given).
 * Used between episodes and by the editor's "try reset".
 */
export async function resetGame(
  d: Pick<EpisodeEndsDeps, 'profile' | 'look' | 'send' | 'windowSize'>,
  detectors: { end: Detectors | undefined; ready: Detectors | undefined },
  endFrame: EncodedFrame | undefined,
  signal: AbortSignal,
): Promise<ResetOutcome> {
  const reset = d.profile.episode.reset;
  if (!reset) return { ok: false, error: 'the profile declares no reset', frame: undefined };
  const started = performance.now();
  const expanded = resetActions(d.profile, await d.windowSize());
  if (!expanded.ok) return { ok: false, error: expanded.error, frame: undefined };
  const out = await d.send(expanded.actions, signal);
  const refused = out.find((o) => !o.ok);
  if (refused)
    return { ok: false, error: `the reset's ${refused.action} was not sent: ${refused.error}`, frame: undefined };
  const deadline = started + reset.timeout * 1000;
  let why = 'the window was not looked at';
  let last: EncodedFrame | undefined;
  while (!signal.aborted) {
    const now = await d.look(signal);
    last = now.frame ?? last;
    const verdict = await readyNow(now, detectors, endFrame, signal);
    if (verdict.ready)
      return { ok: true, ms: Math.round(performance.now() - started), frame: now.frame, detail: verdict.why };
    why = verdict.why;
    if (performance.now() + RESET_POLL_MS > deadline) break;
    await sleep(RESET_POLL_MS, signal).catch(() => undefined);
  }
  return { ok: false, error: `no new game within ${reset.timeout} s: ${why}`, frame: last };
}

async function readyNow(
  now: WindowNow,
  detectors: { end: Detectors | undefined; ready: Detectors | undefined },
  endFrame: EncodedFrame | undefined,
  signal: AbortSignal,
): Promise<{ ready: boolean; why: string }> {
  if (now.gone) return { ready: false, why: 'the window is gone' };
  if (!now.frame) return { ready: false, why: 'the window cannot be seen' };
  const over = (await detectors.end?.first(now, undefined, signal))?.hit;
  if (over) return { ready: false, why: `the end detector ${over.label} still fires (${over.detail})` };
  if (detectors.ready) {
    const { hit, errors } = await detectors.ready.first(now, undefined, signal);
    return hit
      ? { ready: true, why: `${hit.label}: ${hit.detail}` }
      : {
          ready: false,
          why: `no ready detector fires${errors.length ? ` (${errors.map((e) => `${e.label}: ${e.error}`).join('; ')})` : ''}`,
        };
  }
  if (!endFrame) return { ready: true, why: 'no end detector fires' };
  const changed = await changedShare(endFrame, now.frame);
  return changed >= CHANGED_SHARE
    ? {
        ready: true,
        why: `no end detector fires and ${(changed * 100).toFixed(1)} % of the window differs from the end frame`,
      }
    : { ready: false, why: `the window still shows the end frame (${(changed * 100).toFixed(2)} % of it differs)` };
}

/** The share of pixels (grey, by more than 16 of 255) that differ between two frames of one window. */
async function changedShare(a: EncodedFrame, b: EncodedFrame): Promise<number> {
  if (a.width !== b.width || a.height !== b.height) return 1;
  const sharp = await loadSharp();
  const grey = (f: EncodedFrame) => sharp(f.data).greyscale().raw().toBuffer();
  const [x, y] = await Promise.all([grey(a), grey(b)]);
  let n = 0;
  for (let i = 0; i < x.length; i++) if (Math.abs(x[i]! - y[i]!) > 16) n++;
  return x.length ? n / x.length : 0;
}

/** What a session hands over to follow its window's episode ends. */
export interface WindowParts {
  /** The profile's folder: its templates are beside it. */
  profileDir: string;
  judge?: RoleEndpoint | undefined;
  /** Sends the reset: an executor without the profile's allowedKeys (they bind the model). */
  executor: ActionExecutor;
}

/**
 * The episode ends of a profiled window (not a built-in game), or undefined when its profile
 * declares neither end nor reset.
 */
export function windowEpisodeEnds(
  deps: Pick<SessionDeps, 'profile' | 'episodeEnd' | 'target' | 'store'>,
  s: {
    view: TargetView;
    sender: ActionSender;
    takeover: TakeoverDesk;
    encode: EncodeOptions;
    warn: (m: string) => void;
  },
): EpisodeEnds | undefined {
  const { profile, episodeEnd, target, store } = deps;
  if (!profile || !episodeEnd || target.game) return undefined;
  const ep = profile.episode;
  if (!ep.end && !ep.reset) return undefined;
  const p = { ...s, ...episodeEnd, target };
  const look = async (): Promise<WindowNow> => {
    let title: string;
    try {
      title = (await p.target.locate()).title;
    } catch {
      return { frame: undefined, title: undefined, gone: true };
    }
    if (p.target.pid && !pidAlive(p.target.pid)) return { frame: undefined, title, gone: true };
    return { frame: await p.view.frameNow(p.encode), title, gone: false };
  };
  const send = async (actions: GuiAction[], signal: AbortSignal): Promise<ActionOutcome[]> => {
    // A person holding the controls (an episode can end on its time limit during a takeover) is
    // never pressed over: the reset is not sent, and the run says why.
    if (p.takeover.open) return [{ action: 'input', ok: false, error: 'a person has the controls' }];
    const w = await p.target.locate();
    const { width, height } = w.bounds;
    // Window pixels are the image's: the reset is laid out on the window, not on a model's frame.
    const geometry = frameGeometryOf(w, w.bounds, { scale: 1, width, height });
    // The person's input path is told this input is Gamepilot's, as an agent step's is.
    const done = p.takeover.agentActs(Date.now());
    try {
      return await p.sender.perform(actions, geometry, w.id, p.executor, signal);
    } finally {
      done(Date.now());
    }
  };
  const windowSize = async () => {
    const { width, height } = (await p.target.locate()).bounds;
    return { width, height };
  };
  return new EpisodeEnds({ profile, profileDir: p.profileDir, judge: p.judge, look, send, windowSize }, store, p.warn);
}
