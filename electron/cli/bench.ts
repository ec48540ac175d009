/**
 * `gamepilot bench`: what the harness costs per step, measured on this machine.
 * Stage figures: a 1280×800 capture, its encode to a 1024-wide JPEG, one key injection.
 * Loop figure: steps per second on built-in 2048 with an agent that answers instantly.
 * `--record`: the human-baseline recorder's frame rate and dropped frames on built-in 2048.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NutCapturer } from '../capture/nut-capturer.ts';
import { encodeFrame } from '../capture/encode.ts';
import { loadNut } from '../input/nut.ts';
import { percentile, now } from '../util/time.ts';
import { createWindowManager } from '../../native/index.ts';
import { getGame } from '../../games/index.ts';
import { BuiltinTarget } from '../session/targets.ts';
import { Session } from '../session/session.ts';
import { RunStore } from '../store/run-store.ts';
import { SolverAgent } from '../agents/baselines.ts';
import { Recorder, DEFAULT_RECORDER } from '../recording/recorder.ts';

export interface Stat {
  p50: number;
  p95: number;
}

export interface BenchResult {
  region: { width: number; height: number };
  encoded: { width: number; height: number; bytes_p50: number };
  iterations: number;
  capture_ms: Stat;
  encode_ms: Stat;
  input_ms: Stat;
  step_overhead_p50_ms: number;
  step_overhead_p95_ms: number;
  loop: { game: string; steps: number; seconds: number; steps_per_second: number; step_ms: Stat };
}

const stat = (v: number[]): Stat => ({ p50: r2(percentile(v, 50)), p95: r2(percentile(v, 95)) });
const r2 = (n: number) => Math.round(n * 100) / 100;

export async function runBench(opts: {
  iterations: number;
  loopSteps: number;
  log: (s: string) => void;
}): Promise<BenchResult> {
  const nut = await loadNut();
  const width = Math.min(1280, await nut.screen.width());
  const height = Math.min(800, await nut.screen.height());
  const wm = createWindowManager();
  // A real game fills the captured region, so the encoder sees real content, not an empty desktop.
  const target = await BuiltinTarget.open(getGame('2048'), wm, { x: 0, y: 0, width, height });
  const out = mkdtempSync(path.join(tmpdir(), 'gamepilot-bench-'));
  try {
    await wm.focus((await target.locate()).id);
    const stages = await measureStages(opts.iterations, { width, height }, opts.log);
    opts.log(`bench: loop of ${opts.loopSteps} steps on built-in 2048 with an instant agent`);
    const store = RunStore.create(out, {
      kind: 'agent',
      game: '2048',
      target: { kind: 'builtin', label: target.label },
      agent: 'solver',
      model: null,
      action_space: 'gui',
      config: {},
    });
    const session = new Session(
      { target, agent: new SolverAgent(), capturer: new NutCapturer(), wm, store },
      { space: 'gui', episodes: 1, maxSteps: opts.loopSteps, seed: 1 },
    );
    const stepMs: number[] = [];
    session.on('step', (r) => stepMs.push(r.latency_ms.total));
    const t0 = now();
    const result = await session.run();
    const seconds = (now() - t0) / 1000;
    const steps = result.episodes.reduce((n, e) => n + e.steps, 0);
    return {
      ...stages,
      loop: { game: '2048', steps, seconds: r2(seconds), steps_per_second: r2(steps / seconds), step_ms: stat(stepMs) },
    };
  } finally {
    await target.close();
    rmSync(out, { recursive: true, force: true });
  }
}

async function measureStages(
  iterations: number,
  region: { width: number; height: number },
  log: (s: string) => void,
): Promise<Omit<BenchResult, 'loop'>> {
  const nut = await loadNut();
  const capturer = new NutCapturer();
  const cap: number[] = [];
  const enc: number[] = [];
  const inp: number[] = [];
  const total: number[] = [];
  const sizes: number[] = [];
  let encoded = { width: 0, height: 0 };
  log(`bench: ${iterations} × (capture ${region.width}×${region.height} → JPEG long side 1024 → one key)`);
  for (let i = 0; i < iterations + 3; i++) {
    const t0 = now();
    const raw = await capturer.grab({ x: 0, y: 0, ...region });
    const t1 = now();
    const frame = await encodeFrame(raw, { longSide: 1024, format: 'jpeg', quality: 80 });
    const t2 = now();
    await nut.keyboard.pressKey(nut.Key.LeftShift);
    await nut.keyboard.releaseKey(nut.Key.LeftShift);
    const t3 = now();
    if (i < 3) continue; // warm-up
    cap.push(t1 - t0);
    enc.push(t2 - t1);
    inp.push(t3 - t2);
    total.push(t3 - t0);
    sizes.push(frame.data.length);
    encoded = { width: frame.width, height: frame.height };
  }
  return {
    region,
    encoded: { ...encoded, bytes_p50: percentile(sizes, 50) },
    iterations,
    capture_ms: stat(cap),
    encode_ms: stat(enc),
    input_ms: stat(inp),
    step_overhead_p50_ms: r2(percentile(total, 50)),
    step_overhead_p95_ms: r2(percentile(total, 95)),
  };
}

export function formatBench(b: BenchResult): string {
  const row = (name: string, s: Stat) =>
    `  ${name.padEnd(10)} p50 ${String(s.p50).padStart(7)} ms   p95 ${String(s.p95).padStart(7)} ms`;
  return [
    `harness cost per step (${b.region.width}×${b.region.height} → ${b.encoded.width}×${b.encoded.height} JPEG, ${b.iterations} iterations)`,
    row('capture', b.capture_ms),
    row('encode', b.encode_ms),
    row('input', b.input_ms),
    `  overhead   p50 ${b.step_overhead_p50_ms} ms   p95 ${b.step_overhead_p95_ms} ms`,
    `loop on built-in ${b.loop.game}, instant agent: ${b.loop.steps_per_second} steps/s (${b.loop.steps} steps in ${b.loop.seconds} s; step p50 ${b.loop.step_ms.p50} ms)`,
  ].join('\n');
}

export interface RecordBenchResult {
  window: { width: number; height: number };
  target_fps: number;
  seconds: number;
  frames: number;
  dropped: number;
  fps: number;
  /** Dropped frames as a percentage of the frames the rate asked for. */
  drop_pct: number;
  /** Extra figures the recorder reports about its drops and encoding, when it has them. */
  details: Record<string, unknown>;
}

