/**
 * The core behind the contract: one live session at a time, targets, settings, the runs
 * library. Both transports (Electron IPC, WebSocket) call `handle` and relay `event`s, so the
 * app and the web shell behave the same.
 */
import { EventEmitter } from 'node:events';
import OpenAI from 'openai';
import type { WindowManager } from '../../native/types.ts';
import { BUILTIN_GAMES, getGame } from '../../games/index.ts';
import { parseRequest, PROVIDERS, type RecordingResult, type RecordingState, type CoreEvent, type CoreState, type LiveRun, type LatencyModeName, type Method, type Results, type Settings, type StartRun, type WindowSummary } from './contract.ts';
import type { z } from 'zod';
import type { REQUESTS } from './contract.ts';
type StartRecording = z.output<(typeof REQUESTS)['startRecording']>;
import type { SecretStore, SettingsStore } from './settings-store.ts';
import { BuiltinTarget, WindowTarget, type Target, type ViewLauncher } from '../session/targets.ts';
import { makeAgent, wireSession, type RunOptions } from '../cli/compose.ts';
import type { Session } from '../session/session.ts';
import { NutCapturer } from '../capture/nut-capturer.ts';
import type { ScreenCapturer } from '../capture/types.ts';
import { encodeFrame } from '../capture/encode.ts';
import { windowsOver } from '../capture/occlusion.ts';
import { visiblePart } from '../input/coordinates.ts';
import { exportRun, listRuns, openRun, readFrame, runPath } from '../store/run-library.ts';
import { describeApiError, VlmAgent } from '../agents/vlm.ts';
import { Recorder, DEFAULT_RECORDER } from '../recording/recorder.ts';
import { exportVideo } from '../recording/video.ts';
import path from 'node:path';
import { attachReflection, checkReflectionRequest, type ReflectionRequest } from '../reflection/setup.ts';
import type { ReflectAndRetry, ReflectionRecord } from '../reflection/retry.ts';
import type { ReflectionMode } from '../reflection/reflector.ts';
import { DEFAULT_SAMPLE } from '../reflection/trajectory.ts';
import { runIdc } from '../reflection/idc.ts';
import { leaderboard } from '../store/leaderboard.ts';
import type { RunStore } from '../store/run-store.ts';

export interface CoreDeps {
  wm: WindowManager;
  settings: SettingsStore;
  secrets: SecretStore;
  runsDir: string;
  exportDir: string;
  shell: 'electron' | 'web';
  version: string;
  launchView?: ViewLauncher;
  /** Capture backend (default nut-js; the app may pass Electron's desktopCapturer). */
  capturer?: ScreenCapturer;
  /** Windows of this app: never offered as targets. */
  isOwnWindow?: (w: WindowSummary) => boolean;
  /**
   * Where an export goes, asked of the person (the app's native save dialog): an absolute
   * path, or undefined when they cancel. Without it, exports go into `exportDir`.
   */
  chooseExportPath?(suggestedName: string, kind: 'run' | 'video'): Promise<string | undefined>;
}

/** The base URL a settings patch points at: explicit, else the chosen provider's preset, else the current one. */
function effectiveBaseURL(s: Settings, patch: Partial<Settings>): string {
  if (patch.baseURL) return patch.baseURL;
  if (patch.provider && patch.provider !== 'custom' && patch.baseURL === undefined) return PROVIDERS[patch.provider].baseURL;
  return s.baseURL || PROVIDERS[s.provider].baseURL;
}

/** Same endpoint, ignoring a trailing slash and the case of scheme and host. */
function sameEndpoint(a: string, b: string): boolean {
  const norm = (u: string) => {
    try {
      const x = new URL(u);
      return `${x.protocol}//${x.host}${x.pathname.replace(/\/+$/, '')}${x.search}`;
    } catch {
      return u.trim().replace(/\/+$/, '');
    }
  };
  return !!a && norm(a) === norm(b);
}

/** Titles of Gamepilot's own windows: the control UI and the built-in game views. */
const OWN_TITLE = /^Gamepilot( [·—-]|$)/;

