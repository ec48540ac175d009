/**
 * Records a person playing: frames of the target window at a set rate, and global input on the
 * same clock, translated into the action schema. The session folder is a run (kind "human"),
 * so it is listed, scored and replayed like agent runs.
 *
 * Threads keep the frame rate: the clock and the grabs run in a capture thread (capture.ts),
 * encoding and writing in a small pool of writer threads (frame-pool.ts), and the focus and
 * window checks, which start helper programs on X11, in a watcher thread (window-watch.ts).
 * This thread keeps the input, the index and the replay steps. When the writers are all busy a
 * frame is skipped at once rather than taken late, and the summary says which drops came from
 * where (late ticks vs. busy writers).
 */
import { EventEmitter } from 'node:events';
import { closeSync, openSync, writeSync } from 'node:fs';
import { writeFileAtomic } from '../util/atomic-file.ts';
import { log } from '../util/log.ts';
import path from 'node:path';
import type { WindowManager, Rect } from '../../native/types.ts';
import type { ScreenCapturer } from '../capture/capturer.ts';
import type { Target } from '../session/targets.ts';
import { profileRecord } from '../session/profile-record.ts';
import type { ProfileEntry } from '../profiles/registry.ts';
import { RunStore, type StepRecord } from '../store/run-store.ts';
import { tutorialSha256 } from '../store/tutorial-identity.ts';
import { listenGlobalInput, keyNames } from '../input/global-hook.ts';
import { InputTranslator, type RecordedEvent } from './input-translator.ts';
import type { FrameDone } from './frame-pool.ts';
import { InOrder } from './in-order.ts';
import { WindowWatch, type WatchReport } from './window-watch.ts';
import { startCapture } from './capture.ts';
import { frameFile, type CaptureStats } from './capture-run.ts';
import { percentile } from '../util/time.ts';
import type { RecordingResult, Role } from '../domain.ts';

export interface SessionInfo {
  participant: string;
  role: Role;
  trial: number;
  /** Protocol stage: a rookie plays "play-1", watches the "tutorial", plays "play-2"; an expert plays once ("play"). Default by role. */
  stage?: string;
  consent: boolean;
  /** The tutorial the participant watched (a run or session folder, a video, a frames folder), as `--tutorial` names it. */
  tutorial?: string;
  /**
   * Seed of a built-in game (default 0, as for `run`). Trial t is played as an agent's episode
   * t − 1 of that seed: the same board, and in Tic-Tac-Toe the same side (X in odd trials).
   */
  seed?: number;
}

/** The agent episode a person's trial of a built-in game replays (trials count from 1). */
export const episodeOfTrial = (trial: number) => trial - 1;

export interface RecorderOptions {
  fps: number;
  /** Stop by itself after this long (s); also stops when a built-in game ends. */
  durationS?: number;
  quality: number;
  /** A replay step is sampled this often (ms), carrying the input since the previous one. */
  sampleMs: number;
  /** Frame writer threads (default: one a core, at most 3). */
  writers?: number;
}

/** The stage a session records when none is named: a rookie's first play, an expert's only one. */
export function defaultStage(role: Role): string {
  return role === 'rookie' ? 'play-1' : 'play';
}

export const DEFAULT_RECORDER: RecorderOptions = { fps: 30, quality: 75, sampleMs: 500 };

export type RecordingSummary = RecordingResult & {
  /** Input seen outside the window or its focus: counted, never stored. */
  ignored_events: number;
  /** Ticks missed because the capture itself ran late (a stalled machine). */
  dropped_late: number;
  /** Frames skipped because every writer thread was busy and the queue was full. */
  dropped_busy: number;
  writers: number;
  grab_ms: { p50: number; p95: number };
  encode_ms: { p50: number; p95: number };
  /** Why frames were dropped, in words, when any were. */
  drop_note: string | null;
};

/** A sentence on where dropped frames came from, or null when none were. */
export function describeDrops(d: {
  late: number;
  busy: number;
  writers: number;
  fps: number;
  encodeP50: number;
}): string | null {
  if (d.late + d.busy === 0) return null;
  const parts: string[] = [];
  if (d.busy)
    parts.push(
      `${d.busy} skipped because all ${d.writers} frame writer thread(s) were busy (encode p50 ${d.encodeP50} ms at ${d.fps} fps): a lower frame rate or a free core helps`,
    );
  if (d.late) parts.push(`${d.late} missed because the capture ran late (the machine stalled)`);
  return parts.join('; ');
}

