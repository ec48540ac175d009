/**
 * `gamepilot bench`: what the harness costs per step, measured on this machine.
 * Stage figures, on built-in 2048 filling a 1280×800 region: locate the window as a step does,
 * capture it, encode it to a 1024-wide JPEG q80, press one key into it — everything a step does
 * but the model — each iteration followed by the same work done by the machine's limit
 * (bench-limit.ts: the bare primitives, nothing around them). `--compare` alternates rounds of
 * those with the Python yardstick (bench/reference.py) doing the same work on the same region,
 * and prints the ratios. Loop figure: steps per second on built-in 2048 with an agent that
 * answers instantly.
 * `--record`: the human-baseline recorder's frame rate and dropped frames on built-in 2048.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { resources } from '../util/resources.ts';
import { createCapturer } from '../capture/index.ts';
import { encodeFrame, fitted, frameEncoder } from '../capture/encode.ts';
import { jpegSelection } from '../../native/jpeg.ts';
import { createInputBackend } from '../input/input-backend.ts';
import { percentile, now } from '../util/time.ts';
import { createWindowManager, type InputBackend, type Rect, type WindowManager } from '../../native/index.ts';
import { getGame } from '../../games/index.ts';
import { BuiltinTarget } from '../session/targets.ts';
import { Session } from '../session/session.ts';
import { TargetView } from '../session/target-view.ts';
import { RunGate } from '../session/run-gate.ts';
import { limitSamples, MachineLimit, type LimitSamples } from './bench-limit.ts';
import { RunStore } from '../store/run-store.ts';
import { SolverAgent } from '../agents/baselines.ts';
import { Recorder, DEFAULT_RECORDER } from '../recording/recorder.ts';
import type { ScreenCapturer } from '../capture/capturer.ts';
import { round2 } from '../domain.ts';

export interface Stat {
  p50: number;
  p95: number;
}

/** The Python yardstick's figures, from the same rounds. */
export interface ReferenceResult {
  command: string;
  tools: Record<string, string>;
  capture_ms: Stat;
  encode_ms: Stat;
  input_ms: Stat;
  total_ms: Stat;
}

export interface BenchResult {
  region: { width: number; height: number };
  encoded: { width: number; height: number; bytes_p50: number };
  iterations: number;
  /** What did the work: the window backend, the capture backend, the input backend. */
  backends: { windows: string; capture: string; input: string };
  /** What encoded the measured frames, e.g. 'jpeg-turbo (prebuilt)', 'libturbojpeg (system)' or 'sharp'. */
  encoder: string;
  /** The in-process encoders passed over before it, and why (empty when the first one loaded). */
  encoder_skipped: { choice: string; reason: string }[];
  locate_ms: Stat;
  capture_ms: Stat;
  encode_ms: Stat;
  input_ms: Stat;
  /** locate + capture + encode + one key, per iteration. */
  step_overhead_p50_ms: number;
  step_overhead_p95_ms: number;
  overhead_p50_ms: number;
  /**
   * The machine's limit for the same work, measured in the same run (bench-limit.ts): the bare
   * grab (XRender scale + XShmGetImage), encode (the same encoder, same size and quality) and
   * key, and their sum per iteration; absent where it cannot be measured (`limit_skipped` says why).
   */
  limit?: { grab_ms: Stat; encode_ms: Stat; key_ms: Stat; total_ms: Stat };
  limit_p50_ms?: number;
  /** overhead p50 / limit p50: how far the harness is from what the machine can do. */
  overhead_to_limit?: number;
  limit_skipped?: string;
  /** With --compare: the Python yardstick on the same region, and overhead / reference. */
  reference?: ReferenceResult;
  reference_p50_ms?: number;
  ratio?: number;
  loop: {
    game: string;
    steps: number;
    seconds: number;
    steps_per_second: number;
    step_ms: Stat;
    /** Where a loop step's time goes (the session's own latency record). */
    stages_p50_ms: Record<'locate' | 'capture' | 'encode' | 'model' | 'act' | 'wait', number>;
  };
}

const stat = (v: number[]): Stat => ({ p50: round2(percentile(v, 50)), p95: round2(percentile(v, 95)) });
/** The region measured: 1280×800 at the top left, or the screen if smaller. */
async function benchRegion(capturer: ScreenCapturer): Promise<Rect> {
  const screen = await capturer.screenBounds();
  return { x: 0, y: 0, width: Math.min(1280, screen.width), height: Math.min(800, screen.height) };
}