export class GamepilotCore extends EventEmitter {
  private settings: Settings;
  private live?: { session: Session; target: Target; run: LiveRun; done: Promise<void> };
  private status: CoreState['status'] = 'idle';
  private lastError: string | null = null;
  private reflection?: ReflectAndRetry;
  private idc?: { state: NonNullable<CoreState['idc']>; abort: AbortController; session?: Session; done: Promise<void> };
  private recording?: { recorder: Recorder; target: Target; state: RecordingState; done: Promise<RecordingResult | null> };

  constructor(private readonly deps: CoreDeps) {
    super();
    this.settings = deps.settings.load();
    if (deps.settings.warning) this.lastError = deps.settings.warning;
  }

  /** Validates and serves one request from either transport. */
  async handle(method: string, params: unknown): Promise<unknown> {
    const req = parseRequest(method, params);
    return this.dispatch(req.method, req.params as never);
  }

  private async dispatch<M extends Method>(method: M, p: any): Promise<Results[M]> {
    const r = await (async (): Promise<unknown> => {
      switch (method) {
        case 'health':
          return { ok: true, version: this.deps.version };
        case 'state':
          return this.state();
        case 'listTargets':
          return this.listTargets();
        case 'thumbnail':
          return this.thumbnail(p.windowId, p.maxSide);
        case 'startRun':
          return this.startRun(p);
        case 'control':
          return this.control(p.action);
        case 'setReflection':
          return this.setReflection(p.mode, p.review, p.reflectorModel);
        case 'setLessons': {
          const live = this.live;
          if (!live?.run.reflection || !(live.session.agent instanceof VlmAgent)) throw new Error('no model run is going');
          // Through a reflection loop (one that never reflects, if none is on), so run.json says which episodes had lessons.
          this.reflection ??= (await attachReflection(this.reflectionRequest({ mode: 'none', after: 'failed', maxWords: 150 }), live.session, live.target.game?.def, () => {})).loop;
          this.reflection.setLessons(p.text);
          live.run.reflection.lessons = p.text;
          this.emitEvent({ type: 'lessons', runId: live.run.id, afterEpisode: null, text: p.text, edited: true });
          return { text: p.text };
        }
        case 'startIdc':
          return this.startIdc(p);
        case 'gamePrompt':
          return this.gamePrompt(p.game);
        case 'startRecording':
          return this.startRecording(p);
        case 'stopRecording':
          return { result: await this.stopRecording() };
        case 'findTutorial': {
          const expert = listRuns(this.deps.runsDir).runs.find((r) => r.kind === 'human' && r.agent === 'human-expert' && r.game === p.game && r.status === 'completed');
          return { id: expert?.id ?? null };
        }
        case 'exportVideo': {
          const dir = runPath(this.deps.runsDir, p.id);
          const warn = (message: string) => this.emitEvent({ type: 'warning', runId: p.id, message });
          return { path: await exportVideo(dir, await this.exportDestination(p.name ?? `${p.id}.mp4`, 'video'), { warn }) };
        }
        case 'setLatency': {
          if (!this.live) throw new Error('no run is going');
          this.live.session.setLatency(p.mode);
          return this.live.run.latency;
        }
        case 'getSettings':
          return { settings: this.settings, apiKeySet: !!this.deps.secrets.getApiKey(), secretStorage: this.deps.secrets.kind };
        case 'saveSettings':
          return this.saveSettings(p.settings, p.apiKey);
        case 'testConnection':
          return this.testConnection(p.settings ?? {}, p.apiKey);
        case 'listRuns':
          return listRuns(this.deps.runsDir);
        case 'leaderboard':
          return leaderboard(this.deps.runsDir, p.game ? { game: p.game } : {});
        case 'getRun':
          return openRun(this.deps.runsDir, p.id);
        case 'getFrame': {
          const f = readFrame(this.deps.runsDir, p.id, p.frame);
          return { dataUrl: `data:${f.mime};base64,${f.data.toString('base64')}` };
        }
        case 'exportRun': {
          runPath(this.deps.runsDir, p.id); // a missing run fails before anyone is asked where to put it
          return { path: exportRun(this.deps.runsDir, p.id, await this.exportDestination(p.name ?? p.id, 'run')) };
        }
      }
    })();
    return r as Results[M];
  }

