/**
 * Pre-flight: what must hold before a run touches any window or writes anything — the keys its
 * endpoints need, those endpoints answering and serving its models, a display, and the target
 * window there. Run, IDC, suites, the app's runs, MCP sessions and (as child runs)
 * sweep jobs all pass through it; `preflight: false` (`--no-preflight`) skips it. A failure is a
 * PreflightError: one line naming what is wrong and how to fix it, in well under 5 s even when
 * an endpoint hangs.
 */
import type { WindowManager } from '../../native/types.ts';
import { findWindows } from '../../native/types.ts';
import { missingKey, unservedEndpoint, type EndpointUse } from '../agents/endpoint-check.ts';
import { CodedError, isModelAgent, type ErrorCode } from '../domain.ts';
import { namedAsWords, sayFields, type FieldNamer, type RunSpec } from '../run-spec.ts';
import { textPattern } from '../util/text-pattern.ts';
import { log } from '../util/log.ts';
import { TERMINAL_DISPLAY_ADVICE } from './display-advice.ts';
import { agentKind, type CheckedRun } from './front-door.ts';

/** The longest the endpoint checks may take together; the local checks take milliseconds. */
export const ENDPOINT_BUDGET_MS = 4000;

/** What a run will use: the models its roles call, and the target it plays. */
export interface PreflightPlan {
  uses: EndpointUse[];
  target: Partial<Pick<RunSpec, 'game' | 'window' | 'windowId'>>;
}

export type PreflightCheckName = 'key' | 'endpoint' | 'model' | 'display' | 'target';

/** A failed pre-flight check: one line; its message names settings in words (the app's way), `as` another way. */
export class PreflightError extends CodedError {
  constructor(
    readonly check: PreflightCheckName,
    readonly template: string,
    code: ErrorCode,
  ) {
    super(code, `pre-flight: ${sayFields(template, namedAsWords)}`);
  }
  /** The line with its settings named another way (flags on the command line, words in the app). */
  as(name: FieldNamer): string {
    return `pre-flight: ${sayFields(this.template, name)}`;
  }
}

interface CheckContext {
  plan: PreflightPlan;
  wm: WindowManager;
  budgetMs: number;
}

/** One check: a problem as a PreflightError, or nothing. */
type PreflightCheck = (c: CheckContext) => Promise<PreflightError | undefined>;

/**
 * The checks in order: the ones that need no network first, so a hanging endpoint never hides
 * a missing display. A new check goes into this list where it belongs.
 */
const CHECKS: readonly PreflightCheck[] = [
  keyCheck,
  displayCheck,
  // No window manager is not a failure: without one the X11 backend raises the target and gives
  // it the keyboard itself, and nothing can be minimised (tests/e2e/effect.test.ts plays the
  // demo on a bare X server); a run of steps that change nothing says so, with what it checked.
  targetCheck,
  endpointCheck,
];

/** Runs every check; throws the first failure. */
export async function preflight(plan: PreflightPlan, wm: WindowManager, o: { budgetMs?: number } = {}): Promise<void> {
  const c: CheckContext = { plan, wm, budgetMs: o.budgetMs ?? ENDPOINT_BUDGET_MS };
  const started = performance.now();
  const logged = (failed?: PreflightError) =>
    log().info(
      { ms: Math.round(performance.now() - started), ...(failed ? { failed: failed.check } : {}) },
      'pre-flight',
    );
  for (const check of CHECKS) {
    const problem = await check(c);
    if (problem) {
      logged(problem);
      throw problem;
    }
  }
  logged();
}

async function keyCheck(c: CheckContext) {
  const p = missingKey(c.plan.uses);
  return p ? new PreflightError('key', p.template, 'bad-input') : undefined;
}

async function endpointCheck(c: CheckContext) {
  if (!c.plan.uses.length) return undefined;
  const p = await unservedEndpoint(c.plan.uses, c.budgetMs);
  if (!p) return undefined;
  return new PreflightError(p.check, p.template, p.check === 'model' ? 'bad-input' : 'model-unreachable');
}

/** Linux: the X display opens (listing its windows opens it). Windows and macOS always have one. */
async function displayCheck(c: CheckContext) {
  if (!c.wm.platform.startsWith('linux')) return undefined;
  try {
    await c.wm.list();
    return undefined;
  } catch (err) {
    return new PreflightError('display', noDisplayText(err), 'bad-input');
  }
}

/** Why the X display could not be used (DISPLAY unset, or set to one that does not open), and what to do. */
export function noDisplayText(err: unknown): string {
  const display = process.env.DISPLAY;
  const said = display ? `the X display ${display} cannot be opened` : 'no X display: DISPLAY is not set';
  const why = (err as Error).message;
  return `${said}${said.includes(why) ? '' : ` (${why})`}: ${TERMINAL_DISPLAY_ADVICE}`;
}

