/**
 * The one way from a run's spec (run-spec.ts) to what the composition root takes: the CLI's
 * `run`, the contract's start-run and a sweep's job (a child `gamepilot run`) all come through
 * here, so the same settings make the same run and the same run.json `config`. The rules that
 * need more than the spec (the environment's model, the ING-VP games, the frame budget, a
 * reflector different from the player) are checked here, their messages naming the fields as
 * `{field}` (a RunSpecError). It lives in reflection/ because it makes both the session's
 * options and the reflection request (tier 3's order: session before reflection).
 */
import type { GamepilotHotkeys } from '../input/accelerator.ts';
import { INGVP_GAME_IDS } from '../../games/ingvp/games.ts';
import { TWO_SEAT_GAMES } from '../../games/index.ts';
import { resolveEndpoint } from '../agents/model-endpoint.ts';
import type { ScreenCapturer } from '../capture/capturer.ts';
import { isModelAgent } from '../domain.ts';
import { checkReflectionRequest, type ReflectionRequest } from './setup.ts';
import { framesStarved, reflectionReadsFrames } from '../store/frame-budget.ts';
import type { RunJob, RunWorker } from '../store/run-store.ts';
import { parseAgentSpec, RunSpecError, type RunSpec, type SeatSpec } from '../run-spec.ts';
import type { ProfileChoice, RunOptions } from '../session/compose.ts';
import type { SeatedRunOptions } from '../session/seated-compose.ts';

/** Where and how the run happens, beyond its settings: the shell's own part. */
export interface RunPlace {
  /** The folder run folders go in. */
  outDir: string;
  /** The profile the shell resolved (the CLI takes files, the app ids). */
  profile?: ProfileChoice;
  /** A ready capturer (the app's desktopCapturer) instead of `capture`. */
  capturer?: ScreenCapturer;
  /** The memory agent's config folder. */
  configDir?: string;
  job?: RunJob;
  worker?: RunWorker;
  /** The person's stop and take-over hotkeys: the agent may not press them. */
  hotkeys?: GamepilotHotkeys;
}

export interface RunFromSpec {
  options: RunOptions;
  /** The reflect-and-retry request, checked before anything opens; none without `reflection`. */
  reflection?: ReflectionRequest;
  /** A two-seat game: who sits where (the run then goes through prepareSeatedRun: seatedRunOptions). */
  seats?: readonly [SeatSpec, SeatSpec];
}

/** The run a spec asks for, as the composition root takes it; a mistake between settings is a RunSpecError. */
export function runFromSpec(s: RunSpec, place: RunPlace): RunFromSpec {
  const modelAgent = isModelAgent(s.agent) || s.agent === 'model';
  // A baseline (or a client over MCP) given a model plays without it; the model reads a window's
  // score off the screen and judges milestones, as it would for a model agent.
  const model = modelAgent ? resolveEndpoint(s.model ? { model: s.model } : {}).model : s.model;
  if (modelAgent && !model)
    throw new RunSpecError('model', `{agent} ${s.agent} needs a model: {model} NAME (or GAMEPILOT_MODEL)`);
  if (s.level !== undefined && !(s.game && INGVP_GAME_IDS.includes(s.game)))
    throw new RunSpecError('level', `{level} needs an ING-VP {game} (${INGVP_GAME_IDS.join(', ')})`);
  const seats = seatsOf(s);
  const memory = s.agent === 'memory' || s.agent === 'model';
  const options: RunOptions = {
    ...(s.game !== undefined ? { game: s.game } : {}),
    ...(s.window !== undefined ? { window: s.window } : {}),
    ...(s.windowId !== undefined ? { windowId: s.windowId } : {}),
    agent: s.agent === 'model' ? 'vlm' : s.agent,
    ...(s.agent === 'model' ? { agentFromProfile: true } : {}),
    space: s.actionSpace,
    ...(s.episodes !== undefined ? { episodes: s.episodes } : {}),
    ...(s.maxSteps !== undefined ? { maxSteps: s.maxSteps } : {}),
    seed: s.level !== undefined ? s.level - 1 : s.seed,
    outDir: place.outDir,
    keepFrames: s.keepFrames,
    ...(s.maxRunMb !== undefined ? { maxRunMb: s.maxRunMb } : {}),
    minFreeMb: s.minFreeMb,
    capture: s.capture,
    ...(place.capturer ? { capturer: place.capturer } : {}),
    encode: { longSide: s.imageSize, format: s.format, quality: s.quality },
    settleMs: s.settleMs,
    ...(s.latency ? { latency: s.latency } : {}),
    latencySettings: {
      ...(s.stopIntervalMs !== undefined ? { stopIntervalMs: s.stopIntervalMs } : {}),
      ...(s.slowBufferMs !== undefined ? { slowBufferMs: s.slowBufferMs } : {}),
    },
    ...(s.pauseKey ? { pauseKey: s.pauseKey } : {}),
    ...(s.allowKeys?.length ? { allowedKeys: s.allowKeys } : {}),
    minStepMs: s.paceMs,
    takeOverOnInput: s.takeOverOnInput,
    acceptAnticheatRisk: s.acceptAnticheatRisk,
    maxConsecutiveErrors: s.maxErrors,
    vlm: {
      ...(model ? { model } : {}),
      ...(s.baseUrl ? { baseURL: s.baseUrl } : {}),
      ...(s.apiKey ? { apiKey: s.apiKey } : {}),
      ...(s.prompt ? { systemPrompt: s.prompt } : {}),
      ...(s.history !== undefined ? { history: s.history } : {}),
      detail: s.detail,
      ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
      ...(s.maxTokens !== undefined ? { maxTokens: s.maxTokens } : {}),
      repairs: s.repairs,
      timeoutMs: s.timeoutMs,
      idleTimeoutMs: s.idleTimeoutMs,
      maxRetries: s.maxRetries,
      retryAfterCapMs: s.retryAfterCapMs,
      maxAnswerBytes: s.maxAnswerBytes,
      ...(s.priceIn !== undefined || s.priceOut !== undefined
        ? { price: { inputPerM: s.priceIn ?? 0, outputPerM: s.priceOut ?? 0 } }
        : {}),
      ...(s.gameText ? { includeGameText: true } : {}),
    },
    ...(memory
      ? {
          memory: {
            ...(place.configDir ? { configDir: place.configDir } : {}),
            ...(s.memoryScope ? { scope: s.memoryScope } : {}),
            embeddingModel: s.embeddingModel === 'none' ? null : s.embeddingModel,
            topK: s.memoryTopK,
            threshold: s.memoryThreshold,
            dedupe: s.memoryDedupe,
            shortTerm: s.shortTerm,
            summaryWords: s.summaryWords,
          },
        }
      : {}),
    judge: {
      live: s.judge,
      ...(s.judgeModel ? { model: s.judgeModel } : {}),
      ...(s.judgeBudget !== undefined ? { budget: s.judgeBudget } : {}),
      everySteps: s.judgeEvery,
    },
    ...(place.profile ? { profile: place.profile } : {}),
    ...(place.hotkeys ? { hotkeys: place.hotkeys } : {}),
    ...(place.job ? { job: place.job } : {}),
    ...(place.worker ? { worker: place.worker } : {}),
  };
  const reflection = reflectionFromSpec(s, model);
  return { options, ...(reflection ? { reflection } : {}), ...(seats ? { seats } : {}) };
}

