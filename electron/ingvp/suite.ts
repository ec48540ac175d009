/**
 * `gamepilot suite ingvp`: games × settings × levels, one run folder per level (runs/), the
 * finished levels in suite.json (rewritten atomically after each), the paper-style table in
 * table.json. A suite started again on the same folder skips every level suite.json holds, so
 * an interrupted suite resumes where it stopped; a level cut short is played again from its start.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../util/atomic-file.ts';
import { RunStore, type RunMeta } from '../store/run-store.ts';
import { CodedError, INGVP_SUITE_SETTINGS, RUN_ID } from '../domain.ts';
import { firstIssue, MAX_STATE_BYTES } from '../store/json-rows.ts';
import { resolveRunFile } from '../store/run-files.ts';
import { readSourceFile } from '../util/yaml-file.ts';
import type { ScreenCapturer } from '../capture/capturer.ts';
import { DEFAULT_ENCODE, type EncodeOptions } from '../capture/encode.ts';
import { ingvpGame, type IngvpGame } from '../../games/ingvp/games.ts';
import { lengthStudyGame, lengthStudyId } from '../../games/ingvp-maze/length-study.ts';
import { INGVP_STEP_LIMIT, settingSpec, type SuiteSetting } from './ingvp-settings.ts';
import { playLevel, type LevelMetrics, type LevelView } from './level-run.ts';
import type { Player } from './players.ts';
import { tableOf, type SuiteTable } from './table.ts';

export interface LevelResult<S extends SuiteSetting = SuiteSetting> extends LevelMetrics {
  /** The game's id; a maze-length study level's is ingvp-maze-<length>. */
  game: string;
  setting: S;
  level: number;
  run: string;
  ms: number;
  /** A maze-length study level: its shortest solution's length. */
  maze_steps?: number;
}

export interface SuiteProgress<S extends SuiteSetting = SuiteSetting> {
  done: number;
  total: number;
  /** Levels skipped because an earlier run of this suite finished them. */
  resumed: number;
  etaMs: number | null;
  /** Solved share of the levels finished so far (this run and earlier ones), %. */
  accuracy: number;
  current?: { game: string; setting: S; level: number };
  last?: LevelResult<S>;
}

export interface SuiteOptions<S extends SuiteSetting = SuiteSetting> {
  games: string[];
  settings: S[];
  levels: number[];
  /**
   * The maze-length study (Fig. 4): each of these lengths plays the maze's `levels` with the start
   * moved to that many moves from the destination, in every setting, beside `games`.
   */
  mazeSteps?: number[];
  /** Picks each study level's start among the cells at its length. */
  mazeSeed?: number;
  out: string;
  player: Player;
  capturer: ScreenCapturer;
  encode?: EncodeOptions;
  /** Opens a game's window once; every level of the game is loaded into it. */
  openView(game: IngvpGame): Promise<LevelView & { close(): Promise<void> }>;
  signal: AbortSignal;
  onProgress?: (p: SuiteProgress<S>) => void;
  onStep?: Parameters<typeof playLevel>[3]['onStep'];
}

export interface SuiteResult<S extends SuiteSetting = SuiteSetting> {
  out: string;
  table: SuiteTable<S>;
  results: LevelResult<S>[];
  /** Levels played by this run (not resumed ones). */
  played: number;
  resumed: number;
  stopped: boolean;
  wallMs: number;
}

const resultKey = (game: string, setting: string, level: number) => `${game}/${setting}/${level}`;

const count = z.number().int().nonnegative();
const pct = z.number().min(0).max(100);
/** One finished level as suite.json keeps it: everything the table, the resume and the UI read. */
const LevelResultSchema = z.looseObject({
  game: z.string().min(1).max(64),
  setting: z.enum(INGVP_SUITE_SETTINGS),
  level: z.number().int().positive(),
  maze_steps: count.optional(),
  run: z.string().regex(RUN_ID, 'must be a run id (a folder name), not a path'),
  ms: count,
  solved: z.boolean(),
  completion: pct,
  efficiency: pct,
  actions: count,
  changed: count,
  steps: count,
  unparsable: count,
  dropped: count,
});

