/** What a reflection produces, as the session reports it and reflections.jsonl keeps it. */
import type { ReflectionMode } from '../domain.ts';

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

/** What one reflection call looked at: the frames' times and how they were sent. */
export interface LessonInput {
  source: string;
  frames: number[];
  /** `video`: one MP4 of those frames as a `video_url` part; `frames`: one image part each (absent before: frames). */
  input?: 'video' | 'frames';
  video_bytes?: number;
  /** Why the video was not sent or was refused, when frames went instead (--reflect-video auto). */
  video_note?: string;
}

/** One reflection after an episode: its lesson, or why there is none. */
export interface ReflectionRecord {
  after_episode: number;
  lesson?: Lesson;
  error?: string;
}
