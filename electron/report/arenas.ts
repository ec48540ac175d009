/**
 * Two-seat play in the report: each arena folder's tables (arena/tables.ts) with its runs named
 * relative to the folder read, and the two-seat runs found among ordinary runs, listed apart —
 * a match's score is not one player's, so neither is pooled into the single-agent tables.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { ARENA_FILE, arenaTables, isArenaFolder, readArenaSpec } from '../arena/tables.ts';
import { round2, type ArenaSummary } from '../domain.ts';
import { mean } from '../util/time.ts';
import type { RunMeta } from '../store/run-store.ts';
import { isUnreadableEpisode } from '../store/run-quality.ts';
import type { ReportData } from './model.ts';

/** The folder itself when it is an arena, and every arena folder directly in it. */
export function arenaFolders(root: string, warnings: string[]): string[] {
  if (isArenaFolder(root)) return [root];
  const found: string[] = [];
  for (const d of readdirSync(root, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const dir = path.join(root, d.name);
    if (d.isSymbolicLink()) {
      if (existsSync(path.join(dir, ARENA_FILE)))
        warnings.push(`skipped arena folder ${dir}: a symbolic link; an arena must be a plain folder`);
      continue;
    }
    if (d.isDirectory() && isArenaFolder(dir)) found.push(dir);
  }
  return found;
}

/** One arena's tables; every run a cell names is relative to `root`. */
export function arenaSummary(root: string, dir: string): ArenaSummary {
  const spec = readArenaSpec(dir);
  const t = arenaTables(dir, spec);
  const rel = (run: string | null) => (run === null ? null : path.relative(root, run).split(path.sep).join('/'));
  return {
    id: path.relative(root, dir).split(path.sep).join('/') || '.',
    game: spec.game,
    mode: spec.mode,
    agents: spec.agents,
    trials: spec.trials,
    latency: spec.latency,
    actionSpace: spec.action_space,
    matrix: t.matrix?.map((row) => row.map((c) => (c ? { ...c, run: rel(c.run) } : null))) ?? null,
    standings: t.standings ?? null,
    teams: t.teams?.map((x) => ({ ...x, run: rel(x.run) })) ?? null,
    missing: t.missing,
  };
}

/** Every arena of the folder; one whose arena.json is damaged is skipped with a warning. */
export function readArenas(root: string, warnings: string[]): ArenaSummary[] {
  const out: ArenaSummary[] = [];
  for (const dir of arenaFolders(root, warnings))
    try {
      out.push(arenaSummary(root, dir));
    } catch (err) {
      warnings.push(`skipped arena folder ${dir}: ${(err as Error).message}`);
    }
  return out;
}

/** Two-seat runs among ordinary ones (a run with `seats`), each with its wins per seat or its team score, over its valid episodes. */
export function twoSeatRuns(runs: { id: string; meta: RunMeta }[]): ReportData['two_seat'] {
  return runs
    .filter((r) => r.meta.seats?.length)
    .map(({ id, meta }) => {
      const e = meta.episodes.filter((x) => x.invalid === undefined);
      // A score that could not be read counts as 0 in the mean (store/run-quality.ts).
      const unreadable = e.filter((x) => isUnreadableEpisode(x, meta)).length;
      const scores = [
        ...e.flatMap((x) => (typeof x.score === 'number' ? [x.score] : [])),
        ...Array(unreadable).fill(0),
      ];
      const decided = e.some((x) => x.winner !== undefined);
      const p1 = e.filter((x) => x.winner === 0).length;
      const p2 = e.filter((x) => x.winner === 1).length;
      return {
        run: id,
        game: meta.game,
        status: meta.status,
        seats: meta.seats!.map((s) => `${s.name}: ${s.agent}`),
        episodes: e.length,
        p1_wins: decided ? p1 : null,
        p2_wins: decided ? p2 : null,
        draws: decided ? e.length - p1 - p2 : null,
        mean:
          e.length === meta.episodes.length && !unreadable ? meta.mean : scores.length ? round2(mean(scores)) : null,
        unreadable,
      };
    })
    .sort((a, b) => a.run.localeCompare(b.run));
}
