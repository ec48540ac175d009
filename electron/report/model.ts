/**
 * The report's data model: what `gamepilot report` writes as JSON and draws as HTML, and what
 * the Runs tab shows. One zod schema, so a report file read back is checked the same way.
 */
import { z } from 'zod';
import { AnalysesSchema, NO_ANALYSES } from './analyses.ts';
import { LatencyKindsSchema, NO_LATENCY_KINDS } from './latency-kinds.ts';
import type { ReportChart, ReportTable } from '../domain.ts';

const num = z.number().finite();
const rate = num.min(0).max(1).nullable().default(null);
/**
 * A mean over trials: sample std, n = trials (episodes), runs = run folders pooled; runs_std =
 * the spread over reruns (sample std of the runs' means, null with one run); invalid = episodes
 * of its runs marked invalid (counted, not pooled); the no-effect and invalid-action rates of its
 * runs' steps (0–1, null when none records them) over `quality_runs` runs. Reports written before
 * issue 37 lack the last five.
 */
export const StatSchema = z.object({
  mean: num,
  std: num,
  n: z.number().int().nonnegative(),
  runs: z.number().int(),
  runs_std: num.nullable().default(null),
  invalid: z.number().int().nonnegative().default(0),
  no_effect_rate: rate,
  invalid_rate: rate,
  quality_runs: z.number().int().nonnegative().default(0),
  /** Trials whose score could not be read: in `n` and in the mean as 0 (reports before issue 41 lack it). */
  unreadable: z.number().int().nonnegative().default(0),
});
export type Stat = z.output<typeof StatSchema>;

/** Who played a GameVerse row: the random baseline, a human role, or an agent (model or solver). */
export const BASELINES = ['random', 'human-rookie', 'human-expert'] as const;

export const PlayerSchema = z.object({
  /** The leaderboard's player (agent name, or human-rookie / human-expert) and model. */
  player: z.string(),
  model: z.string().nullable(),
  /** A person took over in these runs: a row apart, labelled so (absent in reports made before takeovers). */
  assisted: z.boolean().default(false),
  vr: z.enum(['No', 'Yes', '—']),
  lessons: z.string().nullable(),
  actionSpace: z.string(),
  latency: z.string(),
  /**
   * The protocol its runs played under (store/run-protocol.ts): the mode with its interval or
   * buffer and the freeze method, e.g. "stop 2000 ms, freeze engine" (empty in reports before issue 41).
   */
  protocol: z.string().default(''),
  /** The row's name in tables: Random, Human Rookie, Human Expert, the model, or the agent. */
  label: z.string(),
  baseline: z.enum(BASELINES).nullable(),
});
export type Player = z.output<typeof PlayerSchema>;

/** A title (a column of the tables): a built-in game, a window's profile, or an unprofiled window. */
export const GameInfoSchema = z.object({
  id: z.string(),
  title: z.string(),
  kind: z.enum(['builtin', 'profile', 'unprofiled']),
  category: z.string().nullable(),
  tier: z.string().nullable(),
  /** One of GameVerse's fifteen titles (Table 3's columns, in the paper's order). */
  paper: z.boolean(),
  /** Distinct versions of its profile among the counted runs; more than one is flagged in warnings. */
  profile_versions: z.number().int().nonnegative(),
});

export const GameverseRowSchema = PlayerSchema.extend({
  /** One cell per title the row played, keyed by title id. */
  cells: z.record(z.string(), StatSchema),
  /**
   * GameVerse's Avg Rank: in each title, the rows of the rank pool of the same action space
   * ranked by mean (1 = best; tied means share the mean of their positions), averaged over the
   * titles the row played; null for a row outside the pool.
   */
  avg_rank: num.nullable(),
  /**
   * Why the row is not in the rank pool (report/gameverse.ts notRankedReason: the paper's table ranks one
   * row per player × VR, in normal latency, unassisted, VR = Yes from the model's own reflection);
   * null for a row in it (absent in reports before issue 41).
   */
  not_ranked: z.string().nullable().default(null),
});

