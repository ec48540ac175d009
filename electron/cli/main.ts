/**
 * `gamepilot` command line: windows, games, run, bench. Human-readable progress goes to
 * stderr; with --json, stdout carries exactly one JSON object.
 */
import { parseArgs } from 'node:util';
import { createWindowManager } from '../../native/index.ts';
import { BUILTIN_GAMES, getGame } from '../../games/index.ts';
import { openTarget, prepareRun } from '../session/compose.ts';
import { Recorder, DEFAULT_RECORDER } from '../recording/recorder.ts';
import { exportVideo } from '../recording/video.ts';
import type { ReflectionRecord } from '../reflection/records.ts';
import { DEFAULT_SAMPLE } from '../reflection/trajectory.ts';
import { attachReflection, checkReflectionRequest, type ReflectionRequest } from '../reflection/setup.ts';
import { IDC_DEFAULTS, runIdc, type IdcOptions } from '../reflection/idc.ts';
import { formatLeaderboard, leaderboard } from '../store/leaderboard.ts';
import type { Session } from '../session/session.ts';
import type { Target } from '../session/targets.ts';
import { createCapturer } from '../capture/index.ts';
import { LATENCY_MODES, REFLECTION_MODES, type AgentKind } from '../domain.ts';
import { recoverCrashLeftovers } from '../safety/recovery.ts';
import { runBench, formatBench, runRecordBench, formatRecordBench } from './bench.ts';
import type { CaptureBackend } from '../capture/index.ts';
import { defaultConfigDir, runWebShell } from '../web/shell.ts';
import { openUiInBrowser } from '../web/open-ui.ts';
import { JsonFileSettingsStore } from '../api/settings-store.ts';
import { startStopHotkey } from '../input/stop-hotkey.ts';
import { KeyPolicy } from '../input/key-policy.ts';
import path from 'node:path';