/** The seats of a two-seat game; a two-seat game without them, or them on a one-seat target, is refused. */
function seatsOf(s: RunSpec): readonly [SeatSpec, SeatSpec] | undefined {
  const twoSeat = s.game !== undefined && TWO_SEAT_GAMES[s.game] !== undefined;
  if (twoSeat && !s.seats)
    throw new RunSpecError(
      'seats',
      `{game} ${s.game} has two seats: give {seats} <player 1>,<player 2> (solver, random, vlm:<model> or human, e.g. vlm:gpt-4o,solver)`,
    );
  if (!s.seats) return undefined;
  if (!twoSeat)
    throw new RunSpecError(
      'seats',
      `{seats} needs a two-seat {game} (${Object.keys(TWO_SEAT_GAMES).join(', ')})${s.game ? `; ${s.game} has one seat` : ''}`,
    );
  const seats: [SeatSpec, SeatSpec] = [parseAgentSpec(s.seats[0]!), parseAgentSpec(s.seats[1]!)];
  if (seats.some((x) => x.agent === 'human') && !TWO_SEAT_GAMES[s.game!]!.seats!.keys)
    throw new RunSpecError(
      'seats',
      `{seats} human plays with the keyboard, and ${s.game} is played by clicking (human seats: ${keyedGames().join(', ')})`,
    );
  return seats;
}

const keyedGames = () =>
  Object.values(TWO_SEAT_GAMES)
    .filter((d) => d.seats!.keys)
    .map((d) => d.id);

/** A two-seat run's options for prepareSeatedRun: the run's own, less what only one agent has. */
export function seatedRunOptions(
  o: RunOptions,
  seats: readonly [SeatSpec, SeatSpec],
  extra: Pick<SeatedRunOptions, 'launch' | 'meta'> = {},
): SeatedRunOptions {
  const {
    agent: _agent,
    game,
    window: _window,
    windowId: _windowId,
    profile: _profile,
    judge: _judge,
    agentFromProfile: _fromProfile,
    memory: _memory,
    pauseKey: _pauseKey,
    ...rest
  } = o;
  return { ...rest, game: game!, seats, ...extra };
}

/** The reflect-and-retry request a spec asks for (the schema has checked the mode against the agent and tutorial). */
function reflectionFromSpec(s: RunSpec, model: string | undefined): ReflectionRequest | undefined {
  if (s.reflection === 'none') return undefined;
  const starved = reflectionReadsFrames(s.reflection) ? framesStarved(s.keepFrames, s.maxSteps) : undefined;
  if (starved)
    throw new RunSpecError(
      'keepFrames',
      `{reflection} ${s.reflection} reflects on the run's own frames, but {keepFrames} ${s.keepFrames} ${starved}: keep more (all, changed or every:N), or reflect with self-t`,
    );
  const baseURL = s.reflectorBaseUrl ?? s.baseUrl;
  const req: ReflectionRequest = {
    mode: s.reflection,
    ...(s.tutorial ? { tutorial: s.tutorial } : {}),
    after: s.reflectAfter,
    successScore: s.successScore,
    sample: {
      fps: s.reflectFps,
      maxSide: s.reflectMaxSide,
      contextTokens: s.reflectContext,
      ...(s.reflectMaxFrames !== undefined ? { maxFrames: s.reflectMaxFrames } : {}),
    },
    reflector: {
      maxWords: s.maxWords,
      video: s.reflectVideo,
      ...(s.reflectorModel ? { model: s.reflectorModel } : {}),
      ...(baseURL ? { baseURL } : {}),
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