  /** A built-in game opened as its own window, or a window picked from the list. */
  private openTarget(t: { game: string } | { windowId: string }): Promise<Target> {
    return 'game' in t
      ? BuiltinTarget.open(getGame(t.game), this.deps.wm, this.deps.launchView ? { launch: this.deps.launchView } : {})
      : WindowTarget.byId(this.deps.wm, t.windowId);
  }

  private capturer(): ScreenCapturer {
    return this.deps.capturer ?? new NutCapturer();
  }

  state(): CoreState {
    return {
      status: this.status,
      run: this.live ? { ...this.live.run } : null,
      modelConfigured: !!this.settings.model,
      lastError: this.lastError,
      shell: this.deps.shell,
      stopHotkey: this.settings.stopHotkey,
      recording: this.recording ? { ...this.recording.state } : null,
      idc: this.idc ? { ...this.idc.state } : null,
    };
  }

  private emitEvent(e: CoreEvent) {
    this.emit('event', e);
  }

  private setStatus(s: CoreState['status']) {
    this.status = s;
    this.emitEvent({ type: 'state', state: this.state() });
  }

  private async listTargets(): Promise<Results['listTargets']> {
    const own = this.deps.isOwnWindow ?? (() => false);
    const windows = (await this.deps.wm.list()).filter((w) => !OWN_TITLE.test(w.title) && !own(w));
    const games = Object.values(BUILTIN_GAMES).map((g) => ({ id: g.id, title: g.title, maxSteps: g.defaultMaxSteps, viewSize: g.viewSize }));
    return { windows, games };
  }

  /**
   * A small picture of a window as it is on screen now (without raising it): its on-screen
   * part, and only when nothing covers it; otherwise no picture and the reason.
   */
  private async thumbnail(windowId: string, maxSide: number): Promise<Results['thumbnail']> {
    const w = await this.deps.wm.get(windowId);
    if (!w) throw new Error(`window ${windowId} is gone`);
    const none = { dataUrl: null, width: 0, height: 0, covered: false, minimized: false, offScreen: false, clipped: false };
    if (w.minimized) return { ...none, minimized: true };
    const capturer = this.capturer();
    const visible = visiblePart(w.bounds, await capturer.screenBounds());
    if (!visible) return { ...none, offScreen: true };
    const clipped = visible.width !== w.bounds.width || visible.height !== w.bounds.height;
    const over = await windowsOver(this.deps.wm, w, visible);
    if (over?.length) return { ...none, clipped, covered: true, coveredBy: over.map((o) => o.title) };
    const frame = await encodeFrame(await capturer.grab(visible), { longSide: maxSide, format: 'jpeg', quality: 60 });
    return { ...none, clipped, dataUrl: `data:image/jpeg;base64,${frame.data.toString('base64')}`, width: frame.width, height: frame.height };
  }

  private async saveSettings(patch: Partial<Settings>, apiKey?: string): Promise<Results['saveSettings']> {
    const next = { ...this.settings, ...patch };
    if (patch.provider && patch.provider !== 'custom' && patch.baseURL === undefined) next.baseURL = PROVIDERS[patch.provider].baseURL;
    const before = this.settings.baseURL || PROVIDERS[this.settings.provider].baseURL;
    const after = next.baseURL || PROVIDERS[next.provider].baseURL;
    // A stored key belongs to its endpoint: moving to another one without a new key drops it,
    // so a page holding the token cannot point the key at a server of its own.
    const keyCleared = apiKey === undefined && !sameEndpoint(before, after) && !!this.deps.secrets.getApiKey();
    this.deps.settings.save(next);
    this.settings = next;
    if (apiKey !== undefined) this.deps.secrets.setApiKey(apiKey);
    else if (keyCleared) this.deps.secrets.setApiKey(undefined);
    this.emitEvent({ type: 'state', state: this.state() });
    return { settings: this.settings, apiKeySet: !!this.deps.secrets.getApiKey(), ...(keyCleared ? { keyCleared: true } : {}) };
  }