type Captured = { t: number; file: string; step?: StepRecord };

/** How a recording is going: counted frames and events, and its frame rate so far. */
export interface RecordingProgress {
  id: string;
  frames: number;
  dropped: number;
  events: number;
  seconds: number;
  fps: number;
}

/** Everything a Recorder emits: progress about twice a second, and its summary once done. */
export interface RecorderEvents {
  /** Input is heard and the first frame is being taken: from now on the person's play is kept. */
  started: [];
  progress: [RecordingProgress];
  done: [RecordingSummary];
}

export class Recorder extends EventEmitter<RecorderEvents> {
  readonly store: RunStore;
  /** The protocol stage this session records. */
  readonly stage: string;
  private stopped = false;
  private frames = 0;
  private dropped = 0;
  private events = 0;
  private started = 0;
  private bounds!: Rect;
  private focused = true;
  private failure?: Error;
  private done?: Promise<RecordingSummary>;
  private stopRequested?: () => void;

  constructor(
    private readonly deps: {
      target: Target;
      wm: WindowManager;
      capturer: ScreenCapturer;
      /** The title's profile the session follows (a window's, matched or chosen): the tables key the session by it. */
      profile?: ProfileEntry | undefined;
    },
    private readonly info: SessionInfo,
    private readonly opts: RecorderOptions,
    outDir: string,
  ) {
    super();
    if (!info.consent) throw new Error('recording needs the participant’s consent');
    if (!/^[\w.-]{1,64}$/.test(info.participant))
      throw new Error('participant id: use a pseudonym of letters, digits, dot, dash or underscore');
    this.stage = info.stage ?? defaultStage(info.role);
    if (!/^[\w-]{1,32}$/.test(this.stage))
      throw new Error(
        `stage "${this.stage}": use letters, digits, dash or underscore (rookie: play-1, tutorial, play-2; expert: play)`,
      );
    const game = deps.target.game?.def.id ?? null;
    this.store = RunStore.create(outDir, {
      kind: 'human',
      game,
      target: { kind: deps.target.kind, label: deps.target.label },
      agent: `human-${info.role}`,
      model: null,
      action_space: 'gui',
      config: {
        participant: info.participant,
        role: info.role,
        trial: info.trial,
        stage: this.stage,
        fps: opts.fps,
        ...(info.tutorial ? { tutorial: info.tutorial, tutorial_sha256: tutorialSha256(info.tutorial) } : {}),
        ...(game ? { seed: info.seed ?? 0, episode: episodeOfTrial(info.trial) } : {}),
      },
      stage: this.stage, // the leaderboard's human rows: rookie play-1 = VR No, play-2 = VR Yes; expert = —
      ...(deps.profile ? { profile: profileRecord(deps.profile) } : {}),
    });
  }

  get id() {
    return this.store.meta.id;
  }

  progress(): RecordingProgress {
    const seconds = this.started ? (performance.now() - this.started) / 1000 : 0;
    return {
      id: this.id,
      frames: this.frames,
      dropped: this.dropped,
      events: this.events,
      seconds: Math.round(seconds * 10) / 10,
      fps: seconds ? Math.round((this.frames / seconds) * 10) / 10 : 0,
    };
  }

  /** Starts recording; resolves with the summary once it has stopped. */
  start(): Promise<RecordingSummary> {
    this.done ??= this.record();
    return this.done;
  }

  stop() {
    this.stopped = true;
    this.stopRequested?.();
  }

  private writeSessionJson(extra: Record<string, unknown>) {
    writeFileAtomic(
      path.join(this.store.dir, 'session.json'),
      JSON.stringify({ ...this.info, game: this.store.meta.game, target: this.deps.target.label, ...extra }, null, 2),
    );
  }