const USAGE = `gamepilot — vision-language models play real games

  gamepilot windows [--json]                 list top-level windows (id, title, pid, bounds, minimized)
  gamepilot games [--json]                   list built-in games
  gamepilot run (--game ID | --window REGEX | --window-id ID) [options]
      --window REGEX must match exactly one window; with several, pick one by the id \`windows\` lists
      --agent random|solver|vlm   (default random)
      --action-space gui|semantic (default gui)
      --episodes N (default: the game's trials, e.g. Tic-Tac-Toe 20; 1 for a window)  --max-steps N (default: the game's)
      --seed S  --out DIR (default ./runs)
      --model M  --base-url URL  --api-key KEY (or OPENAI_API_KEY)  --prompt FILE
      --history K (frames per request: 2 = current + the previous step's frame and answer, the default;
                   1 = strictly the current frame)  --detail low|high|auto  --temperature T  --max-tokens N
      --repairs N  --price-in USD/M  --price-out USD/M
      --timeout-ms MS (total time limit of one model call, default 120000)  --idle-timeout-ms MS (longest silence while streaming, default 30000)
      --max-retries N (429/5xx/time-outs/connection errors, default 3)  --retry-after-cap-ms MS (longest Retry-After honoured, default 20000)
      --max-answer-bytes N (largest answer in response bytes, default 16 MiB)
      --allow-keys LIST (system key combinations this game may press, e.g. alt+f4,alt+click; refused by default)
      --image-size PX (long side, default 1280)  --format jpeg|png  --quality Q
      --capture nut|screenshot-desktop  --settle-ms MS  --max-errors N (consecutive unusable steps before giving up, default 5)
      --latency stop|slow|normal|lcrt (how the world waits for the model; default normal)
      --stop-interval-ms MS (stop: world runs this long after acting, default 2000)
      --slow-buffer-ms MS (slow: world pauses this long after each capture, default 5000)
      --pause-key KEY (freeze a window with its own pause key instead of suspending its process)
      --reflection none|self-f|self-t|self|other  --tutorial VIDEO|FOLDER|RUN  --reflect-after failed|every
      --success-score S  --reflector-model M (other: required, not the player's model)  --reflector-base-url U  --max-words N
      --reflect-fps F  --reflect-max-frames N  --reflect-max-side PX
      --pace-ms MS (minimum time per step, to watch fast agents)  --game-text (send the board as text too)  --json  --quiet
  gamepilot bench [--json] [--iterations N] [--loop-steps N]
  gamepilot bench --record [--seconds N] [--fps N] [--window-size WxH] [--writers N] [--json]
      the recorder's frame rate and dropped frames on built-in 2048 (default 30 s, 30 fps, 1280x720)
  gamepilot record (--game ID | --window REGEX | --window-id ID) --role rookie|expert --participant P --consent
      [--duration S] [--fps N] [--trial N] [--seed S] [--stage play-1|tutorial|play-2|play (default: rookie play-1, expert play)]
      [--window-size WxH] [--out DIR (default ./runs)] [--json]
      records a person playing: frames, and input in the agent's action schema; trial N of a built-in
      game is an agent's episode N-1 of seed S (its board, its side)
  gamepilot idc --game ID --model M [--rounds R (default 10)] [--episodes E (per round, default 5)] [--base-url U]
      [--max-steps N] [--seed S] [--reflector-model M] [--max-words N] [--rollback-drop F] [--held-out N]
      [--latency stop|lcrt|slow|normal (default stop = PDQ)] [--stop-interval-ms MS (default 0)] [--out DIR] [--json]
      Improvement Dynamics Curve: rounds of play → tool-using reflection → judged skill
  gamepilot leaderboard [--game ID] [--runs-dir DIR] [--json]
      scores pooled per game × player (agent/model/human role) × VR (No / Yes: played with lessons,
      a rookie's play-2 / — for experts) × action space × latency
  gamepilot video DIR [--out FILE]           a run or session as an MP4 (needs ffmpeg), e.g. a tutorial
  gamepilot web [--port P] [--runs-dir DIR] [--config-dir DIR] [--no-demo] [--open]
      serves the UI on 127.0.0.1; the first line of output is its URL with a session token
`;

type Out = { log: (s: string) => void; out: (s: string) => void };
const io: Out = { log: (s) => process.stderr.write(s + '\n'), out: (s) => process.stdout.write(s + '\n') };

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const known = ['windows', 'games', 'run', 'bench', 'record', 'idc', 'leaderboard', 'video'];
  // What a crashed Gamepilot left (stopped games, held keys) is undone before anything else; the web shell does it itself.
  if (command && known.includes(command)) recoverCrashLeftovers(defaultConfigDir(), io.log);
  try {
    switch (command) {
      case 'windows':
        return await windowsCommand(rest);
      case 'games':
        return gamesCommand(rest);
      case 'run':
        return await runCommand(rest);
      case 'bench':
        return await benchCommand(rest);
      case 'web':
        return await webCommand(rest);
      case 'record':
        return await recordCommand(rest);
      case 'idc':
        return await idcCommand(rest);
      case 'leaderboard': {
        const { values } = parseArgs({ args: rest, options: { game: { type: 'string' }, 'runs-dir': { type: 'string' }, json: { type: 'boolean' } } });
        const { rows, warnings } = leaderboard(path.resolve(values['runs-dir'] ?? 'runs'), values.game ? { game: values.game } : {});
        for (const w of warnings) io.log(`warning: ${w}`);
        io.out(values.json ? JSON.stringify(rows) : formatLeaderboard(rows));
        return 0;
      }
      case 'video': {
        const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { out: { type: 'string' } } });
        if (!positionals[0]) throw new Error('usage: gamepilot video <run or session folder> [--out FILE]');
        io.out(await exportVideo(path.resolve(positionals[0]), values.out ? path.resolve(values.out) : undefined, { overwrite: true }));
        return 0;
      }
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.out(USAGE);
        return command ? 0 : 1;
      default:
        io.log(`gamepilot: unknown command "${command}"\n\n${USAGE}`);
        return 2;
    }
  } catch (err) {
    io.log(`gamepilot ${command}: ${(err as Error).message}`);
    return 1;
  }
}