export async function runBench(opts: {
  iterations: number;
  loopSteps: number;
  /** Alternate with the Python yardstick; `python` names the interpreter (default: the first with Pillow and python-xlib). */
  compare?: boolean;
  python?: string;
  log: (s: string) => void;
}): Promise<BenchResult> {
  const capturer = createCapturer();
  const region = await benchRegion(capturer);
  const python = opts.compare ? findPython(opts.python) : undefined;
  const wm = createWindowManager();
  // A real game fills the captured region, so the encoder sees real content, not an empty desktop.
  const target = await BuiltinTarget.open(getGame('2048'), wm, region);
  const out = mkdtempSync(path.join(tmpdir(), 'gamepilot-bench-'));
  const stop = new AbortController();
  const limit = MachineLimit.open(region, fitted(region, BENCH_ENCODE.imageSize), BENCH_ENCODE.quality);
  try {
    await wm.focus((await target.locate()).id);
    const input = createInputBackend();
    const warn = (m: string) => opts.log(`bench: ${m}`);
    const view = new TargetView({ target, wm, capturer }, stop.signal, warn);
    const gate = new RunGate(stop.signal, { status: () => {}, warn });
    const stages = await measureRounds(
      opts.iterations,
      region,
      { view, gate, wm, capturer, input, python, limit },
      opts.log,
    );
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
      { target, agent: new SolverAgent(), capturer, wm, store },
      { actionSpace: 'gui', episodes: 1, maxSteps: opts.loopSteps, seed: 1 },
    );
    const stepMs: number[] = [];
    const stageMs = { locate: [], capture: [], encode: [], model: [], act: [], wait: [] } as Record<
      keyof BenchResult['loop']['stages_p50_ms'],
      number[]
    >;
    session.on('step', (r) => {
      stepMs.push(r.latency_ms.total);
      for (const k of Object.keys(stageMs) as (keyof typeof stageMs)[]) stageMs[k].push(r.latency_ms[k] ?? 0);
    });
    const t0 = now();
    const result = await session.run();
    const seconds = (now() - t0) / 1000;
    const steps = result.episodes.reduce((n, e) => n + e.steps, 0);
    return {
      ...stages,
      loop: {
        game: '2048',
        steps,
        seconds: round2(seconds),
        steps_per_second: round2(steps / seconds),
        step_ms: stat(stepMs),
        stages_p50_ms: Object.fromEntries(
          Object.entries(stageMs).map(([k, v]) => [k, round2(percentile(v, 50))]),
        ) as BenchResult['loop']['stages_p50_ms'],
      },
    };
  } finally {
    stop.abort();
    if (limit instanceof MachineLimit) limit.close();
    await target.close();
    rmSync(out, { recursive: true, force: true });
  }
}

/** The encoding every round measures: a JPEG of long side 1024 at quality 80, as the yardstick makes. */
const BENCH_ENCODE = { imageSize: 1024, format: 'jpeg', quality: 80 } as const;

interface RoundDeps {
  view: TargetView;
  gate: RunGate;
  wm: WindowManager;
  capturer: ScreenCapturer;
  input: InputBackend;
  python: string | undefined;
  limit: MachineLimit | { why: string };
}

/**
 * Our stages and, with a Python interpreter, the yardstick's, in three alternating rounds, so
 * that both see the same machine load; within our rounds each iteration is followed by one of
 * the machine's limit, so that the two meet the same load and the same X server (each one's
 * grab comes after the other's key).
 */
