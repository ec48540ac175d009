/**
 * `gamepilot export`: runs and human sessions as a dataset the field's tools read — the Hugging
 * Face `imagefolder` layout (`datasets.load_dataset("imagefolder", data_dir=…)`): one folder per
 * split with its images and a `metadata.jsonl` whose `file_name` names each row's image, and a
 * dataset card (README.md) with the schema. Episodes are split between train and validation
 * whole (a hash of run and episode, so the same options give the same split). Resumable: each
 * run's rows are kept in `.parts/` once its images are in place, so a second call skips the runs
 * already done; the split files and the card are written last, atomically.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { writeFileAtomic } from '../util/atomic-file.ts';
import { readRunMeta, type RunMeta } from '../store/run-store.ts';
import { scanRuns } from '../store/run-library.ts';
import { titleOf } from '../store/run-title.ts';
import { CodedError } from '../domain.ts';
import { rowsOf, type DatasetRow } from './rows.ts';
import { datasetCard } from './card.ts';
import { TextRedactor } from './redact.ts';
import { textPattern } from '../util/text-pattern.ts';

export const EXPORT_FORMATS = ['hf-imagefolder'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportFilter {
  /** A title id (as the leaderboard names it: `2048`, `sgt-fifteen`, `window:<title>`). */
  game?: string;
  /** A player as the leaderboard names it: `vlm`, `mcp:claude-code`, `human-expert`, … */
  player?: string;
  /** Runs whose mean score lies in this range (0–100); a run without a score is left out when one is set. */
  minScore?: number;
  maxScore?: number;
  /** Only runs a person took over (true), or only those nobody did (false). */
  assisted?: boolean;
}

export interface ExportOptions {
  /** Run or session folders, or folders holding them (one level down). */
  sources: string[];
  out: string;
  format: ExportFormat;
  filter: ExportFilter;
  /** The share of episodes that go to the validation split (0–0.9). */
  validation: number;
  /** Changes which episodes land in validation. */
  seed: number;
  /** Blur text matching this pattern (RE2, case-insensitive) in every frame, where OCR finds it. */
  redactText?: string;
  /** Each run as it is done: how many runs are done of how many, and its rows. */
  onProgress?: (p: { done: number; total: number; run: string; rows: number; skipped: boolean }) => void;
}

export interface ExportSummary {
  out: string;
  format: ExportFormat;
  runs: number;
  /** Runs already exported by an earlier call, taken as they were. */
  resumed: number;
  rows: { train: number; validation: number };
  /** Decisions with no frame in their run folder (frames not kept): not exported. */
  withoutFrame: number;
  /** Runs the filters or their state left out, and why (a failed run with its error), invalid episodes left out, and folders that are no run. */
  skipped: string[];
  warnings: string[];
  /** With redactText: frames with text blurred, and the boxes blurred (this call's runs). */
  redacted?: { frames: number; boxes: number };
}

type Split = 'train' | 'validation';
interface Part {
  run: string;
  rows: (DatasetRow & { file_name: string; split: Split })[];
  withoutFrame: number;
  /** The run's lines that could not be read, or why none of it could be (named as runWarning does). */
  warnings?: string[];
}

/**
 * A warning as a dataset keeps it: it names the run, and no absolute path (a home folder names
 * its user): the run folder's own path is cut from the message.
 */
function runWarning(run: string, dir: string, message: string): string {
  return `run ${run}: ${message
    .split(dir + path.sep)
    .join('')
    .split(dir)
    .join('.')}`;
}

