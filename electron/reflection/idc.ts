/**
 * The Improvement Dynamics Curve (OmniGameArena): round 0 plays without a skill; after each
 * round a tool-using reflector explores that round's recordings and commits a diagnosis, a
 * skill is proposed from it and checked by an independent judge (up to 5 tries), and the next
 * round plays with it. The best skill is cached; a round that falls sharply below the best
 * rolls back to it. Finally, as OmniGameArena's transfer test (its Table 5), the best skill and
 * no skill are both played on fresh seeds of the game itself (the origin split: a replay, not
 * the best round's own mean, which is the largest of the rounds' means) and on each of the
 * game's designed variants (games/<id>: `variants`), and the gain of the skill on each is kept.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { writeFileAtomic } from '../util/atomic-file.ts';
import path from 'node:path';
import { callerFor, type ModelCaller, type RoleCallRecord } from '../agents/model-endpoint.ts';
import type { WindowManager } from '../../native/types.ts';
import { getGame } from '../../games/index.ts';
import { variantOf, type GameDefinition } from '../../games/types.ts';
import { render } from '../agents/prompts.ts';
import { modelSpecFields, VlmAgent, type VlmSettings } from '../agents/vlm.ts';
import { BuiltinTarget, type ViewLauncher } from '../session/targets.ts';
import type { Session } from '../session/session.ts';
import { wireSession } from '../session/compose.ts';
import { parseRunSpec, type RunSpec } from '../run-spec.ts';
import { boundWords, Reflector } from './reflector.ts';
import { explore, NoToolCallingError, NOTEBOOK_CHARS } from './explorer.ts';
import { DEFAULT_REFLECTION_SAMPLING, reflectionSample, reflectorFacts } from './sampling.ts';
import { runTrajectory } from '../scoring/trajectory.ts';
import { proposeSkill, type SkillValidation } from './idc-propose.ts';
import { checkSkill } from './skill-check.ts';
import { mean } from '../util/time.ts';
import type { LatencySettings } from '../latency/clock-policy.ts';
import { IDC_DEFAULTS, round2, type ActionSpace } from '../domain.ts';
import { usd, type CostMeter } from '../agents/cost-meter.ts';

/**
 * An IDC: the spec's settings of its play under their own names (actionSpace: GUI input by
 * default, or the game's own moves; latency: stop = PDQ by default, lcrt charges compute time),
 * and the curve's own.
 */
export type IdcOptions = Partial<Pick<RunSpec, 'actionSpace' | 'maxSteps' | 'latency'>> &
  Required<Pick<RunSpec, 'game' | 'episodes' | 'seed' | 'maxWords'>> & {
    rounds: number;
    heldOutEpisodes: number;
    outDir: string;
    player: Partial<VlmSettings> & { model: string };
    reflector: { model: string; baseUrl?: string; apiKey?: string };
    latencySettings?: Partial<LatencySettings>;
    /** A round below best × (1 − this) rolls back to the best skill. */
    rollbackDrop: number;
    judgeTries: number;
    log: (s: string) => void;
    /** Opens built-in views (the app passes its BrowserWindow launcher). */
    launch?: ViewLauncher;
    /** Each finished round, with the curve so far (for live charts). */
    onRound?: (round: IdcRound, curve: number[]) => void;
    /** Each session as it starts, so a caller can stop it. */
    onSession?: (session: Session) => void;
    /** Set to stop between (and, through onSession, within) rounds. */
    signal?: AbortSignal;
    /**
     * The IDC's cost meter and cap (`--budget-usd`), shared by every round's run, the reflector
     * and the judge: once a call is refused, the IDC stops where it is and says why.
     */
    meter?: CostMeter;
  };

export interface IdcRound {
  round: number;
  run_dir: string;
  skill: string;
  scores: number[];
  mean: number;
  rollback?: boolean;
  /** Why no reflection followed this round (a rollback: the next round replays the best skill first). */
  note?: string;
  diagnosis?: string;
  /** Why the reflector explored without tools (the endpoint refused them, or the model used none). */
  reflector_note?: string;
  reflector_mode?: 'tools' | 'staged (no tool calling)';
  tool_calls?: number;
  judge?: { tries: number; accepted: boolean; reasons: string[] };
  /** Every check of a proposed skill: the proposer's validate_skill calls, and the harness's refusals before judging (`by`). */
  validations?: SkillValidation[];
  /** Why the proposer had no validate_skill tool (the endpoint refused tool calling). */
  proposer_note?: string;
  error?: string;
}

