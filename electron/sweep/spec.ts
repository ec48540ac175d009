/**
 * A sweep file (YAML): the values of each axis under the CLI's own names, expanded into jobs —
 * one per matrix cell and trial, each an ordinary `gamepilot run` — and arenas (`arena:`), one
 * job per match, each a `gamepilot run --seats`. A job's id is a hash of its normalised cell, so
 * expanding the same file again gives the same ids (resume, idempotent enqueue). An unknown axis
 * or value is refused with the file's line, nothing half-read.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import { BUILTIN_GAMES } from '../../games/index.ts';
import type { ACTION_SPACES, LATENCY_MODES, REFLECTION_MODES } from '../domain.ts';
import { isModelAgent } from '../domain.ts';
import {
  flagOf,
  noFlagOf,
  needsTutorial,
  parseAgentSpec,
  RUN_SPEC_FIELDS as F,
  recordKeyOf,
  RUN_SPEC_DEFAULTS,
  type RunSpecField,
  SWEEP_TRIALS,
  type RunSpecInput,
  sayFields,
  tutorialRule,
} from '../run-spec.ts';
import { ArenaEntrySchema, arenaEntryRefusal, entryMatches } from './arena-entry.ts';
import { loadCatalog, type ProfileCatalog } from '../profiles/registry.ts';
import { semanticMovesProblem } from '../profiles/profile-schema.ts';
import { FileRefusal, issuePath, parseYamlMapping, readSourceFile } from '../util/yaml-file.ts';

export const SWEEP_AGENTS = ['random', 'solver', 'vlm', 'memory'] as const;

/** A sweep file that cannot be used: file, line and field in the message. */
export class SweepFileError extends FileRefusal {
  constructor(file: string, line: number | undefined, field: string | undefined, reason: string) {
    super('sweep', 'nothing was run', file, line, field, reason);
  }
}

/** One value or a list of them; a problem is reported at the item (e.g. `agents.1`). */
function axis<T extends z.ZodType>(item: T) {
  return z.preprocess((v) => (Array.isArray(v) || v === undefined ? v : [v]), z.array(item).min(1));
}
const posInt = z.number().int().positive();
/** The largest `job_timeout_s`: a day. */
export const JOB_TIMEOUT_MAX_S = 86_400;
const limits = z.strictObject({
  rpm: posInt.optional(),
  tpm: posInt.optional(),
});

export const SweepFileSchema = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, 'letters, digits, ".", "-" and "_" (at most 64)')
    .optional(),
  games: axis(z.union([z.string().min(1), z.number()]).transform(String)).optional(),
  /** Arenas: each entry's matches are jobs (sweep/arena-entry.ts). */
  arena: axis(ArenaEntrySchema).optional(),
  agents: axis(z.enum(SWEEP_AGENTS)).default(['random']),
  // The axes and settings a run takes are the RunSpec's fields (run-spec.ts), under their record
  // keys: a value is checked by the field's own schema, with the same bounds as everywhere else.
  models: axis(F.model.unwrap()).optional(),
  action_space: axis(F.actionSpace.unwrap()).default(['gui']),
  latency: axis(F.latency.unwrap()).optional(),
  reflection: axis(F.reflection.unwrap()).default(['none']),
  max_steps: axis(F.maxSteps.unwrap()).optional(),
  seed: axis(F.seed.unwrap()).default([0]),
  trials: SWEEP_TRIALS,
  episodes: F.episodes.unwrap().default(1),
  tutorial: F.tutorial,
  base_url: F.baseUrl.unwrap().pipe(z.url()).optional(),
  price_in: F.priceIn,
  price_out: F.priceOut,
  max_tokens: F.maxTokens,
  history: F.history,
  game_text: F.gameText,
  /** Attempts a job gets beyond the first when its worker crashes or its run fails. */
  retries: z.number().int().min(0).max(10).default(2),
  /**
   * Longest an attempt may take, in seconds (at most a day): past it the job's process group is
   * killed and the attempt fails `timed out after N s` (retried like any failure). None by default.
   * It does not shape the run, so it is not part of the job id.
   */
  job_timeout_s: posInt.max(JOB_TIMEOUT_MAX_S).optional(),
  /** `false`: the jobs' runs skip their pre-flight check. How a run is checked does not shape it: not part of the job id. */
  preflight: F.preflight.unwrap().optional(),
  /** The sweep's cost cap: each job runs with a share of what is left as its own (budget-share.ts). */
  budget_usd: F.budgetUsd,
  /** Per provider (the base URL's host, or "default"): requests and tokens per minute. */
  rate_limits: z.record(z.string().min(1), limits).optional(),
});
export type SweepFile = z.output<typeof SweepFileSchema>;

