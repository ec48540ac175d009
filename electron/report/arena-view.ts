/**
 * Arenas as report tables: per PvP arena the player-1 win-rate matrix (a heat map: each cell
 * scaled by its rate and naming its run) and the standings; per co-op arena the team scores;
 * then the two-seat runs found outside any arena.
 */
import type { ArenaSummary, HeatCell, MatrixCell, ReportTable } from '../domain.ts';
import { unreadableText } from '../domain.ts';
import type { ReportData } from './model.ts';

const pct = (n: number | null) => (n === null ? '–' : `${Math.round(n * 100)}%`);
const slug = (id: string) => id.replace(/[^\w.-]+/g, '_');

/** A matrix cell as text: player 1's win rate (wins–draws–losses, games; draws the step limit made). */
export function matrixCellText(c: MatrixCell | null): string {
  if (!c) return 'not played (no self-play)';
  if (!c.games) return 'no games yet';
  const limit = c.limit_draws ? `; ${c.limit_draws} by step limit` : '';
  return `${pct(c.p1_win_rate)} (${c.p1_wins}–${c.draws}–${c.p2_wins}, ${c.games}${limit})`;
}

/** How draws count, said under every PvP table (docs/fidelity.md says the same). */
const DRAWS_NOTE =
  'A draw is neither a win nor a loss; a game the step or time limit ended before it was decided counts as a draw, and those are counted apart (“by step limit”).';

/** Where an arena was played: its game, mode and settings. */
const arenaTitle = (a: ArenaSummary) => `Arena ${a.id}: ${a.game} (${a.mode === 'pvp' ? 'PvP' : 'co-op'})`;
const missingNote = (a: ArenaSummary) =>
  a.missing.length ? ` Not completed yet (empty cells): ${a.missing.join(', ')}.` : '';

function matrixTable(a: ArenaSummary): ReportTable {
  const matrix = a.matrix ?? [];
  const key = (j: number) => `p2:${j}`;
  return {
    id: `arena-matrix-${slug(a.id)}`,
    title: `${arenaTitle(a)}: player-1 win rate`,
    note: `Rows: player 1; columns: player 2. Each cell: player 1's win rate (wins–draws–losses, games), ${a.trials} trial(s) a match, ${a.latency} latency, ${a.actionSpace} actions; shaded by the rate, and naming the run it was counted from. The diagonal is not played. ${DRAWS_NOTE}${missingNote(a)}`,
    columns: [
      { key: 'p1', label: 'Player 1 \\ Player 2' },
      ...a.agents.map((agent, j) => ({ key: key(j), label: agent })),
    ],
    rows: matrix.map((row, i) => ({
      p1: a.agents[i]!,
      ...Object.fromEntries(row.map((c, j) => [key(j), matrixCellText(c)])),
    })),
    heat: matrix.map((row) =>
      Object.fromEntries(
        row.map((c, j): [string, HeatCell] => [key(j), { value: c?.p1_win_rate ?? null, run: c?.run ?? null }]),
      ),
    ),
    empty: 'no matches',
  };
}

function standingsTable(a: ArenaSummary): ReportTable {
  return {
    id: `arena-standings-${slug(a.id)}`,
    title: `${arenaTitle(a)}: standings`,
    note: `Each agent over both seats: win rate = wins / games. ${DRAWS_NOTE}`,
    columns: [
      { key: 'agent', label: 'Agent' },
      { key: 'games', label: 'Games' },
      { key: 'wins', label: 'Wins' },
      { key: 'losses', label: 'Losses' },
      { key: 'draws', label: 'Draws' },
      { key: 'limit_draws', label: 'Draws by step limit' },
      { key: 'win_rate', label: 'Win rate' },
    ],
    rows: (a.standings ?? []).map((s) => ({ ...s, win_rate: pct(s.win_rate) })),
    empty: 'no matches',
  };
}

function teamsTable(a: ArenaSummary): ReportTable {
  return {
    id: `arena-teams-${slug(a.id)}`,
    title: `${arenaTitle(a)}: team score`,
    note: `Each pair's mean team score on 0–100 over its episodes (${a.trials} trial(s) a pair, ${a.latency} latency, ${a.actionSpace} actions), and the run it was counted from.${missingNote(a)}`,
    columns: [
      { key: 'p1', label: 'Player 1' },
      { key: 'p2', label: 'Player 2' },
      { key: 'episodes', label: 'Episodes' },
      { key: 'mean', label: 'Team score' },
      { key: 'run', label: 'Run' },
    ],
    rows: (a.teams ?? []).map((t) => ({
      ...t,
      episodes: unreadableText(t) ?? t.episodes,
      mean: t.mean === null ? null : t.mean.toFixed(1),
    })),
    empty: 'no pairs',
  };
}

function twoSeatTable(runs: ReportData['two_seat'], empty: string): ReportTable {
  return {
    id: 'two-seat',
    title: 'Two-seat runs outside an arena',
    note: 'Runs of a two-seat game found among the ordinary runs: each is a match, not one player’s score, so it is listed here and left out of the tables above.',
    columns: [
      { key: 'run', label: 'Run' },
      { key: 'game', label: 'Game' },
      { key: 'seats', label: 'Seats' },
      { key: 'status', label: 'Status' },
      { key: 'episodes', label: 'Episodes' },
      { key: 'p1_wins', label: 'Seat 1 wins' },
      { key: 'p2_wins', label: 'Seat 2 wins' },
      { key: 'draws', label: 'Draws' },
      { key: 'mean', label: 'Mean score' },
    ],
    rows: runs.map((r) => ({
      ...r,
      seats: r.seats.join(', '),
      episodes: unreadableText({ unreadable: r.unreadable, episodes: r.episodes }) ?? r.episodes,
    })),
    empty,
  };
}

/** One arena's tables: PvP's matrix and standings, or co-op's team scores. */
export const arenaSummaryTables = (a: ArenaSummary): ReportTable[] =>
  a.mode === 'pvp' ? [matrixTable(a), standingsTable(a)] : [teamsTable(a)];

/** The arena sections; `empty` is what a report says of a section with nothing to show. */
export function arenaReportTables(d: ReportData, empty: string): ReportTable[] {
  const tables = d.arenas.flatMap(arenaSummaryTables);
  if (!tables.length)
    tables.push({
      id: 'arenas',
      title: 'Arenas: player-1 win rate and team scores',
      note: 'Two-seat games (`gamepilot arena`): each arena folder in this folder gets its player-1 win-rate matrix and standings, or its team scores.',
      columns: [],
      rows: [],
      empty,
    });
  if (d.two_seat.length) tables.push(twoSeatTable(d.two_seat, empty));
  return tables;
}