async function windowsCommand(args: string[]) {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean' } } });
  const list = await createWindowManager().list();
  if (values.json) io.out(JSON.stringify(list));
  else for (const w of list) io.out(`${w.id}  pid ${String(w.pid).padEnd(7)} ${w.bounds.width}×${w.bounds.height}+${w.bounds.x}+${w.bounds.y} ×${w.scaleFactor}  ${w.title}${w.minimized ? '  [minimized]' : ''}`);
  return 0;
}

function gamesCommand(args: string[]) {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean' } } });
  const games = Object.values(BUILTIN_GAMES).map((g) => ({ id: g.id, title: g.title, max_steps: g.defaultMaxSteps, trials: g.trials, max_moves_per_step: g.maxActionsPerStep ?? null, spaces: ['gui', 'semantic'] }));
  if (values.json) io.out(JSON.stringify(games));
  else for (const g of games) io.out(`${g.id.padEnd(12)} ${g.title} (max steps ${g.max_steps}, ${g.trials} trials${g.max_moves_per_step ? `, ${g.max_moves_per_step} move a step` : ''})`);
  return 0;
}

/** The stop hotkey from the user's settings file (the web shell's), or the default. */
function configuredStopHotkey(): string {
  return new JsonFileSettingsStore(path.join(defaultConfigDir(), 'settings.json')).load().stopHotkey;
}

function num(v: string | undefined, name: string, opts: { min?: number; int?: boolean } = {}): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || (opts.int && !Number.isInteger(n)) || (opts.min !== undefined && n < opts.min)) {
    throw new Error(`--${name} must be a ${opts.int ? 'whole ' : ''}number${opts.min !== undefined ? ` ≥ ${opts.min}` : ''}, got "${v}"`);
  }
  return n;
}

function oneOf<T extends string>(v: string | undefined, name: string, allowed: readonly T[], fallback: T): T {
  if (v === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(v)) throw new Error(`--${name} must be one of ${allowed.join(', ')}, got "${v}"`);
  return v as T;
}

/** `--allow-keys alt+f4,super+d`: checked here, so a typo is an error and never allows something else. */
function allowKeysList(v: string): string[] {
  const list = v.split(',').map((k) => k.trim()).filter(Boolean);
  try {
    new KeyPolicy(list);
  } catch (err) {
    throw new Error(`--allow-keys: ${(err as Error).message}`);
  }
  return list;
}