/**
 * Records built-in 2048 for `seconds` at `fps`, the way a participant's session is recorded,
 * while the board changes several times a second (moves applied to the engine, so the window
 * redraws without injected input). The session folder is thrown away afterwards.
 */
export async function runRecordBench(opts: {
  seconds: number;
  fps: number;
  size: { width: number; height: number };
  writers?: number;
  log: (s: string) => void;
}): Promise<RecordBenchResult> {
  const wm = createWindowManager();
  const target = await BuiltinTarget.open(getGame('2048'), wm, { x: 0, y: 0, ...opts.size });
  const out = mkdtempSync(path.join(tmpdir(), 'gamepilot-bench-rec-'));
  const moves = ['left', 'up', 'right', 'down'];
  let n = 0;
  const player = setInterval(() => {
    if (target.game.instance.isOver()) target.game.reset(++n, 0);
    else target.game.applyMove(moves[n++ % 4]!);
  }, 350);
  try {
    opts.log(
      `bench: recording built-in 2048 at ${opts.size.width}×${opts.size.height}, ${opts.fps} fps, for ${opts.seconds} s`,
    );
    const recorder = new Recorder(
      { target, wm, capturer: new NutCapturer() },
      { participant: 'bench', role: 'expert', trial: 1, stage: 'bench', consent: true },
      {
        ...DEFAULT_RECORDER,
        fps: opts.fps,
        durationS: opts.seconds,
        ...(opts.writers ? { writers: opts.writers } : {}),
      },
      out,
    );
    const s = await recorder.start();
    // session_dir, id, events, score and ignored_events are taken out only to leave them out of `details`.
    const { session_dir, id, frames, dropped, duration_s, fps, events, score, ignored_events, ...details } = s;
    return {
      window: opts.size,
      target_fps: opts.fps,
      seconds: duration_s,
      frames,
      dropped,
      fps,
      drop_pct: r2((100 * dropped) / Math.max(1, frames + dropped)),
      details,
    };
  } finally {
    clearInterval(player);
    await target.close();
    rmSync(out, { recursive: true, force: true });
  }
}

export function formatRecordBench(b: RecordBenchResult): string {
  const extra = Object.entries(b.details)
    .map(([k, v]) => `${k} ${typeof v === 'object' ? JSON.stringify(v) : v}`)
    .join(', ');
  return [
    `recorder on built-in 2048 at ${b.window.width}×${b.window.height}, ${b.target_fps} fps asked, ${b.seconds} s`,
    `  ${b.fps} fps, ${b.frames} frames, ${b.dropped} dropped (${b.drop_pct} %)${extra ? `\n  ${extra}` : ''}`,
  ].join('\n');
}
