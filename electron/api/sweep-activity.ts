/**
 * A sweep started over the contract, as the activity slot holds it: the local pool (a private
 * display per worker) running a sweep file picked by name in a sweeps folder (`<config>/sweeps/`
 * or `<runs>/sweeps/`), or one the core writes there from the app's form. Its runs go into the
 * runs folder, so the same sweep started again resumes (finished jobs are not rerun). The pool's
 * own events are relayed: progress, and each job's start and end with its display and run.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import type {
  CoreEvent,
  Handlers,
  ParamsOut,
  SweepFileSummary,
  SweepFolder,
  SweepJobWire,
  SweepMatrix,
  SweepState,
} from './contract.ts';
import { SWEEP_FORM_AGENTS } from './contract.ts';
import type { Activity } from './activity.ts';
import type { RunModelSettings } from './settings-service.ts';
import { BUILTIN_GAMES } from '../../games/index.ts';
import { CodedError } from '../domain.ts';
import { cliCommand } from '../util/resources.ts';
import { writeFileAtomic } from '../util/atomic-file.ts';
import { allowedEndpoint, EndpointRefused, OPENAI_BASE_URL, sameEndpoint } from '../util/endpoint.ts';
import { loadCatalog } from '../profiles/registry.ts';
import { cellUsesModel, loadSweepFile, parseSweep, type Sweep, type SweepJob } from '../sweep/spec.ts';
import { runLocalSweep } from '../sweep/pool.ts';
import { DirStorage } from '../sweep/storage.ts';
import type { SweepEvent } from '../sweep/progress.ts';

export interface SweepContext {
  runsDir: string;
  configDir: string;
  /** The configured model (throws when none is): for vlm jobs of the form, and the API key of any model job. */
  model(): RunModelSettings;
  emit(e: CoreEvent): void;
}

function sweepsFolder(folder: SweepFolder, ctx: Pick<SweepContext, 'runsDir' | 'configDir'>): string {
  return path.join(folder === 'config' ? ctx.configDir : ctx.runsDir, 'sweeps');
}

const cellLabel = (j: SweepJob) =>
  j.cell.seats
    ? `${j.cell.game} · ${j.cell.seats.join(' vs ')}`
    : `${j.cell.game} · ${j.cell.agent}${j.cell.model ? ` (${j.cell.model})` : ''} · trial ${j.cell.trial + 1}`;

/** The form's matrix as a sweep file; a vlm agent plays the model in Settings. */
function matrixYaml(name: string, m: SweepMatrix, model: () => RunModelSettings): string {
  const file: Record<string, unknown> = { name, games: m.games, agents: m.agents, trials: m.trials };
  if (m.maxSteps !== undefined) file.max_steps = m.maxSteps;
  if (m.agents.includes('vlm')) {
    const s = model();
    file.models = [s.model];
    if (s.baseUrl) file.base_url = s.baseUrl;
  }
  return `# written by the Gamepilot app's Sweeps tab\n${stringify(file, { flow: false })}`;
}

/** The sweep file a request names: written from the form first when it brings a matrix. */
function sweepFileOf(p: ParamsOut<'startSweep'>, ctx: SweepContext): string {
  const dir = sweepsFolder(p.folder, ctx);
  const file = path.join(dir, `${p.name}.yaml`);
  if (!p.matrix) {
    if (!existsSync(file))
      throw new CodedError('not-found', `no sweep "${p.name}" in ${dir} (listSweeps lists the sweep files)`);
    return file;
  }
  if (p.folder !== 'config')
    throw new CodedError('bad-input', 'startSweep: a sweep from the form is written into the config folder');
  const text = matrixYaml(p.name, p.matrix, ctx.model);
  if (existsSync(file)) {
    if (readFileSync(file, 'utf8') !== text)
      throw new CodedError(
        'bad-input',
        `a sweep "${p.name}" with other axes is already in ${dir}: pick it from the list to resume it, or give another name`,
      );
    return file;
  }
  parseSweep(text, file, loadCatalog({ configDir: ctx.configDir })); // a bad matrix is refused before it is written
  mkdirSync(dir, { recursive: true });
  writeFileAtomic(file, text);
  return file;
}

export class SweepActivity implements Activity {
  readonly kind = 'sweep' as const;
  readonly finished: Promise<string | null>;
  readonly state: SweepState;
  private readonly abort = new AbortController();
  private readonly rows = new Map<string, SweepJobWire>();

