/**
 * An ING-VP suite started over the contract, as the activity slot holds it: games × settings ×
 * levels in a suite folder named inside the runs folder (the same name again resumes it), with
 * the model from Settings, the solver or random moves; its progress, the level in play, each
 * answer and the table as it fills relayed as events.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WindowManager } from '../../native/types.ts';
import type {
  CoreEvent,
  Handlers,
  ParamsOut,
  SuiteLevelRef,
  SuiteLevelResult,
  SuiteState,
  SuiteTableWire,
} from './contract.ts';
import type { Activity } from './activity.ts';
import type { RunModelSettings } from './settings-service.ts';
import type { ScreenCapturer } from '../capture/capturer.ts';
import { BuiltinTarget, type ViewLauncher } from '../session/targets.ts';
import { DEFAULT_VLM } from '../agents/vlm.ts';
import { CodedError, type IngvpSetting } from '../domain.ts';
import { INGVP_GAMES, INGVP_GAME_IDS, ingvpGame } from '../../games/ingvp/games.ts';
import { INGVP_SETTINGS, parseLevels } from '../ingvp/ingvp-settings.ts';
import { RandomPlayer, SolverPlayer, VlmPlayer, type Player } from '../ingvp/players.ts';
import { readSuiteFile, runSuite, type LevelResult as AnyLevelResult } from '../ingvp/suite.ts';
import { tableOf } from '../ingvp/table.ts';
import { preflight, suitePlan } from '../session/preflight.ts';

export interface SuiteContext {
  wm: WindowManager;
  capturer: ScreenCapturer;
  runsDir: string;
  launchView?: ViewLauncher;
  /** The configured model (throws when none is). */
  model(): RunModelSettings;
  /** The long side of the screenshots the player gets (Settings). */
  imageSize: number;
  emit(e: CoreEvent): void;
}

const keyOf = (r: SuiteLevelRef) => `${r.game}/${r.setting}/${r.level}`;

/** Each answer takes at least `ms` (so a person can follow the solver); the wait ends at once on stop. */
function paced(player: Player, ms: number): Player {
  if (!ms) return player;
  return {
    name: player.name,
    model: player.model,
    thinking: player.thinking,
    async answer(turn, signal) {
      const t0 = performance.now();
      const answer = await player.answer(turn, signal);
      const left = ms - (performance.now() - t0);
      if (left > 0) await sleep(left, undefined, { signal });
      return answer;
    },
  };
}

function playerOf(p: ParamsOut<'startSuite'>, ctx: SuiteContext): Player {
  if (p.agent === 'solver') return new SolverPlayer();
  if (p.agent === 'random') return new RandomPlayer(p.seed);
  return new VlmPlayer({ ...DEFAULT_VLM, ...ctx.model(), thinking: p.thinking });
}

/** The tab plays the six settings only (a suite folder may hold §4.3's too; they are not read here). */
type LevelResult = AnyLevelResult<IngvpSetting>;

const wireResult = (r: LevelResult): SuiteLevelResult => ({
  game: r.game,
  setting: r.setting,
  level: r.level,
  run: r.run,
  solved: r.solved,
  completion: r.completion,
  efficiency: r.efficiency,
  actions: r.actions,
  changed: r.changed,
  steps: r.steps,
  ms: r.ms,
});

export class SuiteActivity implements Activity {
  readonly kind = 'suite' as const;
  readonly finished: Promise<string | null>;
  readonly state: SuiteState;
  private readonly abort = new AbortController();
  private readonly settings: IngvpSetting[];
  /** Levels this start finished. */
  private played = 0;

