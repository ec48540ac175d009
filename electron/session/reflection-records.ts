/** What a reflection produces, as the session reports it and reflections.jsonl keeps it. */
import type { ImageDetail, ReflectionMode } from '../domain.ts';

export interface Lesson {
  text: string;
  diagnosis: string;
  mode: ReflectionMode;
  model: string;
  provenance: { failure?: LessonInput; tutorial?: LessonInput };
  tokens: { input: number; output: number };
  cost_usd: number | null;
  /** Why the lesson is empty or was cut, if it was. */
  note?: string;
}

/** Where a reflection's context figure came from: the flag, the provider's model list, the known-models table, or the default. */
export type ContextSource = 'flag' | 'provider' | 'known-model' | 'default';

/** The frame budget of a reflection (reflection/sampling.ts), as run.json and reflections.jsonl record it. */
export interface FrameBudget {
  context_tokens: number;
  context_source: ContextSource;
  detail: ImageDetail;
  tokens_per_frame: number;
  /** How many frames the budget allows (capped by max_frames_asked). */
  max_frames: number;
  max_frames_asked: number | null;
}

/** What one reflection call looked at: the times of the frames sent and how they were sent. */
export interface LessonInput {
  source: string;
  frames: number[];
  /** `video`: one MP4 of those frames as a `video_url` part; `frames`: one image part each (absent before: frames). */
  input?: 'video' | 'frames';
  /** The budget images were held to (absent before it was recorded per call). */
  budget?: FrameBudget;
  video_bytes?: number;
  /** Seconds of play the video spans. */
  video_seconds?: number;
  /** The frames the trajectory had at the sampling rate when some were dropped to fit the provider's size limit. */
  video_thinned_from?: number;
  /** Why the video was not sent or was refused, when frames went instead (--reflect-video auto). */
  video_note?: string;
}

/** One reflection after an episode: its lesson, or why there is none. */
export interface ReflectionRecord {
  after_episode: number;
  lesson?: Lesson;
  error?: string;
}
