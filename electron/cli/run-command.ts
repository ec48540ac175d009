/** `gamepilot run`: an agent plays a built-in game or a window; every step is recorded. */
import { MCP_AGENT_REFUSAL, prepareRun, type RunPlace } from '../session/compose.ts';
import { agentKind } from '../session/front-door.ts';
import type { ReflectionRecord } from '../session/reflection-records.ts';
import { attachReflection, readyRun, type ReadyRun, type ReflectionRequest } from '../reflection/setup.ts';
import {
  namedAsFlags,
  parseRunSpec,
  RunSpecError,
  sayFields,
  seatLabel,
  type RunSpec,
  type SeatSpec,
} from '../run-spec.ts';
import { runCallLimits } from '../session/call-limits.ts';
import { formatSeconds } from '../agents/model-call-error.ts';
import { prepareSeatedRun } from '../session/seated-compose.ts';
import { type HumanSeat, humanSeats } from '../recording/human-seat.ts';
import { matchId } from '../arena/tables.ts';
import type { Session } from '../session/session.ts';
import type { Target } from '../session/targets.ts';
import { hotkeyKeys, type GamepilotHotkeys } from '../input/accelerator.ts';
import { startStopHotkey } from '../input/hook-stop-hotkey.ts';
import { addSecret } from '../util/log.ts';
import { io } from './io.ts';
import { UsageError } from './options.ts';
import type { RunFlags, TargetFlags } from './command-flags.ts';
import { configuredHotkeys } from './configured-hotkeys.ts';
import { openPersonInput } from '../recording/person-input.ts';
import type { MemoryStepRecord } from '../domain.ts';
import { profileChoiceFrom } from './profile-command.ts';
import { UnfilledProfileError, type ProfileEntry } from '../profiles/registry.ts';
import { sweepContextFromEnv } from '../sweep/job-env.ts';
import { FramesStarvedError } from '../store/frame-budget.ts';
import { createWindowManager, type WindowManager } from '../../native/index.ts';
import { preflightRun } from '../session/preflight.ts';
import { preflightExit } from './preflight-exit.ts';

/** Exactly one target, under the spec's names. */
export function targetFrom(o: TargetFlags): Pick<RunSpec, 'game' | 'window' | 'windowId'> {
  const given = [o.game, o.window, o.windowId].filter((v) => v !== undefined).length;
  if (given > 1) throw new UsageError('give one of --game, --window or --window-id');
  if (given === 0) throw new UsageError('give a target: --game <id>, --window <title regex> or --window-id <id>');
  return {
    ...(o.game ? { game: o.game } : {}),
    ...(o.window ? { window: o.window } : {}),
    ...(o.windowId !== undefined ? { windowId: o.windowId } : {}),
  };
}

/** The run spec the flags give; a rule between them is a usage error naming the flags. */
export function specFrom(o: RunFlags): RunSpec {
  const { runsDir: _runsDir, json: _json, quiet: _quiet, dryRun: _dryRun, ...given } = o;
  const spec = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
  return usage(() => parseRunSpec(spec));
}

/** The run the flags ask for; a mistake between flags is a usage error naming them. */
export function runFrom(o: RunFlags, place: Omit<RunPlace, 'outDir'> = {}): ReadyRun {
  const spec = specFrom(o);
  addSecret(spec.apiKey);
  const run = usage(() => readyRun(spec, { outDir: o.runsDir, ...place }));
  // Its player is a client of `gamepilot mcp`: a usage error like any flag that cannot work here.
  if (!run.seats && agentKind(run.spec) === 'mcp') throw new UsageError(sayFields(MCP_AGENT_REFUSAL, namedAsFlags));
  return run;
}

/**
 * The reflect-and-retry request --reflection asks for, checked before any window opens or
 * run folder is made (a missing tutorial, `other` without a different reflector model).
 */
export function reflectionRequestFrom(o: RunFlags): ReflectionRequest | undefined {
  return runFrom(o).reflection;
}

function usage<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof RunSpecError) throw new UsageError(err.as(namedAsFlags));
    throw err;
  }
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

/**
 * A two-seat game's run: one world, a seat for each agent. Its run folder says which match it is
 * (`arena`), so arena tables can be computed over any folder of such runs (a sweep's too).
 */
async function prepareSeated(
  run: ReadyRun,
  seats: readonly [SeatSpec, SeatSpec],
  people: HumanSeat[],
  wm: WindowManager,
) {
  const [p1, p2] = seats.map(seatLabel) as [string, string];
  const { session, target } = await prepareSeatedRun(
    run.spec,
    seats,
    {
      ...run.place,
      meta: { arena: { match: matchId(p1, p2), p1, p2 } },
      humanSeat: humanSeats(people),
    },
    wm,
  );
  return { session, target, profile: undefined, notices: [] as string[] };
}

/**
 * A person may take the controls of a one-seat run: the take-over hotkey toggles, and with
 * --take-over-on-input their input in the window takes over by itself. Returns the hotkey's release.
 */
async function bindTakeover(
  session: Session,
  hotkeys: GamepilotHotkeys,
  quiet: boolean,
): Promise<(() => void) | undefined> {
  session.takeover.accept(openPersonInput, { ignoreKeys: hotkeyKeys(hotkeys) });
  session.on('takeover', (t) =>
    io.progress(
      t.active
        ? `a person has the controls (${t.trigger}); ${hotkeys.takeover} hands them back`
        : 'handed back: the agent plays on',
    ),
  );
  const toggle = () => {
    session.takeover.toggle('hotkey').catch((err: Error) => io.log(`take over: ${err.message}`));
  };
  return startStopHotkey(hotkeys.takeover, toggle).catch((err: Error) => {
    if (!quiet) io.log(`warning: no take-over hotkey (${err.message})`);
    return undefined;
  });
}

