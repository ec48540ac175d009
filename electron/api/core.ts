/**
 * The core behind the contract. Both transports (Electron IPC, WebSocket) call `handle` and
 * relay `event`s, so the app and the web shell behave the same. It is assembled from rooms
 * of its own: one typed handler per method (contract.ts's `Handlers`), one activity slot for
 * whatever runs on the desktop (a run, an IDC, a recording, an ING-VP suite, a sweep), settings and the connection test
 * (settings-service.ts), the runs library (library.ts), targets (target-handlers.ts).
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { WindowManager } from '../../native/types.ts';
import {
  ContractError,
  isMethod,
  parseParams,
  type CoreEvent,
  type ConsentQuestionWire,
  type CoreState,
  type Handlers,
  type Method,
  type Results,
  type Settings,
  type StartRun,
  StartRunSchema,
  type TakeoverWire,
  type WindowSummary,
} from './contract.ts';
import type { SecretStore, SettingsStore } from './settings-store.ts';
import { SettingsService } from './settings-service.ts';
import { ActivitySlot } from './activity.ts';
import { RunActivity, type RunContext, type RunOpenOptions } from './run-activity.ts';
import { SeatedRunActivity } from './seated-run-activity.ts';
import { IdcActivity } from './idc-activity.ts';
import { RecordingActivity } from './recording-activity.ts';
import { SuiteActivity, suiteHandlers } from './suite-activity.ts';
import { SweepActivity, sweepHandlers, type SweepContext } from './sweep-activity.ts';
import { libraryHandlers, type LibraryDeps } from './library.ts';
import { targetHandlers } from './target-handlers.ts';
import { profileHandlers } from './profiles.ts';
import { defaultConfigDir } from '../util/paths.ts';
import type { ViewLauncher } from '../session/targets.ts';
import { createCapturer } from '../capture/index.ts';
import type { ScreenCapturer } from '../capture/capturer.ts';
import { CodedError, type ControlAction, type TakeoverTrigger } from '../domain.ts';
import type { GamepilotHotkeys } from '../input/accelerator.ts';
import { clearScope, listScopes } from '../agents/memory-store.ts';
import type { RoleEndpoint } from '../agents/model-endpoint.ts';

/** The built-in game the demo plays (the shells leave room for its window beside the control window). */
export const DEMO_GAME = '2048';

export interface CoreDeps extends LibraryDeps {
  wm: WindowManager;
  settings: SettingsStore;
  secrets: SecretStore;
  shell: 'electron' | 'web';
  version: string;
  launchView?: ViewLauncher;
  /** Capture backend (default nut-js; the app may pass Electron's desktopCapturer). */
  capturer?: ScreenCapturer;
  /** Windows of this app: never offered as targets. */
  isOwnWindow?: (w: WindowSummary) => boolean;
  /** The config folder: the user's profiles (`profiles/`) and memory stores (`memory/`); default: the per-user one. */
  configDir?: string;
}

/** Everything the core emits: the contract's events, and saved settings (for its shell: the stop hotkey). */
export interface CoreEvents {
  event: [CoreEvent];
  'settings-saved': [Settings];
}

type Live = RunActivity | IdcActivity | RecordingActivity | SuiteActivity | SweepActivity;

export class GamepilotCore extends EventEmitter<CoreEvents> {
  private readonly settings: SettingsService;
  private readonly slot: ActivitySlot<Live>;
  private readonly capturer: ScreenCapturer;
  private readonly handlers: Handlers;
  /** Why the last activity ended badly, if it did. */
  private lastError: string | null;
  /** An action being tried on a window (the profile editor's Try): nothing else may send input; stop ends it. */
  private tryAbort: AbortController | undefined;
  /** The person's open consent question, and how it is answered. */
  private consent: { wire: NonNullable<CoreState['consent']>; answer: (allow: boolean) => void } | undefined;