/** One held-out split: the no-skill baseline and the best skill on it, and the skill's gain. */
export interface IdcTransferSplit {
  /** The variant's id, or "origin": the game itself on seeds the rounds never saw. */
  variant: string;
  description: string;
  seed: number;
  baseline: { scores: number[]; mean: number };
  best: { scores: number[]; mean: number };
  /** best − baseline, in score points. */
  gain: number;
  /** The gain relative to the baseline, %; null when the baseline is 0. */
  change_pct: number | null;
}

export interface IdcResult {
  run_dir: string;
  action_space: ActionSpace;
  curve: number[];
  best_round: number;
  best_skill: string;
  /** OmniGameArena's reference line and gaps: R0 (no skill), the best round's gain over it, best − final. */
  r0: number;
  gain_vs_r0: number;
  best_vs_final: number;
  /** The best skill and no skill on each held-out split (the rounds used `IdcOptions.seed`). */
  transfer: { episodes: number; splits: IdcTransferSplit[] };
  rounds: IdcRound[];
  /** What every model call of the IDC cost (USD), rounds, reflector and judge together. */
  spent_usd?: number;
  /** Why the IDC ended before its rounds and held-out splits were all played (the cost cap). */
  stopped?: string;
}

/** The seed held-out splits are played on: far from the rounds' own. */
export const HELD_OUT_SEED_OFFSET = 10_000;
/** The held-out split of the game itself (OmniGameArena's Table 5 "origin" row), replayed like the variants. */
export const ORIGIN_SPLIT = 'origin';
function skillSection(raw: string, maxWords: number): string {
  const m = /#{1,6}\s*Skill\s*:?\s*\n([\s\S]*)/i.exec(raw);
  return boundWords((m?.[1] ?? raw).trim(), maxWords).text;
}

function judgement(raw: string): { accept: boolean; reason: string } {
  const m = /\{[\s\S]*\}/.exec(raw);
  try {
    const v = JSON.parse(m?.[0] ?? '') as { accept?: unknown; reason?: unknown };
    return { accept: v.accept === true, reason: String(v.reason ?? '') };
  } catch {
    return { accept: false, reason: `the judge's answer was not JSON: ${raw.slice(0, 200)}` };
  }
}

/** The run of one IDC round or held-out split: the player's model on the game, in the IDC's latency. */
export function idcPlaySpec(
  o: Pick<IdcOptions, 'game' | 'actionSpace' | 'maxSteps' | 'player' | 'latency' | 'latencySettings' | 'meter'>,
  play: { episodes: number; seed: number },
): RunSpec {
  const latency = { stopIntervalMs: IDC_DEFAULTS.stopIntervalMs, ...o.latencySettings };
  return parseRunSpec({
    game: o.game,
    agent: 'vlm',
    actionSpace: o.actionSpace ?? 'gui',
    episodes: play.episodes,
    ...(o.maxSteps ? { maxSteps: o.maxSteps } : {}),
    seed: play.seed,
    ...modelSpecFields(o.player),
    latency: o.latency ?? IDC_DEFAULTS.latency,
    stopIntervalMs: latency.stopIntervalMs,
    ...(latency.slowBufferMs !== undefined ? { slowBufferMs: latency.slowBufferMs } : {}),
    ...(o.meter?.capUsd !== undefined ? { budgetUsd: o.meter.capUsd } : {}),
  });
}

