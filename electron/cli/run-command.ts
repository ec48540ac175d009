/** `gamepilot run`: an agent plays a built-in game or a window; every step is recorded. */
import { prepareRun, type RunOptions } from '../session/compose.ts';
import type { ReflectionRecord } from '../session/reflection-records.ts';
import { attachReflection, checkReflectionRequest, type ReflectionRequest } from '../reflection/setup.ts';
import type { Session } from '../session/session.ts';
import type { Target } from '../session/targets.ts';
import { startStopHotkey } from '../input/stop-hotkey.ts';
import { addSecret } from '../util/log.ts';
import { io } from './io.ts';
import { INGVP_GAME_IDS } from '../../games/ingvp/games.ts';
import { UsageError } from './options.ts';
import type { RunFlags, TargetFlags } from './program.ts';
import { configuredStopHotkey } from './settings.ts';
import { isModelAgent, type MemoryStepRecord } from '../domain.ts';
import { profileChoiceFrom } from './profile-command.ts';
import type { ProfileEntry } from '../profiles/registry.ts';
import { sweepContextFromEnv } from '../sweep/job-env.ts';
import { framesStarved, FramesStarvedError, reflectionReadsFrames } from '../store/frame-budget.ts';

/** Exactly one target, as RunOptions wants it. */
export function targetFrom(o: TargetFlags): Pick<RunOptions, 'game' | 'window' | 'windowId'> {
  const given = [o.game, o.window, o.windowId].filter((v) => v !== undefined).length;
  if (given > 1) throw new UsageError('give one of --game, --window or --window-id');
  if (given === 0) throw new UsageError('give a target: --game <id>, --window <title regex> or --window-id <id>');
  return {
    ...(o.game ? { game: o.game } : {}),
    ...(o.window ? { window: o.window } : {}),
    ...(o.windowId !== undefined ? { windowId: o.windowId } : {}),
  };
}

/** The run as the composition root takes it; mistakes between options are usage errors. */
export function runOptionsFrom(o: RunFlags): RunOptions {
  const target = targetFrom(o);
  if (o.actionSpace === 'semantic' && !o.game) throw new UsageError('--action-space semantic needs a built-in --game');
  const modelAgent = isModelAgent(o.agent) || o.agent === 'model';
  if (modelAgent && !o.model)
    throw new UsageError(`--agent ${o.agent} needs a model: --model NAME (or GAMEPILOT_MODEL)`);
  if (o.level !== undefined && !(o.game && INGVP_GAME_IDS.includes(o.game)))
    throw new UsageError(`--level needs an ING-VP --game (${INGVP_GAME_IDS.join(', ')})`);
  if (o.level !== undefined && o.seed !== 0) throw new UsageError('give --level or --seed, not both');
  if (o.memoryScope && o.agent !== 'memory' && o.agent !== 'model')
    throw new UsageError('--memory-scope needs --agent memory (or model)');
  addSecret(o.apiKey);
  return {
    ...target,
    agent: o.agent === 'model' ? 'vlm' : o.agent,
    ...(o.agent === 'model' ? { agentFromProfile: true } : {}),
    space: o.actionSpace,
    ...(o.episodes !== undefined ? { episodes: o.episodes } : {}),
    ...(o.maxSteps !== undefined ? { maxSteps: o.maxSteps } : {}),
    seed: o.level !== undefined ? o.level - 1 : o.seed,
    outDir: o.out,
    keepFrames: o.keepFrames,
    ...(o.maxRunMb !== undefined ? { maxRunMb: o.maxRunMb } : {}),
    minFreeMb: o.minFreeMb,
    capture: o.capture,
    encode: { longSide: o.imageSize, format: o.format, quality: o.quality },
    settleMs: o.settleMs,
    ...(o.latency ? { latency: o.latency } : {}),
    latencySettings: {
      ...(o.stopIntervalMs !== undefined ? { stopIntervalMs: o.stopIntervalMs } : {}),
      ...(o.slowBufferMs !== undefined ? { slowBufferMs: o.slowBufferMs } : {}),
    },
    ...(o.pauseKey ? { pauseKey: o.pauseKey } : {}),
    ...(o.allowKeys?.length ? { allowedKeys: o.allowKeys } : {}),
    minStepMs: o.paceMs,
    maxConsecutiveErrors: o.maxErrors,
    vlm: {
      ...(o.model ? { model: o.model } : {}),
      ...(o.baseUrl ? { baseURL: o.baseUrl } : {}),
      ...(o.apiKey ? { apiKey: o.apiKey } : {}),
      ...(o.prompt ? { systemPrompt: o.prompt } : {}),
      ...(o.history !== undefined ? { history: o.history } : {}),
      detail: o.detail,
      ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
      ...(o.maxTokens !== undefined ? { maxTokens: o.maxTokens } : {}),
      repairs: o.repairs,
      timeoutMs: o.timeoutMs,
      idleTimeoutMs: o.idleTimeoutMs,
      maxRetries: o.maxRetries,
      retryAfterCapMs: o.retryAfterCapMs,
      maxAnswerBytes: o.maxAnswerBytes,
      ...(o.priceIn !== undefined || o.priceOut !== undefined
        ? { price: { inputPerM: o.priceIn ?? 0, outputPerM: o.priceOut ?? 0 } }
        : {}),
      ...(o.gameText ? { includeGameText: true } : {}),
    },
    ...(o.agent === 'memory' || o.agent === 'model'
      ? {
          memory: {
            ...(o.memoryScope ? { scope: o.memoryScope } : {}),
            embeddingModel: o.embeddingModel === 'none' ? null : o.embeddingModel,
            topK: o.memoryTopK,
            threshold: o.memoryThreshold,
            dedupe: o.memoryDedupe,
            shortTerm: o.shortTerm,
            summaryWords: o.summaryWords,
          },
        }
      : {}),
    judge: {
      live: o.judge !== false,
      ...(o.judgeModel ? { model: o.judgeModel } : {}),
      ...(o.judgeBudget !== undefined ? { budget: o.judgeBudget } : {}),
      everySteps: o.judgeEvery ?? 3,
    },
  };
}