/** One matrix cell and trial: everything that makes a job's run what it is. */
export interface Cell {
  game: string;
  /** `arena`: a match of a two-seat game, its agents in `seats`. */
  agent: (typeof SWEEP_AGENTS)[number] | 'arena';
  model: string | null;
  action_space: (typeof ACTION_SPACES)[number];
  latency: (typeof LATENCY_MODES)[number] | null;
  reflection: (typeof REFLECTION_MODES)[number];
  max_steps: number | null;
  episodes: number;
  seed: number;
  trial: number;
  /** A match: player 1's agent, then player 2's (solver, random, vlm:<model>). */
  seats?: [string, string];
}

/** Whether a job's run asks a model (its own agent's, or a seat's): the key and the rate limits apply. */
export function cellUsesModel(cell: Pick<Cell, 'model' | 'seats'>): boolean {
  return !!cell.model || !!cell.seats?.some((a) => isModelAgent(parseAgentSpec(a).agent));
}

/** An agent spec as a job from elsewhere may carry it: one parseAgentSpec reads (so never a flag or a list). */
const seatText = z
  .string()
  .regex(/^[\w.:/@][\w./:@-]{0,199}$/, 'must be an agent: solver, random or vlm:<model>')
  .refine((a) => {
    try {
      return parseAgentSpec(a).agent !== 'human'; // no person sits at a sweep worker
    } catch {
      return false;
    }
  }, 'must be an agent: solver, random or vlm:<model>');

export interface SweepJob {
  id: string;
  sweep: string;
  cell: Cell;
}

/** A job as it arrives from elsewhere (a queue): checked field by field before anything runs. */
export const SweepJobSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/),
  sweep: z.string().max(200),
  cell: z.strictObject({
    game: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/),
    agent: z.enum([...SWEEP_AGENTS, 'arena']),
    model: F.model.unwrap().nullable(),
    action_space: F.actionSpace.unwrap(),
    latency: F.latency.unwrap().nullable(),
    reflection: F.reflection.unwrap(),
    max_steps: F.maxSteps.unwrap().nullable(),
    episodes: F.episodes.unwrap(),
    seed: F.seed.unwrap(),
    trial: z.number().int().nonnegative(),
    seats: z.tuple([seatText, seatText]).optional(),
  }),
});
export const RunSettingsSchema = SweepFileSchema.pick({
  base_url: true,
  price_in: true,
  price_out: true,
  max_tokens: true,
  history: true,
  game_text: true,
  tutorial: true,
  job_timeout_s: true,
  preflight: true,
});

export interface Sweep {
  name: string;
  file: string;
  spec: SweepFile;
  jobs: SweepJob[];
}

/** The most jobs a sweep file may expand to unless the user raises it (`--job-limit`): a few KB can ask for 10⁷. */
export const DEFAULT_JOB_LIMIT = 100_000;

/** Reads, validates and expands a sweep file. */
export function loadSweepFile(
  file: string,
  catalog: ProfileCatalog = loadCatalog(),
  jobLimit = DEFAULT_JOB_LIMIT,
): Sweep {
  return parseSweep(readSourceFile(file, 'sweep').toString('utf8'), file, catalog, jobLimit);
}

/** How many jobs the matrix makes at most, counted without making them. */
export function matrixSize(spec: SweepFile): number {
  const n = (axis: readonly unknown[] | undefined) => axis?.length ?? 1;
  const perGame = spec.agents.reduce(
    (sum, agent) => sum + (isModelAgent(agent) ? n(spec.models) * n(spec.reflection) : 1),
    0,
  );
  const matches = (spec.arena ?? []).reduce((sum, e) => sum + (arenaEntryRefusal(e) ? 0 : entryMatches(e).length), 0);
  return (
    matches +
    (spec.games ?? []).length *
      perGame *
      n(spec.action_space) *
      n(spec.latency) *
      n(spec.max_steps) *
      n(spec.seed) *
      spec.trials
  );
}