  private constructor(
    name: string,
    folder: SweepFolder,
    sweep: Sweep,
    prior: Map<string, string | null>,
    p: {
      workers: number;
      env: NodeJS.ProcessEnv;
      ctx: SweepContext;
    },
  ) {
    const { ctx } = p;
    for (const j of sweep.jobs)
      this.rows.set(j.id, {
        id: j.id,
        cell: cellLabel(j),
        status: prior.has(j.id) ? 'done-before' : 'pending',
        attempt: 0,
        worker: null,
        display: null,
        runId: prior.get(j.id) ?? null,
        score: null,
        costUsd: null,
      });
    this.state = {
      name,
      folder,
      workers: p.workers,
      progress: {
        done: prior.size,
        total: sweep.jobs.length,
        failed: 0,
        running: 0,
        resumed: prior.size,
        costUsd: 0,
        elapsedS: 0,
        etaS: null,
      },
      jobs: [...this.rows.values()],
    };
    const budgetUsd = sweep.spec.budget_usd;
    this.finished = runLocalSweep({
      sweep,
      out: ctx.runsDir,
      workers: p.workers,
      ...(budgetUsd !== undefined ? { budgetUsd } : {}),
      signal: this.abort.signal,
      env: p.env,
      onEvent: (e) => this.relay(e, ctx),
    }).then(
      () => null,
      (err: Error) => {
        const pr = this.state.progress;
        ctx.emit({
          type: 'sweep-done',
          sweep: name,
          completed: pr.done,
          failed: pr.failed,
          skipped: pr.total - pr.done - pr.failed,
          resumed: pr.resumed,
          total: pr.total,
          stopped: this.abort.signal.aborted,
          costUsd: pr.costUsd,
          wallS: pr.elapsedS,
          error: err.message,
        });
        return `sweep ${name} failed: ${err.message}`;
      },
    );
  }

  /** Checks the request and reads (or writes) the sweep file before anything starts. */
  static async open(p: ParamsOut<'startSweep'>, ctx: SweepContext): Promise<SweepActivity> {
    const cli = cliCommand(); // every job is a `gamepilot run` child: refused before anything is written
    if ('refused' in cli) throw new CodedError('forbidden', cli.refused);
    const file = sweepFileOf(p, ctx);
    const sweep = loadSweepFile(file, loadCatalog({ configDir: ctx.configDir }));
    const env: NodeJS.ProcessEnv = { GAMEPILOT_CONFIG_DIR: ctx.configDir };
    if (sweep.jobs.some((j) => cellUsesModel(j.cell))) {
      const model = ctx.model();
      // The saved key goes to the Settings endpoint, or to the file's own only with the person's yes.
      const own = model.baseUrl ?? OPENAI_BASE_URL;
      try {
        env.OPENAI_BASE_URL = allowedEndpoint(
          sweep.spec.base_url,
          own,
          p.allowEndpoint ? [p.allowEndpoint] : [],
          `sweep file ${file}`,
          'confirm sending it there (startSweep allowEndpoint) or remove base_url from the file',
        );
      } catch (err) {
        if (err instanceof EndpointRefused) throw new CodedError('forbidden', err.message);
        throw err;
      }
      if (model.apiKey) env.OPENAI_API_KEY = model.apiKey;
    }
    const prior = await finishedJobs(ctx.runsDir, sweep);
    return new SweepActivity(p.name, p.folder, sweep, prior, { workers: p.workers, env, ctx });
  }

  stop() {
    this.abort.abort(new Error('stopped'));
  }

  /** The pool closes its displays itself. */
  async close() {}