  constructor(private readonly deps: CoreDeps) {
    super();
    this.settings = new SettingsService(deps.settings, deps.secrets);
    this.lastError = this.settings.warning;
    this.capturer = deps.capturer ?? createCapturer();
    this.slot = new ActivitySlot<Live>({
      changed: () => this.emitEvent({ type: 'state', state: this.state() }),
      ended: (_kind, problem) => {
        if (problem) this.lastError = problem;
      },
    });
    this.handlers = {
      health: async () => ({ ok: true, version: deps.version }),
      state: async () => this.state(),
      ...targetHandlers({
        wm: deps.wm,
        capturer: this.capturer,
        ...(deps.launchView ? { launchView: deps.launchView } : {}),
        ...(deps.isOwnWindow ? { isOwnWindow: deps.isOwnWindow } : {}),
      }),
      ...profileHandlers({
        configDir: this.configDir,
        wm: deps.wm,
        withInput: (send) => this.withInput(send),
        screenBounds: () => this.capturer.screenBounds(),
        hotkeys: () => this.hotkeys(),
        capturer: this.capturer,
        judgeModel: () => this.judgeModel(),
      }),
      startRun: (p) => this.startRun(p),
      control: (p) => this.control(p.action),
      answerConsent: async ({ id, allow }) => {
        const open = this.consent;
        if (open?.wire.id !== id) return { answered: false };
        open.answer(allow);
        return { answered: true };
      },
      setLatency: async (p) => this.liveRun().setLatency(p.mode),
      setReflection: async (p) => {
        const r = await this.liveRun().setReflection(p);
        this.emitState();
        return r;
      },
      setLessons: (p) => this.liveRun().setLessons(p.text),
      startIdc: async (p) => {
        await this.begin('idc', () => IdcActivity.open(p, this.runContext()));
        return { started: true };
      },
      startRecording: async (p) => {
        const rec = await this.begin('recording', () => RecordingActivity.open(p, this.runContext()));
        return { id: rec.state.id };
      },
      stopRecording: async () => {
        const rec = this.slot.current;
        if (rec?.kind !== 'recording') return { result: null };
        await this.slot.stop();
        return { result: await rec.result };
      },
      ...suiteHandlers(deps),
      startSuite: async (p) => {
        const suite = await this.begin('suite', () => SuiteActivity.open(p, this.runContext()));
        const { name, progress } = suite.state;
        return { name, total: progress.total, resumed: progress.resumed };
      },
      stopSuite: async () => {
        if (this.slot.current?.kind !== 'suite') return { stopped: false };
        await this.slot.stop();
        return { stopped: true };
      },
      ...sweepHandlers({
        runsDir: deps.runsDir,
        configDir: this.configDir,
        settingsEndpoint: () => this.settings.endpoint,
      }),
      startSweep: async (p) => {
        const sweep = await this.begin('sweep', () => SweepActivity.open(p, this.sweepContext()));
        const { name, progress, workers } = sweep.state;
        return { name, total: progress.total, resumed: progress.resumed, workers };
      },
      stopSweep: async () => {
        if (this.slot.current?.kind !== 'sweep') return { stopped: false };
        await this.slot.stop();
        return { stopped: true };
      },
      getSettings: async () => this.settings.view(),
      saveSettings: async (p) => {
        const r = this.settings.save(p.settings, p.apiKey);
        this.emitState();
        this.emit('settings-saved', r.settings);
        return r;
      },
      testConnection: (p) => this.settings.testConnection(p.settings ?? {}, p.apiKey),
      ...libraryHandlers(deps, (runId, message) => this.emitEvent({ type: 'warning', runId, message })),
      listMemory: async () => ({
        scopes: listScopes(this.configDir).map(({ scope, memories, bytes }) => ({ scope, memories, bytes })),
      }),
      clearMemory: async ({ scope }) => {
        const live = this.slot.current;
        if (live?.kind === 'run' && live.run.memory?.scope === scope)
          throw new CodedError('busy', `the running memory agent uses scope "${scope}": stop the run first`);
        return { scope, cleared: clearScope(this.configDir, scope) };
      },
    };
  }

  /** Validates and serves one request from either transport. */
  handle(method: string, params: unknown): Promise<unknown> {
    if (!isMethod(method)) return Promise.reject(new ContractError(`unknown method "${method}"`));
    return this.call(method, params);
  }

  private async call<M extends Method>(method: M, params: unknown): Promise<Results[M]> {
    return this.handlers[method](parseParams(method, params));
  }

  state(): CoreState {
    const live = this.slot.current;
    return {
      consent: this.consent ? { ...this.consent.wire } : null,
      status: this.slot.phase,
      run: live?.kind === 'run' ? { ...live.run } : null,
      modelConfigured: !!this.settings.settings.model,
      lastError: this.lastError,
      shell: this.deps.shell,
      stopHotkey: this.settings.settings.stopHotkey,
      takeoverHotkey: this.settings.settings.takeoverHotkey,
      recording: live?.kind === 'recording' ? { ...live.state } : null,
      idc: live?.kind === 'idc' ? { ...live.state } : null,
      suite: live?.kind === 'suite' ? structuredClone(live.state) : null,
      sweep: live?.kind === 'sweep' ? structuredClone(live.state) : null,
    };
  }

  /** Starts a run; resolves once it is under way (the target is open and the loop started). */
  async startRun(req: StartRun, opts: RunOpenOptions = {}): Promise<{ id: string }> {
    const run = await this.begin('run', () =>
      req.seats ? SeatedRunActivity.openSeated(req, this.runContext()) : RunActivity.open(req, this.runContext(), opts),
    );
    return { id: run.run.id };
  }

  /** Stops whatever is going (hotkey, Stop button, window close, signals); resolves once input is released. */
  stop(): Promise<void> {
    this.tryAbort?.abort(); // a tried action's waits end too
    return this.slot.stop();
  }

