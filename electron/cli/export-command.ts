/** `gamepilot export`: runs and sessions as a training dataset, with a progress line per run. */
import { exportDataset, type ExportSummary } from '../dataset/export.ts';
import { io } from './io.ts';
import { localRunsDir } from './runs-source.ts';
import type { ExportFlags } from './command-flags.ts';

/** ` (1 run, 2 suite, 2 arena)`: the runs exported of each origin there is. */
function byOrigin(origins: ExportSummary['origins']): string {
  const some = Object.entries(origins).filter(([, n]) => n > 0);
  return some.length ? ` (${some.map(([k, n]) => `${n} ${k}`).join(', ')})` : '';
}

export async function exportCommand(sources: string[], o: ExportFlags): Promise<number> {
  const local: string[] = [];
  for (const source of sources) local.push((await localRunsDir(source)).dir);
  const summary = await exportDataset({
    sources: local,
    out: o.out,
    format: o.format,
    filter: {
      ...(o.game !== undefined ? { game: o.game } : {}),
      ...(o.player !== undefined ? { player: o.player } : {}),
      ...(o.minScore !== undefined ? { minScore: o.minScore } : {}),
      ...(o.maxScore !== undefined ? { maxScore: o.maxScore } : {}),
      ...(o.assisted !== undefined ? { assisted: o.assisted === 'yes' } : {}),
    },
    validation: o.validation,
    seed: o.splitSeed,
    ...(o.redactText !== undefined ? { redactText: o.redactText } : {}),
    onProgress: (p) =>
      io.progress(
        `export ${'█'.repeat(Math.round((p.done / p.total) * 20)).padEnd(20, '░')} ${p.done}/${p.total} ${p.run}: ${p.rows} rows${p.skipped ? ' (done before)' : ''}`,
      ),
  });
  for (const w of summary.warnings) io.log(`warning: ${w}`);
  if (o.json) io.out(JSON.stringify(summary));
  else
    io.out(
      `${summary.out}: ${summary.runs} run(s)${byOrigin(summary.origins)}, ${summary.rows.train} train + ${summary.rows.validation} validation rows` +
        `${summary.resumed ? ` (${summary.resumed} run(s) from before)` : ''}` +
        `${summary.redacted ? `; text blurred in ${summary.redacted.frames} frame(s)` : ''}${summary.skipped.length ? `; ${summary.skipped.length} left out (export.json says why)` : ''}`,
    );
  return 0;
}
