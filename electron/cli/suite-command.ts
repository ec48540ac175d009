/**
 * `gamepilot suite ingvp`: ING-VP's games × settings × levels with a model, the solver or random
 * moves; progress on stderr (levels done / total, ETA, running accuracy), the paper-style table
 * on stdout (with --json, one JSON object). Ctrl+C stops after the level in play is abandoned;
 * the same command again resumes.
 */
import path from 'node:path';
import { createWindowManager } from '../../native/index.ts';
import { BuiltinTarget } from '../session/targets.ts';
import { createCapturer } from '../capture/index.ts';
import { DEFAULT_VLM } from '../agents/vlm.ts';
import { addSecret } from '../util/log.ts';
import { INGVP_GAME_IDS } from '../../games/ingvp/games.ts';
import { RandomPlayer, SolverPlayer, VlmPlayer, type Player } from '../ingvp/players.ts';
import { parseLevels, parseMazeSteps, parseSettings } from '../ingvp/ingvp-settings.ts';
import { formatTable } from '../ingvp/table.ts';
import { runSuite, type SuiteProgress } from '../ingvp/suite.ts';
import { io } from './io.ts';
import { UsageError } from './options.ts';
import { modelRule, namedAsFlags, RunSpecError, sayFields } from '../run-spec.ts';
import type { SuiteFlags } from './command-flags.ts';
import { preflight, suitePlan } from '../session/preflight.ts';
import { preflightExit } from './preflight-exit.ts';
import { usd, type CostMeter } from '../agents/cost-meter.ts';
import { checkCapPriced, meterFor, priceOf } from '../session/run-meter.ts';

/** The suite's player; a model player counts every call on `meter` (the suite's cap covers all its levels). */
export function playerFrom(o: SuiteFlags, meter?: CostMeter): Player {
  if (o.agent === 'solver') return new SolverPlayer();
  if (o.agent === 'random') return new RandomPlayer(o.seed);
  if (!o.model) throw new UsageError(sayFields(modelRule('vlm'), namedAsFlags));
  addSecret(o.apiKey);
  try {
    checkCapPriced(o, [{ field: 'model', model: o.model }]);
  } catch (err) {
    if (err instanceof RunSpecError) throw new UsageError(err.as(namedAsFlags));
    throw err;
  }
  const price = priceOf(o);
  return new VlmPlayer({
    ...DEFAULT_VLM,
    model: o.model,
    ...(o.baseUrl ? { baseUrl: o.baseUrl } : {}),
    ...(o.apiKey ? { apiKey: o.apiKey } : {}),
    ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
    ...(o.maxTokens !== undefined ? { maxTokens: o.maxTokens } : {}),
    timeoutMs: o.timeoutMs,
    maxRetries: o.maxRetries,
    thinking: o.thinking ?? false,
    ...(price ? { price } : {}),
    ...(meter ? { meter } : {}),
  });
}

function parsed<T>(what: () => T): T {
  try {
    return what();
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export function suiteGames(v: string | undefined): string[] {
  if (!v || v === 'all') return [...INGVP_GAME_IDS];
  const ids = v
    .split(',')
    .map((s) => s.trim())
    .map((s) => (s === 'maze' ? 'ingvp-maze' : s));
  const bad = ids.filter((id) => !INGVP_GAME_IDS.includes(id));
  if (bad.length) throw new UsageError(`unknown ING-VP game ${bad.join(', ')}: use ${INGVP_GAME_IDS.join(', ')}`);
  return INGVP_GAME_IDS.filter((id) => ids.includes(id));
}

const minutes = (ms: number) => (ms < 60_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 60_000).toFixed(1)} min`);

function progressLine(p: SuiteProgress): string | undefined {
  if (!p.last) return undefined;
  const l = p.last;
  const eta = p.etaMs === null ? '' : `, ETA ${minutes(p.etaMs)}`;
  return `[${p.done}/${p.total}${eta}, accuracy ${p.accuracy.toFixed(1)}%] ${l.game} ${l.setting} level ${l.level}: ${l.solved ? 'solved' : 'not solved'}, completion ${l.completion}, efficiency ${l.efficiency} (${l.changed}/${l.actions}) in ${l.ms} ms`;
}

export async function suiteCommand(name: string, o: SuiteFlags): Promise<number> {
  if (name !== 'ingvp') throw new UsageError(`unknown suite "${name}" (suites: ingvp)`);
  const games = suiteGames(o.games);
  const settings = parsed(() => parseSettings(o.settings));
  const levels = parsed(() => parseLevels(o.levels));
  const mazeSteps = o.mazeSteps === undefined ? [] : parsed(() => parseMazeSteps(o.mazeSteps!));
  const meter = meterFor(o, o.model);
  const player = playerFrom(o, meter);
  const wm = createWindowManager();
  // Only a model's suite is checked first; the solver's and random moves' need nothing but windows.
  if (o.preflight && player instanceof VlmPlayer) {
    const refused = await preflightExit(() => preflight(suitePlan(player.settings), wm));
    if (refused !== undefined) return refused;
  }
  const abort = new AbortController();
  const onSignal = () => {
    io.log('stopping the suite: the level in play is dropped and played again on resume');
    abort.abort(new Error('stopped'));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const uptime = performance.now();
  const suiteDir = o.out ?? path.join(o.runsDir, 'ingvp');
  try {
    const r = await runSuite({
      games,
      settings,
      levels,
      mazeSteps,
      mazeSeed: o.seed,
      out: suiteDir,
      player,
      capturer: createCapturer('auto'),
      openView: (g) => BuiltinTarget.open(g.def, wm),
      // A refused call ends the suite as Ctrl+C does: the level in play is dropped, played again on resume.
      signal: AbortSignal.any([abort.signal, meter.refused]),
      onProgress: (p) => {
        if (o.quiet) return;
        if (!p.last && !p.current)
          io.progress(
            `ING-VP suite: ${p.total} levels (${games.length} games${mazeSteps.length ? ` and the maze at ${mazeSteps.join(', ')} moves` : ''} × ${settings.length} settings × ${levels.length} levels)${p.resumed ? `, ${p.resumed} already done (resumed)` : ''}; folder ${path.resolve(suiteDir)}`,
          );
        const line = progressLine(p);
        if (line) io.progress(line);
      },
    });
    if (o.json)
      io.out(
        JSON.stringify({
          out: r.out,
          agent: player.name,
          model: player.model,
          played: r.played,
          resumed: r.resumed,
          stopped: r.stopped,
          ...(meter.refusal ? { stopped_by: meter.refusal } : {}),
          spent_usd: usd(meter.spentUsd),
          wall_ms: r.wallMs,
          table: r.table,
        }),
      );
    else {
      io.out(formatTable(r.table));
      io.out(`table: ${path.join(r.out, 'table.json')}`);
    }
    if (!o.quiet)
      io.progress(
        `${r.stopped ? `stopped${meter.refusal ? ': budget' : ''}` : 'done'}: ${r.played} levels played, ${r.resumed} resumed, in ${minutes(performance.now() - uptime)}; spent $${usd(meter.spentUsd)}${meter.refusal ? ` — ${meter.refusal}` : ''}`,
      );
    return r.stopped ? 1 : 0;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