  /**
   * Asks the person (the Live view shows the question) whether an outside agent may play a
   * window; resolves with the answer, false when nobody answers within `timeoutMs` or `signal`
   * aborts (the client went away). One question at a time: another while one is open is false.
   */
  askConsent(q: ConsentQuestionWire, signal?: AbortSignal, timeoutMs = 120_000): Promise<boolean> {
    if (this.consent || signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (allow: boolean) => {
        if (this.consent?.wire !== wire) return;
        this.consent = undefined;
        clearTimeout(timer);
        signal?.removeEventListener('abort', withdraw);
        this.emitState();
        resolve(allow);
      };
      const withdraw = () => done(false);
      const wire = { ...q, id: randomUUID(), asked: new Date().toISOString() };
      const timer = setTimeout(withdraw, timeoutMs);
      timer.unref();
      signal?.addEventListener('abort', withdraw, { once: true });
      this.consent = { wire, answer: done };
      this.emitState();
    });
  }

  /** Releases what the agent of run `runId` holds, the run going on; [] when it is not the run going. */
  async releaseHeld(runId: string): Promise<string[]> {
    const live = this.slot.current;
    if (live?.kind !== 'run' || live.run.id !== runId) return [];
    return live.releaseHeld();
  }

  /**
   * With no model configured, a built-in game with a baseline agent already playing. Its moves go
   * to the game's engine (semantic), not through the keyboard: key presses need the game window
   * focused, and the demo took the focus back from the person every step, so a click on the
   * control window could not keep it in front. Its many episodes only keep it going; the UI says "demo".
   */
  async startDemo(): Promise<void> {
    if (this.settings.settings.model || this.slot.phase !== 'idle') return;
    await this.startRun(
      StartRunSchema.parse({
        target: { game: DEMO_GAME },
        agent: 'solver',
        actionSpace: 'semantic',
        episodes: 1000,
        seed: Date.now() % 100000,
        paceMs: 500,
        latency: 'normal',
      }),
      { demo: true },
    );
  }

  /** Every activity starts here: the slot's busy rule, and a fresh last error. */
  private begin<T extends Live>(kind: T['kind'], open: () => Promise<T>): Promise<T> {
    if (this.tryAbort)
      return Promise.reject(new CodedError('busy', 'an action is being tried on a window; start again in a moment'));
    if (this.slot.phase === 'idle') this.lastError = null;
    return this.slot.start(kind, open);
  }

  /** Settings' model as a tried `judge` end detector asks it; undefined when none is configured. */
  private judgeModel(): RoleEndpoint | undefined {
    if (!this.settings.settings.model) return undefined;
    const { model, baseUrl, apiKey } = this.settings.model();
    return { model, ...(baseUrl ? { baseUrl } : {}), ...(apiKey ? { apiKey } : {}) };
  }

  /** The person's stop and take-over hotkeys, as Settings holds them now. */
  private hotkeys(): GamepilotHotkeys {
    return { stop: this.settings.settings.stopHotkey, takeover: this.settings.settings.takeoverHotkey };
  }

  /** Sends input outside any activity (a tried action), only while the slot is free; one at a time. */
  private async withInput<T>(send: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.slot.phase !== 'idle') {
      const kind = this.slot.current?.kind;
      const what = kind
        ? { run: 'a run', idc: 'an IDC', recording: 'a recording', suite: 'an ING-VP suite', sweep: 'a sweep' }[kind]
        : 'something';
      throw new CodedError('busy', `${what} is going (${this.slot.phase}): stop it before trying an action`);
    }
    if (this.tryAbort) throw new CodedError('busy', 'another action is being tried; wait for its outcome');
    const abort = new AbortController();
    this.tryAbort = abort;
    try {
      return await send(abort.signal);
    } finally {
      this.tryAbort = undefined;
    }
  }

  private async control(action: ControlAction): Promise<Results['control']> {
    if (action === 'stop') {
      await this.stop();
      return { status: this.slot.phase };
    }
    await this.liveRun().control(action);
    return { status: this.slot.phase };
  }

  /** The take-over hotkey: a person takes the live run's controls, or hands them back. */
  async toggleTakeover(trigger: TakeoverTrigger): Promise<TakeoverWire> {
    return this.liveRun().toggleTakeover(trigger);
  }

  private liveRun(): RunActivity {
    const live = this.slot.current;
    if (live?.kind !== 'run') throw new CodedError('not-found', 'no run is going');
    return live;
  }

  private get configDir(): string {
    return this.deps.configDir ?? defaultConfigDir();
  }

  private runContext(): RunContext {
    const { wm, runsDir, launchView } = this.deps;
    return {
      wm,
      runsDir,
      capturer: this.capturer,
      ...(launchView ? { launchView } : {}),
      model: () => this.settings.model(),
      configDir: this.configDir,
      imageSize: this.settings.settings.imageSize,
      emit: (e) => this.emitEvent(e),
      phase: (run, phase) => this.slot.setPhase(run, phase),
      hotkeys: this.hotkeys(),
    };
  }

  private sweepContext(): SweepContext {
    return {
      runsDir: this.deps.runsDir,
      configDir: this.configDir,
      model: () => this.settings.model(),
      emit: (e) => this.emitEvent(e),
    };
  }

  private emitEvent(e: CoreEvent) {
    this.emit('event', e);
  }

  private emitState() {
    this.emitEvent({ type: 'state', state: this.state() });
  }
}
