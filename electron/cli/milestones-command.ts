/** `gamepilot milestones extract | judge | label | agreement`: milestone scoring from the command line. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { profileById } from '../profiles/registry.ts';
import type { Profile } from '../profiles/profile-schema.ts';
import { agreement, labelledEpisodes, type LabelledEpisode } from '../scoring/agreement.ts';
import { extractMilestones, saveExtraction } from '../scoring/extract.ts';
import type { JudgeModel } from '../scoring/json-ask.ts';
import { judgeRun, recordedMilestoneProfile } from '../scoring/judge-run.ts';
import { setLabel } from '../scoring/milestone-labels.ts';
import { readRun } from '../store/run-store.ts';
import { profileRecord } from '../session/profile-record.ts';
import { scanRuns } from '../store/run-library.ts';
import { addSecret } from '../util/log.ts';
import { defaultConfigDir } from '../util/paths.ts';
import { io } from './io.ts';
import { UsageError } from './options.ts';
import { catalogWithWarnings, profileEntryFrom } from './profile-command.ts';
import type {
  JudgeModelFlags,
  MilestonesAgreementFlags,
  MilestonesExtractFlags,
  MilestonesJudgeFlags,
  MilestonesLabelFlags,
} from './command-flags.ts';

function judgeModel(o: JudgeModelFlags): JudgeModel {
  if (!o.model) throw new UsageError('give the model: --model NAME (or GAMEPILOT_MODEL)');
  addSecret(o.apiKey);
  return { model: o.model, ...(o.baseUrl ? { baseUrl: o.baseUrl } : {}), ...(o.apiKey ? { apiKey: o.apiKey } : {}) };
}

export async function milestonesExtractCommand(o: MilestonesExtractFlags): Promise<number> {
  if ((o.video === undefined) === (o.session === undefined))
    throw new UsageError('give the walkthrough: --video FILE or --session DIR (one of them)');
  const model = judgeModel(o);
  let entry: ReturnType<typeof profileById>;
  try {
    entry = profileById(catalogWithWarnings(), o.profile);
  } catch (err) {
    throw new UsageError(`--profile: ${(err as Error).message}`);
  }
  const ex = await extractMilestones(
    { video: o.video, session: o.session },
    entry.profile,
    model,
    { fps: o.fps, chunkFrames: o.chunkFrames, maxFrames: o.maxFrames, maxSide: o.maxSide },
    (done, of, found) => io.progress(`chunk ${done}/${of}: ${found} milestone(s) so far`),
  );
  for (const s of ex.skipped) io.log(`warning: frames ${s.from}–${s.to} s were not used: ${s.why}`);
  for (const r of ex.refused) io.log(`warning: left out "${r.name}" (t = ${r.t} s): ${r.why}`);
  const file = await saveExtraction(entry, defaultConfigDir(), ex);
  const summary = {
    profile: file,
    source: ex.source,
    milestones: ex.milestones.map((m) => ({ name: m.name, description: m.description, t: m.t })),
    frames: ex.frames,
    chunks: ex.chunks,
    calls: ex.calls,
    tokens: ex.tokens,
    cost_usd: ex.cost_usd,
    refused: ex.refused,
    skipped: ex.skipped,
  };
  if (o.json) io.out(JSON.stringify(summary));
  else {
    for (const [i, m] of ex.milestones.entries())
      io.out(`${String(i + 1).padStart(2)}. ${m.t.toFixed(1).padStart(7)} s  ${m.name}`);
    io.out(`saved into ${file} (${ex.calls} call(s), ${ex.tokens.input + ex.tokens.output} tokens)`);
  }
  return 0;
}

/** The profile to judge a run against when --profile names none: the one it followed, else run.json's own list. */
function profileForRun(dir: string): Profile {
  const { meta } = readRun(dir);
  const rec = meta.profile as { id?: unknown; title?: unknown; scoring?: { kind?: unknown } } | null | undefined;
  if (typeof rec !== 'object' || rec === null || typeof rec.id !== 'string' || !rec.id)
    throw new UsageError(`${dir} followed no profile: give one with --profile ID|FILE`);
  const id = rec.id;
  const known = catalogWithWarnings().entries.find((e) => e.profile.id === id);
  if (known?.profile.scoring.kind === 'milestones') return known.profile;
  if (rec.scoring?.kind !== 'milestones')
    throw new UsageError(`the profile "${id}" is not milestone-scored: give one that is with --profile`);
  return recordedMilestoneProfile(dir, { id, title: rec.title, scoring: rec.scoring });
}