/** The runs the sources name: a folder with run.json, or the run folders one level inside. */
function collect(sources: string[]): { runs: { id: string; dir: string; meta: RunMeta }[]; warnings: string[] } {
  const runs: { id: string; dir: string; meta: RunMeta }[] = [];
  const warnings: string[] = [];
  for (const src of sources) {
    const dir = path.resolve(src);
    if (!existsSync(dir)) throw new CodedError('not-found', `${src}: no such folder`);
    if (existsSync(path.join(dir, 'run.json'))) {
      const id = path.basename(dir);
      try {
        runs.push({ id, dir, meta: readRunMeta(dir) });
      } catch (err) {
        warnings.push(runWarning(id, dir, `skipped: ${(err as Error).message}`));
      }
      continue;
    }
    const scanned = scanRuns(dir);
    runs.push(...scanned.runs);
    // scanRuns names each run by its folder: `skipped <dir>…`, cut to the folder's own name.
    warnings.push(...scanned.warnings.map((w) => w.split(dir + path.sep).join('')));
  }
  const seen = new Set<string>();
  return {
    runs: runs.filter((r) => {
      const dup = seen.has(r.id);
      seen.add(r.id);
      if (dup)
        warnings.push(`skipped ${r.id}: a run of the same name is exported already (from another source folder)`);
      return !dup;
    }),
    warnings,
  };
}

/** Why a run is not exported, or null when it is. */
function leftOut(meta: RunMeta, f: ExportFilter): string | null {
  if (meta.status === 'failed') return `failed, not completed: ${meta.error ?? 'no error recorded'}`;
  if (meta.status !== 'completed') return `${meta.status}, not completed`;
  if (meta.demo) return 'the demo';
  if (meta.seats?.length) return 'a two-seat match (its score is a seat’s)';
  if (f.game !== undefined && titleOf(meta).id !== f.game) return `another title (${titleOf(meta).id})`;
  if (f.player !== undefined && meta.agent !== f.player) return `another player (${meta.agent})`;
  if (f.assisted !== undefined && !!meta.assisted !== f.assisted)
    return f.assisted ? 'not assisted' : 'assisted (a person took over)';
  if (f.minScore !== undefined || f.maxScore !== undefined) {
    if (meta.mean === null) return 'no score';
    if (f.minScore !== undefined && meta.mean < f.minScore) return `score ${meta.mean} below ${f.minScore}`;
    if (f.maxScore !== undefined && meta.mean > f.maxScore) return `score ${meta.mean} above ${f.maxScore}`;
  }
  return null;
}

/** Which split an episode goes to: a stable hash of the seed, run and episode. */
export function splitOf(run: string, episode: number, validation: number, seed: number): Split {
  const h = createHash('sha256').update(`${seed}\0${run}\0${episode}`).digest().readUInt32BE(0);
  return h / 0x1_0000_0000 < validation ? 'validation' : 'train';
}

/** The options that decide the rows: a second call into the same folder must give the same ones. */
function optionsKey(o: ExportOptions): string {
  return JSON.stringify({
    format: o.format,
    filter: o.filter,
    validation: o.validation,
    seed: o.seed,
    redactText: o.redactText ?? null,
  });
}

export async function exportDataset(o: ExportOptions): Promise<ExportSummary> {
  if (!(o.validation >= 0 && o.validation <= 0.9))
    throw new CodedError('bad-input', 'validation: a share from 0 to 0.9');
  let redactor: TextRedactor | undefined;
  if (o.redactText !== undefined) {
    try {
      redactor = new TextRedactor(textPattern(o.redactText));
    } catch (err) {
      throw new CodedError('bad-input', `redact text: ${(err as Error).message}`);
    }
  }
  try {
    return await exportWith(o, redactor);
  } finally {
    await redactor?.close();
  }
}