async function runCommand(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      game: { type: 'string' }, window: { type: 'string' }, 'window-id': { type: 'string' }, agent: { type: 'string' }, 'action-space': { type: 'string' },
      episodes: { type: 'string' }, 'max-steps': { type: 'string' }, seed: { type: 'string' }, out: { type: 'string' },
      model: { type: 'string' }, 'base-url': { type: 'string' }, 'api-key': { type: 'string' }, prompt: { type: 'string' },
      history: { type: 'string' }, detail: { type: 'string' }, temperature: { type: 'string' }, 'max-tokens': { type: 'string' },
      repairs: { type: 'string' }, 'timeout-ms': { type: 'string' }, 'max-retries': { type: 'string' },
      'idle-timeout-ms': { type: 'string' }, 'max-answer-bytes': { type: 'string' }, 'retry-after-cap-ms': { type: 'string' }, 'allow-keys': { type: 'string' },
      'price-in': { type: 'string' }, 'price-out': { type: 'string' },
      'image-size': { type: 'string' }, format: { type: 'string' }, quality: { type: 'string' }, capture: { type: 'string' },
      'settle-ms': { type: 'string' }, 'max-errors': { type: 'string' }, 'pace-ms': { type: 'string' }, latency: { type: 'string' }, 'stop-interval-ms': { type: 'string' },
      'slow-buffer-ms': { type: 'string' }, 'pause-key': { type: 'string' }, reflection: { type: 'string' }, 'reflect-after': { type: 'string' },
      'success-score': { type: 'string' }, tutorial: { type: 'string' }, 'reflector-model': { type: 'string' }, 'reflector-base-url': { type: 'string' },
      'max-words': { type: 'string' }, 'reflect-fps': { type: 'string' }, 'reflect-max-frames': { type: 'string' }, 'reflect-max-side': { type: 'string' }, 'game-text': { type: 'boolean' }, json: { type: 'boolean' }, quiet: { type: 'boolean' },
    },
  });
  const agent = oneOf(values.agent, 'agent', ['random', 'solver', 'vlm'] as const, 'random') as AgentKind;
  const vlm = {
    ...(values.model ? { model: values.model } : {}),
    ...(values['base-url'] ? { baseURL: values['base-url'] } : {}),
    ...(values['api-key'] ? { apiKey: values['api-key'] } : {}),
    ...(values.prompt ? { systemPrompt: values.prompt } : {}),
    ...(values.history ? { history: num(values.history, 'history', { min: 1, int: true })! } : {}),
    ...(values.detail ? { detail: oneOf(values.detail, 'detail', ['low', 'high', 'auto'] as const, 'auto') } : {}),
    ...(values.temperature ? { temperature: num(values.temperature, 'temperature', { min: 0 })! } : {}),
    ...(values['max-tokens'] ? { maxTokens: num(values['max-tokens'], 'max-tokens', { min: 1, int: true })! } : {}),
    ...(values.repairs ? { repairs: num(values.repairs, 'repairs', { min: 0, int: true })! } : {}),
    ...(values['timeout-ms'] ? { timeoutMs: num(values['timeout-ms'], 'timeout-ms', { min: 1 })! } : {}),
    ...(values['max-retries'] ? { maxRetries: num(values['max-retries'], 'max-retries', { min: 0, int: true })! } : {}),
    ...(values['idle-timeout-ms'] ? { idleTimeoutMs: num(values['idle-timeout-ms'], 'idle-timeout-ms', { min: 1 })! } : {}),
    ...(values['max-answer-bytes'] ? { maxAnswerBytes: num(values['max-answer-bytes'], 'max-answer-bytes', { min: 1024, int: true })! } : {}),
    ...(values['retry-after-cap-ms'] ? { retryAfterCapMs: num(values['retry-after-cap-ms'], 'retry-after-cap-ms', { min: 0 })! } : {}),
    ...(values['price-in'] || values['price-out'] ? { price: { inputPerM: num(values['price-in'], 'price-in', { min: 0 }) ?? 0, outputPerM: num(values['price-out'], 'price-out', { min: 0 }) ?? 0 } } : {}),
    ...(values['game-text'] ? { includeGameText: true } : {}),
  };
  const settleMs = num(values['settle-ms'], 'settle-ms', { min: 0 });
  const reflectionReq = reflectionRequestFrom(values, agent, vlm.model ?? process.env.GAMEPILOT_MODEL);
  const { session, target } = await prepareRun({
    ...(values.game ? { game: values.game } : {}),
    ...(values.window ? { window: values.window } : {}),
    ...(values['window-id'] !== undefined ? { windowId: values['window-id'] } : {}),
    agent,
    space: oneOf(values['action-space'], 'action-space', ['gui', 'semantic'] as const, 'gui'),
    // A built-in plays the paper's number of trials unless told otherwise.
    episodes: num(values.episodes, 'episodes', { min: 1, int: true }) ?? (values.game ? getGame(values.game).trials : 1),
    ...(values['max-steps'] ? { maxSteps: num(values['max-steps'], 'max-steps', { min: 1, int: true })! } : {}),
    seed: num(values.seed, 'seed', { int: true }) ?? 0,
    outDir: values.out ?? 'runs',
    capture: oneOf(values.capture, 'capture', ['nut', 'screenshot-desktop'] as const, 'nut') as CaptureBackend,
    encode: {
      longSide: num(values['image-size'], 'image-size', { min: 64, int: true }) ?? 1280,
      format: oneOf(values.format, 'format', ['jpeg', 'png'] as const, 'jpeg'),
      quality: num(values.quality, 'quality', { min: 1, int: true }) ?? 80,
    },
    ...(settleMs !== undefined ? { settleMs } : {}),
    latency: oneOf(values.latency, 'latency', LATENCY_MODES, 'normal'),
    latencySettings: {
      ...(values['stop-interval-ms'] ? { stopIntervalMs: num(values['stop-interval-ms'], 'stop-interval-ms', { min: 0 })! } : {}),
      ...(values['slow-buffer-ms'] ? { slowBufferMs: num(values['slow-buffer-ms'], 'slow-buffer-ms', { min: 0 })! } : {}),
    },
    ...(values['pause-key'] ? { pauseKey: values['pause-key'] } : {}),
    ...(values['allow-keys'] ? { allowedKeys: allowKeysList(values['allow-keys']) } : {}),
    ...(values['pace-ms'] ? { minStepMs: num(values['pace-ms'], 'pace-ms', { min: 0 })! } : {}),
    ...(values['max-errors'] ? { maxConsecutiveErrors: num(values['max-errors'], 'max-errors', { min: 1, int: true })! } : {}),
    vlm,
  });
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
    if (!values.quiet) io.log(`warning: no global stop hotkey (${err.message}); Ctrl+C still stops`);
    return undefined;
  });
  if (!values.quiet) {
    io.log(`run folder: ${session.store.dir}`);
    session.on('step', (r) => {
      const err = r.errors.length ? `  ! ${r.errors.join('; ')}` : '';
      io.log(`ep ${r.episode + 1} step ${r.step + 1}: ${r.actionsText.join(', ') || '(no action)'}  [${r.latency_ms.total} ms, ${r.latency_mode}${r.drift_ticks !== undefined ? `, drift ${r.drift_ticks}` : ''}]${r.score !== null && r.score !== undefined ? `  score ${r.score}` : ''}${err}`);
    });
    session.on('warning', (w: string) => io.log(`warning: ${w}`));
    let paused = false;
    session.on('status', (st: string) => {
      if (st === 'running' && paused) io.log('the target window is shown again: the run goes on');
      paused = st === 'paused';
    });
    session.on('episode', (e) => io.log(`episode ${e.episode + 1}: score ${e.score ?? 'n/a'} after ${e.steps} steps (${e.end})`));
  }
  try {
    const result = await session.run();
    const summary = {
      run_dir: result.runDir,
      status: result.status,
      episodes: result.episodes.map((e) => ({ episode: e.episode, score: e.score, steps: e.steps, end: e.end })),
      mean: result.mean,
      std: result.std,
      ...(reflection ? { reflection: { mode: reflection.mode, reflections: reflection.loop.records.length, errors: reflection.loop.records.flatMap((r) => (r.error ? [r.error] : [])), ...(reflection.tutorialError ? { tutorial_error: reflection.tutorialError } : {}), ...reflection.loop.compare(result.episodes) } } : {}),
      ...(result.error ? { error: result.error } : {}),
    };
    if (values.json) io.out(JSON.stringify(summary));
    else io.log(`done (${result.status}): mean ${result.mean ?? 'n/a'} ± ${result.std ?? 'n/a'} over ${result.episodes.length} episode(s)${result.error ? ` — ${result.error}` : ''}`);
    return result.status === 'failed' ? 1 : 0;
  } finally {
    stopHook?.();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await target.close();
  }
}

