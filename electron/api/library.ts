/**
 * The runs library over the contract: list, leaderboard, report, arenas, open, frames, exports,
 * tutorials.
 * Over the contract a run is named by its id (a folder name in the runs folder), and exports
 * go only where the person chose (the app's save dialog) or into the exports folder.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Handlers } from './contract.ts';
import { exportRun, listRuns, openRun, readFrame, runPath, scanRuns } from '../store/run-library.ts';
import { readRun } from '../store/run-store.ts';
import { readLabels, setLabel } from '../scoring/milestone-labels.ts';
import { agreement, labelledEpisodes, type LabelledEpisode } from '../scoring/agreement.ts';
import { leaderboard } from '../store/leaderboard.ts';
import { buildReport } from '../report/build.ts';
import { reportView, WHISKER_SUFFIX } from '../report/view.ts';
import { readArenas } from '../report/arenas.ts';
import { arenaSummaryTables } from '../report/arena-view.ts';
import { exportVideo } from '../recording/video.ts';
import { CodedError } from '../domain.ts';
import {
  declaredTutorial,
  listTutorialVideos,
  readTutorialChunk,
  TUTORIALS_DIR,
  tutorialFolder,
} from '../store/tutorials.ts';

export interface LibraryDeps {
  runsDir: string;
  exportDir: string;
  /**
   * Where an export goes, asked of the person (the app's native save dialog): an absolute
   * path, or undefined when they cancel. Without it, exports go into `exportDir`.
   */
  chooseExportPath?(suggestedName: string, kind: 'run' | 'video'): Promise<string | undefined>;
}

/** Where a handler reports what it skipped (damaged rows) while it went on. */
export type WarnRun = (runId: string, message: string) => void;

export type LibraryMethod =
  | 'listRuns'
  | 'labelMilestone'
  | 'milestoneLabels'
  | 'milestoneAgreement'
  | 'leaderboard'
  | 'report'
  | 'arenas'
  | 'getRun'
  | 'getFrame'
  | 'exportRun'
  | 'exportVideo'
  | 'findTutorial'
  | 'readTutorialVideo';

export function libraryHandlers(deps: LibraryDeps, warn: WarnRun = () => {}): Pick<Handlers, LibraryMethod> {
  /** Where an export named `name` goes: the person's choice (app dialog), else the exports folder. Never a path from the page. */
  const destination = async (name: string, kind: 'run' | 'video'): Promise<string> => {
    if (deps.chooseExportPath) {
      const chosen = await deps.chooseExportPath(name, kind);
      if (!chosen) throw new CodedError('cancelled', 'export cancelled');
      if (!path.isAbsolute(chosen))
        throw new CodedError('bad-input', `the chosen export path is not absolute: ${chosen}`);
      return chosen;
    }
    const dir = path.resolve(deps.exportDir);
    mkdirSync(dir, { recursive: true }); // a fresh install has none yet, whichever export comes first
    return path.join(dir, name);
  };
  return {
    listRuns: async () => listRuns(deps.runsDir),
    labelMilestone: async ({ id, episode, milestone, reached }) => {
      const dir = runPath(deps.runsDir, id);
      return { labels: setLabel(dir, readRun(dir).meta, { episode, milestone, reached }) };
    },
    milestoneLabels: async ({ id }) => ({ labels: readLabels(runPath(deps.runsDir, id)) }),
    milestoneAgreement: async () => {
      const { runs, warnings } = scanRuns(deps.runsDir);
      const episodes: LabelledEpisode[] = [];
      for (const r of runs) {
        try {
          episodes.push(...labelledEpisodes(r.dir, r.meta));
        } catch (err) {
          warnings.push(`skipped ${r.dir}: ${(err as Error).message}`);
        }
      }
      return { games: agreement(episodes).map(({ labels: _l, ...g }) => g), warnings };
    },
    leaderboard: async (p) => leaderboard(deps.runsDir, p.game ? { game: p.game } : {}),
    report: async () => {
      const { data, tables, charts } = reportView(buildReport(deps.runsDir));
      return {
        generated: data.generated,
        runs: data.runs,
        warnings: data.warnings,
        tables,
        charts,
        whisker: WHISKER_SUFFIX,
      };
    },
    arenas: async () => {
      const warnings: string[] = [];
      const arenas = existsSync(deps.runsDir) ? readArenas(deps.runsDir, warnings) : [];
      return { arenas: arenas.map((a) => ({ ...a, tables: arenaSummaryTables(a) })), warnings };
    },
    getRun: async (p) => openRun(deps.runsDir, p.id),
    getFrame: async (p) => {
      const f = readFrame(deps.runsDir, p.id, p.frame);
      return { dataUrl: `data:${f.mime};base64,${f.data.toString('base64')}` };
    },
    exportRun: async (p) => {
      runPath(deps.runsDir, p.id); // a missing run fails before anyone is asked where to put it
      return { path: exportRun(deps.runsDir, p.id, await destination(p.name ?? path.basename(p.id), 'run')) };
    },
    exportVideo: async (p) => {
      const dir = runPath(deps.runsDir, p.id);
      return {
        path: await exportVideo(dir, await destination(p.name ?? `${path.basename(p.id)}.mp4`, 'video'), {
          warn: (m) => warn(p.id, m),
        }),
      };
    },
    /**
     * A rookie's tutorial: by default the title's declared one (store/tutorials.ts), the very one
     * `--tutorial title` gives agents (windows too, keyed as the tables key them); any video, or
     * completed run or session, of the title can be chosen.
     */
    findTutorial: async (p) => {
      const videos = listTutorialVideos(deps.runsDir, p.title).map((v) => ({
        id: v.id,
        kind: 'video' as const,
        agent: 'video',
        created: v.created,
        mean: null,
      }));
      const runs = listRuns(deps.runsDir).runs.filter((r) => r.title.id === p.title && r.status === 'completed');
      const expert = (r: { agent: string }) => (r.agent === 'human-expert' ? 0 : 1);
      const played = [...runs]
        .sort((a, b) => expert(a) - expert(b) || b.created.localeCompare(a.created))
        .map((r) => ({ id: r.id, kind: 'run' as const, agent: r.agent, created: r.created, mean: r.mean }));
      const id = declaredTutorial(deps.runsDir, p.title)?.id ?? null;
      return { id, folder: `${TUTORIALS_DIR}/${tutorialFolder(p.title)}`, candidates: [...videos, ...played] };
    },
    readTutorialVideo: async (p) => readTutorialChunk(deps.runsDir, p.id, p.offset),
  };
}