async function measureRounds(
  iterations: number,
  region: Rect,
  deps: RoundDeps,
  log: (s: string) => void,
): Promise<Omit<BenchResult, 'loop'>> {
  const rounds = 3;
  /** Round r's share of the iterations (the rounds add up to exactly `iterations`). */
  const share = (r: number) => Math.floor((iterations * (r + 1)) / rounds) - Math.floor((iterations * r) / rounds);
  const ours: Samples = { locate: [], capture: [], encode: [], input: [], total: [], bytes: [] };
  const bare = limitSamples();
  const limit = deps.limit instanceof MachineLimit ? deps.limit : undefined;
  const theirs: number[] = [];
  let reference: (ReferenceResult & { samples: number[] }) | undefined;
  let encoded = { width: 0, height: 0, encoder: '' };
  log(
    `bench: ${iterations} × (locate, capture ${region.width}×${region.height} → JPEG long side 1024 → one key)${limit ? ", each followed by the machine's limit for it" : ''}${deps.python ? ', in rounds alternating with bench/reference.py' : ''}`,
  );
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < share(r) + WARM_UP; i++) {
      const step = await ourStep(region, deps);
      const bareStep = await limit?.step();
      if (i < WARM_UP) continue;
      for (const k of ['locate', 'capture', 'encode', 'input', 'total', 'bytes'] as const) ours[k].push(step[k]);
      if (bareStep) for (const k of ['grab', 'encode', 'key', 'total'] as const) bare[k].push(bareStep[k]);
      encoded = step.encoded;
    }
    if (deps.python) {
      const ref = await runReference(deps.python, region, share(r));
      theirs.push(...ref.samples);
      reference = mergeReference(reference, ref);
    }
  }
  const overhead = round2(percentile(ours.total, 50));
  const result: Omit<BenchResult, 'loop'> = {
    region: { width: region.width, height: region.height },
    encoded: { width: encoded.width, height: encoded.height, bytes_p50: percentile(ours.bytes, 50) },
    iterations: ours.total.length,
    backends: {
      windows: deps.wm.platform,
      capture: (deps.capturer as { method?: string }).method ?? deps.capturer.name,
      input: deps.input.name,
    },
    encoder: encoded.encoder,
    encoder_skipped: jpegSelection().skipped,
    locate_ms: stat(ours.locate),
    capture_ms: stat(ours.capture),
    encode_ms: stat(ours.encode),
    input_ms: stat(ours.input),
    step_overhead_p50_ms: overhead,
    step_overhead_p95_ms: round2(percentile(ours.total, 95)),
    overhead_p50_ms: overhead,
    ...limitFields(limit ? bare : undefined, overhead, deps.limit),
  };
  if (reference) {
    const { samples, ...ref } = reference;
    const p50 = round2(percentile(theirs, 50));
    Object.assign(result, {
      reference: { ...ref, total_ms: stat(samples) },
      reference_p50_ms: p50,
      ratio: Math.round((overhead / p50) * 1000) / 1000,
    });
  }
  return result;
}

/** The limit's figures and overhead / limit, or why there are none. */
function limitFields(
  bare: LimitSamples | undefined,
  overhead: number,
  limit: RoundDeps['limit'],
): Pick<BenchResult, 'limit' | 'limit_p50_ms' | 'overhead_to_limit' | 'limit_skipped'> {
  if (!bare) return { limit_skipped: 'why' in limit ? limit.why : 'not measured' };
  const total = stat(bare.total);
  return {
    limit: { grab_ms: stat(bare.grab), encode_ms: stat(bare.encode), key_ms: stat(bare.key), total_ms: total },
    limit_p50_ms: total.p50,
    overhead_to_limit: Math.round((overhead / total.p50) * 1000) / 1000,
  };
}

interface Samples {
  locate: number[];
  capture: number[];
  encode: number[];
  input: number[];
  total: number[];
  bytes: number[];
}

/** Iterations of each round run before its figures are kept. */
const WARM_UP = 3;

/**
 * What a step does but the model, timed stage by stage: locate the window as the session does
 * (TargetView: the last look unless the window's own events say it changed, raised unless it
 * has the focus), capture as a step does (the two shared segments in turn), encode, one key.
 */
async function ourStep(region: Rect, deps: RoundDeps) {
  const t0 = now();
  if (!(await deps.view.locate(deps.gate, { raise: () => true, quietMs: RAISE_QUIET_MS })))
    throw new Error('the bench stopped');
  const t1 = now();
  const raw = await deps.capturer.grab(region, { maxLongSide: BENCH_ENCODE.imageSize, reuseBuffers: true });
  const t2 = now();
  const frame = await encodeFrame(raw, BENCH_ENCODE);
  const t3 = now();
  await deps.input.keyDown('LeftShift');
  await deps.input.keyUp('LeftShift');
  const t4 = now();
  return {
    locate: t1 - t0,
    capture: t2 - t1,
    encode: t3 - t2,
    input: t4 - t3,
    total: t4 - t0,
    bytes: frame.data.length,
    encoded: { width: frame.width, height: frame.height, encoder: frameEncoder(raw, BENCH_ENCODE) },
  };
}

/** How long the game must hold still after a raise uncovered it (the bench's window is never covered). */
const RAISE_QUIET_MS = 50;

/** The first interpreter that has Pillow and python-xlib: the one given, python3, /usr/bin/python3. */
function findPython(given: string | undefined): string {
  const candidates = given ? [given] : ['python3', '/usr/bin/python3'];
  for (const py of candidates) {
    const r = spawnSync(py, ['-c', 'import PIL.ImageGrab, Xlib.ext.xtest'], { encoding: 'utf8', timeout: 20_000 });
    if (r.status === 0) return py;
  }
  throw new Error(
    `--compare needs python3 with Pillow and python-xlib (Debian: apt-get install python3-pil python3-xlib); tried ${candidates.join(', ')}${given ? '' : '; --python names another interpreter'}`,
  );
}

