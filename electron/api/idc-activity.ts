/**
 * An Improvement Dynamics Curve started over the contract, with the configured model, as the
 * activity slot holds it: its rounds charted live through events.
 */
import type { WindowManager } from '../../native/types.ts';
import type { CoreEvent, CoreState, ParamsOut } from './contract.ts';
import type { Activity } from './activity.ts';
import type { RunModelSettings } from './settings-service.ts';
import { IDC_DEFAULTS } from '../domain.ts';
import { runIdc } from '../reflection/idc.ts';
import { idcPlan, preflight } from '../session/preflight.ts';
import type { Session } from '../session/session.ts';
import type { ViewLauncher } from '../session/targets.ts';

export interface IdcContext {
  wm: WindowManager;
  runsDir: string;
  launchView?: ViewLauncher;
  model(): RunModelSettings;
  emit(e: CoreEvent): void;
}

export class IdcActivity implements Activity {
  readonly kind = 'idc' as const;
  readonly finished: Promise<string | null>;
  readonly state: NonNullable<CoreState['idc']>;
  private readonly abort = new AbortController();
  private session?: Session;

  private constructor(p: ParamsOut<'startIdc'>, vlm: RunModelSettings, ctx: IdcContext) {
    this.state = { game: p.game, rounds: p.rounds, done: 0 };
    const reflector = {
      model: vlm.model,
      ...(vlm.baseUrl ? { baseUrl: vlm.baseUrl } : {}),
      ...(vlm.apiKey ? { apiKey: vlm.apiKey } : {}),
    };
    this.finished = runIdc(
      {
        game: p.game,
        actionSpace: p.actionSpace,
        rounds: p.rounds,
        episodes: p.episodes,
        ...(p.maxSteps ? { maxSteps: p.maxSteps } : {}),
        seed: 0,
        heldOutEpisodes: p.heldOut ?? p.episodes,
        latency: p.latency,
        outDir: ctx.runsDir,
        player: vlm,
        reflector,
        maxWords: IDC_DEFAULTS.maxWords,
        rollbackDrop: IDC_DEFAULTS.rollbackDrop,
        judgeTries: IDC_DEFAULTS.judgeTries,
        log: () => {},
        signal: this.abort.signal,
        ...(ctx.launchView ? { launch: ctx.launchView } : {}),
        onSession: (s) => (this.session = s),
        onRound: (round, curve) => {
          this.state.done = round.round + 1;
          const { run_dir: _dir, scores: _scores, tool_calls: _calls, ...summary } = round;
          ctx.emit({ type: 'idc', round: summary, curve });
        },
      },
      ctx.wm,
    ).then(
      (r) => {
        ctx.emit({
          type: 'idc-done',
          runDir: r.run_dir,
          curve: r.curve,
          bestRound: r.best_round,
          bestSkill: r.best_skill,
          transfer: r.transfer.splits.map((s) => ({
            variant: s.variant,
            baseline: s.baseline.mean,
            best: s.best.mean,
            gain: s.gain,
          })),
        });
        return null;
      },
      (err: Error) => {
        ctx.emit({
          type: 'idc-done',
          runDir: '',
          curve: [],
          bestRound: 0,
          bestSkill: '',
          transfer: null,
          error: err.message,
        });
        return `IDC failed: ${err.message}`;
      },
    );
  }

  /** Starts the curve with the configured model (refused when none is). */
  static async open(p: ParamsOut<'startIdc'>, ctx: IdcContext): Promise<IdcActivity> {
    const vlm = ctx.model();
    if (p.preflight) await preflight(idcPlan({ game: p.game, player: vlm, reflector: vlm }), ctx.wm);
    return new IdcActivity(p, vlm, ctx);
  }

  stop() {
    this.abort.abort();
    this.session?.stop();
  }

  /** Each round's session closes its own window. */
  async close() {}
}