/**
 * A window target: there, and one of it. A minimised one passes: the run restores it before its
 * first step (target-view.ts showMinimized), or fails at once saying why it could not.
 */
async function targetCheck(c: CheckContext) {
  const t = c.plan.target;
  if (t.windowId !== undefined && !(await c.wm.get(t.windowId)))
    return new PreflightError(
      'target',
      `no window has the id ${t.windowId}: \`gamepilot windows\` lists the open ones ({windowId})`,
      'not-found',
    );
  if (t.window === undefined) return undefined;
  const found = await findWindows(c.wm, textPattern(t.window));
  if (found.length === 1) return undefined;
  return new PreflightError(
    'target',
    found.length
      ? `${found.length} windows match the title "${t.window}": pick one by id ({windowId}; \`gamepilot windows\` lists them)`
      : `no window title matches "${t.window}": open the game first, or check {window} (\`gamepilot windows\` lists the open ones)`,
    found.length ? 'bad-input' : 'not-found',
  );
}

/** A run past its front door, with the reflection it asked for (reflection/setup.ts ReadyRun). */
export type PlannedRun = CheckedRun & {
  reflection?: { mode: RunSpec['reflection']; reflector: { model?: string; baseUrl?: string; apiKey?: string } };
};

/**
 * The models a run's roles call, as the run resolves them (front-door.ts, reflection/setup.ts):
 * the player (and the memory agent's embeddings), each seat's model, the reflector, and a judge
 * model given by name. Roles a profile adds once the target is known (the screen reader, a judge
 * on the run's own model) call the player's endpoint and model, so the player's check covers them.
 */
export function runPlan(run: PlannedRun): PreflightPlan {
  const s = run.spec;
  const endpoint = { baseUrl: s.baseUrl, apiKey: s.apiKey };
  const uses: EndpointUse[] = [];
  if (run.model && isModelAgent(agentKind(s))) {
    uses.push({ role: 'player', model: run.model, field: 'model', ...endpoint });
    if (s.agent === 'memory' && s.embeddingModel !== 'none')
      uses.push({ role: 'embeddings', model: s.embeddingModel, field: 'embeddingModel', ...endpoint });
  }
  for (const seat of run.seats ?? [])
    if (isModelAgent(seat.agent) && (seat.model ?? run.model))
      uses.push({ role: 'player', model: (seat.model ?? run.model)!, field: 'seats', ...endpoint });
  const r = run.reflection;
  if (r && r.mode !== 'none' && run.model)
    uses.push({
      role: 'reflector',
      // The front door has checked that only mode other names a model of its own.
      model: r.reflector.model ?? run.model,
      field: r.reflector.model ? 'reflectorModel' : 'model',
      baseUrl: r.reflector.baseUrl,
      apiKey: r.reflector.apiKey,
    });
  if (s.judge && s.judgeModel)
    uses.push({ role: 'milestone-judge', model: s.judgeModel, field: 'judgeModel', ...endpoint });
  return { uses, target: { game: s.game, window: s.window, windowId: s.windowId } };
}

/** An endpoint as IDC and the ING-VP suite hold their roles'. */
interface HeldEndpoint {
  model: string;
  baseUrl?: string | undefined;
  apiKey?: string | undefined;
}

/** An Improvement Dynamics Curve: its player, and the reflector that explores and judges (`reflectorModel`, else the player's). */
export function idcPlan(o: { game: string; player: HeldEndpoint; reflector: HeldEndpoint }): PreflightPlan {
  const reflectorField = o.reflector.model === o.player.model ? 'model' : 'reflectorModel';
  const at = (e: HeldEndpoint) => ({ model: e.model, baseUrl: e.baseUrl, apiKey: e.apiKey });
  return {
    uses: [
      { role: 'player', field: 'model', ...at(o.player) },
      { role: 'idc-explorer', field: reflectorField, ...at(o.reflector) },
      { role: 'idc-judge', field: reflectorField, ...at(o.reflector) },
    ],
    target: { game: o.game },
  };
}

/** The ING-VP suite of a model player; its built-in games open their own windows. */
export function suitePlan(player: HeldEndpoint): PreflightPlan {
  return {
    uses: [{ role: 'player', field: 'model', model: player.model, baseUrl: player.baseUrl, apiKey: player.apiKey }],
    target: {},
  };
}

/**
 * A ready run's pre-flight, unless its spec turns it off. A run that calls no model (a baseline,
 * an MCP client's play, the app's demo) has nothing to check that its start would not find at once.
 */
export async function preflightRun(run: PlannedRun, wm: WindowManager): Promise<void> {
  const plan = runPlan(run);
  if (run.spec.preflight && plan.uses.length) await preflight(plan, wm);
}
