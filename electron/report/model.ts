/**
 * The report's data model: what `gamepilot report` writes as JSON and draws as HTML, and what
 * the Runs tab shows. One zod schema, so a report file read back is checked the same way.
 */
import { z } from 'zod';
import type { ReportChart, ReportTable } from '../domain.ts';

const num = z.number().finite();
/** A mean over trials: sample std, n = trials (episodes), runs = run folders pooled. */
export const StatSchema = z.object({ mean: num, std: num, n: z.number().int().nonnegative(), runs: z.number().int() });
export type Stat = z.output<typeof StatSchema>;

/** Who played a GameVerse row: the random baseline, a human role, or an agent (model or solver). */
export const BASELINES = ['random', 'human-rookie', 'human-expert'] as const;

export const PlayerSchema = z.object({
  /** The leaderboard's player (agent name, or human-rookie / human-expert) and model. */
  player: z.string(),
  model: z.string().nullable(),
  vr: z.enum(['No', 'Yes', '—']),
  lessons: z.string().nullable(),
  space: z.string(),
  latency: z.string(),
  /** The row's name in tables: Random, Human Rookie, Human Expert, the model, or the agent. */
  label: z.string(),
  baseline: z.enum(BASELINES).nullable(),
});
export type Player = z.output<typeof PlayerSchema>;

export const GameInfoSchema = z.object({
  id: z.string(),
  title: z.string(),
  category: z.string().nullable(),
  tier: z.string().nullable(),
});

export const GameverseRowSchema = PlayerSchema.extend({
  /** One cell per game the row played, keyed by game id. */
  cells: z.record(z.string(), StatSchema),
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
  transfer_mean: num.nullable(),
});

export const LatencyComparisonSchema = PlayerSchema.omit({ latency: true }).extend({
  game: z.string(),
  modes: z.array(StatSchema.extend({ latency: z.string() })),
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
  }),
  ingvp: z.array(IngvpRowSchema),
  idc: z.array(IdcCurveSchema),
  latency: z.array(LatencyComparisonSchema),
  cost: z.array(CostRowSchema),
});
export type ReportData = z.output<typeof ReportDataSchema>;

/** What the page, the CSV files and the Runs tab draw. */
export interface ReportView {
  data: ReportData;
  tables: ReportTable[];
  charts: ReportChart[];
}