  /** Where an export named `name` goes: the person's choice (app dialog), else the exports folder. Never a path from the page. */
  private async exportDestination(name: string, kind: 'run' | 'video'): Promise<string> {
    if (this.deps.chooseExportPath) {
      const chosen = await this.deps.chooseExportPath(name, kind);
      if (!chosen) throw new Error('export cancelled');
      if (!path.isAbsolute(chosen)) throw new Error(`the chosen export path is not absolute: ${chosen}`);
      return chosen;
    }
    return path.join(path.resolve(this.deps.exportDir), name);
  }

  /**
   * Lists the models at a base URL. The stored API key goes only to the saved base URL: a
   * request for another URL (explicit, or a provider's preset) sends the key it brings, or none.
   */
  private async testConnection(patch: Partial<Settings>, givenKey?: string): Promise<Results['testConnection']> {
    const t0 = performance.now();
    const s = { ...this.settings, ...patch };
    const baseURL = effectiveBaseURL(s, patch);
    const savedURL = this.settings.baseURL || PROVIDERS[this.settings.provider].baseURL;
    const apiKey = givenKey || (sameEndpoint(baseURL, savedURL) ? this.deps.secrets.getApiKey() : undefined);
    try {
      if (!baseURL) throw new Error('no base URL: pick a provider or enter a base URL');
      const client = new OpenAI({ baseURL, apiKey: apiKey || 'no-key', maxRetries: 0, timeout: 10_000 });
      const models: string[] = [];
      for await (const m of client.models.list()) {
        models.push(m.id);
        if (models.length >= 200) break;
      }
      const known = !s.model || models.length === 0 || models.includes(s.model);
      return { ok: true, models, ms: Math.round(performance.now() - t0), ...(known ? {} : { error: `connected, but the server does not list model "${s.model}"` }) };
    } catch (err) {
      return { ok: false, models: [], error: `${baseURL}: ${describeApiError(err)}`, ms: Math.round(performance.now() - t0) };
    }
  }

  /** Starts a run; resolves once it is under way (the target is open and the loop started). */
  async startRun(req: StartRun, opts: { demo?: boolean } = {}): Promise<{ id: string }> {
    if (this.live || this.recording || this.status !== 'idle') throw new Error('a run is already going; stop it first');
    this.lastError = null;
    this.setStatus('starting');
    let target: Target | undefined;
    let store: RunStore | undefined;
    try {
      const vlm = req.agent === 'vlm' ? this.vlmSettings() : undefined;
      const reflection = req.reflection && req.reflection.mode !== 'none' ? req.reflection : undefined;
      if (reflection && req.agent !== 'vlm') throw new Error('reflection needs the model agent');
      const reflectionReq = reflection ? this.reflectionRequest(reflection) : undefined; // a bad tutorial fails here, before anything opens
      const options: RunOptions = {
        ...('game' in req.target ? { game: req.target.game } : {}),
        agent: req.agent,
        space: req.space,
        episodes: req.episodes,
        ...(req.maxSteps ? { maxSteps: req.maxSteps } : {}),
        seed: req.seed,
        outDir: this.deps.runsDir,
        capture: 'nut',
        capturer: this.capturer(),
        encode: { longSide: this.settings.imageSize, format: 'jpeg', quality: 80 },
        minStepMs: req.paceMs,
        latency: req.latency,
        ...(vlm ? { vlm } : {}),
      };
      const agent = makeAgent(options);
      if (req.space === 'semantic' && !('game' in req.target)) throw new Error('the semantic action space needs a built-in game');
      target = await this.openTarget(req.target);
      const wired = wireSession(options, target, agent, this.deps.wm);
      const session = wired.session;
      store = wired.store;
      if (opts.demo) store.update({ demo: true });
      const runId = store.meta.id;
      this.reflection = undefined;
      if (reflectionReq) {
        const r = await attachReflection(reflectionReq, session, target.game?.def, (m) => this.emitEvent({ type: 'warning', runId, message: m }));
        this.reflection = r.loop;
      }
      const run: LiveRun = {
        id: store.meta.id, dir: store.dir, target: target.label, game: store.meta.game, agent: agent.name, model: store.meta.model,
        space: req.space, demo: !!opts.demo, episode: 0, step: 0, episodes: req.episodes, maxSteps: Number(store.meta.config.max_steps),
        score: null, tokens: { input: 0, output: 0 }, costUsd: null, latency: session.latency,
        reflection: req.agent === 'vlm' ? { mode: this.reflection?.opts.mode ?? 'none', review: !!req.reflection?.review, lessons: '', reflectorModel: this.reflection && this.reflection.opts.mode !== 'none' ? this.reflection.opts.reflector.model : null } : null,
      };
      this.relay(session, run);
      const done = session.run().then(
        (result) => {
          if (result.status === 'failed') this.lastError = result.error ?? 'the run failed';
        },
        (err) => {
          this.lastError = (err as Error).message;
        },
      ).finally(async () => {
        await target?.close().catch(() => {});
        this.live = undefined;
        this.setStatus('idle');
      });
      this.live = { session, target, run, done };
      this.setStatus('running');
      return { id: run.id };
    } catch (err) {
      store?.close('failed', (err as Error).message);
      await target?.close().catch(() => {});
      this.lastError = (err as Error).message;
      this.setStatus('idle');
      throw err;
    }
  }

