/**
 * Scores across runs, for tables in a paper: episodes pooled per title (store/run-title.ts: a
 * built-in game, a window's profile, or an unprofiled window by its title) × player (agent, model,
 * human role) × VR × action space × protocol (store/run-protocol.ts: the latency mode with its
 * interval or buffer and the freeze method, so a PDQ run — stop, 0 ms — never shares GameVerse's
 * Stop cell — stop, 2000 ms), with mean, sample std and counts. Only
 * completed runs count: not stopped, failed or crashed ones, not the web shell's demo, not
 * the rounds of an Improvement Dynamics Curve (a curve is its own measurement), and not the
 * level runs of a suite such as ING-VP (scored by the suite's own metrics: accuracy, completion,
 * efficiency).
 *
 * VR (GameVerse's "video reflection"), as the papers' tables split it:
 * - a model run: each episode played with lessons in its prompt is VR = Yes (labelled with
 *   where the lessons came from: self-f, self-t, self, other, edited by a person, given at the
 *   start); every other episode is VR = No. So a reflect-and-retry run gives its episodes
 *   before the first lesson to the No row and those after to the Yes row.
 * - a human rookie: stage play-1 is VR = No, play-2 (after the tutorial) is VR = Yes; a session
 *   recorded in the tutorial stage is not a play and is left out.
 * - a human expert plays once: VR "—".
 *
 * A run in which a person took the controls (session/takeover.ts) is assisted: its episodes form
 * rows of their own, marked so, and are never pooled with the agent's unassisted play.
 *
 * What is left out is said, not dropped (store/run-quality.ts): failed runs with their errors,
 * invalid episodes with their reasons (and counted in their row). A trial whose score could not
 * be read is not left out: it counts as 0 in its row's mean, and the row says how many; each row carries its runs'
 * pooled no-effect and invalid-action rates and the spread of its runs' means.
 *
 * Each row also carries its runs' input-to-screen, model and harness times (store/run-timing.ts),
 * pooled from their kept samples. Rows are already split by the run's protocol, so a row's
 * figures are those of its own mode; a run switched to another mode mid-run (the Live view's
 * switch) gives those steps to that mode's figures within the row, never to its own mode's, and
 * the text table names them under it. A researcher comparing stop with normal reads two rows.
 */
import { scanRuns } from './run-library.ts';
import type { RunMeta } from './run-store.ts';
import { mean, std } from '../util/time.ts';
import { titleOf } from './run-title.ts';
import {
  LATENCY_MODES,
  percentilesText,
  rateText,
  round2,
  type FailedRun,
  type InvalidEpisode,
  type LeaderboardRow,
  type ModeFigures,
  unreadableText,
} from '../domain.ts';
import { TimingTally } from './run-timing.ts';
import { protocolOf } from './run-protocol.ts';
import {
  addQuality,
  failedRuns,
  invalidEpisodes,
  isUnreadableEpisode,
  noQuality,
  pooledRates,
  runsSpread,
  type QualitySums,
} from './run-quality.ts';

type Cell = Pick<LeaderboardRow, 'vr' | 'lessons'>;

/** One trial of a run as tables count it: its score (an unreadable one as 0), its VR cell, and its flags. */
export interface EpisodeCell {
  score: number;
  cell: Cell;
  /** Marked invalid: only counted in its row, never pooled. */
  invalid: boolean;
  /** Its score could not be read (store/run-quality.ts): pooled as 0, and counted. */
  unreadable: boolean;
}

/**
 * Each trial of a run with the VR cell it belongs to: every scored or invalid episode, and every
 * episode whose score could not be read (as 0, flagged); empty when the run is no play.
 */
export function episodeCells(meta: RunMeta): EpisodeCell[] {
  // An invalid episode is counted in its row whatever the game said, and never pooled.
  const counted = meta.episodes.flatMap((e) =>
    typeof e.score === 'number' || e.invalid !== undefined
      ? [{ e, score: e.score ?? 0, unreadable: false }]
      : isUnreadableEpisode(e, meta)
        ? [{ e, score: 0, unreadable: true }]
        : [],
  );
  const of = (x: (typeof counted)[number], cell: Cell): EpisodeCell => ({
    score: x.score,
    cell,
    invalid: x.e.invalid !== undefined,
    unreadable: x.unreadable,
  });
  if (meta.kind === 'human') {
    const role = meta.config.role ?? meta.agent.replace(/^human-/, '');
    const stage = String(meta.stage ?? meta.config.stage ?? '');
    if (role === 'expert') return counted.map((x) => of(x, { vr: '—', lessons: null }));
    if (stage === 'tutorial') return [];
    const cell: Cell = stage === 'play-2' ? { vr: 'Yes', lessons: 'tutorial' } : { vr: 'No', lessons: null };
    return counted.map((x) => of(x, cell));
  }
  const taught = new Map((meta.reflection?.lessons ?? []).map((l) => [l.episode, l.source]));
  return counted.map((x) => {
    const source = taught.get(x.e.episode);
    return of(x, source ? { vr: 'Yes', lessons: source } : { vr: 'No', lessons: null });
  });
}

