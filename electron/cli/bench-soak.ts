/**
 * `gamepilot bench --soak MINUTES`: the real session loop for a long time, watched from outside.
 * It starts `gamepilot run --game G --agent solver` exactly as a person would (a child process
 * of its own, episodes restarting as they end) and samples that process every 10 s: resident
 * memory (VmRSS), open file handles (/proc/PID/fd), steps played, and the game window's memory
 * for information. At the end: steps per second and the run folder's bytes per step. Measuring
 * the run's own process keeps the bench's bookkeeping out of the figures.
 *
 * The bound is on the RSS floor, the lowest RSS read (once a second) in each 10 s, which a leak
 * raises and the GC's sawtooth (±25 MB here) does not: the floor at the end may exceed the floor
 * after the warm-up (the first minute, or the first third of a shorter soak) by at most
 * SOAK_RSS_BOUND_MB; more fails the bench (exit 1), as does a run that failed or crashed.
 */
import { procStatFields } from '../util/owner.ts';
import { MAX_EPISODES } from '../run-spec.ts';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cliCommand } from '../util/resources.ts';
import { endListedWindowGroups, endProcessGroup } from '../games/window-groups.ts';
import { round2 } from '../domain.ts';

/** Seconds between samples. */
export const SOAK_SAMPLE_S = 10;
/** Longest warm-up (s): the samples before it are not held to the bound. */
export const SOAK_WARMUP_MAX_S = 60;
/** How much the run's RSS may grow after the warm-up (MB) before the soak fails. */
export const SOAK_RSS_BOUND_MB = 50;
/** Time the run has to play its first step. */
const FIRST_STEP_TIMEOUT_MS = 120_000;
/** Time the run has to stop after SIGINT before its group is killed. */
const STOP_GRACE_MS = 30_000;

export interface SoakSample {
  /** Seconds since the first step. */
  t_s: number;
  steps: number;
  rss_mb: number | null;
  /** The lowest RSS read (once a second) since the sample before: the floor a leak raises, whatever the GC's sawtooth does. */
  rss_floor_mb: number | null;
  fds: number | null;
  /** The game window's processes (its host and helpers), summed; null where there is no /proc. */
  window_rss_mb: number | null;
}

/** A figure over the soak: at the first step, after the warm-up, its maximum, at the end. */
export interface SoakFigure {
  start: number | null;
  after_warmup: number | null;
  max: number | null;
  end: number | null;
}

export interface SoakResult {
  game: string;
  agent: 'solver';
  minutes: number;
  /** The run as started (its folder is a temporary one, removed afterwards). */
  command: string;
  pid: number;
  /** Played: from the first step to the stop. */
  seconds: number;
  steps: number;
  episodes: number;
  steps_per_second: number;
  sample_every_s: number;
  warmup_s: number;
  rss_mb: SoakFigure;
  /** The RSS floors (lowest of each 10 s); the bound is on their growth after the warm-up. */
  rss_floor_mb: SoakFigure & { growth_after_warmup: number | null };
  window_rss_mb: SoakFigure | null;
  /** Open file handles of the run process; null where there is no /proc (not Linux). */
  fds: SoakFigure | null;
  bytes_written: number;
  bytes_per_step: number | null;
  rss_bound_mb: number;
  rss_ok: boolean;
  run_status: string;
  run_error?: string;
  /** The run ended by itself before the time was up. */
  ended_early: boolean;
  keep_frames?: string;
  samples: SoakSample[];
  ok: boolean;
}

const r1 = (n: number) => Math.round(n * 10) / 10;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const linux = process.platform === 'linux';

/** Resident memory of one process (MB): /proc on Linux, `ps` elsewhere; null when unknown. */
function rssMb(pid: number): number | null {
  if (linux) {
    try {
      const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      return m ? r1(Number(m[1]) / 1024) : null;
    } catch {
      return null;
    }
  }
  if (process.platform === 'win32') return null;
  try {
    const kb = Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim());
    return Number.isFinite(kb) && kb > 0 ? r1(kb / 1024) : null;
  } catch {
    return null;
  }
}

