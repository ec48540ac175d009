/** What every agent (VLM, baseline, human) sees and returns. */
import type { Action } from '../actions/schema.ts';
import type { ActionSpace, MemoryStepRecord } from '../domain.ts';
import type { EncodedFrame } from '../capture/encode.ts';
import type { FrameGeometry } from '../input/coordinates.ts';
import type { GameDefinition, GameInstance, HitRect } from '../../games/types.ts';
import type { RoleCallRecord } from './model-endpoint.ts';
import type { Profile } from '../profiles/profile-schema.ts';

export interface Observation {
  step: number;
  episode: number;
  frame: EncodedFrame;
  geometry: FrameGeometry;
  /** Epoch ms of the capture. */
  tCapture: number;
  /** Text rendering of the state, when the target is a built-in game. */
  gameText?: string;
  validMoves?: string[];
  /** Interactive elements of a built-in view, in window pixels. */
  hits?: HitRect[];
  /** What the previous step of this episode did; absent on an episode's first step. */
  previous?: PreviousStep;
  /** A two-seat game: what the other seat did last, in words. */
  otherSeat?: string;
}

/** The previous step as the harness saw it through: what was chosen and what became of it. */
export interface PreviousStep {
  /** The actions chosen, in the wire format the model writes. */
  actions: unknown[];
  /** One per action that was tried, in order; actions after a refusal are not tried (dropped). */
  /** `dropped`: past the game's per-step move cap, so never run. */
  outcomes: { action: string; ok: boolean; error?: string; dropped?: boolean }[];
  /** Why the step brought no usable actions, when it did not. */
  error?: string;
  /** A person had the controls since the agent's last step, and handed them back: what they did. */
  person?: string;
}

export interface DecideContext {
  actionSpace: ActionSpace;
  game?: GameDefinition;
  /** The title's profile: its prompt parts take the place of the built-in's (and of the generic prompt for a window). */
  profile?: Profile;
  /** Ground truth, offered to baselines only (the VLM agent never reads it). */
  instance?: GameInstance;
  signal: AbortSignal;
  /** Streamed answer text as it arrives. */
  onToken?: (text: string, channel: 'answer' | 'thinking') => void;
  /** The harness charges the model's compute time (LCRT): estimate it when the provider does not report it. */
  computeTime?: boolean;
  /** The memory agent's state as the step goes: after retrieval, then with what was saved. */
  onMemory?: (m: MemoryStepRecord) => void;
}

/**
 * The model's own compute time for a decision, as LCRT charges it, and how it was obtained:
 * - provider: the provider reported it (e.g. Groq's `total_time`);
 * - estimated: each answer's generation time (request sent → last byte streamed) minus one
 *   measured network round trip to the same endpoint, summed over the answers;
 * - stream: the generation time as is (no round trip could be measured; network included).
 * Retry waits and failed HTTP attempts are never part of it.
 */
export interface ComputeTime {
  ms: number;
  source: 'provider' | 'estimated' | 'stream';
  /** The measured round trip (estimated). */
  rttMs?: number;
  /** Generation time summed over the answers (estimated, stream). */
  generationMs?: number;
  /** Time to the first streamed token of the first answer. */
  ttftMs?: number;
}

export interface TokenUsage {
  input: number;
  output: number;
}

export interface Decision {
  reasoning: string;
  actions: Action[];
  /** Raw model text of the final attempt (and earlier attempts when repaired). */
  raw?: string;
  /** Why no usable actions came back, if so. */
  error?: string;
  /** Every parse failure on the way, including repaired ones. */
  parseErrors?: string[];
  usage?: TokenUsage;
  costUsd?: number | null;
  /** Wall time of model calls (retries and their waits included). */
  modelMs?: number;
  /** The model's compute time (reported, or estimated when the context asks for it). */
  compute?: ComputeTime;
  attempts?: number;
  /** Every HTTP attempt of the model calls: status, error, Retry-After asked, wait before the next. */
  calls?: RoleCallRecord[];
  /** The memory agent's summary, retrieved and saved memories (steps.jsonl's `memory`). */
  memory?: MemoryStepRecord;
  /**
   * The player ended the episode at this observation instead of answering it (an MCP client's
   * `end_episode`): no step is recorded, and the episode is scored as it stands.
   */
  endsEpisode?: true;
  /**
   * The observation was taken back before the player answered it (the run stopping, a person
   * taking over): a remote player that never answered made no step.
   */
  withdrawn?: true;
}

export interface Agent {
  readonly name: string;
  decide(obs: Observation, ctx: DecideContext): Promise<Decision>;
  /** Called when an episode starts, so stateful agents can reset. */
  resetEpisode?(): void;
}
