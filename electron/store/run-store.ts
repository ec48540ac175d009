/**
 * A run on disk: `run.json` (replaced atomically), `steps.jsonl` (one line per step, written
 * with a single write() as each step finishes), `frames/`. A crash loses at most the step
 * in flight; readers skip a torn last line.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync, writeSync, existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

export interface StepRecord {
  step: number;
  episode: number;
  t_capture: number;
  frame: string | null;
  frame_size?: { width: number; height: number; scale: number };
  window?: { x: number; y: number; width: number; height: number };
  reasoning: string;
  raw: string | null;
  actions: unknown[];
  outcomes?: unknown[];
  errors: string[];
  latency_ms: { locate: number; capture: number; encode: number; model: number; act: number; wait?: number; total: number };
  tokens?: { input: number; output: number };
  cost_usd?: number | null;
  score?: number | null;
  game_state?: unknown;
  [extra: string]: unknown;
}

export interface EpisodeSummary {
  episode: number;
  seed: number;
  score: number | null;
  steps: number;
  end: string;
}

export type RunStatus = 'running' | 'completed' | 'stopped' | 'failed';

export interface RunMeta {
  id: string;
  created: string;
  updated: string;
  status: RunStatus;
  kind: 'agent' | 'human';
  game: string | null;
  target: { kind: 'builtin' | 'window'; label: string; pattern?: string; window_id?: string };
  agent: string;
  model: string | null;
  action_space: string;
  config: Record<string, unknown>;
  episodes: EpisodeSummary[];
  mean: number | null;
  std: number | null;
  totals: { steps: number; tokens_in: number; tokens_out: number; cost_usd: number | null };
  error?: string;
}

function slug(s: string) {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 32) || 'run';
}

export class RunStore {
  readonly framesDir: string;
  private stepsFd: number;
  meta: RunMeta;

  private constructor(readonly dir: string, meta: RunMeta) {
    this.framesDir = path.join(dir, 'frames');
    mkdirSync(this.framesDir, { recursive: true });
    this.stepsFd = openSync(path.join(dir, 'steps.jsonl'), 'a');
    this.meta = meta;
    this.writeMeta();
  }

  static create(root: string, init: Omit<RunMeta, 'id' | 'created' | 'updated' | 'status' | 'episodes' | 'mean' | 'std' | 'totals'>): RunStore {
    const created = new Date();
    const stamp = created.toISOString().replace(/[-:]/g, '').replace(/\..*/, '');
    const id = `${stamp}-${slug(init.game ?? init.target.label)}-${slug(init.agent)}-${randomBytes(2).toString('hex')}`;
    const dir = path.resolve(root, id);
    return new RunStore(dir, {
      ...init,
      id,
      created: created.toISOString(),
      updated: created.toISOString(),
      status: 'running',
      episodes: [],
      mean: null,
      std: null,
      totals: { steps: 0, tokens_in: 0, tokens_out: 0, cost_usd: null },
    });
  }

  /** Writes a frame file and returns its path relative to the run folder. */
  writeFrame(episode: number, step: number, data: Buffer, ext: 'jpg' | 'png'): string {
    const rel = `frames/e${String(episode).padStart(3, '0')}-s${String(step).padStart(5, '0')}.${ext}`;
    writeFileSync(path.join(this.dir, rel), data);
    return rel;
  }

  appendStep(rec: StepRecord) {
    writeSync(this.stepsFd, JSON.stringify(rec) + '\n');
    const t = this.meta.totals;
    t.steps++;
    t.tokens_in += rec.tokens?.input ?? 0;
    t.tokens_out += rec.tokens?.output ?? 0;
    if (typeof rec.cost_usd === 'number') t.cost_usd = (t.cost_usd ?? 0) + rec.cost_usd;
  }

  update(patch: Partial<RunMeta>) {
    Object.assign(this.meta, patch);
    this.writeMeta();
  }

  close(status: RunStatus, error?: string) {
    this.meta.status = status;
    if (error) this.meta.error = error;
    this.writeMeta();
    try {
      fsyncSync(this.stepsFd);
      closeSync(this.stepsFd);
    } catch {
      /* already closed */
    }
  }

  private writeMeta() {
    this.meta.updated = new Date().toISOString();
    const file = path.join(this.dir, 'run.json');
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.meta, null, 2));
    renameSync(tmp, file);
  }
}

/** Parses a JSON-lines file; lines that do not parse (a torn last line after a crash) are counted, not thrown. */
export function readJsonLines<T = unknown>(file: string): { rows: T[]; skipped: number } {
  const rows: T[] = [];
  let skipped = 0;
  if (!existsSync(file)) return { rows, skipped };
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      rows.push(JSON.parse(line) as T);
    } catch {
      skipped++;
    }
  }
  return { rows, skipped };
}

/** Reads a run folder; a torn last line (crash mid-write) is skipped and reported. */
export function readRun(dir: string): { meta: RunMeta; steps: StepRecord[]; skippedLines: number } {
  const meta = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')) as RunMeta;
  const { rows, skipped } = readJsonLines<StepRecord>(path.join(dir, 'steps.jsonl'));
  return { meta, steps: rows, skippedLines: skipped };
}
