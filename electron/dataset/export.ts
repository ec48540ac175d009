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
import { listedStatus, type RunMeta } from '../store/run-store.ts';
import { titleOf } from '../store/run-title.ts';
import { settingSpec } from '../ingvp/ingvp-settings.ts';
import { CodedError, INGVP_SETTINGS, type IngvpSetting } from '../domain.ts';
import { rowsOf, type DatasetRow } from './rows.ts';
import { COLUMNS, datasetCard } from './card.ts';
import { TextRedactor } from './redact.ts';
import { textPattern } from '../util/text-pattern.ts';
import { ORIGINS, originOf, walkSources, withoutPath, type FoundRun, type Origin } from './walk.ts';

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
  /** Run or session folders, or folders holding them at any depth (a runs folder, a suite's, an arena's). */
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
  /** The runs exported, by origin (plain runs, sessions, ING-VP suite levels, arena matches). */
  origins: Record<Origin, number>;
  /** Runs already exported by an earlier call, taken as they were. */
  resumed: number;
  rows: { train: number; validation: number };
  /** Decisions with no frame in their run folder (frames not kept): not exported. */
  withoutFrame: number;
  /**
   * Every run-like folder found and not exported, and why (`<run>: <why>`): left out by a filter
   * or by its state (a failed run with its error), an ING-VP level played on text (no frame), one
   * that cannot be read (no run.json, a damaged one, a link); and invalid episodes left out.
   */
  skipped: string[];
  warnings: string[];
  /** With redactText: frames with text blurred, and the boxes blurred (this call's runs). */
  redacted?: { frames: number; boxes: number };
}

type Split = 'train' | 'validation';
interface Part {
  run: string;
  origin: Origin;
  rows: (DatasetRow & { file_name: string; split: Split })[];
  withoutFrame: number;
  /** The run's lines that could not be read (named as runWarning does). */
  warnings?: string[];
}

/** A warning as a dataset keeps it: it names the run, and no path of the machine. */
function runWarning(run: string, dir: string, message: string): string {
  return `run ${run}: ${withoutPath(message, dir)}`;
}

/** The runs the sources hold, each once (by its id); the run-like folders that cannot be read, with why. */
function collect(sources: string[], out: string): { runs: FoundRun[]; skipped: string[] } {
  const { runs, unreadable } = walkSources(sources, out);
  const skipped = [...unreadable];
  const seen = new Set<string>();
  return {
    runs: runs.filter((r) => {
      const dup = seen.has(r.id);
      seen.add(r.id);
      if (dup) skipped.push(`${r.id}: a run of the same name is exported already (from another source folder)`);
      return !dup;
    }),
    skipped,
  };
}

/** An ING-VP level played on the puzzle's text: its player saw no frame, and every row here is a frame. */
function textSetting(meta: RunMeta): IngvpSetting | undefined {
  const setting = meta.config.setting;
  if (originOf(meta) !== 'suite' || !(INGVP_SETTINGS as readonly unknown[]).includes(setting)) return undefined;
  return settingSpec(setting as IngvpSetting).image ? undefined : (setting as IngvpSetting);
}

/** Why a run is not exported, or null when it is. */
function leftOut(meta: RunMeta, f: ExportFilter): string | null {
  if (meta.status === 'failed') return `failed, not completed: ${meta.error ?? 'no error recorded'}`;
  if (meta.status !== 'completed')
    return listedStatus(meta) === 'crashed'
      ? 'crashed, not completed (it says running, and the process that wrote it is gone)'
      : `${meta.status}, not completed${meta.error ? `: ${meta.error}` : ''}`;
  if (meta.demo) return 'the demo';
  const text = textSetting(meta);
  if (text)
    return `an ING-VP level in the ${text} setting: its player was shown the puzzle as text, not a frame, and every row of this dataset is a frame`;
  if (f.game !== undefined && titleOf(meta).id !== f.game) return `another title (${titleOf(meta).id})`;
  const seats = meta.seats ?? [];
  if (f.player !== undefined && (seats.length ? !seats.some((x) => x.agent === f.player) : meta.agent !== f.player))
    return `another player (${meta.agent})`;
  if (f.assisted !== undefined && !!meta.assisted !== f.assisted)
    return f.assisted ? 'not assisted' : 'assisted (a person took over)';
  if (f.minScore !== undefined || f.maxScore !== undefined) {
    if (seats.length) return 'a two-seat match: each seat has its own score, and the run none to filter on';
    if (meta.mean === null) return 'no score';
    if (f.minScore !== undefined && meta.mean < f.minScore) return `score ${meta.mean} below ${f.minScore}`;
    if (f.maxScore !== undefined && meta.mean > f.maxScore) return `score ${meta.mean} above ${f.maxScore}`;
  }
  return null;
}