  private async record(): Promise<RecordingSummary> {
    const { target, wm, capturer } = this.deps;
    const game = target.game;
    if (game) {
      // A fresh game for this trial, on the game's own running clock: a real-time built-in
      // (Snake) moves by itself after its normal time-out, exactly as for an agent.
      game.reset(this.info.seed ?? 0, episodeOfTrial(this.info.trial));
      await game.shows(3000);
    }
    const win = await target.locate();
    this.bounds = win.bounds;
    await wm.focus(win.id);
    const startedAt = new Date();
    this.writeSessionJson({ start: startedAt.toISOString(), end: null, fps: this.opts.fps });
    log()
      .child({ run: this.id })
      .info(
        {
          dir: this.store.dir,
          target: target.label,
          game: game?.def.id ?? null,
          role: this.info.role,
          participant: this.info.participant,
          trial: this.info.trial,
          stage: this.stage,
          fps: this.opts.fps,
        },
        'recording started',
      );
    const eventsFd = openSync(path.join(this.store.dir, 'events.jsonl'), 'a');
    const indexFd = openSync(path.join(this.store.dir, 'frames.jsonl'), 'a');
    const encodeMs: number[] = [];
    let steps = 0;
    let sample: RecordedEvent[] = [];
    let nextSample = Infinity;
    // Frames finish out of order across writer threads; the index and the replay steps are
    // written in capture order, each once its frame is on disk.
    const order = new InOrder<Captured>((c, ok, i) => {
      if (ok) {
        writeSync(indexFd, `${JSON.stringify({ i, t: c.t, file: c.file })}\n`);
        this.frames++;
      }
      // A step whose frame could not be written keeps its input, without the frame.
      if (c.step) this.store.appendStep(ok ? c.step : { ...c.step, frame: null });
    });
    let translator: InputTranslator | undefined;
    let unlisten: (() => void) | undefined;
    let watch: WindowWatch | undefined;
    let housekeeping: NodeJS.Timeout | undefined;
    let stats: CaptureStats | undefined;
    try {
      const names = await keyNames();
      const t = new InputTranslator(
        (e) => {
          writeSync(eventsFd, `${JSON.stringify(e)}\n`);
          this.events++;
          sample.push(e);
        },
        (code) => names.get(code),
      );
      translator = t;
      unlisten = await listenGlobalInput((e) => t.feed(e, { window: this.bounds, focused: this.focused }));

      const capture = await startCapture(
        capturer,
        {
          settings: {
            fps: this.opts.fps,
            ...(this.opts.durationS ? { durationS: this.opts.durationS } : {}),
            dir: this.store.dir,
          },
          bounds: this.bounds,
          quality: this.opts.quality,
          ...(this.opts.writers ? { writers: this.opts.writers } : {}),
        },
        {
          started: () => {
            this.started = nextSample = performance.now();
            this.emit('started');
          },
          captured: (i, tCapture, width, height, dropped) => {
            this.dropped = dropped;
            const file = frameFile(i);
            let step: StepRecord | undefined;
            if (performance.now() >= nextSample) {
              step = {
                step: steps++,
                episode: 0,
                t_capture: tCapture,
                frame: file,
                frame_size: { width, height, scale: 1 },
                window: this.bounds,
                reasoning: '',
                raw: null,
                actions: sample.map(({ action_type, parameters }) => ({ action_type, parameters })),
                errors: [],
                latency_ms: { locate: 0, capture: 0, encode: 0, model: 0, act: 0, total: 0 },
                ...(game ? { score: game.instance.score(), game_state: game.instance.snapshot() } : { score: null }),
              };
              sample = [];
              while (nextSample <= performance.now()) nextSample += this.opts.sampleMs;
            }
            order.add(i, { t: tCapture, file, ...(step ? { step } : {}) });
          },
          written: (d: FrameDone) => {
            if (!('error' in d)) encodeMs.push(d.encodeMs);
            order.finish(d.i, !('error' in d));
          },
        },
      );
      this.stopRequested = () => capture.stop();
      if (this.stopped) capture.stop();

      // Follow the window (twice a second) and its focus (ten times a second: keys typed into
      // another window must not be kept) from a thread of its own.
      const w = WindowWatch.start({ windowId: win.id, focusMs: 100, boundsEvery: 5 });
      watch = w;
      const relocate = async () => {
        try {
          const found = await target.locate(); // again under a new id, or gone for good
          this.bounds = found.bounds;
          capture.follow(found.bounds);
          w.follow(found.id);
        } catch {
          this.stop();
        }
      };
      w.on('report', (r: WatchReport) => {
        if (r.kind === 'focus') this.focused = r.focused;
        else if (r.kind === 'bounds') {
          this.bounds = r.bounds;
          capture.follow(r.bounds);
        } else if (r.kind === 'gone') void relocate();
        else this.stop(); // minimized, or focus unknown: stop rather than record what is behind it or keep keys typed elsewhere
      });
      let ticks = 0;
      let overSince = 0;
      housekeeping = setInterval(() => {
        t.flush(Date.now());
        if (ticks++ % 5 === 0) this.emit('progress', this.progress());
        // A built-in game that ended stops the recording a second later (the final board is seen).
        if (game?.instance.isOver() && !this.opts.durationS) {
          overSince ||= performance.now();
          if (performance.now() - overSince >= 1000) this.stop();
        }
      }, 100);
      stats = await capture.done;
      if (stats.error) this.failure = new Error(stats.error);
    } catch (err) {
      this.failure = err as Error;
    } finally {
      clearInterval(housekeeping);
      await watch?.stop();
      unlisten?.();
      translator?.flush(Number.POSITIVE_INFINITY);
      closeSync(eventsFd);
      order.abandonRest();
      closeSync(indexFd);
    }
    const now = Date.now();
    return this.finish(
      startedAt,
      steps,
      stats ?? { startedAt: now, endedAt: now, droppedLate: 0, droppedBusy: 0, writers: 0, grabMs: { p50: 0, p95: 0 } },
      encodeMs,
      translator?.ignored ?? 0,
    );
  }

