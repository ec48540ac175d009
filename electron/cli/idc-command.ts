/** `gamepilot idc`: an Improvement Dynamics Curve with a model on a built-in game. */
import { createWindowManager } from '../../native/index.ts';
import { runIdc, type IdcOptions } from '../reflection/idc.ts';
import { addSecret } from '../util/log.ts';
import { io } from './io.ts';
import type { IdcFlags } from './command-flags.ts';
import { idcPlan, preflight } from '../session/preflight.ts';
import { preflightExit } from './preflight-exit.ts';
import { checkCapPriced, meterFor, priceOf } from '../session/run-meter.ts';
import { namedAsFlags, RunSpecError } from '../run-spec.ts';
import { UsageError } from './options.ts';

/** The IDC run the flags ask for; a cap on an unpriced model is a usage error. */
export function idcOptionsFrom(o: IdcFlags): Omit<IdcOptions, 'log'> {
  addSecret(o.apiKey);
  const common = { ...(o.baseUrl ? { baseUrl: o.baseUrl } : {}), ...(o.apiKey ? { apiKey: o.apiKey } : {}) };
  try {
    checkCapPriced(o, [
      { field: 'model', model: o.model },
      { field: 'reflectorModel', model: o.reflectorModel },
    ]);
  } catch (err) {
    if (err instanceof RunSpecError) throw new UsageError(err.as(namedAsFlags));
    throw err;
  }
  const price = priceOf(o);
  return {
    game: o.game,
    actionSpace: o.actionSpace,
    rounds: o.rounds,
    episodes: o.episodes,
    ...(o.maxSteps !== undefined ? { maxSteps: o.maxSteps } : {}),
    seed: o.seed,
    heldOutEpisodes: o.heldOut ?? o.episodes,
    outDir: o.runsDir,
    player: { model: o.model, ...common, ...(price ? { price } : {}) },
    reflector: { model: o.reflectorModel ?? o.model, ...common },
    meter: meterFor(o, o.model),
    maxWords: o.maxWords,
    rollbackDrop: o.rollbackDrop,
    judgeTries: o.judgeTries,
    latency: o.latency,
    latencySettings: { stopIntervalMs: o.stopIntervalMs },
  };
}

const signed = (n: number) => `${n >= 0 ? '+' : ''}${n}`;

export async function idcCommandAction(o: IdcFlags): Promise<number> {
  const options = idcOptionsFrom(o);
  const wm = createWindowManager();
  if (o.preflight) {
    const refused = await preflightExit(() => preflight(idcPlan(options), wm));
    if (refused !== undefined) return refused;
  }
  const result = await runIdc({ ...options, log: io.log }, wm);
  if (o.json) io.out(JSON.stringify(result));
  else {
    io.log(
      `curve: ${result.curve.join(' → ')}  (R0 ${result.r0}; best round ${result.best_round}, ${signed(result.gain_vs_r0)} over R0; best − final ${result.best_vs_final})`,
    );
    for (const s of result.transfer.splits)
      io.log(`held-out ${s.variant}: no skill ${s.baseline.mean}, best skill ${s.best.mean} (${signed(s.gain)})`);
    io.log(`best skill:\n${result.best_skill || '(none: round 0 was best)'}`);
    if (result.spent_usd !== undefined) io.log(`spent: $${result.spent_usd}`);
    if (result.stopped) io.log(`stopped: ${result.stopped}`);
  }
  return 0;
}
