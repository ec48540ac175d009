/**
 * Reflect-and-retry for a prepared session, shared by the CLI and the app: loads the tutorial
 * (a bad one is reported and the mode falls back to what still works), and hooks the loop in.
 */
import path from 'node:path';
import type { GameDefinition } from '../../games/types.ts';
import type { Session } from '../session/session.ts';
import { VlmAgent } from '../agents/vlm.ts';
import { reflectorModelFor, type ReflectorSettings } from './reflector.ts';
import type { ReflectAfter, ReflectionMode } from '../domain.ts';
import { ReflectAndRetry } from './retry.ts';
import { loadTutorial, type Trajectory } from '../scoring/trajectory.ts';
import { loadSampling, reflectionSample, reflectorFacts, type ReflectionSampling } from './sampling.ts';
import { solverDemonstration } from './demonstration.ts';
import { declaredTutorialFile, TITLE_TUTORIAL } from '../store/tutorials.ts';
import { titleOf } from '../store/run-title.ts';
import { checkFramesFor, framesStarved, reflectionReadsFrames } from '../store/frame-budget.ts';
import { namedAsWords, needsTutorial, RunSpecError, sayFields, tutorialRule, type RunSpec } from '../run-spec.ts';
import { frontDoor, type CheckedRun } from '../session/front-door.ts';
import type { RunPlace } from '../session/compose.ts';

function requireGame(game: GameDefinition | undefined): GameDefinition {
  if (!game) throw new Error('a solver demonstration needs a built-in game');
  return game;
}

export interface ReflectionRequest {
  mode: ReflectionMode;
  tutorial?: string;
  after: ReflectAfter;
  successScore: number;
  sample: ReflectionSampling;
  reflector: Partial<ReflectorSettings> & { maxWords: number };
}

/**
 * Refuses a request that cannot work, before anything opens: a mode that needs a tutorial
 * without one, `other` without a reflector model different from the player's, a self mode
 * with another model.
 */
export function checkReflectionRequest(
  req: Pick<ReflectionRequest, 'mode' | 'tutorial' | 'reflector'>,
  playerModel: string,
): void {
  if (needsTutorial(req.mode) && !req.tutorial) throw new Error(sayFields(tutorialRule(req.mode), namedAsWords));
  reflectorModelFor(req.mode, playerModel, req.reflector.model);
}

export async function attachReflection(
  req: ReflectionRequest,
  session: Session,
  game: GameDefinition | undefined,
  log: (s: string) => void,
) {
  if (!(session.agent instanceof VlmAgent)) throw new Error('reflection needs the model agent (vlm)');
  checkReflectionRequest(req, session.agent.model);
  if (reflectionReadsFrames(req.mode))
    checkFramesFor(`reflection ${req.mode}`, session.config.keepFrames, session.config.maxSteps);
  let mode = req.mode;
  const vlm = session.agent;
  const reflectorModel = reflectorModelFor(mode, vlm.model, req.reflector.model);
  const facts = await reflectorFacts(
    {
      model: reflectorModel,
      ...(req.reflector.baseUrl ? { baseUrl: req.reflector.baseUrl } : {}),
      ...(req.reflector.apiKey ? { apiKey: req.reflector.apiKey } : {}),
    },
    req.sample.contextTokens === undefined,
    session.stopSignal,
  );
  const sample = reflectionSample(req.sample, facts);
  // Unset: auto for a model known to take video (GameVerse sends those the video), else images.
  const video = req.reflector.video ?? (facts.video ? 'auto' : 'off');
  const videoSource = req.reflector.video ? 'flag' : facts.video ? 'known-model' : 'default';
  log(
    `reflection budget: ${sample.budget.context_tokens} tokens of context (${sample.budget.context_source}), ${sample.budget.tokens_per_frame} a frame: up to ${sample.maxFrames} frames; video ${video}`,
  );
  let tutorial: Trajectory | undefined;
  let tutorialError: string | undefined;
  if (req.tutorial) {
    try {
      // "solver": the built-in game's solver plays a demonstration first, and that run is the tutorial;
      // "title": the title's declared tutorial, the one a rookie is offered (store/tutorials.ts).
      const source =
        req.tutorial === 'solver'
          ? await solverDemonstration(requireGame(game).id)
          : req.tutorial === TITLE_TUTORIAL
            ? declaredTutorialFile(path.dirname(session.store.dir), titleOf(session.store.meta).id)
            : req.tutorial;
      tutorial = await loadTutorial(source, loadSampling(sample, video), session.stopSignal);
      log(`tutorial: ${tutorial.frames.length} of ${tutorial.available} frames from ${tutorial.source}`);
      for (const w of tutorial.warnings) log(`tutorial: skipped ${w}`);
    } catch (err) {
      tutorialError = (err as Error).message;
      const fallback: ReflectionMode = mode === 'self' ? 'self-f' : mode === 'self-t' ? 'none' : mode;
      log(`tutorial unusable: ${tutorialError}; reflecting in mode ${fallback} instead of ${mode}`);
      mode = fallback;
    }
  }
  const loop = new ReflectAndRetry(
    {
      mode,
      after: req.after,
      successScore: req.successScore,
      sample,
      videoSource,
      reflector: {
        ...req.reflector,
        video,
        model: reflectorModel,
        onCall: (rec) => session.store.recordModelCall(rec),
        ...(vlm.meter ? { meter: vlm.meter } : {}),
      },
    },
    vlm,
    game,
    tutorial,
  );
  session.betweenEpisodes(loop.afterEpisode);
  session.on('episode', (e) => loop.onEpisode(e, session));
  session.store.update({ reflection: loop.summary() });
  return { mode, loop, tutorialError };
}