  private finish(
    startedAt: Date,
    steps: number,
    stats: CaptureStats,
    encodeMs: number[],
    ignored: number,
  ): RecordingSummary {
    const game = this.deps.target.game;
    const duration = Math.max(0.001, (stats.endedAt - stats.startedAt) / 1000);
    const score = game ? Math.round(game.instance.score() * 100) / 100 : null;
    const r1 = (n: number) => Math.round(n * 10) / 10;
    const encode = {
      p50: encodeMs.length ? r1(percentile(encodeMs, 50)) : 0,
      p95: encodeMs.length ? r1(percentile(encodeMs, 95)) : 0,
    };
    const dropped = stats.droppedLate + stats.droppedBusy;
    const drops = {
      dropped_late: stats.droppedLate,
      dropped_busy: stats.droppedBusy,
      writers: stats.writers,
      grab_ms: stats.grabMs,
      encode_ms: encode,
      drop_note: describeDrops({
        late: stats.droppedLate,
        busy: stats.droppedBusy,
        writers: stats.writers,
        fps: this.opts.fps,
        encodeP50: encode.p50,
      }),
    };
    const summary: RecordingSummary = {
      session_dir: this.store.dir,
      id: this.id,
      frames: this.frames,
      dropped,
      duration_s: Math.round(duration * 100) / 100,
      events: this.events,
      ignored_events: ignored,
      score,
      fps: r1(this.frames / duration),
      ...drops,
    };
    this.writeSessionJson({
      start: startedAt.toISOString(),
      end: new Date().toISOString(),
      fps: this.opts.fps,
      frames: this.frames,
      dropped,
      events: this.events,
      score,
      ...drops,
      ...(this.failure ? { error: this.failure.message } : {}),
    });
    this.store.update({
      episodes: [
        {
          episode: 0,
          seed: game?.seed ?? 0,
          score,
          steps,
          end: game?.instance.isOver() ? 'game_over' : this.stopped ? 'stopped' : 'duration',
        },
      ],
      mean: score,
      std: score === null ? null : 0,
    });
    const rlog = log().child({ run: this.id });
    if (this.failure)
      rlog.error(
        { frames: this.frames, dropped, events: this.events, error: this.failure.message },
        'recording failed',
      );
    else rlog.info({ frames: this.frames, dropped, events: this.events, fps: summary.fps, score }, 'recording ended');
    if (this.failure) {
      this.store.close('failed', this.failure.message);
      throw new Error(`recording stopped: ${this.failure.message} (${this.frames} frames kept in ${this.store.dir})`);
    }
    this.store.close('completed');
    this.emit('done', summary);
    return summary;
  }
}
