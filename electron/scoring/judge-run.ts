/**
 * Judging a finished run — or a human session, from its recorded frames — the way the live
 * judge does, step by step in batches, then writing the verdicts into its run.json (`milestones`,
 * each episode's score, mean and std). A run still being written is refused.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CodedError, round2 } from '../domain.ts';
import { z } from 'zod';
import { ProfileSchema, type Profile } from '../profiles/profile-schema.ts';
import { issueAt, issueReason, refuseJsonField } from '../store/json-rows.ts';
import { listedStatus, readRun, type EpisodeSummary, type RunMeta } from '../store/run-store.ts';
import { resolveRunFile } from '../store/run-files.ts';
import { derivedTitle } from '../store/run-title.ts';
import { writeFileAtomic } from '../util/atomic-file.ts';
import { mean, std } from '../util/time.ts';
import type { JudgeModel } from './json-ask.ts';
import { withMilestoneScores } from './milestone-scores.ts';
import {
  DEFAULT_JUDGING,
  MilestoneJudging,
  type MilestoneProgress,
  type MilestoneRecord,
  type StepFrame,
} from './milestone-judging.ts';

export interface JudgeRunResult {
  record: MilestoneRecord;
  meta: RunMeta;
  /** Steps whose frame could not be used (missing, outside the folder), each with why. */
  warnings: string[];
}

export async function judgeRun(
  dir: string,
  profile: Profile,
  model: JudgeModel,
  opts: {
    everySteps?: number;
    budget?: number;
    onProgress?: (p: MilestoneProgress) => void;
    /** The profile record to keep in run.json when the run followed none: it is then keyed by that title. */
    adopt?: Record<string, unknown>;
  } = {},
): Promise<JudgeRunResult> {
  const { meta, steps, problems } = readRun(dir);
  if (listedStatus(meta) === 'running')
    throw new CodedError('busy', `${dir} is still being written; judge it once the run has ended`);
  const warnings = [...problems];
  const frames: StepFrame[] = [];
  for (const s of steps) {
    if (!s.frame) continue;
    try {
      frames.push({ episode: s.episode, step: s.step, frame: s.frame, file: resolveRunFile(dir, s.frame) });
    } catch (err) {
      warnings.push(`step ${s.step} of episode ${s.episode}: ${(err as Error).message}`);
    }
  }
  if (!frames.length) throw new CodedError('bad-input', `${dir} has no frames to judge`);
  frames.sort((a, b) => a.episode - b.episode || a.step - b.step);
  const episodes = [...new Set(frames.map((f) => f.episode))];
  const judging = new MilestoneJudging(
    profile,
    model,
    {
      ...DEFAULT_JUDGING,
      everySteps: opts.everySteps ?? DEFAULT_JUDGING.everySteps,
      budget: opts.budget,
      episodes: Math.max(...episodes) + 1,
    },
    opts.onProgress,
    false,
  );
  for (const e of episodes) {
    for (const f of frames.filter((x) => x.episode === e)) {
      judging.observe(f);
      await judging.idle(); // batches of exactly N steps, as the live judge makes when it keeps up
    }
    judging.endEpisode(e);
  }
  const record = await judging.finish();
  return { record, meta: writeJudgement(dir, record, opts.adopt), warnings };
}

const recordedText = (max: number) => z.string().trim().min(1).max(max);
/** run.json's `profile.scoring` of a milestone-scored run: the list as the run recorded it (levels kept). */
const RecordedScoringSchema = z.looseObject({
  kind: z.literal('milestones'),
  linear: z.boolean().optional(),
  milestones: z
    .array(
      z.looseObject({
        title: recordedText(300),
        description: z.string().max(2000).optional(),
        level: recordedText(200).optional(),
      }),
    )
    .min(1, 'a milestone list needs a milestone')
    .max(10_000),
});

/**
 * The milestone list a run recorded in run.json (`profile.scoring`), as a profile just big enough
 * to judge with. A list that is not one — wrong shapes, empty titles, too many — is refused,
 * naming run.json, the line and the field; nothing is judged or written.
 */
export function recordedMilestoneProfile(dir: string, rec: { id: string; title?: unknown; scoring: unknown }): Profile {
  const file = path.join(dir, 'run.json');
  const outcome = 'nothing was judged';
  const s = RecordedScoringSchema.safeParse(rec.scoring);
  if (!s.success) {
    const { path: field, reason } = issueAt(s.error, ['profile', 'scoring']);
    refuseJsonField(file, 'run', field, reason, outcome);
  }
  const list = s.data.milestones;
  const levels = [...new Set(list.map((m) => m.level).filter((l): l is string => !!l))];
  const item = (m: (typeof list)[number]) => ({
    title: m.title,
    ...(m.description ? { description: m.description } : {}),
  });
  const p = ProfileSchema.safeParse({
    id: rec.id,
    title: typeof rec.title === 'string' && rec.title.trim() ? rec.title.slice(0, 200) : rec.id,
    match: { title: '.' },
    category: 'nonrealtime-linear',
    tier: 'easy',
    prompt: { rules: '-', controls: '-' },
    episode: { maxSteps: 1, trials: 1 },
    scoring: {
      kind: 'milestones',
      linear: s.data.linear ?? true,
      ...(levels.length
        ? { levels: levels.map((l) => ({ name: l, milestones: list.filter((m) => m.level === l).map(item) })) }
        : { milestones: list.map(item) }),
    },
  });
  if (!p.success) {
    // The record reads, but is no list a profile can hold (more than 200 a level, 50 levels, a bad id).
    const issue = p.error.issues[0];
    const at = issue?.path[0] === 'id' ? ['profile', 'id'] : ['profile', 'scoring', 'milestones'];
    const reason = issueReason(issue);
    refuseJsonField(
      file,
      'run',
      at,
      at[1] === 'id' ? reason : `${reason} (a profile holds at most 200 milestones a level, in at most 50 levels)`,
      outcome,
    );
  }
  return p.data;
}

/** run.json with the judgement in it (and the adopted profile, if it had none); every other field is kept as it was. */
function writeJudgement(dir: string, record: MilestoneRecord, adopt?: Record<string, unknown>): RunMeta {
  const file = resolveRunFile(dir, 'run.json');
  const read = JSON.parse(readFileSync(file, 'utf8')) as RunMeta;
  const raw: RunMeta =
    adopt && !read.profile ? { ...read, profile: adopt, title: derivedTitle({ ...read, profile: adopt }) } : read;
  const episodes: EpisodeSummary[] = withMilestoneScores(raw.episodes, record);
  const scores = episodes.map((e) => e.score).filter((s): s is number => s !== null);
  const meta: RunMeta = {
    ...raw,
    episodes,
    mean: scores.length ? round2(mean(scores)) : null,
    std: scores.length ? round2(std(scores)) : null,
    milestones: { ...record },
  };
  writeFileAtomic(path.join(dir, 'run.json'), JSON.stringify(meta, null, 2));
  return meta;
}
