/** The small commands: windows, games, leaderboard, video, bench. */
import path from 'node:path';
import { createWindowManager } from '../../native/index.ts';
import { BUILTIN_GAMES, TWO_SEAT_GAMES } from '../../games/index.ts';
import { exportVideo } from '../recording/video.ts';
import { formatLeaderboard, leaderboard } from '../store/leaderboard.ts';
import { leftOutLines } from '../store/run-quality.ts';
import { formatBench, formatRecordBench, runBench, runRecordBench } from './bench.ts';
import { io } from './io.ts';
import { localRunsDir } from './runs-source.ts';
import { formatStartupBench, runStartupBench } from './bench-startup.ts';
import type { BenchFlags, LeaderboardFlags } from './command-flags.ts';
import { UsageError } from './options.ts';
import { noDisplayText } from '../session/preflight.ts';

/**
 * The windows on this desktop. None is said on stderr (stdout stays the list): exit 0 when the
 * display has no windows, 1 when there is no display to list (Linux: DISPLAY unset or not opening).
 */
export async function windowsCommand(o: { json?: boolean }): Promise<number> {
  const wm = createWindowManager();
  let list: Awaited<ReturnType<typeof wm.list>>;
  try {
    list = await wm.list();
  } catch (err) {
    if (!wm.platform.startsWith('linux')) throw err;
    io.log(`gamepilot windows: no windows to list: ${noDisplayText(err)}`);
    return 1;
  }
  if (!list.length)
    io.progress(
      `no windows: ${process.env.DISPLAY ? `the X display ${process.env.DISPLAY}` : 'this desktop'} has no top-level windows open`,
    );
  if (o.json) io.out(JSON.stringify(list));
  else
    for (const w of list)
      io.out(
        `${w.id}  pid ${String(w.pid).padEnd(7)} ${w.bounds.width}×${w.bounds.height}+${w.bounds.x}+${w.bounds.y} ×${w.scaleFactor}  ${w.title}${w.minimized ? '  [minimized]' : ''}`,
      );
  return 0;
}

/** Every built-in game, one seat or two, with the commands that play it. */
export function gamesCommand(o: { json?: boolean }, playedBy: ReadonlyMap<string, string[]>): number {
  const games = [...Object.values(BUILTIN_GAMES), ...Object.values(TWO_SEAT_GAMES)].map((g) => ({
    id: g.id,
    title: g.title,
    seats: g.seats ? 2 : 1,
    ...(g.seats ? { mode: g.seats.mode } : {}),
    max_steps: g.defaultMaxSteps,
    trials: g.trials,
    max_moves_per_step: g.maxActionsPerStep ?? null,
    spaces: ['gui', 'semantic'],
    commands: playedBy.get(g.id) ?? [],
  }));
  if (o.json) io.out(JSON.stringify(games));
  else
    for (const g of games)
      io.out(
        `${g.id.padEnd(14)} ${g.title} (${g.seats === 2 ? `2 seats, ${g.mode === 'pvp' ? 'PvP' : 'co-op'}` : '1 seat'}, max steps ${g.max_steps}, ${g.trials} trial${g.trials === 1 ? '' : 's'}${g.max_moves_per_step ? `, ${g.max_moves_per_step} move a step` : ''}); played by ${g.commands.join(', ')}`,
      );
  return 0;
}

/**
 * The leaderboard, and under it what it left out (failed runs with their errors, invalid
 * episodes with their reasons); with --json the rows stay the whole of stdout and what was left
 * out goes to stderr.
 */
export async function leaderboardCommand(o: LeaderboardFlags): Promise<number> {
  const { dir } = await localRunsDir(o.runsDir);
  const { rows, failed, invalid, warnings } = leaderboard(dir, o.game ? { game: o.game } : {});
  for (const w of warnings) io.log(`warning: ${w}`);
  const apart = leftOutLines(failed, invalid);
  if (o.json) {
    io.out(JSON.stringify(rows));
    for (const line of apart) io.log(`not pooled: ${line}`);
  } else
    io.out(
      [formatLeaderboard(rows), ...(apart.length ? ['', 'not pooled:', ...apart.map((l) => `  ${l}`)] : [])].join('\n'),
    );
  return 0;
}

export async function videoCommand(dir: string, o: { out?: string }): Promise<number> {
  const file = await exportVideo(path.resolve(dir), o.out ? path.resolve(o.out) : undefined, {
    overwrite: true,
    warn: (w) => io.log(`warning: ${w}`),
  });
  io.out(file);
  return 0;
}

export async function benchCommand(o: BenchFlags): Promise<number> {
  if (o.soak === undefined && (o.game !== undefined || o.keepFrames !== undefined))
    throw new UsageError('--game and --keep-frames go with --soak');
  if (o.soak !== undefined) return soakCommand(o.soak, o);
  if (o.storage !== undefined) {
    const { runStorageBench, formatStorageBench } = await import('./bench-storage.ts');
    const result = await runStorageBench({
      where: o.storage,
      runsDir: o.runsDir,
      log: o.json ? () => {} : io.progress,
    });
    io.out(o.json ? JSON.stringify(result) : formatStorageBench(result));
    return 0;
  }
  if (o.startup) {
    const result = await runStartupBench({ runs: o.runs, log: o.json ? () => {} : io.progress });
    io.out(o.json ? JSON.stringify(result) : formatStartupBench(result));
    return 0;
  }
  if (o.record) {
    const result = await runRecordBench({
      seconds: o.seconds,
      fps: o.fps,
      size: o.windowSize,
      ...(o.writers !== undefined ? { writers: o.writers } : {}),
      log: o.json ? () => {} : io.progress,
    });
    io.out(o.json ? JSON.stringify(result) : formatRecordBench(result));
    return 0;
  }
  const result = await runBench({
    iterations: o.iterations,
    loopSteps: o.loopSteps,
    ...(o.compare ? { compare: true } : {}),
    ...(o.python ? { python: o.python } : {}),
    log: o.json ? () => {} : io.progress,
  });
  io.out(o.json ? JSON.stringify(result) : formatBench(result));
  return 0;
}

/** `bench --soak`: Ctrl+C (or SIGTERM) ends it early and still reports what was measured. */
async function soakCommand(minutes: number, o: BenchFlags): Promise<number> {
  const { runSoakBench, formatSoak } = await import('./bench-soak.ts');
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const result = await runSoakBench({
      minutes,
      game: o.game ?? '2048',
      ...(o.keepFrames ? { keepFrames: o.keepFrames } : {}),
      log: o.json ? () => {} : io.progress,
      signal: stop.signal,
    });
    io.out(o.json ? JSON.stringify(result) : formatSoak(result));
    return result.ok ? 0 : 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