/** The reflect-and-retry request a spec asks for (the schema has checked the mode against the agent and tutorial). */
/** A spec through the run's front door and reflection's checks, with where it runs: what a shell hands the composition root. */
export interface ReadyRun extends CheckedRun {
  place: RunPlace;
  /** The reflect-and-retry request, checked before anything opens; none without `reflection`. */
  reflection?: ReflectionRequest;
}

/** Checks a spec as every way in does before anything opens; a mistake is a RunSpecError. */
export function readyRun(spec: RunSpec, place: RunPlace): ReadyRun {
  const run = frontDoor(spec);
  const reflection = reflectionFromSpec(spec, run.model);
  return { ...run, place, ...(reflection ? { reflection } : {}) };
}

export function reflectionFromSpec(s: RunSpec, model: string | undefined): ReflectionRequest | undefined {
  if (s.reflection === 'none') return undefined;
  const starved = reflectionReadsFrames(s.reflection) ? framesStarved(s.keepFrames, s.maxSteps) : undefined;
  if (starved)
    throw new RunSpecError(
      'keepFrames',
      `{reflection} ${s.reflection} reflects on the run's own frames, but {keepFrames} ${s.keepFrames} ${starved}: keep more (all, changed or every:N), or reflect with self-t`,
    );
  const baseUrl = s.reflectorBaseUrl ?? s.baseUrl;
  const req: ReflectionRequest = {
    mode: s.reflection,
    ...(s.tutorial ? { tutorial: s.tutorial } : {}),
    after: s.reflectAfter,
    successScore: s.successScore,
    sample: {
      fps: s.reflectFps,
      maxSide: s.reflectMaxSide,
      detail: s.reflectDetail,
      ...(s.reflectContext !== undefined ? { contextTokens: s.reflectContext } : {}),
      ...(s.reflectMaxFrames !== undefined ? { maxFrames: s.reflectMaxFrames } : {}),
    },
    reflector: {
      maxWords: s.maxWords,
      ...(s.reflectVideo ? { video: s.reflectVideo } : {}),
      ...(s.reflectorModel ? { model: s.reflectorModel } : {}),
      ...(baseUrl ? { baseUrl } : {}),
      ...(s.apiKey ? { apiKey: s.apiKey } : {}),
    },
  };
  if (model) {
    try {
      checkReflectionRequest(req, model);
    } catch (err) {
      throw new RunSpecError('reflectorModel', (err as Error).message);
    }
  }
  return req;
}