function windowSize(v: string | undefined): { width: number; height: number } | undefined {
  if (v === undefined) return undefined;
  const m = /^(\d+)x(\d+)$/.exec(v);
  if (!m || Number(m[1]) < 64 || Number(m[2]) < 64) throw new Error(`--window-size must look like 1280x720, got "${v}"`);
  return { width: Number(m[1]), height: Number(m[2]) };
}

async function benchCommand(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      json: { type: 'boolean' }, iterations: { type: 'string' }, 'loop-steps': { type: 'string' },
      record: { type: 'boolean' }, seconds: { type: 'string' }, fps: { type: 'string' }, 'window-size': { type: 'string' }, writers: { type: 'string' },
    },
  });
  if (values.record) {
    const result = await runRecordBench({
      seconds: num(values.seconds, 'seconds', { min: 1 }) ?? 30,
      fps: num(values.fps, 'fps', { min: 1, int: true }) ?? 30,
      size: windowSize(values['window-size']) ?? { width: 1280, height: 720 },
      ...(values.writers ? { writers: num(values.writers, 'writers', { min: 1, int: true })! } : {}),
      log: values.json ? () => {} : io.log,
    });
    io.out(values.json ? JSON.stringify(result) : formatRecordBench(result));
    return 0;
  }
  const result = await runBench({
    iterations: num(values.iterations, 'iterations', { min: 5, int: true }) ?? 60,
    loopSteps: num(values['loop-steps'], 'loop-steps', { min: 5, int: true }) ?? 40,
    log: values.json ? () => {} : io.log,
  });
  io.out(values.json ? JSON.stringify(result) : formatBench(result));
  return 0;
}