export function parseSweep(
  source: string,
  file: string,
  catalog: ProfileCatalog = loadCatalog(),
  jobLimit = DEFAULT_JOB_LIMIT,
): Sweep {
  const { data, lineOf } = parseYamlMapping(
    source,
    { syntax: 'YAML', notMapping: 'a sweep is a mapping of axes (games, agents, models, trials, …)' },
    (line, reason) => {
      throw new SweepFileError(file, line, undefined, reason);
    },
  );
  const refuse = (p: PropertyKey[], field: string, reason: string): never => {
    throw new SweepFileError(file, lineOf(p), field || undefined, reason);
  };
  const r = SweepFileSchema.safeParse(data);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const { path: raw } = issuePath(issue);
    // One value where a list may be: the value itself is at fault, not its item 0.
    const single = raw.length > 1 && raw[1] === 0 && !Array.isArray((data as Record<string, unknown>)[String(raw[0])]);
    const p = single ? [raw[0]!, ...raw.slice(2)] : raw;
    const unknown =
      p.length === 1
        ? `unknown axis (axes: ${Object.keys(SweepFileSchema.shape).join(', ')})`
        : p[0] === 'arena'
          ? `unknown field (an arena entry has: ${Object.keys(ArenaEntrySchema.shape).join(', ')})`
          : 'unknown field';
    return refuse(p, p.map(String).join('.'), issue.code === 'unrecognized_keys' ? unknown : issue.message);
  }
  const spec = r.data;
  const games = spec.games ?? [];
  if (!games.length && !spec.arena) refuse([], 'games', 'give games: [ID, …], or an arena: entry');
  const arenaListed = Array.isArray((data as { arena?: unknown }).arena);
  (spec.arena ?? []).forEach((e, i) => {
    const why = arenaEntryRefusal(e);
    if (!why) return;
    const at = [...(arenaListed ? ['arena', i] : ['arena']), ...why.at];
    refuse(at, at.join('.'), why.reason);
  });
  const listed = Array.isArray((data as { games?: unknown }).games);
  const gameAt = (i: number) => (listed ? ['games', i] : ['games']);
  const gameField = (i: number) => (listed ? `games.${i}` : 'games');
  games.forEach((g, i) => {
    if (BUILTIN_GAMES[g]) return;
    const entry = catalog.entries.find((e) => e.profile.id === g);
    if (!entry)
      refuse(
        gameAt(i),
        gameField(i),
        `unknown game "${g}" (built-ins: ${Object.keys(BUILTIN_GAMES).join(', ')}; or the id of a profile with a launch command)`,
      );
    else if (!entry.profile.launch)
      refuse(gameAt(i), gameField(i), `profile "${g}" has no launch command, so a sweep worker cannot start it`);
  });
  const modelAgents = spec.agents.filter(isModelAgent);
  if (modelAgents.length && !spec.models)
    refuse(['agents'], 'agents', `${modelAgents.join(', ')} needs models: [NAME, …]`);
  if (spec.action_space.includes('semantic')) {
    for (const g of games) {
      const profile = catalog.entries.find((e) => e.profile.id === g)?.profile;
      const problem = semanticMovesProblem('semantic', !!BUILTIN_GAMES[g], profile);
      if (problem) refuse(['action_space'], 'action_space', `"${g}": ${problem}`);
    }
  }
  const untaught = spec.tutorial ? undefined : spec.reflection.find(needsTutorial);
  if (untaught) refuse(['reflection'], 'reflection', sayFields(tutorialRule(untaught), recordKeyOf));
  if (spec.agents.includes('solver')) {
    const noSolver = games.find((g) => !BUILTIN_GAMES[g]);
    if (noSolver) refuse(['agents'], 'agents', `solver plays built-in games only ("${noSolver}" is not)`);
  }
  const size = matrixSize(spec);
  if (size > jobLimit)
    refuse(
      ['trials'],
      '',
      `the matrix expands to ${size.toLocaleString('en')} jobs, above the limit of ${jobLimit.toLocaleString('en')} (raise it with --job-limit)`,
    );
  const name = spec.name ?? path.basename(file).replace(/\.(ya?ml|json)$/i, '');
  return { name, file, spec, jobs: expand(spec, name) };
}