/**
 * The reflect-and-retry request --reflection asks for, checked before any window opens or
 * run folder is made (a missing tutorial, `other` without a different reflector model).
 */
export function reflectionRequestFrom(o: RunFlags): ReflectionRequest | undefined {
  if (o.reflection === 'none') {
    if (o.reflectorModel)
      throw new UsageError('--reflector-model needs --reflection (other, for a model different from the player)');
    return undefined;
  }
  if (!isModelAgent(o.agent) && o.agent !== 'model')
    throw new UsageError('--reflection needs a model agent (--agent vlm, memory or model)');
  if ((o.reflection === 'self-t' || o.reflection === 'self') && !o.tutorial)
    throw new UsageError(
      `--reflection ${o.reflection} needs --tutorial (a video, a folder of frames, or a run/session folder)`,
    );
  const starved = reflectionReadsFrames(o.reflection) ? framesStarved(o.keepFrames, o.maxSteps) : undefined;
  if (starved)
    throw new UsageError(
      `--reflection ${o.reflection} reflects on the run's own frames, but --keep-frames ${o.keepFrames} ${starved}: keep more (all, changed or every:N), or reflect with self-t`,
    );
  const baseURL = o.reflectorBaseUrl ?? o.baseUrl;
  const req: ReflectionRequest = {
    mode: o.reflection,
    ...(o.tutorial ? { tutorial: o.tutorial } : {}),
    after: o.reflectAfter,
    successScore: o.successScore,
    sample: {
      fps: o.reflectFps,
      maxSide: o.reflectMaxSide,
      contextTokens: o.reflectContext,
      ...(o.reflectMaxFrames !== undefined ? { maxFrames: o.reflectMaxFrames } : {}),
    },
    reflector: {
      maxWords: o.maxWords,
      video: o.reflectVideo,
      ...(o.reflectorModel ? { model: o.reflectorModel } : {}),
      ...(baseURL ? { baseURL } : {}),
      ...(o.apiKey ? { apiKey: o.apiKey } : {}),
    },
  };
  if (o.model) {
    try {
      checkReflectionRequest(req, o.model);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
  return req;
}

/** Wires a checked reflect-and-retry request into a prepared run. */
async function setUpReflection(req: ReflectionRequest, session: Session, target: Target) {
  const r = await attachReflection(req, session, target.game?.def, io.log);
  session.on('reflection', (rec: ReflectionRecord) =>
    io.log(
      rec.error
        ? `reflection after episode ${rec.after_episode + 1} failed: ${rec.error}`
        : `reflection after episode ${rec.after_episode + 1}: ${rec.lesson?.text.split(/\s+/).length ?? 0} words of lessons${rec.lesson?.note ? ` (${rec.lesson.note})` : ''}`,
    ),
  );
  return r;
}

/** Which profile the run follows, and what setup it expects, in one or two lines. */
export function describeProfile(e: ProfileEntry | undefined, refused: boolean): string {
  if (!e)
    return refused
      ? 'profile: none (--no-profile)'
      : 'profile: none fits this target (a generic prompt; see `gamepilot profile new`)';
  const p = e.profile;
  const setup = p.setup
    ? `\n  setup it expects: ${p.setup.start}${p.setup.display ? `; ${p.setup.display}` : ''}${p.setup.resolution ? `; ${p.setup.resolution}` : ''}`
    : '';
  return `profile: ${p.id} — ${p.title} (${e.source}: ${e.file}); ${p.category}, ${p.tier}, scoring ${p.scoring.kind}${setup}`;
}

export async function runCommand(o: RunFlags): Promise<number> {
  const options: RunOptions = {
    ...runOptionsFrom(o),
    profile: profileChoiceFrom(o.profile),
    ...sweepContextFromEnv(),
  };
  const reflectionReq = reflectionRequestFrom(o);
  const { session, target, profile, notices } = await prepareRun(options).catch((err: unknown) => {
    if (err instanceof FramesStarvedError)
      throw new UsageError(
        `${err.reader} reads the run's frames, but --keep-frames ${err.keep} ${err.why}: keep more (all, changed or every:N), or give --no-judge`,
      );
    throw err;
  });
  if (!o.quiet) {
    io.progress(describeProfile(profile, o.profile === false));
    for (const n of notices) io.progress(`note: ${n}`);
  }
  let reflection: Awaited<ReturnType<typeof setUpReflection>> | undefined;
  try {
    reflection = reflectionReq ? await setUpReflection(reflectionReq, session, target) : undefined;
  } catch (err) {
    session.store.close('failed', (err as Error).message);
    await target.close();
    throw err;
  }
  const onSignal = () => {
    io.log('stopping: releasing held input…');
    session.stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const hotkey = configuredStopHotkey();
  const stopHook = await startStopHotkey(hotkey, () => {
    io.log(`stop hotkey ${hotkey}: stopping`);
    session.stop();
  }).catch((err: Error) => {
    if (!o.quiet) io.log(`warning: no global stop hotkey (${err.message}); Ctrl+C still stops`);
    return undefined;
  });
  if (!o.quiet) {
    io.progress(`run folder: ${session.store.dir}`);
    session.on('step', (r) => {
      const err = r.errors.length ? `  ! ${r.errors.join('; ')}` : '';
      io.progress(
        `ep ${r.episode + 1} step ${r.step + 1}: ${r.actionsText.join(', ') || '(no action)'}  [${r.latency_ms.total} ms, ${r.latency_mode}${r.drift_ticks !== undefined ? `, drift ${r.drift_ticks}` : ''}]${r.score !== null && r.score !== undefined ? `  score ${r.score}` : ''}${err}`,
      );
      const m = r.memory as MemoryStepRecord | undefined;
      if (m)
        io.progress(
          `  memory (${m.retrieval}): ${m.retrieved.length} retrieved${m.retrieved.length ? ` (${m.retrieved.map((x) => x.similarity.toFixed(2)).join(', ')})` : ''}${m.saved ? `; saved "${m.saved.text}"` : ''}${m.skipped ? `; not saved, ${m.skipped.similarity.toFixed(2)} like a stored one` : ''}`,
        );
    });
    session.on('warning', (w: string) => io.progress(`warning: ${w}`));
    let paused = false;
    session.on('status', (st: string) => {
      if (st === 'running' && paused) io.progress('the target window is shown again: the run goes on');
      paused = st === 'paused';
    });
    session.on('episode', (e) =>
      io.progress(`episode ${e.episode + 1}: score ${e.score ?? 'n/a'} after ${e.steps} steps (${e.end})`),
    );
    session.on('milestones', (p) =>
      io.progress(
        `milestones, episode ${p.episode + 1}: ${p.reached}/${p.total}${p.final ? ' (final)' : ''} — ${
          p.items
            .filter((i) => i.reached)
            .map((i) => `${i.name} @ step ${i.step}`)
            .join(', ') || 'none yet'
        } [${p.calls}${p.budget !== null ? `/${p.budget}` : ''} judge calls]`,
      ),
    );
  }
  try {
    const result = await session.run();
    const summary = {
      run_dir: result.runDir,
      status: result.status,
      episodes: result.episodes.map((e) => ({ episode: e.episode, score: e.score, steps: e.steps, end: e.end })),
      mean: result.mean,
      std: result.std,
      ...(reflection
        ? {
            reflection: {
              mode: reflection.mode,
              reflections: reflection.loop.records.length,
              errors: reflection.loop.records.flatMap((r) => (r.error ? [r.error] : [])),
              ...(reflection.tutorialError ? { tutorial_error: reflection.tutorialError } : {}),
              ...reflection.loop.compare(result.episodes),
            },
          }
        : {}),
      ...(result.error ? { error: result.error } : {}),
    };
    if (o.json) io.out(JSON.stringify(summary));
    else
      io.progress(
        `done (${result.status}): mean ${result.mean ?? 'n/a'} ± ${result.std ?? 'n/a'} over ${result.episodes.length} episode(s)${result.error ? ` — ${result.error}` : ''}`,
      );
    return result.status === 'failed' ? 1 : 0;
  } finally {
    stopHook?.();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await target.close();
  }
}