async function webCommand(args: string[]) {
  const { values } = parseArgs({ args, options: { port: { type: 'string' }, 'runs-dir': { type: 'string' }, 'config-dir': { type: 'string' }, 'no-demo': { type: 'boolean' }, open: { type: 'boolean' } } });
  const port = num(values.port, 'port', { min: 0, int: true });
  const { shell, close } = await runWebShell({
    ...(port !== undefined ? { port } : {}),
    runsDir: values['runs-dir'] ?? 'runs',
    configDir: values['config-dir'] ?? defaultConfigDir(),
    demo: !values['no-demo'],
    log: io.log,
  });
  io.out(shell.url);
  io.log(`Gamepilot web shell on ${shell.url} (loopback only; the token is required). Ctrl+C stops.`);
  const ui = values.open ? openUiInBrowser(shell, { width: 1360, height: 860, x: 0, y: 0 }, io.log) : undefined;
  await new Promise<void>((resolve) => {
    const quit = () => resolve();
    process.once('SIGINT', quit);
    process.once('SIGTERM', quit);
  });
  io.log('stopping…');
  await close();
  await ui?.close();
  return 0;
}

async function recordCommand(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      game: { type: 'string' }, window: { type: 'string' }, 'window-id': { type: 'string' }, role: { type: 'string' }, participant: { type: 'string' }, consent: { type: 'boolean' },
      duration: { type: 'string' }, fps: { type: 'string' }, trial: { type: 'string' }, seed: { type: 'string' }, stage: { type: 'string' }, 'window-size': { type: 'string' },
      out: { type: 'string' }, json: { type: 'boolean' }, quiet: { type: 'boolean' },
    },
  });
  const role = oneOf(values.role, 'role', ['rookie', 'expert'] as const, 'rookie');
  if (!values.role) throw new Error('--role rookie|expert is required');
  if (!values.participant) throw new Error('--participant is required (a pseudonym, not a name)');
  if (!values.consent) throw new Error('--consent is required: confirm the participant agreed to be recorded (frames of the game window and input inside it)');
  const size = windowSize(values['window-size']);
  const wm = createWindowManager();
  const target = await openTarget({ ...(values.game ? { game: values.game } : {}), ...(values.window ? { window: values.window } : {}), ...(values['window-id'] !== undefined ? { windowId: values['window-id'] } : {}) }, wm, undefined, size);
  try {
    const recorder = new Recorder(
      { target, wm, capturer: createCapturer('nut') },
      { participant: values.participant, role, trial: num(values.trial, 'trial', { min: 1, int: true }) ?? 1, seed: num(values.seed, 'seed', { int: true }) ?? 0, ...(values.stage ? { stage: values.stage } : {}), consent: true },
      { ...DEFAULT_RECORDER, fps: num(values.fps, 'fps', { min: 1, int: true }) ?? 30, ...(values.duration ? { durationS: num(values.duration, 'duration', { min: 1 })! } : {}) },
      values.out ?? 'runs', // beside agent runs: the Runs tab, the leaderboard and `video` read it
    );
    const stop = () => recorder.stop();
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    const hotkey = configuredStopHotkey();
    const unhook = await startStopHotkey(hotkey, stop).catch(() => undefined);
    io.log(`● recording ${target.label} → ${recorder.store.dir} (stop: Ctrl+C or ${hotkey})`);
    if (!values.quiet) recorder.on('progress', (p) => io.log(`● REC ${p.seconds}s  frames ${p.frames} (${p.fps} fps)  dropped ${p.dropped}  events ${p.events}`));
    try {
      const summary = await recorder.start();
      if (values.json) io.out(JSON.stringify(summary));
      else io.log(`recorded ${summary.frames} frames (${summary.fps} fps, ${summary.dropped} dropped) and ${summary.events} input events in ${summary.duration_s}s; score ${summary.score ?? 'n/a'}`);
      if (summary.drop_note && !values.quiet) io.log(`dropped frames: ${summary.drop_note}`);
      return 0;
    } finally {
      unhook?.();
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    }
  } finally {
    await target.close();
  }
}