  private vlmSettings(): NonNullable<RunOptions['vlm']> & { model: string } {
    const s = this.settings;
    if (!s.model) throw new Error('no model configured: open Settings, pick a provider and a model');
    const apiKey = this.deps.secrets.getApiKey();
    return {
      model: s.model,
      baseURL: s.baseURL || PROVIDERS[s.provider].baseURL,
      ...(apiKey ? { apiKey } : {}),
      detail: s.detail,
      history: s.history,
      ...(s.temperature !== null ? { temperature: s.temperature } : {}),
    };
  }

  /** Forwards a session's events to the contract's event stream. */
  private relay(session: Session, run: LiveRun) {
    session.on('frame', (f) => {
      run.episode = f.episode;
      run.step = f.step;
      this.emitEvent({ type: 'frame', runId: run.id, episode: f.episode, step: f.step, dataUrl: `data:${f.mime};base64,${f.data.toString('base64')}`, width: f.width, height: f.height });
    });
    session.on('token', (t) => this.emitEvent({ type: 'token', runId: run.id, ...t }));
    session.on('step', (r) => {
      run.score = r.score ?? null;
      run.tokens.input += r.tokens?.input ?? 0;
      run.tokens.output += r.tokens?.output ?? 0;
      if (typeof r.cost_usd === 'number') run.costUsd = (run.costUsd ?? 0) + r.cost_usd;
      this.emitEvent({
        type: 'step',
        data: {
          runId: run.id, episode: r.episode, step: r.step, reasoning: r.reasoning, actions: r.actions, actionsText: r.actionsText,
          outcomes: r.outcomes ?? [], errors: r.errors, latency_ms: r.latency_ms, ...(r.tokens ? { tokens: r.tokens } : {}),
          ...(r.cost_usd !== undefined ? { cost_usd: r.cost_usd } : {}), score: r.score ?? null, ...(r.frame_size ? { frame_size: r.frame_size } : {}),
          latency_mode: r.latency_mode, paused_ms: r.paused_ms, ...(r.drift_ticks !== undefined ? { drift_ticks: r.drift_ticks } : {}),
        },
      });
    });
    session.on('episode', (e) => this.emitEvent({ type: 'episode', runId: run.id, ...e }));
    const onWorld = (w: LiveRun['latency']) => {
      run.latency = w;
      this.emitEvent({ type: 'world', runId: run.id, latency: w });
    };
    session.on('world', onWorld);
    session.on('latency', onWorld);
    session.on('warning', (message: string) => this.emitEvent({ type: 'warning', runId: run.id, message }));
    session.on('reflection', (rec: ReflectionRecord) => {
      const text = rec.lesson?.text ?? '';
      if (text && run.reflection) run.reflection.lessons = text;
      const review = !!run.reflection?.review && !!text;
      if (review) session.pause(); // a person reads and edits the lessons before the retry
      this.emitEvent({ type: 'lessons', runId: run.id, afterEpisode: rec.after_episode, text, ...(rec.lesson?.note ? { note: rec.lesson.note } : {}), ...(rec.error ? { error: rec.error } : {}), awaitingReview: review });
    });
    session.on('released', (inputs: string[]) => this.emitEvent({ type: 'released', runId: run.id, inputs }));
    session.on('status', (s: string) => {
      if (s === 'paused' || s === 'running') this.setStatus(s);
    });
  }