/** A row's fields in the card's column order: a row holds exactly the columns the card lists. */
function inColumnOrder(file_name: string, row: DatasetRow): DatasetRow & { file_name: string } {
  const fields = { file_name, ...row };
  return Object.fromEntries(COLUMNS.map((c) => [c.name, fields[c.name]])) as unknown as typeof fields;
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

  const { runs, skipped } = collect(o.sources, out);
  const warnings: string[] = [];
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
    const partFile = path.join(parts, `${encodeURIComponent(r.id)}.json`);
    if (existsSync(partFile)) {
      try {
        const part = JSON.parse(readFileSync(partFile, 'utf8')) as Part;
        if (!ORIGINS.includes(part.origin)) throw new Error('a part from before rows had an origin');
        done.push(part);
        resumed++;
        o.onProgress?.({ done: i + 1, total: chosen.length, run: r.id, rows: done.at(-1)!.rows.length, skipped: true });
        continue;
      } catch {
        // A part that cannot be read is made again.
      }
    }
    const part = await exportRun(r, out, o, redactor);
    if ('unreadable' in part) {
      skipped.push(part.unreadable);
      o.onProgress?.({ done: i + 1, total: chosen.length, run: r.id, rows: 0, skipped: false });
      continue;
    }
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
  const origins = Object.fromEntries(ORIGINS.map((k) => [k, done.filter((p) => p.origin === k).length])) as Record<
    Origin,
    number
  >;
  const summary: ExportSummary = {
    out: '.',
    format: o.format,
    runs: done.length,
    origins,
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
  { id, dir, meta }: FoundRun,
  out: string,
  o: ExportOptions,
  redactor: TextRedactor | undefined,
): Promise<Part | { unreadable: string }> {
  const origin = originOf(meta);
  let source: ReturnType<typeof rowsOf>;
  try {
    source = rowsOf(id, dir, meta);
  } catch (err) {
    return { unreadable: `${id}: its steps cannot be read: ${withoutPath((err as Error).message, dir)}` };
  }
  const { withoutFrame, problems } = source;
  // An invalid episode (no model answers) teaches nothing: its rows stay out (listed in `skipped`).
  const invalid = new Set(meta.episodes.filter((e) => e.invalid !== undefined).map((e) => e.episode));
  // A match chosen by --player: the rows of that player's seat(s).
  const rows = source.rows.filter(
    (r) => !invalid.has(r.row.episode) && (o.filter.player === undefined || r.row.player === o.filter.player),
  );
  const made: Part['rows'] = [];
  for (const split of ['train', 'validation'] as const)
    rmSync(path.join(out, split, 'images', id), { recursive: true, force: true });
  for (const { row, frame, image } of rows) {
    const split = splitOf(id, row.episode, o.validation, o.seed);
    const file_name = `images/${id}/${image}${path.extname(frame) || '.jpg'}`;
    const dest = path.join(out, split, file_name);
    mkdirSync(path.dirname(dest), { recursive: true });
    if (redactor) writeFileSync(dest, await redactor.redact(readFileSync(frame)));
    else copyFileSync(frame, dest);
    made.push({ ...inColumnOrder(file_name, row), split });
  }
  const warnings = problems.map((p) => runWarning(id, dir, `skipped ${p}`));
  return { run: id, origin, rows: made, withoutFrame, ...(warnings.length ? { warnings } : {}) };
}