/**
 * A run whose episodes count in score tables: completed, not the demo, not a round of an IDC,
 * not a suite's level, not a two-seat match (its score is a seat's or a team's, not one
 * player's: the arena's tables report it).
 */
export function isScoredRun(meta: RunMeta): boolean {
  return (
    meta.status === 'completed' &&
    !meta.demo &&
    meta.config.idc === undefined &&
    meta.config.suite === undefined &&
    !meta.seats?.length
  );
}

export function leaderboard(
  root: string,
  filter: { game?: string } = {},
): { rows: LeaderboardRow[]; failed: FailedRun[]; invalid: InvalidEpisode[]; warnings: string[] } {
  const { runs, warnings } = scanRuns(root);
  const mine = runs.filter((r) => !filter.game || titleOf(r.meta).id === filter.game);
  return {
    rows: leaderboardRows(mine.map((r) => r.meta)),
    failed: failedRuns(mine),
    invalid: invalidEpisodes(mine.filter((r) => isScoredRun(r.meta))),
    warnings,
  };
}

type PooledFields =
  | 'mean'
  | 'std'
  | 'best'
  | 'episodes'
  | 'unreadable'
  | 'runs'
  | 'profile_versions'
  | 'runs_std'
  | 'invalid_episodes'
  | 'no_effect_rate'
  | 'invalid_rate'
  | 'quality_runs'
  | 'timing'
  | 'timing_runs';

/** The leaderboard of runs already read (the report reads the folder once for all its tables). */
export function leaderboardRows(metas: RunMeta[]): LeaderboardRow[] {
  const groups = new Map<
    string,
    {
      row: Omit<LeaderboardRow, PooledFields>;
      /** Each pooled run's counted scores in this row (its mean is one rerun of the cell). */
      runs: Map<string, number[]>;
      hashes: Set<string>;
      scores: number[];
      invalid: number;
      unreadable: number;
      quality: QualitySums;
      timing: TimingTally;
    }
  >();
  for (const meta of metas) {
    if (!isScoredRun(meta)) continue;
    const title = titleOf(meta);
    const { latency, protocol, freeze } = protocolOf(meta);
    for (const { score, cell, invalid, unreadable } of episodeCells(meta)) {
      const key = [
        title.id,
        meta.agent,
        meta.model ?? '',
        meta.assisted ? 'assisted' : '',
        cell.vr,
        cell.lessons ?? '',
        meta.action_space,
        protocol,
      ].join('|');
      const g = groups.get(key) ?? {
        row: {
          game: title.id,
          title: title.name,
          kind: title.kind,
          category: title.category,
          tier: title.tier,
          player: meta.agent,
          model: meta.model,
          assisted: !!meta.assisted,
          ...cell,
          actionSpace: meta.action_space,
          latency,
          protocol,
          freeze,
        },
        runs: new Map(),
        hashes: new Set<string>(),
        scores: [] as number[],
        invalid: 0,
        unreadable: 0,
        quality: noQuality(),
        timing: new TimingTally(),
      };
      groups.set(key, g);
      if (invalid) {
        g.invalid++;
        continue;
      }
      // A run's quality figures and times go once into each row it adds episodes to.
      if (!g.runs.has(meta.id)) {
        addQuality(g.quality, meta.quality);
        g.timing.addRun(meta.timing);
      }
      g.runs.set(meta.id, [...(g.runs.get(meta.id) ?? []), score]);
      if (title.profile_hash) g.hashes.add(title.profile_hash);
      g.scores.push(score);
      if (unreadable) g.unreadable++;
    }
  }
  // A row of invalid episodes only has no score: its episodes are in the list of those left out.
  const rows: LeaderboardRow[] = [...groups.values()]
    .filter((g) => g.scores.length)
    .map(({ row, runs: r, hashes, scores, invalid, unreadable, quality, timing }) => ({
      ...row,
      profile_versions: hashes.size,
      runs: r.size,
      episodes: scores.length,
      unreadable,
      mean: round2(mean(scores)),
      std: round2(std(scores)),
      best: round2(Math.max(...scores)),
      runs_std: runsSpread([...r.values()]),
      invalid_episodes: invalid,
      ...pooledRates(quality),
      timing: timing.figures(),
      timing_runs: timing.runs,
    }));
  // Ranked by the player's best cell in each game; a player's VR = No row comes before its Yes rows, as in the papers' tables.
  const player = (r: LeaderboardRow) =>
    [r.game, r.player, r.model ?? '', r.assisted ? 'assisted' : '', r.actionSpace, r.protocol].join('|');
  const top = new Map<string, number>();
  for (const r of rows) top.set(player(r), Math.max(top.get(player(r)) ?? Number.NEGATIVE_INFINITY, r.mean));
  const vrOrder = { No: 0, Yes: 1, '—': 2 };
  rows.sort(
    (a, b) =>
      a.game.localeCompare(b.game) ||
      top.get(player(b))! - top.get(player(a))! ||
      player(a).localeCompare(player(b)) ||
      vrOrder[a.vr] - vrOrder[b.vr] ||
      (a.lessons ?? '').localeCompare(b.lessons ?? ''),
  );
  return rows;
}

