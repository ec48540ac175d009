/** `gamepilot report`: the runs folder or bucket (and its arena folders) as one self-contained HTML page, and the same data as JSON and CSV. */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { buildReport } from '../report/build.ts';
import { reportCsv } from '../report/csv.ts';
import { reportHtml } from '../report/html.ts';
import { reportView } from '../report/view.ts';
import { writeFileAtomic } from '../util/atomic-file.ts';
import { CodedError } from '../domain.ts';
import { io } from './io.ts';
import { localRunsDir } from './runs-source.ts';
import type { ReportFlags } from './command-flags.ts';

export async function reportCommand(o: ReportFlags): Promise<number> {
  const { dir: runs, where } = await localRunsDir(o.runsDir);
  if (!existsSync(runs) || !statSync(runs).isDirectory())
    throw new CodedError('not-found', `no runs folder ${runs} (give one with --runs-dir DIR)`);
  const view = reportView({ ...buildReport(runs), runs_dir: where });
  for (const w of view.data.warnings) io.log(`warning: ${w}`);
  const out = path.resolve(o.out);
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileAtomic(out, reportHtml(view));
  io.out(out);
  if (o.json) {
    const file = path.resolve(o.json);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileAtomic(file, `${JSON.stringify(view.data, null, 2)}\n`);
    io.out(file);
  }
  if (o.csv) {
    const dir = path.resolve(o.csv);
    mkdirSync(dir, { recursive: true });
    for (const [name, text] of Object.entries(reportCsv(view.data))) {
      writeFileAtomic(path.join(dir, name), text);
      io.out(path.join(dir, name));
    }
  }
  const { counted, left_out, damaged } = view.data.runs;
  const { failed, invalid } = view.data;
  io.progress(
    `report: ${counted} run(s) counted, ${left_out} left out${failed.length ? ` (${failed.length} failed)` : ''}, ${damaged} damaged${invalid.length ? `; ${invalid.length} invalid episode(s) not pooled` : ''}; ${view.data.arenas.length} arena(s)`,
  );
  return 0;
}