/**
 * The reflect-and-retry request --reflection asks for, checked before any window opens or
 * run folder is made (a missing tutorial, `other` without a different reflector model).
 */
function reflectionRequestFrom(values: Record<string, string | boolean | undefined>, agentKind: AgentKind, playerModel: string | undefined): ReflectionRequest | undefined {
  const mode = oneOf(values.reflection as string | undefined, 'reflection', REFLECTION_MODES, 'none');
  if (mode === 'none') {
    if (values['reflector-model']) throw new Error('--reflector-model needs --reflection (other, for a model different from the player)');
    return undefined;
  }
  if (agentKind !== 'vlm') throw new Error('--reflection needs --agent vlm');
  if ((mode === 'self-t' || mode === 'self') && !values.tutorial) throw new Error(`--reflection ${mode} needs --tutorial (a video, a folder of frames, or a run/session folder)`);
  const baseURL = values['reflector-base-url'] ?? values['base-url'];
  const req: ReflectionRequest = {
    mode,
    ...(values.tutorial ? { tutorial: String(values.tutorial) } : {}),
    after: oneOf(values['reflect-after'] as string | undefined, 'reflect-after', ['failed', 'every'] as const, 'failed'),
    successScore: num(values['success-score'] as string | undefined, 'success-score') ?? 100,
    sample: {
      fps: num(values['reflect-fps'] as string | undefined, 'reflect-fps', { min: 0.01 }) ?? DEFAULT_SAMPLE.fps,
      maxFrames: num(values['reflect-max-frames'] as string | undefined, 'reflect-max-frames', { min: 1, int: true }) ?? DEFAULT_SAMPLE.maxFrames,
      maxSide: num(values['reflect-max-side'] as string | undefined, 'reflect-max-side', { min: 64, int: true }) ?? DEFAULT_SAMPLE.maxSide,
    },
    reflector: {
      maxWords: num(values['max-words'] as string | undefined, 'max-words', { min: 10, int: true }) ?? 150,
      ...(values['reflector-model'] ? { model: String(values['reflector-model']) } : {}),
      ...(baseURL ? { baseURL: String(baseURL) } : {}),
      ...(values['api-key'] ? { apiKey: String(values['api-key']) } : {}),
    },
  };
  if (playerModel) checkReflectionRequest(req, playerModel);
  return req;
}