/**
 * The leaderboard as text: the unassisted rows, then the assisted ones (a person took the
 * controls) in a table of their own, never among the agents' own play; under them the times of
 * steps played after a switch mid-run, and the rows with unreadable trials.
 */
export function formatLeaderboard(rows: LeaderboardRow[]): string {
  if (!rows.length) return 'no scored runs yet';
  const own = rows.filter((r) => !r.assisted);
  const assisted = rows.filter((r) => r.assisted);
  return [
    ...(own.length ? [leaderboardTable(own)] : []),
    ...(assisted.length ? ['', 'Assisted (a person took the controls):', leaderboardTable(assisted)] : []),
    ...switchedLines(rows),
    ...unreadableLines(rows),
  ].join('\n');
}

function leaderboardTable(rows: LeaderboardRow[]): string {
  const head = [
    'title',
    'player',
    'model',
    'VR',
    'space',
    'protocol',
    'runs',
    'episodes',
    'mean ± std',
    'best',
    'no effect',
    'invalid acts',
    'to screen ms p50 / p95 (n)',
    'model ms p50 / p95',
    'overhead ms p50 / p95',
  ];
  const body = rows.map((r) => [
    titleText(r),
    playerText(r),
    r.model ?? '–',
    r.vr === 'Yes' && r.lessons ? `Yes (${r.lessons})` : r.vr,
    r.actionSpace,
    r.protocol,
    r.runs_std === null ? String(r.runs) : `${r.runs} (± ${r.runs_std})`,
    episodesText(r),
    `${r.mean} ± ${r.std}`,
    String(r.best),
    rateText(r.no_effect_rate),
    rateText(r.invalid_rate),
    ...timingCells(r.timing[r.latency as keyof LeaderboardRow['timing']]),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  return [line(head), line(widths.map((w) => '─'.repeat(w))), ...body.map(line)].join('\n');
}

/** A row's trials: with the invalid ones left out of it, and the unreadable ones scored 0 in it. */
function episodesText(r: LeaderboardRow): string {
  const notes = [
    ...(r.unreadable ? [`${r.unreadable} unreadable`] : []),
    ...(r.invalid_episodes ? [`${r.invalid_episodes} invalid`] : []),
  ];
  return notes.length ? `${r.episodes} (${notes.join(', ')})` : String(r.episodes);
}

/** Under the table: each row with unreadable trials, how many of its trials, scored 0. */
function unreadableLines(rows: LeaderboardRow[]): string[] {
  const lines = rows.flatMap((r) => {
    const text = unreadableText(r);
    return text ? [`  ${titleText(r)}, ${playerText(r)}${r.model ? ` (${r.model})` : ''}, ${r.protocol}: ${text}`] : [];
  });
  return lines.length ? ['', 'unreadable scores (counted as 0 in the mean):', ...lines] : [];
}

/** A mode's input-to-screen (with how many steps measured it), model and overhead cells; "—" where none. */
export function timingCells(t: ModeFigures | undefined): [string, string, string] {
  const effect = percentilesText(t?.effect_ms);
  return [
    effect === '—' ? effect : `${effect} (${t!.effect_ms.n})`,
    percentilesText(t?.model_ms),
    percentilesText(t?.overhead_ms),
  ];
}

/** Under the table: the times of steps a row's runs played in another mode after a switch mid-run. */
function switchedLines(rows: LeaderboardRow[]): string[] {
  const lines = rows.flatMap((r) =>
    LATENCY_MODES.flatMap((mode) => {
      const t = r.timing[mode];
      if (mode === r.latency || !t) return [];
      const [effect, model, overhead] = timingCells(t);
      return [
        `  ${titleText(r)}, ${playerText(r)}${r.model ? ` (${r.model})` : ''}, ${r.protocol} row: ${t.steps} steps played in ${mode} after a switch — to screen ${effect}, model ${model}, overhead ${overhead} ms`,
      ];
    }),
  );
  return lines.length ? ['', 'switched mid-run (times of those steps, not in the row’s own columns):', ...lines] : [];
}

/** A player as tables print it: an assisted row says so. */
export function playerText(r: Pick<LeaderboardRow, 'player' | 'assisted'>): string {
  return r.assisted ? `${r.player} (assisted)` : r.player;
}

/** A title as tables print it: its id, and for an unprofiled window that it is one. */
export function titleText(r: Pick<LeaderboardRow, 'game' | 'title' | 'kind' | 'profile_versions'>): string {
  const id = r.kind === 'unprofiled' ? `${r.title} (unprofiled window)` : r.game;
  return r.profile_versions > 1 ? `${id} [${r.profile_versions} profile versions]` : id;
}
