/** What every agent (VLM, baseline, human) sees and returns. */
import type { Action } from '../actions/schema.ts';
import type { ActionSpace } from '../actions/parse.ts';
import type { EncodedFrame } from '../capture/encode.ts';
import type { FrameGeometry } from '../input/coordinates.ts';
import type { GameDefinition, GameInstance, HitRect } from '../../games/types.ts';
import type { ModelCallRecord } from './model-call.ts';

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
}

/** The previous step as the harness saw it through: what was chosen and what became of it. */
export interface PreviousStep {
  /** The actions chosen, in the wire format the model writes. */
  actions: unknown[];
  /** One per action that was tried, in order; actions after a refusal are not tried (dropped). */
  outcomes: { action: string; ok: boolean; error?: string }[];
  /** Why the step brought no usable actions, when it did not. */
  error?: string;
}

export interface DecideContext {
  space: ActionSpace;
  game?: GameDefinition;
  /** Ground truth, offered to baselines only (the VLM agent never reads it). */
  instance?: GameInstance;
  signal: AbortSignal;
  /** Streamed answer text as it arrives. */
  onToken?: (text: string, channel: 'answer' | 'thinking') => void;
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
  /** Wall time of model calls, and the provider's own timing where it reports one. */
  modelMs?: number;
  /** The provider's own report of compute time, when it gives one (ms). */
  providerComputeMs?: number;
  attempts?: number;
  /** Every HTTP attempt of the model calls: status, error, Retry-After asked, wait before the next. */
  calls?: ModelCallRecord[];
}

export interface Agent {
  readonly name: string;
  decide(obs: Observation, ctx: DecideContext): Promise<Decision>;
  /** Called when an episode starts, so stateful agents can reset. */
  resetEpisode?(): void;
}