function fdCount(pid: number): number | null {
  if (!linux) return null;
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return null;
  }
}

/** Summed RSS of every process in the listed window groups (Linux). */
function windowRssMb(folder: string): number | null {
  if (!linux) return null;
  let groups: Set<number>;
  try {
    groups = new Set(readdirSync(folder).map(Number));
  } catch {
    return 0; // nothing listed yet
  }
  let total = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const pgrp = Number(procStatFields(Number(name))[2]); // field 5, pgrp
      if (groups.has(pgrp)) total += rssMb(Number(name)) ?? 0;
    } catch {
      /* gone meanwhile */
    }
  }
  return r1(total);
}

/** Bytes of every file under `dir`. */
function folderBytes(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    try {
      if (e.isDirectory()) total += folderBytes(p);
      else if (e.isFile()) total += statSync(p).size;
    } catch {
      /* removed meanwhile */
    }
  }
  return total;
}

interface RunState {
  dir: string;
  status: string;
  steps: number;
  episodes: number;
  error?: string;
}

/** The run folder's run.json (rewritten atomically after every step), once there is one. */
function readRun(out: string): RunState | undefined {
  if (!existsSync(out)) return undefined;
  for (const name of readdirSync(out)) {
    const file = path.join(out, name, 'run.json');
    if (!existsSync(file)) continue;
    try {
      const m = JSON.parse(readFileSync(file, 'utf8')) as {
        status: string;
        error?: string | null;
        totals: { steps: number };
        episodes: unknown[];
      };
      return {
        dir: path.join(out, name),
        status: m.status,
        steps: m.totals.steps,
        episodes: m.episodes.length,
        ...(m.error ? { error: m.error } : {}),
      };
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function figure(values: (number | null)[], warmIndex: number): SoakFigure {
  const known = values.filter((v): v is number => v !== null);
  return {
    start: values[0] ?? null,
    after_warmup: values[warmIndex] ?? null,
    max: known.length ? Math.max(...known) : null,
    end: values.at(-1) ?? null,
  };
}

export async function runSoakBench(opts: {
  minutes: number;
  game: string;
  keepFrames?: string;
  log: (s: string) => void;
  /** Ends the soak early (Ctrl+C): the figures so far are reported. */
  signal?: AbortSignal;
}): Promise<SoakResult> {
  const cli = cliCommand();
  if ('refused' in cli) throw new Error(cli.refused);
  const tmp = mkdtempSync(path.join(tmpdir(), 'gamepilot-soak-'));
  const out = path.join(tmp, 'runs');
  const windows = path.join(tmp, 'window-groups');
  const runArgs = [
    'run',
    '--game',
    opts.game,
    '--agent',
    'solver',
    '--episodes',
    String(MAX_EPISODES), // more than any soak plays (30 min: under 100): episodes restart as they end
    ...(opts.keepFrames ? ['--keep-frames', opts.keepFrames] : []),
    '--runs-dir',
    out,
    '--json',
    '--quiet',
  ];
  const duration = opts.minutes * 60;
  const warmupS = Math.min(
    SOAK_WARMUP_MAX_S,
    Math.max(SOAK_SAMPLE_S, Math.floor(duration / 3 / SOAK_SAMPLE_S) * SOAK_SAMPLE_S),
  );
  const child = spawn(cli.command, [...cli.args, ...runArgs], {
    env: { ...process.env, ...cli.env, GAMEPILOT_WINDOW_GROUPS: windows },
    detached: process.platform !== 'win32', // its own group: a stop reaches the run and all it started
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d).slice(-4000)));
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    child.on('error', () => {
      exited = true;
      resolve();
    });
    child.on('exit', () => {
      exited = true;
      resolve();
    });
  });
  const pid = child.pid;
  const signalRun = (sig: NodeJS.Signals) => {
    try {
      if (pid && process.platform !== 'win32') process.kill(-pid, sig);
      else child.kill(sig);
    } catch {
      /* gone */
    }
  };
  try {
    if (!pid) throw new Error(`could not start ${cli.command}`);
    opts.log(
      `soak: built-in ${opts.game}, solver agent, ${opts.minutes} min in one run (pid ${pid}); a sample every ${SOAK_SAMPLE_S} s, warm-up ${warmupS} s, RSS bound +${SOAK_RSS_BOUND_MB} MB after it`,
    );
    // The clock starts at the first step: start-up (Node, the game's window) is not the loop.
    const waitUntil = Date.now() + FIRST_STEP_TIMEOUT_MS;
    while (!exited && !opts.signal?.aborted && !((readRun(out)?.steps ?? 0) > 0)) {
      if (Date.now() > waitUntil) throw new Error(`the run played no step within ${FIRST_STEP_TIMEOUT_MS / 1000} s`);
      await sleep(250);
    }
    if (exited && !readRun(out))
      throw new Error(`the run ended before its first step: ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
    const t0 = Date.now();
    const samples: SoakSample[] = [];
    let floor: number | null = null;
    const readFloor = () => {
      const v = rssMb(pid);
      if (v !== null) floor = floor === null ? v : Math.min(floor, v);
      return v;
    };
    const sample = () => {
      const rss = readFloor();
      const s: SoakSample = {
        t_s: Math.round((Date.now() - t0) / 1000),
        steps: readRun(out)?.steps ?? 0,
        rss_mb: rss,
        rss_floor_mb: floor,
        fds: fdCount(pid),
        window_rss_mb: windowRssMb(windows),
      };
      samples.push(s);
      floor = rss;
      opts.log(
        `soak: ${s.t_s} s, ${s.steps} steps, rss ${s.rss_mb ?? 'n/a'} MB, ${s.fds ?? 'n/a'} open files, window ${s.window_rss_mb ?? 'n/a'} MB`,
      );
    };
    const endAt = t0 + duration * 1000;
    if (!exited) sample();
    for (let k = 1; !exited && !opts.signal?.aborted && Date.now() < endAt; k++) {
      const at = Math.min(t0 + k * SOAK_SAMPLE_S * 1000, endAt);
      for (let tick = Date.now(); !exited && !opts.signal?.aborted && Date.now() < at; ) {
        await sleep(Math.min(250, at - Date.now()));
        if (Date.now() - tick >= 1000) {
          tick = Date.now();
          readFloor();
        }
      }
      if (!exited) sample(); // the last one at the end, while the run still plays
    }
    const endedEarly = exited;
    const played = (Date.now() - t0) / 1000;
    signalRun('SIGINT'); // as Ctrl+C: the run stops, releases held input, closes its window, writes run.json
    const killTimer = setTimeout(() => signalRun('SIGKILL'), STOP_GRACE_MS);
    await exit;
    clearTimeout(killTimer);
    const run = readRun(out);
    const steps = run?.steps ?? samples.at(-1)?.steps ?? 0;
    const bytes = run ? folderBytes(run.dir) : 0;
    const warmIndex = samples.findIndex((s) => s.t_s >= warmupS);
    const rss = figure(
      samples.map((s) => s.rss_mb),
      warmIndex,
    );
    const floors = figure(
      samples.map((s) => s.rss_floor_mb),
      warmIndex,
    );
    const growth =
      warmIndex >= 0 && warmIndex < samples.length - 1 && floors.after_warmup !== null && floors.end !== null
        ? r1(floors.end - floors.after_warmup)
        : null;
    const rssOk = growth === null || growth <= SOAK_RSS_BOUND_MB;
    const status = run?.status ?? 'unknown';
    return {
      game: opts.game,
      agent: 'solver',
      minutes: opts.minutes,
      command: `gamepilot ${runArgs.map((a) => (a === out ? '<tmp>' : a)).join(' ')}`,
      pid,
      seconds: r1(played),
      steps,
      episodes: run?.episodes ?? 0,
      steps_per_second: played > 0 ? round2(steps / played) : 0,
      sample_every_s: SOAK_SAMPLE_S,
      warmup_s: warmupS,
      rss_mb: rss,
      rss_floor_mb: { ...floors, growth_after_warmup: growth },
      window_rss_mb: linux
        ? figure(
            samples.map((s) => s.window_rss_mb),
            warmIndex,
          )
        : null,
      fds: linux
        ? figure(
            samples.map((s) => s.fds),
            warmIndex,
          )
        : null,
      bytes_written: bytes,
      bytes_per_step: steps > 0 ? Math.round(bytes / steps) : null,
      rss_bound_mb: SOAK_RSS_BOUND_MB,
      rss_ok: rssOk,
      run_status: status,
      ...(run?.error ? { run_error: run.error } : {}),
      ended_early: endedEarly,
      ...(opts.keepFrames ? { keep_frames: opts.keepFrames } : {}),
      samples,
      ok: rssOk && status !== 'failed' && status !== 'crashed' && !!run,
    };
  } finally {
    if (!exited) {
      signalRun('SIGKILL');
      await exit;
    }
    if (pid && process.platform !== 'win32') await endProcessGroup(pid, 1000);
    await endListedWindowGroups(windows); // a window the run could not close (it was killed)
    rmSync(tmp, { recursive: true, force: true });
  }
}

const mb = (v: number | null) => (v === null ? 'n/a' : `${v} MB`);
const n = (v: number | null) => (v === null ? 'n/a' : String(v));

export function formatSoak(r: SoakResult): string {
  const fig = (f: SoakFigure, unit: (v: number | null) => string) =>
    `start ${unit(f.start)}, after warm-up ${unit(f.after_warmup)}, max ${unit(f.max)}, end ${unit(f.end)}`;
  const g = r.rss_floor_mb.growth_after_warmup;
  const verdict =
    g === null
      ? 'not checked (the soak ended before a sample after the warm-up)'
      : `${g >= 0 ? '+' : ''}${g} MB after warm-up (bound +${r.rss_bound_mb} MB): ${r.rss_ok ? 'ok' : 'FAILED'}`;
  return [
    `soak: built-in ${r.game}, solver agent, ${r.minutes} min in one run (${r.command}); a sample every ${r.sample_every_s} s, warm-up ${r.warmup_s} s`,
    `  steps       ${r.steps} in ${r.seconds} s: ${r.steps_per_second} steps/s, ${r.episodes} episode(s); the run ended ${r.run_status}${r.ended_early ? ' before the time was up' : ''}${r.run_error ? ` (${r.run_error})` : ''}`,
    `  rss         ${fig(r.rss_mb, mb)}`,
    `  rss floor   ${fig(r.rss_floor_mb, mb)} (lowest of each ${r.sample_every_s} s): ${verdict}`,
    `  window rss  ${r.window_rss_mb ? `${fig(r.window_rss_mb, mb)} (the game window's processes; not bounded)` : 'n/a (no /proc)'}`,
    `  open files  ${r.fds ? fig(r.fds, n) : 'n/a (no /proc)'}`,
    `  disk        ${r1(r.bytes_written / 1e6)} MB written: ${r.bytes_per_step === null ? 'n/a' : `${r1(r.bytes_per_step / 1000)} kB`} per step${r.keep_frames ? ` (--keep-frames ${r.keep_frames})` : ''}`,
    `  samples     ${r.samples.map((s) => `${s.t_s} s: ${s.steps} steps, ${mb(s.rss_mb)}, ${n(s.fds)} fds`).join('; ')}`,
    r.ok
      ? 'soak: ok'
      : `soak: FAILED${r.rss_ok ? ` (the run ended ${r.run_status})` : ` (RSS grew more than ${r.rss_bound_mb} MB after the warm-up)`}`,
  ].join('\n');
}