/** Table 4's shape: one row per player × VR, a GUI and a semantic cell per title. */
export const PairedRowSchema = PlayerSchema.omit({ actionSpace: true }).extend({
  cells: z.record(z.string(), z.object({ gui: StatSchema.nullable(), semantic: StatSchema.nullable() })),
});

/** Table 5's shape: one row per model × reflection mode (semantic space), the per-title scores and their mean. */
export const ReflectionRowSchema = z.object({
  player: z.string(),
  model: z.string().nullable(),
  label: z.string(),
  latency: z.string(),
  /** As PlayerSchema's: the mode with its settings (empty in reports before issue 41). */
  protocol: z.string().default(''),
  /** No, Self-F, Self-T, Self, Other (and Edited / Given for lessons a person wrote or gave). */
  mode: z.string(),
  cells: z.record(z.string(), StatSchema),
  /** The mean of the row's title means (the paper's Avg), over `titles` of them. */
  mean: num,
  titles: z.number().int(),
});
export type GameverseRow = z.output<typeof GameverseRowSchema>;

/** VR = Yes against the same player's VR = No in one game: gain = yes.mean − no.mean (points on 0–100). */
export const GainSchema = PlayerSchema.omit({ vr: true }).extend({
  game: z.string(),
  no: StatSchema,
  yes: StatSchema,
  gain: num,
});

/** A player's mean of its game means over the games of one category (or tier) it played. */
export const GroupRowSchema = PlayerSchema.extend({ group: z.string(), mean: num, games: z.number().int() });

/**
 * One cell of ING-VP's table for one player: a game (or "all", every game pooled) × setting,
 * as the suite's table.json computes it over the player's level runs.
 */
export const IngvpRowSchema = z.object({
  game: z.string(),
  setting: z.string(),
  /** The suite's agent (vlm, solver, random) and model; label: the model, Solver or Random. */
  player: z.string(),
  model: z.string().nullable(),
  label: z.string(),
  /** Level runs in the cell. */
  levels: z.number().int().nonnegative(),
  /** % of levels solved. */
  accuracy: num,
  /** Mean completion degree over levels, 0–100. */
  completion: num,
  /** Mean over levels of changed / all actions (the paper's formula), %. */
  efficiency: num,
  /** All changed actions / all actions (the authors' code), %. */
  efficiency_pooled: num,
});

export const IdcCurveSchema = z.object({
  id: z.string(),
  game: z.string().nullable(),
  model: z.string().nullable(),
  /** Mean score of each round, round 0 (no skill) first. */
  curve: z.array(num),
  best_round: z.number().int(),
  /** OmniGameArena's R0 reference line, the best round's gain over it, and the best-vs-final gap. */
  r0: num,
  gain_vs_r0: num,
  best_vs_final: num,
  /** The transfer test (its Table 5): per held-out split, no skill vs the best skill. */
  transfer: z.array(
    z.object({
      variant: z.string(),
      description: z.string(),
      baseline: num,
      best: num,
      gain: num,
      change_pct: num.nullable(),
      episodes: z.number().int(),
    }),
  ),
});

/**
 * One protocol family of a title and player (report/gameverse.ts latencyComparisons): its modes
 * under one freeze method, normal included, with at most one stop protocol, the reference.
 */
export const LatencyComparisonSchema = PlayerSchema.omit({ latency: true, protocol: true }).extend({
  game: z.string(),
  /** The family: the freeze method its frozen modes share (absent in reports before issue 41). */
  freeze: z.string().nullable().default(null),
  /** The stop protocol the changes are against ("stop 2000 ms, freeze engine"); null with no stop played. */
  reference: z.string().nullable().default(null),
  /** Each protocol's score, and its change against the reference (points; null for the reference itself or without one). */
  modes: z.array(
    StatSchema.extend({ latency: z.string(), protocol: z.string().default(''), change_vs_stop: num.nullable() }),
  ),
});