  /** One pool event as the contract's events, and folded into the state. */
  private relay(e: SweepEvent, ctx: SweepContext) {
    const name = this.state.name;
    const update = (id: string, patch: Partial<SweepJobWire>) => {
      const row = this.rows.get(id);
      if (!row) return;
      const next: SweepJobWire = { ...row, ...patch };
      if (!patch.error) delete next.error;
      if (patch.error) next.error = patch.error;
      this.rows.set(id, next);
      this.state.jobs = [...this.rows.values()];
      ctx.emit({ type: 'sweep-job', sweep: name, job: { ...next } });
    };
    switch (e.type) {
      case 'job-start': {
        update(e.job, { status: 'running', attempt: e.attempt, worker: e.worker, display: e.display });
        // The pool reports progress when a job ends; a start changes only how many run.
        const running = this.state.jobs.filter((j) => j.status === 'running').length;
        this.state.progress = { ...this.state.progress, running };
        ctx.emit({ type: 'sweep-progress', sweep: name, progress: { ...this.state.progress } });
        break;
      }
      case 'job-end':
        update(e.job, {
          status: e.status,
          attempt: e.attempt,
          worker: e.worker,
          runId: e.run_id,
          score: e.mean,
          costUsd: e.cost_usd,
          ...(e.error ? { error: e.error } : {}),
        });
        break;
      case 'progress':
        this.state.progress = {
          done: e.done,
          total: e.total,
          failed: e.failed,
          running: e.running,
          resumed: this.state.progress.resumed,
          costUsd: e.cost_usd,
          elapsedS: e.elapsed_s,
          etaS: e.eta_s,
        };
        ctx.emit({ type: 'sweep-progress', sweep: name, progress: { ...this.state.progress } });
        break;
      case 'start':
        this.state.progress = { ...this.state.progress, done: e.done, total: e.total, costUsd: e.cost_usd };
        ctx.emit({ type: 'sweep-progress', sweep: name, progress: { ...this.state.progress } });
        break;
      case 'end': {
        const s = e.summary;
        ctx.emit({
          type: 'sweep-done',
          sweep: name,
          completed: s.completed,
          failed: s.failed,
          skipped: s.skipped,
          resumed: s.resumed,
          total: s.total,
          stopped: s.stopped,
          costUsd: s.cost_usd,
          wallS: s.wall_s,
        });
        break;
      }
      case 'worker':
        break;
    }
  }
}

/** Jobs of the sweep already finished in the runs folder (the pool's own test), with their runs. */
async function finishedJobs(runsDir: string, sweep: Sweep): Promise<Map<string, string | null>> {
  const done = new Map<string, string | null>();
  if (!existsSync(path.join(runsDir, '.jobs'))) return done;
  const storage = new DirStorage(runsDir);
  for (const j of sweep.jobs) {
    const o = await storage.finished(j.id);
    if (o) done.set(j.id, o.run_id);
  }
  return done;
}

/** The sweep files in both sweeps folders, and what the form offers. */
export function sweepHandlers(
  ctx: Pick<SweepContext, 'runsDir' | 'configDir'> & { settingsEndpoint(): string | undefined },
): Pick<Handlers, 'listSweeps'> {
  return {
    listSweeps: async () => {
      const sweeps: SweepFileSummary[] = [];
      const catalog = loadCatalog({ configDir: ctx.configDir });
      for (const folder of ['config', 'runs'] as const) {
        const dir = sweepsFolder(folder, ctx);
        if (!existsSync(dir)) continue;
        for (const f of readdirSync(dir, { withFileTypes: true })) {
          const m = /^(\w[\w.-]{0,63})\.yaml$/.exec(f.name);
          if (!f.isFile() || !m || m[1]!.includes('..')) continue;
          const name = m[1]!;
          try {
            const sweep = loadSweepFile(path.join(dir, f.name), catalog);
            sweeps.push({
              name,
              folder,
              jobs: sweep.jobs.length,
              finished: (await finishedJobs(ctx.runsDir, sweep)).size,
              games: [...new Set([...(sweep.spec.games ?? []), ...(sweep.spec.arena ?? []).map((a) => a.game)])],
              agents: [...sweep.spec.agents],
              baseUrl: sweep.spec.base_url ?? null,
              foreignEndpoint:
                !!sweep.spec.base_url &&
                sweep.jobs.some((j) => cellUsesModel(j.cell)) &&
                !sameEndpoint(sweep.spec.base_url, ctx.settingsEndpoint() ?? OPENAI_BASE_URL),
            });
          } catch (err) {
            sweeps.push({
              name,
              folder,
              jobs: 0,
              finished: 0,
              games: [],
              agents: [],
              baseUrl: null,
              foreignEndpoint: false,
              error: (err as Error).message,
            });
          }
        }
      }
      return {
        sweeps: sweeps.sort((a, b) => a.name.localeCompare(b.name) || a.folder.localeCompare(b.folder)),
        games: Object.values(BUILTIN_GAMES).map((g) => ({ id: g.id, title: g.title })),
        agents: [...SWEEP_FORM_AGENTS],
      };
    },
  };
}
