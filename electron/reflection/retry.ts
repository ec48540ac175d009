/**
 * Reflect-and-retry around a session: after each failed (or every) episode the reflector
 * watches that episode (and the tutorial), and its lessons fill the learned-experience slot of
 * the next attempt's system prompt. Every reflection is appended to reflections.jsonl with its
 * provenance; a failing reflection is recorded and the run goes on with what it had.
 *
 * run.json's `reflection` says how the run reflected and which episodes were played with
 * lessons (and whose): those count as VR = Yes on the leaderboard, the others as VR = No.
 */
import type { GameDefinition } from '../../games/types.ts';
import type { EpisodeSummary, LessonSource, RunReflection } from '../store/run-store.ts';
import type { Session } from '../session/session.ts';
import type { VlmAgent } from '../agents/vlm.ts';
import { Reflector, reflectorModelFor, type ReflectorSettings } from './reflector.ts';
import type { ReflectionRecord } from '../session/reflection-records.ts';
import type { ReflectAfter, ReflectionMode } from '../domain.ts';
import { runTrajectory, type Trajectory } from '../scoring/trajectory.ts';
import { loadSampling, type ReflectionSample } from './sampling.ts';
import { tutorialSha256 } from '../store/tutorial-identity.ts';

export interface RetryOptions {
  mode: ReflectionMode;
  after: ReflectAfter;
  /** An episode scoring below this failed. */
  successScore: number;
  /** The frames of each reflection call; `budget` says how the count was chosen (sampling.ts). */
  sample: ReflectionSample;
  reflector: ReflectorSettings;
  /** Who chose the reflector's video mode (run.json's reflection.video_source). */
  videoSource?: RunReflection['video_source'];
}

export class ReflectAndRetry {
  readonly records: ReflectionRecord[] = [];
  /** Index of the first episode played with lessons, if any. */
  firstWithLessons: number | null = null;
  private reflector: Reflector;
  /** Where the lessons now in the prompt came from (null: none yet). */
  private source: LessonSource | null = null;
  private readonly lessons: RunReflection['lessons'] = [];
  /** The tutorial's hash, taken once (its file may be large): null when there is none or it cannot be read. */
  private readonly tutorialSha256: string | null;

  constructor(
    readonly opts: RetryOptions,
    private readonly agent: VlmAgent,
    private readonly game: GameDefinition | undefined,
    private readonly tutorial: Trajectory | undefined,
  ) {
    this.reflector = new Reflector(this.reflectorSettings());
    this.tutorialSha256 = tutorial ? tutorialSha256(tutorial.source) : null;
  }

  private reflectorSettings(): ReflectorSettings {
    return { ...this.opts.reflector, sample: this.opts.sample };
  }

  /** Lessons edited by a person replace the reflector's before the next attempt. */
  setLessons(text: string) {
    this.agent.setExperience(text);
    this.source = text.trim() ? 'edited' : null;
  }

  /** Switches the mode for the next reflection; `other` needs a different reflector model. */
  setMode(mode: ReflectionMode, reflectorModel?: string) {
    const model = reflectorModelFor(
      mode,
      this.agent.model,
      reflectorModel ?? (mode === 'other' && this.opts.mode === 'other' ? this.opts.reflector.model : undefined),
    );
    this.opts.mode = mode;
    if (model !== this.opts.reflector.model) {
      this.opts.reflector = { ...this.opts.reflector, model };
      this.reflector = new Reflector(this.reflectorSettings());
    }
  }

  /** What run.json records about reflection so far. */
  summary(): RunReflection {
    return {
      mode: this.opts.mode,
      reflector_model: this.opts.mode === 'none' ? null : this.opts.reflector.model,
      after: this.opts.after,
      success_score: this.opts.successScore,
      tutorial: this.tutorial?.source ?? null,
      tutorial_sha256: this.tutorialSha256,
      frames: {
        fps: this.opts.sample.fps,
        max_side: this.opts.sample.maxSide,
        ...this.opts.sample.budget,
      },
      video: this.opts.reflector.video ?? 'off',
      ...(this.opts.videoSource ? { video_source: this.opts.videoSource } : {}),
      lessons: [...this.lessons],
    };
  }

  /** Each finished episode (the last one too): was it played with lessons? */
  readonly onEpisode = (e: EpisodeSummary, session: Session) => {
    if (this.agent.playedWithExperience) this.lessons.push({ episode: e.episode, source: this.source ?? 'given' });
    session.store.update({ reflection: this.summary() });
  };

  readonly afterEpisode = async (e: EpisodeSummary, session: Session): Promise<void> => {
    if (this.opts.mode === 'none') return;
    if ((this.opts.mode === 'self-t' || this.opts.mode === 'self') && !this.tutorial) {
      this.records.push({
        after_episode: e.episode,
        error: `reflection ${this.opts.mode} needs a tutorial; none is loaded`,
      });
      session.reportReflection(this.records.at(-1)!);
      return;
    }
    const failed = e.score === null || e.score < this.opts.successScore;
    if (this.opts.after === 'failed' && !failed) return;
    const rec: ReflectionRecord = { after_episode: e.episode };
    try {
      const needsFailure = this.opts.mode !== 'self-t';
      const failure = needsFailure
        ? await runTrajectory(
            session.store.dir,
            loadSampling(this.opts.sample, this.opts.reflector.video ?? 'off'),
            e.episode,
          )
        : undefined;
      const lesson = await this.reflector.reflect(
        this.opts.mode,
        this.game,
        {
          ...(failure ? { failure } : {}),
          ...(this.tutorial ? { tutorial: this.tutorial } : {}),
        },
        session.stopSignal,
      );
      rec.lesson = lesson;
      if (lesson.text) {
        this.agent.setExperience(lesson.text);
        this.source = this.opts.mode;
        this.firstWithLessons ??= e.episode + 1;
      }
    } catch (err) {
      rec.error = (err as Error).message;
    }
    this.records.push(rec);
    session.store.appendFile('reflections.jsonl', `${JSON.stringify(rec)}\n`);
    session.reportReflection(rec);
  };

  /** Scores of the episodes played without and with lessons (VR = No and VR = Yes). */
  compare(episodes: EpisodeSummary[]) {
    const taught = new Set(this.lessons.map((l) => l.episode));
    const scores = (list: EpisodeSummary[]) => list.map((e) => e.score).filter((s): s is number => s !== null);
    const mean = (v: number[]) => (v.length ? Math.round((v.reduce((a, b) => a + b, 0) / v.length) * 100) / 100 : null);
    const without = scores(episodes.filter((e) => !taught.has(e.episode)));
    const withLessons = scores(episodes.filter((e) => taught.has(e.episode)));
    return { without, with: withLessons, mean_without: mean(without), mean_with: mean(withLessons) };
  }
}