/**
 * ING-VP's Table 1 shape: one row per player × metric over every game pooled, a cell per
 * setting, and Overall = the mean of the six settings (over those played, `settings` of them).
 */
/** Fig. 4's maze-length study: one length ("original": the suite's own 4–8-move mazes) × setting × player. */
export const IngvpMazeStudyRowSchema = IngvpRowSchema.omit({ game: true }).extend({ moves: z.string() });

export const IngvpMainRowSchema = z.object({
  player: z.string(),
  model: z.string().nullable(),
  label: z.string(),
  metric: z.enum(['accuracy', 'completion', 'efficiency']),
  cells: z.record(z.string(), num),
  overall: num,
  settings: z.number().int(),
});

export const CostRowSchema = z.object({
  game: z.string(),
  player: z.string(),
  model: z.string().nullable(),
  runs: z.number().int(),
  episodes: z.number().int(),
  /** Sum of episode scores: the score points the tokens and money bought. */
  points: num,
  mean: num,
  tokens_in: num,
  tokens_out: num,
  cost_usd: num.nullable(),
  tokens_per_point: num.nullable(),
  cost_per_point: num.nullable(),
});

const count = z.number().int().nonnegative();
/** An arena folder's tables (domain.ts's ArenaSummary): runs relative to the report's folder. */
export const ArenaSchema = z.object({
  id: z.string(),
  game: z.string(),
  mode: z.enum(['pvp', 'coop']),
  agents: z.array(z.string()),
  trials: z.number().int(),
  latency: z.string(),
  actionSpace: z.string(),
  matrix: z
    .array(
      z.array(
        z
          .object({
            games: count,
            p1_wins: count,
            p2_wins: count,
            draws: count,
            limit_draws: count,
            p1_win_rate: num.nullable(),
            run: z.string().nullable(),
          })
          .nullable(),
      ),
    )
    .nullable(),
  standings: z
    .array(
      z.object({
        agent: z.string(),
        games: count,
        wins: count,
        losses: count,
        draws: count,
        limit_draws: count,
        win_rate: num.nullable(),
      }),
    )
    .nullable(),
  teams: z
    .array(
      z.object({
        p1: z.string(),
        p2: z.string(),
        episodes: count,
        /** Episodes whose team score could not be read, scored 0 (absent before issue 41). */
        unreadable: count.default(0),
        mean: num.nullable(),
        run: z.string().nullable(),
      }),
    )
    .nullable(),
  missing: z.array(z.string()),
});

/** A two-seat run found among the runs (not in an arena folder): listed apart, never pooled as one player. */
export const TwoSeatRunSchema = z.object({
  run: z.string(),
  game: z.string().nullable(),
  status: z.string(),
  /** Who sat where: `<seat name>: <agent>`. */
  seats: z.array(z.string()),
  episodes: count,
  /** PvP: the first seat's and the second seat's wins, and draws (null when the episodes name no winner: co-op). */
  p1_wins: count.nullable(),
  p2_wins: count.nullable(),
  draws: count.nullable(),
  /** The mean episode score (co-op: the team score), an unreadable one as 0. */
  mean: num.nullable(),
  /** Episodes whose score could not be read: in the mean as 0 (absent before issue 41). */
  unreadable: count.default(0),
});

const figures = z.object({ n: z.number().int().nonnegative(), p50: num.nullable(), p95: num.nullable() });
/**
 * One run × latency mode its agent steps were played in (domain.ts ModeTimingOf): input to
 * screen, the model's time and the harness's overhead, p50/p95 in ms over the run's steps. A run
 * made before runs kept their times has one row, `mode` and the figures null.
 */
