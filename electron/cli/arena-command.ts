/** `gamepilot arena`: every pairwise matchup of agents in a two-seat game, resumable, with its tables. */
import path from 'node:path';
import { createWindowManager } from '../../native/index.ts';
import { runArena, type ArenaResult } from '../arena/arena.ts';
import type { SeatedSession } from '../session/seated-session.ts';
import { addSecret } from '../util/log.ts';
import { io } from './io.ts';
import type { ArenaFlags } from './command-flags.ts';

export async function arenaCommand(o: ArenaFlags): Promise<number> {
  addSecret(o.apiKey);
  const abort = new AbortController();
  let session: SeatedSession | undefined;
  const onSignal = () => {
    io.log('stopping: releasing held input…');
    abort.abort();
    session?.stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const name = o.name ?? `${o.game}-${o.agents.join('-')}`.replace(/[^\w.-]+/g, '_').slice(0, 80);
  try {
    const result = await runArena(
      {
        game: o.game,
        agents: o.agents,
        ...(o.episodes !== undefined ? { trials: o.episodes } : {}),
        ...(o.mixed ? { mixed: true } : {}),
        ...(o.maxSteps !== undefined ? { maxSteps: o.maxSteps } : {}),
        latency: o.latency,
        actionSpace: o.actionSpace,
        seed: o.seed,
        dir: path.join(o.runsDir, `arena-${name}`),
        ...(o.baseUrl ? { baseUrl: o.baseUrl } : {}),
        ...(o.apiKey ? { apiKey: o.apiKey } : {}),
        capture: o.capture,
        imageSize: o.imageSize,
        log: io.log,
        onSession: (s) => {
          session = s;
          s.on('episode', (e) =>
            io.progress(
              `  episode ${e.episode + 1}: ${e.winner === undefined ? `team score ${e.score}` : e.winner === null ? 'draw' : `player ${e.winner + 1} won`} after ${e.steps} steps`,
            ),
          );
        },
        signal: abort.signal,
      },
      createWindowManager(),
    );
    if (o.json) io.out(JSON.stringify(result));
    else io.log(arenaText(result));
    if (abort.signal.aborted) return 130;
    return result.unfinished.length ? 1 : 0;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

const pct = (n: number | null) => (n === null ? '—' : `${Math.round(n * 100)}%`);

/** The arena's tables as text: the player-1 win-rate matrix and standings, or the team scores. */
export function arenaText(r: ArenaResult): string {
  const lines = [
    `arena ${r.game} (${r.mode}): ${r.dir}`,
    `played ${r.played.length}, resumed past ${r.skipped.length}${r.unfinished.length ? `, unfinished (played again on resume): ${r.unfinished.join(', ')}` : ''}`,
  ];
  if (r.matrix && r.standings) {
    const w = Math.max(8, ...r.agents.map((a) => a.length));
    lines.push('player-1 win rate (rows: player 1, columns: player 2)');
    lines.push(`${''.padEnd(w)}  ${r.agents.map((a) => a.padStart(w)).join('  ')}`);
    for (const [i, row] of r.matrix.entries())
      lines.push(
        `${r.agents[i]!.padEnd(w)}  ${row.map((c) => (c ? `${pct(c.p1_win_rate)} (${c.draws}d${c.limit_draws ? `, ${c.limit_draws} by limit` : ''})` : '—').padStart(w)).join('  ')}`,
      );
    lines.push('standings: agent, win rate, wins-losses-draws (draws by step limit)');
    for (const s of r.standings)
      lines.push(`  ${s.agent}: ${pct(s.win_rate)}  ${s.wins}-${s.losses}-${s.draws} (${s.limit_draws} by limit)`);
  }
  for (const t of r.teams ?? [])
    lines.push(
      `  ${t.p1} + ${t.p2}: team score ${t.mean ?? '—'} over ${t.episodes} episode(s)${t.unreadable ? ` (${t.unreadable} unreadable, scored 0)` : ''}`,
    );
  return lines.join('\n');
}