function runReference(
  python: string,
  region: Rect,
  iterations: number,
): Promise<ReferenceResult & { samples: number[] }> {
  const args = [
    resources().benchReference,
    '--region',
    `${region.x},${region.y},${region.width},${region.height}`,
    '--iterations',
    String(iterations),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(python, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`bench/reference.py failed (exit ${code}): ${stderr.trim()}`));
      try {
        const r = JSON.parse(stdout) as ReferenceResult & { samples_ms: number[] };
        resolve({
          command: [python, ...args.map((a) => (a === resources().benchReference ? 'bench/reference.py' : a))].join(
            ' ',
          ),
          tools: r.tools,
          capture_ms: r.capture_ms,
          encode_ms: r.encode_ms,
          input_ms: r.input_ms,
          total_ms: r.total_ms,
          samples: r.samples_ms,
        });
      } catch {
        reject(new Error(`bench/reference.py printed no JSON: ${stdout.slice(0, 200)}`));
      }
    });
  });
}

/** Rounds of the yardstick as one: all samples, and the stage figures of the median round. */
function mergeReference(
  a: (ReferenceResult & { samples: number[] }) | undefined,
  b: ReferenceResult & { samples: number[] },
): ReferenceResult & { samples: number[] } {
  if (!a) return b;
  const pick = (x: Stat, y: Stat): Stat => ({ p50: round2((x.p50 + y.p50) / 2), p95: Math.max(x.p95, y.p95) });
  return {
    ...b,
    capture_ms: pick(a.capture_ms, b.capture_ms),
    encode_ms: pick(a.encode_ms, b.encode_ms),
    input_ms: pick(a.input_ms, b.input_ms),
    samples: [...a.samples, ...b.samples],
  };
}

export function formatBench(b: BenchResult): string {
  const row = (name: string, s: Stat) =>
    `  ${name.padEnd(10)} p50 ${String(s.p50).padStart(7)} ms   p95 ${String(s.p95).padStart(7)} ms`;
  const lines = [
    `harness cost per step (${b.region.width}×${b.region.height} → ${b.encoded.width}×${b.encoded.height} JPEG, ${b.iterations} iterations; windows ${b.backends.windows}, capture ${b.backends.capture}, input ${b.backends.input}, encoder ${b.encoder})`,
    row('locate', b.locate_ms),
    row('capture', b.capture_ms),
    row('encode', b.encode_ms),
    ...b.encoder_skipped.map((s) => `             (${s.choice} JPEG encoder not used: ${s.reason})`),
    row('input', b.input_ms),
    `  overhead   p50 ${b.step_overhead_p50_ms} ms   p95 ${b.step_overhead_p95_ms} ms`,
  ];
  if (b.limit)
    lines.push(
      `machine limit (the same work by the bare primitives: XRender scale + XShmGetImage, ${b.encoder} from the shared memory, one XTest key)`,
      row('grab', b.limit.grab_ms),
      row('encode', b.limit.encode_ms),
      row('key', b.limit.key_ms),
      `  total      p50 ${b.limit_p50_ms} ms   p95 ${b.limit.total_ms.p95} ms`,
      `overhead / limit (p50): ${b.overhead_to_limit}`,
    );
  else lines.push(`machine limit: not measured (${b.limit_skipped})`);
  if (b.reference)
    lines.push(
      `python yardstick (${b.reference.command}; Pillow ${b.reference.tools.pillow}, python-xlib ${b.reference.tools['python-xlib']})`,
      row('capture', b.reference.capture_ms),
      row('encode', b.reference.encode_ms),
      row('input', b.reference.input_ms),
      `  total      p50 ${b.reference_p50_ms} ms   p95 ${b.reference.total_ms.p95} ms`,
      `ratio (overhead / yardstick, p50): ${b.ratio}`,
    );
  const s = b.loop.stages_p50_ms;
  lines.push(
    `loop on built-in ${b.loop.game}, instant agent: ${b.loop.steps_per_second} steps/s (${b.loop.steps} steps in ${b.loop.seconds} s; step p50 ${b.loop.step_ms.p50} ms: locate ${s.locate}, capture ${s.capture}, encode ${s.encode}, act ${s.act}, wait ${s.wait})`,
  );
  return lines.join('\n');
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
      { target, wm, capturer: createCapturer() },
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
      drop_pct: round2((100 * dropped) / Math.max(1, frames + dropped)),
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