const SuiteFileSchema = z
  .looseObject({
    suite: z.literal('ingvp'),
    agent: z.string(),
    model: z.string().nullable(),
    thinking: z.boolean().optional(),
    maze_seed: z.number().int().optional(),
    created: z.string().default(''),
    updated: z.string().default(''),
    results: z.record(z.string(), LevelResultSchema),
  })
  .superRefine((f, ctx) => {
    // A result counts for the level its key names only when it says it is that level.
    for (const [key, r] of Object.entries(f.results))
      if (key !== resultKey(r.game, r.setting, r.level))
        ctx.addIssue({
          code: 'custom',
          path: ['results', key],
          message: `holds the result of ${resultKey(r.game, r.setting, r.level)}`,
        });
  });

interface SuiteFile {
  suite: 'ingvp';
  agent: string;
  model: string | null;
  /** The model was let think before its answer (absent in suites from before: false). */
  thinking?: boolean;
  /** The seed the maze-length study's levels were picked with (absent until one was played). */
  maze_seed?: number;
  step_limit: number;
  created: string;
  updated: string;
  results: Record<string, LevelResult>;
}

/**
 * suite.json of a folder (undefined when there is none); a damaged one is an error naming the
 * file (and the field), never overwritten. It must be a plain file inside the folder (a symlink
 * is not followed) and no larger than a suite ever writes.
 */