  private async control(action: 'pause' | 'resume' | 'step' | 'stop'): Promise<Results['control']> {
    const live = this.live;
    if (!live) {
      if (action === 'stop') return { status: this.status };
      throw new Error('no run is going');
    }
    if (action === 'pause') live.session.pause();
    if (action === 'resume') live.session.resume();
    if (action === 'step') live.session.stepOnce();
    if (action === 'stop') await this.stop();
    return { status: this.status };
  }

  private reflectionRequest(r: { mode: ReflectionMode; tutorial?: string | undefined; after: 'failed' | 'every'; maxWords: number; reflectorModel?: string | undefined }): ReflectionRequest {
    const vlm = this.vlmSettings()!;
    // Over the contract a tutorial is "solver" or a run id; only the runs folder is ever read.
    const tutorial = r.tutorial === undefined || r.tutorial === 'solver' ? r.tutorial : runPath(this.deps.runsDir, r.tutorial);
    const req: ReflectionRequest = {
      mode: r.mode,
      ...(tutorial ? { tutorial } : {}),
      after: r.after,
      successScore: 100,
      sample: DEFAULT_SAMPLE,
      reflector: { maxWords: r.maxWords, ...(r.reflectorModel ? { model: r.reflectorModel } : {}), ...(vlm.baseURL ? { baseURL: vlm.baseURL } : {}), ...(vlm.apiKey ? { apiKey: vlm.apiKey } : {}) },
    };
    checkReflectionRequest(req, vlm.model);
    return req;
  }

  /** Switches reflection for the live run; it takes effect at the next attempt. */
  private async setReflection(mode: ReflectionMode, review?: boolean, reflectorModel?: string): Promise<Results['setReflection']> {
    const live = this.live;
    if (!live?.run.reflection) throw new Error('no model run is going');
    if (!this.reflection && mode !== 'none') {
      const r = await attachReflection({ ...this.reflectionRequest({ mode, after: 'failed', maxWords: 150, reflectorModel }) }, live.session, live.target.game?.def, (m) => this.emitEvent({ type: 'warning', runId: live.run.id, message: m }));
      this.reflection = r.loop;
    } else if (this.reflection) {
      this.reflection.setMode(mode, reflectorModel); // refuses "other" without a different model
      live.session.store.update({ reflection: this.reflection.summary() });
    }
    live.run.reflection.mode = mode;
    live.run.reflection.reflectorModel = this.reflection && mode !== 'none' ? this.reflection.opts.reflector.model : null;
    if (review !== undefined) live.run.reflection.review = review;
    this.emitEvent({ type: 'state', state: this.state() });
    return { mode, review: live.run.reflection.review };
  }

  /** An Improvement Dynamics Curve with the configured model, charted live through events. */
  private async startIdc(p: { game: string; rounds: number; episodes: number; maxSteps?: number; heldOut?: number; latency: LatencyModeName }): Promise<{ started: true }> {
    if (this.live || this.recording || this.idc || this.status !== 'idle') throw new Error('something is already running; stop it first');
    const vlm = this.vlmSettings()!;
    const abort = new AbortController();
    const state = { game: p.game, rounds: p.rounds, done: 0 };
    const idc: NonNullable<GamepilotCore['idc']> = { state, abort, done: Promise.resolve() };
    this.idc = idc;
    this.lastError = null;
    this.setStatus('running');
    idc.done = runIdc({
      game: p.game, rounds: p.rounds, episodes: p.episodes, ...(p.maxSteps ? { maxSteps: p.maxSteps } : {}), seed: 0, heldOutEpisodes: p.heldOut ?? p.episodes, latency: p.latency,
      outDir: this.deps.runsDir, player: vlm, reflector: { model: vlm.model, ...(vlm.baseURL ? { baseURL: vlm.baseURL } : {}), ...(vlm.apiKey ? { apiKey: vlm.apiKey } : {}) },
      maxWords: 120, rollbackDrop: 0.25, judgeTries: 5, log: () => {}, signal: abort.signal,
      ...(this.deps.launchView ? { launch: this.deps.launchView } : {}),
      onSession: (s) => (idc.session = s),
      onRound: (round, curve) => {
        state.done = round.round + 1;
        const { run_dir: _dir, scores: _scores, tool_calls: _calls, ...summary } = round;
        this.emitEvent({ type: 'idc', round: summary, curve });
      },
    }, this.deps.wm).then(
      (r) => this.emitEvent({ type: 'idc-done', runDir: r.run_dir, curve: r.curve, bestRound: r.best_round, bestSkill: r.best_skill, transfer: { mean: r.transfer.mean } }),
      (err: Error) => {
        this.lastError = `IDC failed: ${err.message}`;
        this.emitEvent({ type: 'idc-done', runDir: '', curve: [], bestRound: 0, bestSkill: '', transfer: null, error: err.message });
      },
    ).finally(() => {
      this.idc = undefined;
      this.setStatus('idle');
    });
    return { started: true };
  }

