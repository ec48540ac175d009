/** What a reflection produces, as the session reports it and reflections.jsonl keeps it. */
import type { ReflectionMode } from '../domain.ts';

export interface Lesson {
  text: string;
  diagnosis: string;
  mode: ReflectionMode;
  model: string;
  provenance: { failure?: { source: string; frames: number[] }; tutorial?: { source: string; frames: number[] } };
  tokens: { input: number; output: number };
  cost_usd: number | null;
  /** Why the lesson is empty or was cut, if it was. */
  note?: string;
}

/** One reflection after an episode: its lesson, or why there is none. */
export interface ReflectionRecord {
  after_episode: number;
  lesson?: Lesson;
  error?: string;
}