export function readSuiteFile(out: string): SuiteFile | undefined {
  const file = path.join(out, 'suite.json');
  if (!existsSync(file)) return undefined;
  let text: string;
  try {
    text = readSourceFile(resolveRunFile(out, 'suite.json', 'suite folder'), 'ING-VP suite', MAX_STATE_BYTES).toString(
      'utf8',
    );
  } catch (err) {
    throw new CodedError('bad-input', `${(err as Error).message}; move it away to start afresh`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new CodedError(
      'bad-input',
      `${file} is not valid JSON (${(err as Error).message}); move it away to start afresh`,
    );
  }
  const parsed = SuiteFileSchema.safeParse(data);
  if (!parsed.success)
    throw new CodedError(
      'bad-input',
      `${file} is not an ING-VP suite file: ${firstIssue(parsed.error)}; move it away to start afresh`,
    );
  return parsed.data as unknown as SuiteFile;
}

/** A game the suite plays: one window; a maze-length study game carries its length. */
interface Played {
  g: IngvpGame;
  /** The result rows' game: the game's id, or ingvp-maze-<length>. */
  id: string;
  mazeSteps?: number;
}

function studyGames(lengths: number[], seed: number, levels: number[]): Played[] {
  return lengths.map((length) => {
    try {
      return { g: lengthStudyGame(length, seed, levels), id: lengthStudyId(length), mazeSteps: length };
    } catch (err) {
      throw new CodedError('bad-input', `--maze-steps ${length}: ${(err as Error).message}`);
    }
  });
}

export async function runSuite<S extends SuiteSetting>(o: SuiteOptions<S>): Promise<SuiteResult<S>> {
  const started = performance.now();
  const out = path.resolve(o.out);
  const runsDir = path.join(out, 'runs');
  const mazeSteps = o.mazeSteps ?? [];
  const mazeSeed = o.mazeSeed ?? 0;
  const games: Played[] = [
    ...o.games.map((id) => {
      const g = ingvpGame(id);
      if (!g) throw new CodedError('bad-input', `"${id}" is not an ING-VP game`);
      return { g, id };
    }),
    ...studyGames(mazeSteps, mazeSeed, o.levels),
  ];
  // A suite.json that cannot be resumed is refused before anything is made in its folder.
  const prior = readSuiteFile(out);
  if (
    prior &&
    (prior.agent !== o.player.name || prior.model !== o.player.model || (prior.thinking ?? false) !== o.player.thinking)
  )
    throw new CodedError(
      'bad-input',
      `${out} holds a suite of ${prior.agent}${prior.model ? ` (${prior.model})` : ''}${prior.thinking ? ' with thinking' : ''}; resume it with the same agent, model and thinking setting, or give another --out`,
    );
  // Study levels of another seed are other levels: they would share result keys with these.
  if (mazeSteps.length && prior?.maze_seed !== undefined && prior.maze_seed !== mazeSeed)
    throw new CodedError(
      'bad-input',
      `${out} holds maze-length study levels picked with seed ${prior.maze_seed}; resume with --seed ${prior.maze_seed}, or give another --out`,
    );
  mkdirSync(runsDir, { recursive: true });
  const now = new Date().toISOString();
  const state: SuiteFile = prior ?? {
    suite: 'ingvp',
    agent: o.player.name,
    model: o.player.model,
    thinking: o.player.thinking,
    step_limit: INGVP_STEP_LIMIT,
    created: now,
    updated: now,
    results: {},
  };
  if (mazeSteps.length) state.maze_seed = mazeSeed;
  const save = () => {
    state.updated = new Date().toISOString();
    writeFileAtomic(path.join(out, 'suite.json'), JSON.stringify(state, null, 1));
  };
  const wanted = games.flatMap((p) =>
    o.settings.flatMap((setting) => o.levels.map((level) => ({ p, setting, level }))),
  );
  const resultOf = (w: { p: Played; setting: S; level: number }) =>
    state.results[resultKey(w.p.id, w.setting, w.level)] as LevelResult<S> | undefined;
  const todo = wanted.filter((w) => !resultOf(w));
  const resumed = wanted.length - todo.length;
  let played = 0;
  let playedMs = 0;
  let stopped = false;
  const finished = () => wanted.map(resultOf).filter((r) => !!r);
  const progress = (extra: Partial<SuiteProgress<S>> = {}) => {
    const done = finished();
    const left = wanted.length - done.length;
    o.onProgress?.({
      done: done.length,
      total: wanted.length,
      resumed,
      etaMs: played ? Math.round((playedMs / played) * left) : null,
      accuracy: done.length ? (done.filter((r) => r.solved).length / done.length) * 100 : 0,
      ...extra,
    });
  };
  progress();

  for (const p of games) {
    const { g } = p;
    const mine = todo.filter((t) => t.p === p);
    if (!mine.length || stopped) continue;
    const view = await o.openView(g);
    try {
      for (const { setting, level } of mine) {
        if (o.signal.aborted) {
          stopped = true;
          break;
        }
        progress({ current: { game: p.id, setting, level } });
        const t0 = performance.now();
        const study = p.mazeSteps === undefined ? {} : { maze_steps: p.mazeSteps, maze_seed: mazeSeed };
        const store = RunStore.create(runsDir, {
          kind: 'agent',
          game: g.def.id,
          target: { kind: 'builtin', label: g.def.title },
          agent: o.player.name,
          model: o.player.model,
          action_space: `ingvp:${setting}`,
          config: {
            suite: 'ingvp',
            setting,
            level,
            step_limit: INGVP_STEP_LIMIT,
            thinking: o.player.thinking,
            ...study,
          },
        });
        let metrics: LevelMetrics;
        try {
          metrics = await playLevel(g, settingSpec(setting), level, {
            view,
            capturer: o.capturer,
            encode: o.encode ?? DEFAULT_ENCODE,
            store,
            player: o.player,
            signal: o.signal,
            ...(o.onStep ? { onStep: o.onStep } : {}),
          });
        } catch (err) {
          const aborted = o.signal.aborted;
          store.close(aborted ? 'stopped' : 'failed', aborted ? 'the suite was stopped' : (err as Error).message);
          if (aborted) {
            stopped = true;
            break;
          }
          throw err;
        }
        const ms = Math.round(performance.now() - t0);
        const result: LevelResult<S> = {
          game: p.id,
          setting,
          level,
          ...(p.mazeSteps === undefined ? {} : { maze_steps: p.mazeSteps }),
          run: store.meta.id,
          ms,
          ...metrics,
        };
        store.close('completed', undefined, {
          episodes: [
            {
              episode: 0,
              seed: level - 1,
              score: metrics.completion,
              steps: metrics.steps,
              end: metrics.solved ? 'solved' : 'step_limit',
            },
          ],
          mean: metrics.completion,
          std: 0,
          ingvp: { suite: 'ingvp', game: p.id, level, setting, ...study, ...metrics },
        } as Partial<RunMeta>);
        state.results[resultKey(p.id, setting, level)] = result;
        save();
        played++;
        playedMs += ms;
        progress({ last: result });
      }
    } finally {
      await view.close();
    }
    if (stopped) break;
  }
  save();
  const results = finished();
  const table = tableOf(results, o.settings, o.games, mazeSteps);
  writeFileAtomic(path.join(out, 'table.json'), JSON.stringify(table, null, 1));
  return { out, table, results, played, resumed, stopped, wallMs: Math.round(performance.now() - started) };
}
