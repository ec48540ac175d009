/** `gamepilot errors judge | label`: the error taxonomy of failed episodes from the command line. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { setErrorLabel } from '../scoring/error-labels.ts';
import { failedEpisodes, judgeErrors, type ErrorRecord } from '../scoring/error-taxonomy.ts';
import { readRun } from '../store/run-store.ts';
import { scanRunsAndSuites } from '../store/run-library.ts';
import { addSecret } from '../util/log.ts';
import { io } from './io.ts';
import { UsageError } from './options.ts';
import type { ErrorsJudgeFlags, ErrorsLabelFlags } from './command-flags.ts';

export async function errorsJudgeCommand(runs: string[], o: ErrorsJudgeFlags): Promise<number> {
  if (!o.model) throw new UsageError('give the model: --model NAME (or GAMEPILOT_MODEL)');
  addSecret(o.apiKey);
  const model = {
    model: o.model,
    ...(o.baseUrl ? { baseUrl: o.baseUrl } : {}),
    ...(o.apiKey ? { apiKey: o.apiKey } : {}),
  };
  let dirs: string[];
  if (runs.length) {
    dirs = runs.map((r) => path.resolve(r));
    for (const [i, d] of dirs.entries())
      if (!existsSync(path.join(d, 'run.json'))) throw new UsageError(`${runs[i]} is not a run folder (no run.json)`);
  } else {
    const found = scanRunsAndSuites(path.resolve(o.runsDir));
    for (const w of found.warnings) io.log(`warning: ${w}`);
    dirs = found.runs.filter((r) => failedEpisodes(r.meta).length).map((r) => r.dir);
  }
  const judged: (ErrorRecord & { run_dir: string; kept: number })[] = [];
  for (const dir of dirs) {
    if (runs.length && !failedEpisodes(readRun(dir).meta).length) {
      io.log(`${dir}: no failed episode of a completed, unassisted model run to judge`);
      continue;
    }
    const { record, kept, warnings } = await judgeErrors(dir, model, {
      maxSteps: o.maxSteps,
      maxFrames: o.maxFrames,
      maxSide: o.maxSide,
      again: !!o.again,
      onEpisode: (v) => io.progress(`${path.basename(dir)} episode ${v.episode + 1}: ${v.class ?? 'unclassified'}`),
    });
    for (const w of warnings) io.log(`warning: ${w}`);
    judged.push({ run_dir: dir, kept, ...record });
    if (!o.json)
      for (const v of record.episodes)
        io.out(
          `${path.basename(dir)} episode ${v.episode + 1} (score ${v.score}): ${v.class ?? 'unclassified'} — ${v.reason}`,
        );
  }
  if (o.json) io.out(JSON.stringify({ runs: judged }));
  else if (!judged.length) io.out('no failed episodes of completed model runs to judge');
  return 0;
}

export function errorsLabelCommand(run: string, o: ErrorsLabelFlags): number {
  const dir = path.resolve(run);
  const { meta } = readRun(dir);
  const labels = setErrorLabel(dir, meta, { episode: o.episode, class: o.class === 'clear' ? null : o.class });
  if (o.json) io.out(JSON.stringify({ run_dir: dir, labels }));
  else io.out(`${labels.length} label(s) in ${path.join(dir, 'error-labels.json')}`);
  return 0;
}