/** Wires a checked reflect-and-retry request into a prepared run. */
async function setUpReflection(req: ReflectionRequest, session: Session, target: Target) {
  const r = await attachReflection(req, session, target.game?.def, io.log);
  session.on('reflection', (rec: ReflectionRecord) => io.log(rec.error ? `reflection after episode ${rec.after_episode + 1} failed: ${rec.error}` : `reflection after episode ${rec.after_episode + 1}: ${rec.lesson?.text.split(/\s+/).length ?? 0} words of lessons${rec.lesson?.note ? ` (${rec.lesson.note})` : ''}`));
  return r;
}

/** `gamepilot idc` options; defaults follow OmniGameArena (10 rounds × 5 episodes, PDQ). */
export function parseIdcArgs(args: string[]): { options: Omit<IdcOptions, 'log'>; json: boolean } {
  const { values } = parseArgs({
    args,
    options: {
      game: { type: 'string' }, rounds: { type: 'string' }, episodes: { type: 'string' }, 'max-steps': { type: 'string' }, seed: { type: 'string' },
      model: { type: 'string' }, 'base-url': { type: 'string' }, 'api-key': { type: 'string' }, 'reflector-model': { type: 'string' },
      'max-words': { type: 'string' }, 'rollback-drop': { type: 'string' }, 'held-out': { type: 'string' }, 'judge-tries': { type: 'string' },
      latency: { type: 'string' }, 'stop-interval-ms': { type: 'string' }, out: { type: 'string' }, json: { type: 'boolean' },
    },
  });
  if (!values.game) throw new Error('--game is required');
  const model = values.model ?? process.env.GAMEPILOT_MODEL;
  if (!model) throw new Error('--model is required (the player; the reflector defaults to it)');
  const episodes = num(values.episodes, 'episodes', { min: 1, int: true }) ?? IDC_DEFAULTS.episodes;
  const common = { ...(values['base-url'] ? { baseURL: values['base-url'] } : {}), ...(values['api-key'] ? { apiKey: values['api-key'] } : {}) };
  const stopIntervalMs = num(values['stop-interval-ms'], 'stop-interval-ms', { min: 0 });
  const options: Omit<IdcOptions, 'log'> = {
    game: values.game,
    rounds: num(values.rounds, 'rounds', { min: 1, int: true }) ?? IDC_DEFAULTS.rounds,
    episodes,
    ...(values['max-steps'] ? { maxSteps: num(values['max-steps'], 'max-steps', { min: 1, int: true })! } : {}),
    seed: num(values.seed, 'seed', { int: true }) ?? 0,
    heldOutEpisodes: num(values['held-out'], 'held-out', { min: 1, int: true }) ?? episodes,
    outDir: values.out ?? 'runs',
    player: { model, ...common },
    reflector: { model: values['reflector-model'] ?? model, ...common },
    maxWords: num(values['max-words'], 'max-words', { min: 10, int: true }) ?? 120,
    rollbackDrop: num(values['rollback-drop'], 'rollback-drop', { min: 0 }) ?? 0.25,
    judgeTries: num(values['judge-tries'], 'judge-tries', { min: 1, int: true }) ?? 5,
    latency: oneOf(values.latency, 'latency', LATENCY_MODES, IDC_DEFAULTS.latency),
    latencySettings: { stopIntervalMs: stopIntervalMs ?? IDC_DEFAULTS.stopIntervalMs },
  };
  return { options, json: !!values.json };
}

async function idcCommand(args: string[]) {
  const { options, json: asJson } = parseIdcArgs(args);
  const result = await runIdc({ ...options, log: io.log }, createWindowManager());
  if (asJson) io.out(JSON.stringify(result));
  else {
    io.log(`curve: ${result.curve.join(' → ')}  (best round ${result.best_round}; held-out mean ${result.transfer.mean})`);
    io.log(`best skill:\n${result.best_skill || '(none: round 0 was best)'}`);
  }
  return 0;
}