  private constructor(
    p: ParamsOut<'startSuite'>,
    private readonly games: string[],
    levels: number[],
    player: Player,
    /** Finished levels of this matrix, earlier starts' included. */
    private readonly results: Map<string, LevelResult>,
    ctx: SuiteContext,
  ) {
    this.settings = p.settings;
    const name = p.name;
    const total = games.length * p.settings.length * levels.length;
    this.state = {
      name,
      agent: p.agent,
      model: player.model,
      games,
      settings: p.settings,
      levels,
      progress: { done: results.size, total, resumed: results.size, etaMs: null, accuracy: 0 },
      current: null,
      table: this.table(),
    };
    this.finished = runSuite({
      games,
      settings: p.settings,
      levels,
      out: path.join(ctx.runsDir, name),
      player: paced(player, p.paceMs),
      capturer: ctx.capturer,
      encode: { imageSize: ctx.imageSize, format: 'jpeg', quality: 80 },
      openView: (g) => BuiltinTarget.open(g.def, ctx.wm, ctx.launchView ? { launch: ctx.launchView } : {}),
      signal: this.abort.signal,
      onProgress: (pr) => {
        const { done, total, resumed, etaMs, accuracy } = pr;
        this.state.progress = { done, total, resumed, etaMs, accuracy };
        if (pr.last) {
          this.played++;
          this.results.set(keyOf(pr.last), pr.last);
          this.state.table = this.table();
          ctx.emit({ type: 'suite-table', suite: name, last: wireResult(pr.last), table: this.state.table });
        }
        ctx.emit({ type: 'suite-progress', suite: name, progress: { ...this.state.progress } });
        if (pr.current) {
          this.state.current = { ...pr.current };
          ctx.emit({ type: 'suite-level', suite: name, current: { ...pr.current } });
        }
      },
      onStep: (s) => {
        const current = this.state.current;
        if (!current) return;
        ctx.emit({
          type: 'suite-step',
          suite: name,
          current: { ...current },
          step: s.step,
          actions: s.outcomes.map((o) => o.action),
          changed: s.outcomes.filter((o) => o.changed).length,
          errors: s.outcomes.flatMap((o) => (o.error ? [o.error] : [])),
          solved: s.solved,
          ...(s.frame
            ? {
                frame: {
                  dataUrl: `data:${s.frame.mime};base64,${s.frame.data.toString('base64')}`,
                  width: s.frame.width,
                  height: s.frame.height,
                },
              }
            : { text: s.state }),
        });
      },
    }).then(
      (r) => {
        this.state.table = r.table;
        ctx.emit({
          type: 'suite-done',
          suite: name,
          played: r.played,
          resumed: r.resumed,
          stopped: r.stopped,
          table: r.table,
        });
        return null;
      },
      (err: Error) => {
        ctx.emit({
          type: 'suite-done',
          suite: name,
          played: this.played,
          resumed: this.state.progress.resumed,
          stopped: this.abort.signal.aborted,
          table: this.state.table,
          error: err.message,
        });
        return `ING-VP suite failed: ${err.message}`;
      },
    );
  }

  /**
   * Checks the request before anything opens: known games and levels, a model when the agent
   * needs one, and a suite folder that is absent or holds a suite of this agent and model.
   */
  static async open(p: ParamsOut<'startSuite'>, ctx: SuiteContext): Promise<SuiteActivity> {
    const asked = p.games.map((id) => (id === 'maze' ? 'ingvp-maze' : id));
    const unknown = asked.filter((id) => !ingvpGame(id));
    if (unknown.length)
      throw new CodedError('bad-input', `unknown ING-VP game ${unknown.join(', ')}: use ${INGVP_GAME_IDS.join(', ')}`);
    const games = INGVP_GAME_IDS.filter((id) => asked.includes(id));
    const settings = INGVP_SETTINGS.filter((s) => p.settings.includes(s));
    let levels: number[];
    try {
      levels = parseLevels(p.levels);
    } catch (err) {
      throw new CodedError('bad-input', `startSuite: levels ${(err as Error).message}`);
    }
    const player = playerOf(p, ctx);
    if (p.preflight && player instanceof VlmPlayer) await preflight(suitePlan(player.settings), ctx.wm);
    const out = path.join(ctx.runsDir, p.name);
    const prior = readSuiteFile(out);
    if (prior && (prior.agent !== player.name || prior.model !== player.model))
      throw new CodedError(
        'bad-input',
        `the suite "${p.name}" was played by ${prior.agent}${prior.model ? ` (${prior.model})` : ''}; resume it with the same agent and model, or give another name`,
      );
    const results = new Map<string, LevelResult>();
    for (const game of games)
      for (const setting of settings)
        for (const level of levels) {
          const r = prior?.results[keyOf({ game, setting, level })] as LevelResult | undefined;
          if (r) results.set(keyOf(r), r);
        }
    return new SuiteActivity({ ...p, settings }, games, levels, player, results, ctx);
  }

  stop() {
    this.abort.abort(new Error('stopped'));
  }

  /** The suite closes each game's window itself. */
  async close() {}

  private table(): SuiteTableWire {
    return tableOf([...this.results.values()], this.settings, this.games);
  }
}

/** The games and settings to pick from, and the suite folders already in the runs folder. */
export function suiteHandlers(deps: { runsDir: string }): Pick<Handlers, 'listSuites'> {
  return {
    listSuites: async () => {
      const suites: Awaited<ReturnType<Handlers['listSuites']>>['suites'] = [];
      const warnings: string[] = [];
      const root = deps.runsDir;
      const names = existsSync(root)
        ? readdirSync(root, { withFileTypes: true }).filter(
            (d) => d.isDirectory() && existsSync(path.join(root, d.name, 'suite.json')),
          )
        : [];
      for (const d of names) {
        try {
          const f = readSuiteFile(path.join(root, d.name));
          if (f)
            suites.push({
              name: d.name,
              agent: f.agent,
              model: f.model,
              finished: Object.keys(f.results).length,
              updated: f.updated,
            });
        } catch (err) {
          warnings.push((err as Error).message);
        }
      }
      return {
        games: INGVP_GAMES.map((g) => ({
          id: g.def.id,
          title: g.def.title,
          levels: g.spec.levels.length,
          undo: g.spec.undo,
        })),
        settings: [...INGVP_SETTINGS],
        suites: suites.sort((a, b) => b.updated.localeCompare(a.updated)),
        warnings,
      };
    },
  };
}
