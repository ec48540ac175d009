/**
 * Scores across runs, for tables in a paper: episodes pooled per game × player (agent, model,
 * human role) × action space × latency mode, with mean, sample std and counts. Only completed
 * runs count: not stopped, failed or crashed ones, and not the web shell's demo.
 */
import { scanRuns } from './run-library.ts';
import { mean, std } from '../util/time.ts';

export interface LeaderboardRow {
  game: string;
  player: string;
  model: string | null;
  space: string;
  latency: string;
  runs: number;
  episodes: number;
  mean: number;
  std: number;
  best: number;
}

export function leaderboard(root: string, filter: { game?: string } = {}): { rows: LeaderboardRow[]; warnings: string[] } {
  const groups = new Map<string, { row: Omit<LeaderboardRow, 'mean' | 'std' | 'best' | 'episodes'>; scores: number[] }>();
  const { runs, warnings } = scanRuns(root);
  for (const { meta } of runs) {
    if (!meta.game || (filter.game && meta.game !== filter.game) || meta.status !== 'completed' || meta.demo) continue;
    const scores = meta.episodes.map((e) => e.score).filter((s): s is number => typeof s === 'number');
    if (!scores.length) continue;
    const latency = String(meta.config.latency ?? 'normal');
    const key = [meta.game, meta.agent, meta.model ?? '', meta.action_space, latency].join('|');
    const g = groups.get(key) ?? { row: { game: meta.game, player: meta.agent, model: meta.model, space: meta.action_space, latency, runs: 0 }, scores: [] };
    g.row.runs++;
    g.scores.push(...scores);
    groups.set(key, g);
  }
  const r2 = (n: number) => Math.round(n * 100) / 100;
  const rows = [...groups.values()]
    .map(({ row, scores }) => ({ ...row, episodes: scores.length, mean: r2(mean(scores)), std: r2(std(scores)), best: r2(Math.max(...scores)) }))
    .sort((a, b) => a.game.localeCompare(b.game) || b.mean - a.mean);
  return { rows, warnings };
}

export function formatLeaderboard(rows: LeaderboardRow[]): string {
  if (!rows.length) return 'no scored runs yet';
  const head = ['game', 'player', 'model', 'space', 'latency', 'runs', 'episodes', 'mean ± std', 'best'];
  const body = rows.map((r) => [r.game, r.player, r.model ?? '–', r.space, r.latency, String(r.runs), String(r.episodes), `${r.mean} ± ${r.std}`, String(r.best)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  return [line(head), line(widths.map((w) => '─'.repeat(w))), ...body.map(line)].join('\n');
}