export async function runCommand(o: RunFlags): Promise<number> {
  /** A person's seat (`--seats human,…`) listens to the keyboard until the run ends. */
  const people: HumanSeat[] = [];
  const run = runFrom(o, {
    profile: profileChoiceFrom(o.profile),
    hotkeys: configuredHotkeys(),
    ...sweepContextFromEnv(),
  });
  if (o.dryRun) return printDryRun(run.spec, !!o.json);
  const wm = createWindowManager();
  const refused = await preflightExit(() => preflightRun(run, wm));
  if (refused !== undefined) return refused;
  const { seats, reflection: reflectionReq } = run;
  const { session, target, profile, notices } = seats
    ? await prepareSeated(run, seats, people, wm).catch(async (err: unknown) => {
        for (const p of people) await p.close();
        throw err;
      })
    : await prepareRun(run.spec, run.place, wm).catch((err: unknown) => {
        if (err instanceof FramesStarvedError)
          throw new UsageError(
            `${err.reader} reads the run's frames, but --keep-frames ${err.keep} ${err.why}: keep more (all, changed or every:N), or give --no-judge`,
          );
        if (err instanceof UnfilledProfileError) throw new UsageError(`${err.message} (--no-profile)`);
        throw err;
      });
  if (!o.quiet) {
    if (seats) io.progress(`seats: ${seats.map(seatLabel).join(' vs ')}`);
    else io.progress(describeProfile(profile, o.profile === false));
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
  const hotkeys = configuredHotkeys();
  const hotkey = hotkeys.stop;
  const stopHook = await startStopHotkey(hotkey, () => {
    io.log(`stop hotkey ${hotkey}: stopping`);
    session.stop();
  }).catch((err: Error) => {
    if (!o.quiet) io.log(`warning: no global stop hotkey (${err.message}); Ctrl+C still stops`);
    return undefined;
  });
  const takeoverHook = seats ? undefined : await bindTakeover(session, hotkeys, !!o.quiet);
  if (!o.quiet) {
    io.progress(`run folder: ${session.store.dir}`);
    session.on('step', (r) => {
      if (r.actor === 'human') {
        // A person's steps come ten a second: only those with input are worth a line.
        if (r.actionsText.length)
          io.progress(`ep ${r.episode + 1} step ${r.step + 1} (person): ${r.actionsText.join(', ')}`);
        return;
      }
      const err = r.errors.length ? `  ! ${r.errors.join('; ')}` : '';
      io.progress(
        `ep ${r.episode + 1} step ${r.step + 1}: ${r.actionsText.join(', ') || '(no action)'}  [${r.latency_ms.total} ms, ${r.latency_mode}${r.drift_ticks !== undefined ? `, drift ${r.drift_ticks}` : ''}${r.effect === 'none' ? ', no effect' : ''}]${r.score !== null && r.score !== undefined ? `  score ${r.score}` : ''}${err}`,
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
      io.progress(
        `episode ${e.episode + 1}: score ${e.score ?? 'n/a'} after ${e.steps} steps (${e.end}${e.end_detector ? `: ${e.end_detector}` : ''})`,
      ),
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
        `done (${result.status === 'stopped' && result.episodes.at(-1)?.end === 'budget' ? 'stopped: budget' : result.status}): mean ${result.mean ?? 'n/a'} ± ${result.std ?? 'n/a'} over ${result.episodes.length} episode(s)${result.error ? ` — ${result.error}` : ''}`,
      );
    return result.status === 'failed' ? 1 : 0;
  } finally {
    stopHook?.();
    takeoverHook?.();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    for (const p of people) {
      if (!o.quiet && p.keysNotTaken) io.progress(`${p.keysNotTaken} key(s) of the other seat typed: not taken`);
      await p.close();
    }
    await target.close();
  }
}

/** `run --dry-run`: the flags made a valid run; each role's limits, and the longest one call may take. */
function printDryRun(spec: RunSpec, json: boolean): number {
  const rows = runCallLimits(spec);
  if (json) {
    io.out(
      JSON.stringify({
        dry_run: true,
        model_calls: rows.map((r) => ({
          role: r.role,
          timeout_ms: r.limits.timeoutMs,
          idle_timeout_ms: r.limits.idleTimeoutMs,
          max_retries: r.limits.maxRetries,
          retry_after_cap_ms: r.limits.retryAfterCapMs,
          max_tokens: r.limits.maxTokens ?? null,
          worst_case_ms: r.worstCaseMs,
          from: r.from,
        })),
      }),
    );
    return 0;
  }
  io.out(
    'the flags make a valid run; nothing was opened. Model calls, by role (GAMEPILOT_MODEL_LIMITS overrides any):',
  );
  io.out('  role             time limit  idle    retries  max tokens  longest call  limits from');
  for (const r of rows)
    io.out(
      `  ${r.role.padEnd(16)} ${formatSeconds(r.limits.timeoutMs).padEnd(11)} ${formatSeconds(r.limits.idleTimeoutMs).padEnd(7)} ${String(r.limits.maxRetries).padEnd(8)} ${String(r.limits.maxTokens ?? '-').padEnd(11)} ${formatSeconds(r.worstCaseMs).padEnd(13)} ${r.from === 'run flags' ? "this run's flags (--timeout-ms, --idle-timeout-ms, --max-retries, …)" : "the role's own"}`,
    );
  io.out(`  the player asks again up to ${spec.repairs} time(s) after an unusable answer, each a call as above`);
  return 0;
}