export async function milestonesJudgeCommand(run: string, o: MilestonesJudgeFlags): Promise<number> {
  const dir = path.resolve(run);
  if (!existsSync(path.join(dir, 'run.json')))
    throw new UsageError(`${run} is not a run or session folder (no run.json)`);
  const model = judgeModel(o);
  const given = o.profile !== undefined ? profileEntryFrom(o.profile) : undefined;
  const profile = given?.profile ?? profileForRun(dir);
  // A run or session that followed no profile is keyed by the one it was judged against from now on.
  const adopt = given ? profileRecord(given) : undefined;
  const { record, warnings } = await judgeRun(dir, profile, model, {
    ...(adopt ? { adopt } : {}),
    everySteps: o.judgeEvery,
    ...(o.judgeBudget !== undefined ? { budget: o.judgeBudget } : {}),
    onProgress: (p) => io.progress(`episode ${p.episode + 1}: ${p.reached}/${p.total} after ${p.calls} call(s)`),
  });
  for (const w of warnings) io.log(`warning: ${w}`);
  if (o.json) io.out(JSON.stringify({ run_dir: dir, ...record }));
  else {
    for (const e of record.episodes) {
      io.out(`episode ${e.episode + 1}: ${e.reached}/${e.total} milestones, score ${e.score}`);
      for (const i of e.items)
        io.out(`  ${i.reached ? '[x]' : '[ ]'} ${i.name}${i.reached ? `  (step ${i.step}: ${i.reason})` : ''}`);
    }
    io.out(
      `judge ${record.judge_model}: ${record.calls} call(s), ${record.tokens.input + record.tokens.output} tokens`,
    );
  }
  return 0;
}

export function milestonesLabelCommand(run: string, o: MilestonesLabelFlags): number {
  const dir = path.resolve(run);
  const { meta } = readRun(dir);
  const labels = setLabel(dir, meta, {
    episode: o.episode,
    milestone: o.milestone,
    reached: o.reached === 'clear' ? null : o.reached === 'yes',
  });
  if (o.json) io.out(JSON.stringify({ run_dir: dir, labels }));
  else io.out(`${labels.length} label(s) in ${path.join(dir, 'milestone-labels.json')}`);
  return 0;
}

export function milestonesAgreementCommand(runs: string[], o: MilestonesAgreementFlags): number {
  const episodes: LabelledEpisode[] = [];
  if (runs.length)
    for (const r of runs) {
      const dir = path.resolve(r);
      episodes.push(...labelledEpisodes(dir, readRun(dir).meta));
    }
  else {
    const { runs: found, warnings } = scanRuns(path.resolve(o.runsDir));
    for (const w of warnings) io.log(`warning: ${w}`);
    for (const r of found) {
      try {
        episodes.push(...labelledEpisodes(r.dir, r.meta));
      } catch (err) {
        io.log(`warning: skipped ${r.dir}: ${(err as Error).message}`);
      }
    }
  }
  const rows = agreement(episodes);
  if (o.json) io.out(JSON.stringify({ games: rows, episodes }));
  else if (!rows.length) io.out('no labelled runs: label a judged run first (gamepilot milestones label RUN …)');
  else {
    io.out(
      `${'game'.padEnd(28)} ${'runs'.padStart(4)} ${'judged'.padStart(7)} ${'human'.padStart(7)} ${'% diff'.padStart(7)}`,
    );
    for (const r of rows)
      io.out(
        `${r.game.padEnd(28)} ${String(r.runs).padStart(4)} ${r.judged.toFixed(1).padStart(7)} ${r.human.toFixed(1).padStart(7)} ${(r.pct_diff === null ? 'n/a' : `${r.pct_diff.toFixed(1)}%`).padStart(7)}`,
      );
  }
  return 0;
}