async function exportWith(o: ExportOptions, redactor: TextRedactor | undefined): Promise<ExportSummary> {
  const out = path.resolve(o.out);
  const parts = path.join(out, '.parts');
  mkdirSync(parts, { recursive: true });
  const keyFile = path.join(parts, 'options.json');
  const key = optionsKey(o);
  if (existsSync(keyFile) && readFileSync(keyFile, 'utf8') !== key)
    throw new CodedError(
      'bad-input',
      `${out} holds an export made with other options (${readFileSync(keyFile, 'utf8')}); export into another folder, or remove it`,
    );
  writeFileAtomic(keyFile, key);

  const { runs, warnings } = collect(o.sources);
  const skipped: string[] = [];
  const chosen = runs.filter((r) => {
    const why = leftOut(r.meta, o.filter);
    if (why) skipped.push(`${r.id}: ${why}`);
    return !why;
  });
  for (const r of chosen)
    for (const e of r.meta.episodes)
      if (e.invalid !== undefined) skipped.push(`${r.id}: episode ${e.episode} left out, invalid: ${e.invalid}`);
  let resumed = 0;
  const done: Part[] = [];
  for (const [i, r] of chosen.entries()) {
    const partFile = path.join(parts, `${r.id}.json`);
    if (existsSync(partFile)) {
      try {
        done.push(JSON.parse(readFileSync(partFile, 'utf8')) as Part);
        resumed++;
        o.onProgress?.({ done: i + 1, total: chosen.length, run: r.id, rows: done.at(-1)!.rows.length, skipped: true });
        continue;
      } catch {
        // A part that cannot be read is made again.
      }
    }
    const part = await exportRun(r.id, r.dir, r.meta, out, o, redactor);
    writeFileAtomic(partFile, JSON.stringify(part));
    done.push(part);
    o.onProgress?.({ done: i + 1, total: chosen.length, run: r.id, rows: part.rows.length, skipped: false });
  }

  const rows = { train: 0, validation: 0 };
  for (const split of ['train', 'validation'] as const) {
    const lines = done.flatMap((p) => p.rows.filter((r) => r.split === split));
    rows[split] = lines.length;
    mkdirSync(path.join(out, split), { recursive: true });
    writeFileAtomic(
      path.join(out, split, 'metadata.jsonl'),
      lines.map(({ split: _s, ...row }) => JSON.stringify(row)).join('\n') + (lines.length ? '\n' : ''),
    );
  }
  const withoutFrame = done.reduce((n, p) => n + p.withoutFrame, 0);
  warnings.push(...done.flatMap((p) => p.warnings ?? []));
  const summary: ExportSummary = {
    out: '.',
    format: o.format,
    runs: done.length,
    resumed,
    rows,
    withoutFrame,
    skipped,
    warnings,
    ...(redactor ? { redacted: { ...redactor.counts } } : {}),
  };
  writeFileAtomic(
    path.join(out, 'README.md'),
    datasetCard(
      summary,
      done.flatMap((p) => p.rows),
      o,
    ),
  );
  writeFileAtomic(
    path.join(out, 'export.json'),
    `${JSON.stringify({ ...summary, options: JSON.parse(key) }, null, 2)}\n`,
  );
  return { ...summary, out };
}

/** One run's images into its episodes' splits, and its rows. */
async function exportRun(
  id: string,
  dir: string,
  meta: RunMeta,
  out: string,
  o: ExportOptions,
  redactor: TextRedactor | undefined,
): Promise<Part> {
  let source: ReturnType<typeof rowsOf>;
  try {
    source = rowsOf(dir, meta);
  } catch (err) {
    return {
      run: id,
      rows: [],
      withoutFrame: 0,
      warnings: [runWarning(id, dir, `not exported: ${(err as Error).message}`)],
    };
  }
  const { withoutFrame, problems } = source;
  // An invalid episode (no model answers) teaches nothing: its rows stay out (listed in `skipped`).
  const invalid = new Set(meta.episodes.filter((e) => e.invalid !== undefined).map((e) => e.episode));
  const rows = source.rows.filter((r) => !invalid.has(r.row.episode));
  const made: Part['rows'] = [];
  for (const split of ['train', 'validation'] as const)
    rmSync(path.join(out, split, 'images', id), { recursive: true, force: true });
  for (const { row, frame } of rows) {
    const split = splitOf(id, row.episode, o.validation, o.seed);
    const file_name = `images/${id}/${row.episode}-${row.step}${path.extname(frame) || '.jpg'}`;
    const dest = path.join(out, split, file_name);
    mkdirSync(path.dirname(dest), { recursive: true });
    if (redactor) writeFileSync(dest, await redactor.redact(readFileSync(frame)));
    else copyFileSync(frame, dest);
    made.push({ file_name, ...row, split });
  }
  const warnings = problems.map((p) => runWarning(id, dir, `skipped ${p}`));
  return { run: id, rows: made, withoutFrame, ...(warnings.length ? { warnings } : {}) };
}