/** Every cell × trial. Axes that do not apply to a cell (a model for the random agent) collapse. */
export function expand(spec: SweepFile, sweep: string): SweepJob[] {
  const seen = new Map<string, SweepJob>();
  for (const game of spec.games ?? [])
    for (const agent of spec.agents)
      for (const model of isModelAgent(agent) ? spec.models! : [null])
        for (const action_space of spec.action_space)
          for (const latency of spec.latency ?? [null])
            for (const reflection of isModelAgent(agent) ? spec.reflection : (['none'] as const))
              for (const max_steps of spec.max_steps ?? [null])
                for (const seed of spec.seed)
                  for (let trial = 0; trial < spec.trials; trial++) {
                    const cell: Cell = {
                      game,
                      agent,
                      model,
                      action_space,
                      latency,
                      reflection,
                      max_steps,
                      episodes: spec.episodes,
                      seed,
                      trial,
                    };
                    const id = jobId(cell, spec);
                    if (!seen.has(id)) seen.set(id, { id, sweep, cell });
                  }
  for (const entry of spec.arena ?? [])
    for (const m of entryMatches(entry)) {
      const cell: Cell = {
        game: m.game,
        agent: 'arena',
        model: null,
        action_space: entry.action_space,
        latency: entry.latency,
        reflection: 'none',
        max_steps: entry.max_steps ?? null,
        episodes: m.episodes,
        seed: entry.seed,
        trial: 0,
        seats: m.seats,
      };
      const id = jobId(cell, spec);
      if (!seen.has(id)) seen.set(id, { id, sweep, cell });
    }
  return [...seen.values()];
}

/**
 * What the run depends on beyond the cell: the provider and its options. Not `job_timeout_s`:
 * how long a worker waits for a run does not change the run, so the ids stay as they were.
 */
function runSettings(spec: SweepFile): RunSettings {
  const { base_url, price_in, price_out, max_tokens, history, game_text, tutorial } = spec;
  return { base_url, price_in, price_out, max_tokens, history, game_text, tutorial };
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
        .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
    );
  return v;
}

/** A readable, deterministic job id: game, agent, trial and a hash of the normalised cell. */
export function jobId(cell: Cell, spec: SweepFile): string {
  const hash = createHash('sha256')
    .update(JSON.stringify(canonical({ cell, settings: runSettings(spec) })))
    .digest('hex')
    .slice(0, 12);
  const slug = (s: string) => s.replace(/[^A-Za-z0-9]+/g, '').slice(0, 20) || 'x';
  const who = cell.seats ? `${slug(cell.seats[0])}-${slug(cell.seats[1])}` : slug(cell.agent);
  return `${slug(cell.game)}-${who}-t${cell.trial}-${hash}`;
}

/** The `gamepilot run` arguments for a job (the target comes separately: built-in or launched window). */
export type RunSettings = Pick<
  SweepFile,
  | 'base_url'
  | 'price_in'
  | 'price_out'
  | 'max_tokens'
  | 'history'
  | 'game_text'
  | 'tutorial'
  | 'job_timeout_s'
  | 'preflight'
>;

/** A job's run as a RunSpec (the target aside): the cell and the file's settings under the spec's names. */
export function cellSpec(cell: Cell, spec: RunSettings): RunSpecInput {
  const reflects = cell.reflection !== 'none';
  return {
    ...(cell.seats ? { seats: cell.seats } : { agent: cell.agent as (typeof SWEEP_AGENTS)[number] }),
    actionSpace: cell.action_space,
    episodes: cell.episodes,
    seed: cell.seed + cell.trial,
    ...(cell.max_steps !== null ? { maxSteps: cell.max_steps } : {}),
    ...(cell.latency ? { latency: cell.latency } : {}),
    ...(cell.model ? { model: cell.model } : {}),
    ...(reflects ? { reflection: cell.reflection } : {}),
    ...(spec.tutorial && reflects ? { tutorial: spec.tutorial } : {}),
    ...(spec.base_url && cellUsesModel(cell) ? { baseUrl: spec.base_url } : {}),
    ...(spec.price_in !== undefined ? { priceIn: spec.price_in } : {}),
    ...(spec.price_out !== undefined ? { priceOut: spec.price_out } : {}),
    ...(spec.max_tokens !== undefined ? { maxTokens: spec.max_tokens } : {}),
    ...(spec.history !== undefined ? { history: spec.history } : {}),
    ...(spec.game_text ? { gameText: true } : {}),
    ...(spec.preflight === false ? { preflight: false } : {}),
  };
}

/** A spec as `gamepilot run` arguments: each field as its flag (`maxSteps` → `--max-steps`). */
export function specArgv(input: RunSpecInput): string[] {
  return Object.entries(input).flatMap(([field, v]) => {
    if (v === false) return RUN_SPEC_DEFAULTS[field as RunSpecField] === true ? [noFlagOf(field)] : [];
    if (v === undefined) return [];
    if (v === true) return [flagOf(field)];
    return [flagOf(field), Array.isArray(v) ? v.join(',') : String(v)];
  });
}

export function runArgs(cell: Cell, spec: RunSettings): string[] {
  return specArgv(cellSpec(cell, spec));
}
