/**
 * The protocol a run was played under, as one short stable name: the latency mode and every
 * setting that changes what the mode does — stop's interval after acting, slow's buffer, and how
 * the world is frozen (a built-in's engine clock, a window's process, or its pause key). Runs
 * under two protocols are two measurements: OmniGameArena's PDQ is stop with no interval,
 * GameVerse's Stop runs the world 2 s after acting, and no table pools them.
 */
import { DEFAULT_LATENCY } from '../latency/clock-policy.ts';
import type { RunMeta } from './run-store.ts';

export interface RunProtocol {
  /** The latency mode (`config.latency`, normal when absent). */
  latency: string;
  /** The mode with its own setting and the freeze method: "stop 2000 ms, freeze engine", "normal". */
  protocol: string;
  /**
   * The protocol family: everything but the mode and the mode's own setting (stop's interval,
   * slow's buffer) — today the freeze method. Modes compare only within one family; normal
   * freezes nothing and belongs to every family.
   */
  freeze: string;
}

/** How the world is frozen: a built-in's own clock, a window's pause key, else its process (SIGSTOP / NtSuspendProcess). */
function freezeOf(meta: RunMeta): string {
  if (meta.target.kind === 'builtin') return 'engine';
  const key = meta.config.pause_key;
  return typeof key === 'string' && key ? `pause key ${key}` : 'process';
}

const msOf = (v: unknown, fallback: number) => (typeof v === 'number' ? v : fallback);

export function protocolOf(meta: RunMeta): RunProtocol {
  const latency = String(meta.config.latency ?? 'normal');
  const freeze = freezeOf(meta);
  // Runs record the interval and the buffer of their own mode; a run that did not played the default.
  const setting =
    latency === 'stop'
      ? ` ${msOf(meta.config.stop_interval_ms, DEFAULT_LATENCY.stopIntervalMs)} ms`
      : latency === 'slow'
        ? ` ${msOf(meta.config.slow_buffer_ms, DEFAULT_LATENCY.slowBufferMs)} ms`
        : '';
  return { latency, protocol: latency === 'normal' ? 'normal' : `${latency}${setting}, freeze ${freeze}`, freeze };
}

/**
 * The papers' name for a protocol where one fits — OmniGameArena's PDQ (stop with no interval)
 * and LCRT, the freeze method added when it is not a built-in's engine — else the protocol itself.
 */
export function protocolLabel(p: RunProtocol): string {
  const freeze = p.freeze === 'engine' ? '' : `, freeze ${p.freeze}`;
  if (p.latency === 'stop' && p.protocol.startsWith('stop 0 ms,')) return `PDQ${freeze}`;
  if (p.latency === 'lcrt') return `LCRT${freeze}`;
  return p.protocol;
}
