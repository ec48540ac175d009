/**
 * Latency modes: how the world waits for the model around each step.
 *   stop   — frozen from capture until the model has answered; runs while the actions apply,
 *            then a fixed interval more before the next capture.
 *   slow   — frozen for a fixed buffer after each capture, then runs while the model thinks.
 *   normal — never waits.
 *   lcrt   — frozen during the call, then runs for the model's own compute time before acting.
 * Acting is not thinking: in every mode the world runs while the actions apply, so a held key
 * (KEY_DOWN … WAIT … KEY_UP, a PRESS with a duration, a slow drag) holds in game time. It is
 * frozen again only for the next inference.
 */
import type { World } from './world.ts';
import { sleep } from '../util/time.ts';
import type { LatencyMode } from '../domain.ts';

export interface LatencySettings {
  stopIntervalMs: number;
  slowBufferMs: number;
}

export const DEFAULT_LATENCY: LatencySettings = { stopIntervalMs: 2000, slowBufferMs: 5000 };

export interface ClockPolicy {
  readonly mode: LatencyMode;
  /** Right before the frame is captured. */
  beforeCapture(world: World): Promise<void>;
  /** Right after the capture, while the model starts thinking. */
  afterCapture(world: World): void;
  /** The model has answered; the actions are about to be applied. Leaves the world running. */
  beforeAct(world: World, computeMs: number, signal: AbortSignal): Promise<void>;
  /** The actions were applied (input injected, holds released). */
  afterAct(world: World, signal: AbortSignal): Promise<void>;
  /** The step or run ends early: cancel timers (the caller thaws the world). */
  cancel(): void;
}

export function createClockPolicy(
  mode: LatencyMode,
  s: LatencySettings = DEFAULT_LATENCY,
  onThaw: () => void = () => {},
): ClockPolicy {
  let bufferTimer: NodeJS.Timeout | undefined;
  const cancel = () => {
    clearTimeout(bufferTimer);
    bufferTimer = undefined;
  };
  const freezes = mode !== 'normal';
  return {
    mode,
    async beforeCapture(world) {
      if (freezes) await world.freeze();
      else await world.thaw();
    },
    afterCapture(world) {
      if (mode === 'slow') bufferTimer = setTimeout(() => void world.thaw().then(onThaw), s.slowBufferMs);
    },
    async beforeAct(world, computeMs, signal) {
      cancel(); // slow: the buffer ends where the actions begin
      if (mode === 'lcrt') await world.advance(computeMs, signal);
      await world.thaw();
    },
    async afterAct(world, signal) {
      cancel();
      await world.thaw();
      if (mode === 'stop') await sleep(s.stopIntervalMs, signal);
    },
    cancel,
  };
}

/**
 * The policy for one target: a game that realises a mode through its own idle limit (GameVerse's
 * Snake: slow = a 20 s time-out, not a 5 s freeze and then 20 s more) is never frozen in it.
 */
export function clockPolicyFor(
  mode: LatencyMode,
  s: LatencySettings,
  onThaw: () => void,
  realtime?: { idleOnlyModes?: readonly string[] },
): ClockPolicy {
  if (!realtime?.idleOnlyModes?.includes(mode)) return createClockPolicy(mode, s, onThaw);
  return { ...createClockPolicy('normal', s, onThaw), mode };
}