export async function runIdc(o: IdcOptions, wm: WindowManager): Promise<IdcResult> {
  const def = getGame(o.game);
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '');
  const dir = path.resolve(o.outDir, `${stamp}-idc-${def.id}`);
  mkdirSync(dir, { recursive: true });
  // Every reflector call of the IDC (explorer, proposal, judge) ends on stop and is kept in model-calls.jsonl.
  const onCall = (rec: RoleCallRecord) =>
    appendFileSync(path.join(dir, 'model-calls.jsonl'), `${JSON.stringify(rec)}\n`);
  const reflector = { ...o.reflector, onCall, ...(o.meter ? { meter: o.meter } : {}) };
  // Stopped, or the cost cap refused a call: the IDC ends where it is.
  const halted = () => !!o.signal?.aborted || !!o.meter?.refusal;
  const proposer = callerFor(reflector, 'reflector');
  const judge = callerFor(reflector, 'idc-judge');
  const explorer = callerFor(reflector, 'idc-explorer');
  const ask = async (caller: ModelCaller, system: string, user: string) =>
    (
      await caller.chat(
        {
          messages: [
            { role: 'system', content: system },
            { role: 'user', content: user },
          ],
          stream: false,
        },
        o.signal ? { signal: o.signal } : {},
      )
    ).text;
  const check = (candidate: string) => checkSkill(candidate, def, o.actionSpace ?? 'gui', o.maxWords);
  const open = (game: GameDefinition) => BuiltinTarget.open(game, wm, o.launch ? { launch: o.launch } : {});
  let target = await open(def);
  const rounds: IdcRound[] = [];
  let skill = '';
  let notebook = '';
  let best = { round: 0, skill: '', score: Number.NEGATIVE_INFINITY };

  const play = async (label: string, withSkill: string, seed: number, episodes: number, variant?: string) => {
    const agent = new VlmAgent({
      ...o.player,
      ...(withSkill ? { experience: withSkill } : {}),
      ...(o.meter ? { meter: o.meter } : {}),
    });
    const place = { outDir: dir, ...(o.meter ? { meter: o.meter } : {}) };
    const { session } = wireSession(idcPlaySpec(o, { episodes, seed }), place, target, agent, wm);
    session.store.update({
      config: { ...session.store.meta.config, idc: label, skill: withSkill, ...(variant ? { variant } : {}) },
    });
    o.onSession?.(session);
    const result = await session.run();
    if (result.status === 'failed') throw new Error(`${label} failed: ${result.error}`);
    return { dir: result.runDir, scores: result.episodes.map((e) => e.score ?? 0) };
  };

  try {
    for (let r = 0; r <= o.rounds && !halted(); r++) {
      o.log(`IDC round ${r}: ${o.episodes} episode(s) ${skill ? 'with' : 'without'} a skill`);
      const played = await play(`round ${r}`, skill, o.seed, o.episodes);
      if (o.meter?.refusal) break; // a round the cost cap cut short is no point of the curve
      const round: IdcRound = {
        round: r,
        run_dir: played.dir,
        skill,
        scores: played.scores,
        mean: round2(mean(played.scores)),
      };
      rounds.push(round);
      if (round.mean > best.score) best = { round: r, skill, score: round.mean };
      else if (best.score > 0 && round.mean < best.score * (1 - o.rollbackDrop) && skill !== best.skill) {
        round.rollback = true;
        skill = best.skill; // the next round starts from the best skill, not from this regression
        o.log(
          `round ${r} fell to ${round.mean} (best ${best.score} in round ${best.round}): rolling back to the best skill`,
        );
      }
      if (r === o.rounds || halted()) {
        o.onRound?.(
          round,
          rounds.map((x) => x.mean),
        );
        break;
      }
      if (round.rollback) {
        // The best skill is played as it is before any reflection rewrites it; reflection resumes from that round.
        round.note = `rolled back: round ${r + 1} plays the best skill (round ${best.round}) before reflection resumes`;
        o.onRound?.(
          round,
          rounds.map((x) => x.mean),
        );
        appendFileSync(
          path.join(dir, 'skills.jsonl'),
          `${JSON.stringify({ after_round: r, skill, rollback_to_round: best.round })}\n`,
        );
        continue;
      }

      try {
        // 1. Diagnose: the reflector explores the round itself (or, without tool calling, is shown it).
        const summary = `${played.scores.length} episode(s), scores ${played.scores.join(', ')}, mean ${round.mean}. Files: run.json, steps.jsonl, frames/.`;
        try {
          const ex = await explore(
            explorer,
            played.dir,
            render('idc-explore', {
              game_title: def.title,
              skill: skill || '(none yet)',
              notebook: notebook || '(empty)',
              notebook_chars: NOTEBOOK_CHARS,
              summary,
            }),
            notebook,
            undefined,
            o.signal,
          );
          round.diagnosis = ex.diagnosis;
          round.reflector_mode = 'tools';
          round.tool_calls = ex.toolCalls.length;
          notebook = ex.notebook;
        } catch (err) {
          if (!(err instanceof NoToolCallingError)) throw err;
          o.log(`reflector: ${err.message}; using a staged reflection without tools`);
          round.reflector_note = err.message;
          const staged = await new Reflector({ ...reflector, maxWords: o.maxWords }).reflect(
            'self-f',
            def,
            {
              failure: await runTrajectory(
                played.dir,
                reflectionSample(DEFAULT_REFLECTION_SAMPLING, await reflectorFacts(reflector, true)),
                0,
              ),
            },
            o.signal,
          );
          round.diagnosis = staged.diagnosis || staged.text;
          round.reflector_mode = 'staged (no tool calling)';
        }
        // 2. Propose a skill (validate_skill offered), 3. have it checked by the harness and
        // judged independently (up to judgeTries), 4. finalise.
        const validations: SkillValidation[] = [];
        const propose = async (user: string) => {
          const p = await proposeSkill(
            proposer,
            render('reflect-system', { game_title: def.title, rules: def.rules }),
            user,
            check,
            o.signal,
          );
          validations.push(...p.validations);
          if (p.note) round.proposer_note = p.note;
          return skillSection(p.text, o.maxWords);
        };
        let candidate = await propose(
          render('idc-propose', {
            game_title: def.title,
            diagnosis: round.diagnosis || '(none)',
            skill: skill || '(none yet)',
            max_words: o.maxWords,
          }),
        );
        const reasons: string[] = [];
        let accepted = false;
        for (let t = 0; t < o.judgeTries && candidate; t++) {
          // What the harness can check is never left to the judge: a failing skill is rejected with its problems.
          const checked = check(candidate);
          if (!checked.ok) validations.push({ skill: candidate, ...checked, by: 'harness' });
          const verdict = !checked.ok
            ? { accept: false, reason: `the harness refused it: ${checked.problems.join('; ')}` }
            : judgement(
                await ask(
                  judge,
                  'You are a strict, independent judge of game-playing skills.',
                  render('idc-judge', {
                    game_title: def.title,
                    diagnosis: round.diagnosis || '(none)',
                    skill: candidate,
                  }),
                ),
              );
          if (verdict.accept) {
            accepted = true;
            round.judge = { tries: t + 1, accepted, reasons };
            break;
          }
          reasons.push(verdict.reason);
          if (t + 1 < o.judgeTries) {
            const revise = render('idc-revise', {
              diagnosis: round.diagnosis || '(none)',
              rejected: candidate,
              reason: verdict.reason || '(no reason given)',
              max_words: o.maxWords,
            });
            candidate = await propose(revise);
          }
        }
        round.judge ??= { tries: o.judgeTries, accepted, reasons };
        round.validations = validations;
        if (accepted) skill = candidate;
        else o.log(`round ${r}: no skill passed the judge in ${o.judgeTries} tries; keeping the current one`);
      } catch (err) {
        round.error = `reflection failed: ${(err as Error).message}`;
        o.log(round.error);
      }
      o.onRound?.(
        round,
        rounds.map((x) => x.mean),
      );
      appendFileSync(
        path.join(dir, 'skills.jsonl'),
        `${JSON.stringify({
          after_round: r,
          skill,
          diagnosis: round.diagnosis,
          judge: round.judge,
          validations: round.validations,
          reflector_mode: round.reflector_mode,
        })}\n`,
      );
      writeFileAtomic(path.join(dir, 'notebook.md'), notebook);
    }

    // Held-out transfer: the game itself on fresh seeds (the origin split), then each designed
    // variant, each played with no skill and with the best skill.
    const heldSeed = o.seed + HELD_OUT_SEED_OFFSET;
    const variants = [
      { id: ORIGIN_SPLIT, description: 'the game itself on seeds the rounds never saw', game: def },
      ...(def.variants ?? []).map((v) => ({ id: v.id, description: v.description, game: variantOf(def, v.id) })),
    ];
    const splits: IdcTransferSplit[] = [];
    let playing = def;
    for (const v of variants) {
      if (halted()) break;
      if (v.game !== playing) {
        await target.close();
        target = await open(v.game);
        playing = v.game;
      }
      o.log(
        `held-out ${v.id}: no skill, then the best skill (round ${best.round}), ${o.heldOutEpisodes} episode(s) each`,
      );
      const variant = v.id === ORIGIN_SPLIT ? undefined : v.id;
      const baseline = await play(`held-out ${v.id} baseline`, '', heldSeed, o.heldOutEpisodes, variant);
      const skilled = await play(`held-out ${v.id}`, best.skill, heldSeed, o.heldOutEpisodes, variant);
      if (o.meter?.refusal) break;
      const b = round2(mean(baseline.scores));
      const s = round2(mean(skilled.scores));
      splits.push({
        variant: v.id,
        description: v.description,
        seed: heldSeed,
        baseline: { scores: baseline.scores, mean: b },
        best: { scores: skilled.scores, mean: s },
        gain: round2(s - b),
        change_pct: b === 0 ? null : round2(((s - b) / b) * 100),
      });
    }
    const curve = rounds.map((r) => r.mean);
    const r0 = curve[0] ?? 0;
    const result: IdcResult = {
      run_dir: dir,
      action_space: o.actionSpace ?? 'gui',
      curve,
      best_round: best.round,
      best_skill: best.skill,
      r0,
      gain_vs_r0: round2((curve[best.round] ?? r0) - r0),
      best_vs_final: round2((curve[best.round] ?? 0) - (curve.at(-1) ?? 0)),
      transfer: { episodes: o.heldOutEpisodes, splits },
      rounds,
      ...(o.meter ? { spent_usd: usd(o.meter.spentUsd) } : {}),
      ...(o.meter?.refusal ? { stopped: o.meter.refusal } : {}),
    };
    writeFileAtomic(path.join(dir, 'idc.json'), JSON.stringify(result, null, 2));
    return result;
  } finally {
    await target.close();
  }
}