  /** The system prompt a model gets for this game, shown to people before they play. */
  private gamePrompt(gameId: string): Results['gamePrompt'] {
    const def = getGame(gameId);
    const agent = new VlmAgent({ model: 'none', apiKey: 'none' });
    const { width, height } = def.viewSize;
    const obs = { step: 0, episode: 0, tCapture: 0, frame: { data: Buffer.alloc(0), mime: 'image/jpeg' as const, width, height, scale: 1 }, geometry: { window: { x: 0, y: 0, width, height }, imageScale: 1, imageWidth: width, imageHeight: height, inputScale: 1 } };
    return { title: def.title, prompt: agent.systemPrompt(obs, 'gui', def), trials: def.trials };
  }

  private async startRecording(p: StartRecording): Promise<{ id: string }> {
    if (this.live || this.recording || this.status !== 'idle') throw new Error('something is already running; stop it first');
    this.lastError = null;
    const target = await this.openTarget(p.target);
    try {
      const recorder = new Recorder(
        { target, wm: this.deps.wm, capturer: this.capturer() },
        { participant: p.participant, role: p.role, trial: p.trial, ...(p.stage ? { stage: p.stage } : {}), consent: p.consent },
        { ...DEFAULT_RECORDER, fps: p.fps, ...(p.durationS ? { durationS: p.durationS } : {}) },
        this.deps.runsDir,
      );
      const state: RecordingState = { id: recorder.id, target: target.label, role: p.role, stage: recorder.stage, trial: p.trial, frames: 0, dropped: 0, events: 0, seconds: 0, fps: 0 };
      recorder.on('progress', (pr) => {
        Object.assign(state, pr);
        this.emitEvent({ type: 'recording', state: { ...state } });
      });
      const done = recorder.start().then(
        (result) => {
          this.emitEvent({ type: 'recorded', result });
          return result;
        },
        (err: Error) => {
          this.lastError = `recording failed: ${err.message}`;
          return null;
        },
      ).finally(async () => {
        await target.close().catch(() => {});
        this.recording = undefined;
        this.setStatus('idle');
      });
      this.recording = { recorder, target, state, done };
      this.setStatus('running');
      return { id: recorder.id };
    } catch (err) {
      await target.close();
      throw err;
    }
  }

  private async stopRecording(): Promise<RecordingResult | null> {
    const rec = this.recording;
    if (!rec) return null;
    rec.recorder.stop();
    return rec.done;
  }

  /** Stops the live run or recording at once (hotkey, window close, signals); waits until input is released. */
  async stop(): Promise<void> {
    if (this.recording) await this.stopRecording();
    if (this.idc) {
      this.idc.abort.abort();
      this.idc.session?.stop();
      await this.idc.done;
    }
    const live = this.live;
    if (!live) return;
    this.setStatus('stopping');
    live.session.stop();
    await live.done;
  }

  /** With no model configured, a built-in game with a baseline agent already playing. */
  async startDemo(): Promise<void> {
    if (this.settings.model || this.live) return;
    await this.startRun({ target: { game: '2048' }, agent: 'solver', space: 'gui', episodes: 1000, seed: Date.now() % 100000, paceMs: 500, latency: 'normal' }, { demo: true });
  }
}