export const RunTimingRowSchema = z.object({
  run: z.string(),
  created: z.string(),
  game: z.string(),
  player: z.string(),
  model: z.string().nullable(),
  status: z.string(),
  /** The mode the run was started in (`config.latency`). */
  latency: z.string(),
  /** The mode these steps were played in: the run's own, or another after a switch mid-run. */
  mode: z.string().nullable(),
  steps: z.number().int().nonnegative().nullable(),
  effect_ms: figures.nullable(),
  model_ms: figures.nullable(),
  overhead_ms: figures.nullable(),
});
export type RunTimingRow = z.output<typeof RunTimingRowSchema>;

/** A failed run (domain.ts FailedRun): listed apart with its error, never pooled. */
export const FailedRunSchema = z.object({
  run: z.string(),
  created: z.string(),
  game: z.string(),
  player: z.string(),
  model: z.string().nullable(),
  error: z.string().nullable(),
});

/** An invalid episode (domain.ts InvalidEpisode): listed with its reason, never pooled. */
export const InvalidEpisodeSchema = z.object({
  run: z.string(),
  game: z.string(),
  player: z.string(),
  model: z.string().nullable(),
  episode: z.number().int(),
  score: num.nullable(),
  reason: z.string(),
});

export const ReportDataSchema = z.object({
  generated: z.string(),
  runs_dir: z.string(),
  /** Run folders counted, left out (not completed, a demo, …) and refused (damaged). */
  runs: z.object({ counted: z.number().int(), left_out: z.number().int(), damaged: z.number().int() }),
  warnings: z.array(z.string()),
  gameverse: z.object({
    games: z.array(GameInfoSchema),
    rows: z.array(GameverseRowSchema),
    gains: z.array(GainSchema),
    by_category: z.array(GroupRowSchema),
    by_tier: z.array(GroupRowSchema),
    /** Table 4: titles played in the semantic space, GUI beside semantic. */
    paired: z.object({ games: z.array(z.string()), rows: z.array(PairedRowSchema) }),
    /** Table 5: reflection modes in the semantic space. */
    reflection: z.object({ games: z.array(z.string()), rows: z.array(ReflectionRowSchema) }),
    /** Rows of runs in which a person took the controls: in no other table, no rank pool (absent before issue 41). */
    assisted: z.array(GameverseRowSchema).default([]),
  }),
  ingvp: z.array(IngvpRowSchema),
  ingvp_main: z.array(IngvpMainRowSchema),
  /** ING-VP's Fig. 4: maze-length study levels per length × setting × player (absent before it existed). */
  ingvp_maze_study: z.array(IngvpMazeStudyRowSchema).default([]),
  idc: z.array(IdcCurveSchema),
  latency: z.array(LatencyComparisonSchema),
  cost: z.array(CostRowSchema),
  /** Arena folders in the report's folder (or the folder itself): win-rate matrices, standings, team scores. */
  arenas: z.array(ArenaSchema).default([]),
  two_seat: z.array(TwoSeatRunSchema).default([]),
  /** What no table pools: failed runs with their errors, invalid episodes with their reasons. */
  failed: z.array(FailedRunSchema).default([]),
  invalid: z.array(InvalidEpisodeSchema).default([]),
  /** Every agent run's input-to-screen, model and overhead times, per latency mode played (reports before issue 40 lack it). */
  run_timing: z.array(RunTimingRowSchema).default([]),
  /** The papers' analyses: error taxonomy, action budget (reports before issue 41 lack them). */
  analyses: AnalysesSchema.default(NO_ANALYSES),
  /** GameVerse's Fig. 5: reasoning vs reactive models under each latency protocol (reports before issue 41 lack it). */
  latency_kinds: LatencyKindsSchema.default(NO_LATENCY_KINDS),
});
export type ReportData = z.output<typeof ReportDataSchema>;

/** What the page, the CSV files and the Runs tab draw. */
export interface ReportView {
  data: ReportData;
  tables: ReportTable[];
  charts: ReportChart[];
}
