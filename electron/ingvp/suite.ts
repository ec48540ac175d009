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
import { CodedError, INGVP_SETTINGS, RUN_ID } from '../domain.ts';
import { firstIssue, MAX_STATE_BYTES } from '../store/json-rows.ts';
import { resolveRunFile } from '../store/run-files.ts';
import { readSourceFile } from '../util/yaml-file.ts';
import type { ScreenCapturer } from '../capture/capturer.ts';
import { DEFAULT_ENCODE, type EncodeOptions } from '../capture/encode.ts';
import { ingvpGame, type IngvpGame } from '../../games/ingvp/games.ts';
import { INGVP_STEP_LIMIT, settingSpec, type IngvpSetting } from './ingvp-settings.ts';
import { playLevel, type LevelMetrics, type LevelView } from './level-run.ts';
import type { Player } from './players.ts';
import { tableOf, type SuiteTable } from './table.ts';

export interface LevelResult extends LevelMetrics {
  game: string;
  setting: IngvpSetting;
  level: number;
  run: string;
  ms: number;
}

export interface SuiteProgress {
  done: number;
  total: number;
  /** Levels skipped because an earlier run of this suite finished them. */
  resumed: number;
  etaMs: number | null;
  /** Solved share of the levels finished so far (this run and earlier ones), %. */
  accuracy: number;
  current?: { game: string; setting: IngvpSetting; level: number };
  last?: LevelResult;
}

export interface SuiteOptions {
  games: string[];
  settings: IngvpSetting[];
  levels: number[];
  out: string;
  player: Player;
  capturer: ScreenCapturer;
  encode?: EncodeOptions;
  /** Opens a game's window once; every level of the game is loaded into it. */
  openView(game: IngvpGame): Promise<LevelView & { close(): Promise<void> }>;
  signal: AbortSignal;
  onProgress?: (p: SuiteProgress) => void;
  onStep?: Parameters<typeof playLevel>[3]['onStep'];
}

export interface SuiteResult {
  out: string;
  table: SuiteTable;
  results: LevelResult[];
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
  setting: z.enum(INGVP_SETTINGS),
  level: z.number().int().positive(),
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

export async function runSuite(o: SuiteOptions): Promise<SuiteResult> {
  const started = performance.now();
  const out = path.resolve(o.out);
  const runsDir = path.join(out, 'runs');
  const games = o.games.map((id) => {
    const g = ingvpGame(id);
    if (!g) throw new CodedError('bad-input', `"${id}" is not an ING-VP game`);
    return g;
  });
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
  const save = () => {
    state.updated = new Date().toISOString();
    writeFileAtomic(path.join(out, 'suite.json'), JSON.stringify(state, null, 1));
  };
  const wanted = games.flatMap((g) =>
    o.settings.flatMap((setting) => o.levels.map((level) => ({ g, setting, level }))),
  );
  const todo = wanted.filter((w) => !state.results[resultKey(w.g.def.id, w.setting, w.level)]);
  const resumed = wanted.length - todo.length;
  let played = 0;
  let playedMs = 0;
  let stopped = false;
  const finished = () => wanted.map((w) => state.results[resultKey(w.g.def.id, w.setting, w.level)]).filter((r) => !!r);
  const progress = (extra: Partial<SuiteProgress> = {}) => {
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

  for (const g of games) {
    const mine = todo.filter((t) => t.g === g);
    if (!mine.length || stopped) continue;
    const view = await o.openView(g);
    try {
      for (const { setting, level } of mine) {
        if (o.signal.aborted) {
          stopped = true;
          break;
        }
        progress({ current: { game: g.def.id, setting, level } });
        const t0 = performance.now();
        const store = RunStore.create(runsDir, {
          kind: 'agent',
          game: g.def.id,
          target: { kind: 'builtin', label: g.def.title },
          agent: o.player.name,
          model: o.player.model,
          action_space: `ingvp:${setting}`,
          config: { suite: 'ingvp', setting, level, step_limit: INGVP_STEP_LIMIT, thinking: o.player.thinking },
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
        const result: LevelResult = { game: g.def.id, setting, level, run: store.meta.id, ms, ...metrics };
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
          ingvp: { suite: 'ingvp', game: g.def.id, level, setting, ...metrics },
        } as Partial<RunMeta>);
        state.results[resultKey(g.def.id, setting, level)] = result;
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
  const table = tableOf(
    results,
    o.settings,
    games.map((g) => g.def.id),
  );
  writeFileAtomic(path.join(out, 'table.json'), JSON.stringify(table, null, 1));
  return { out, table, results, played, resumed, stopped, wallMs: Math.round(performance.now() - started) };
}
