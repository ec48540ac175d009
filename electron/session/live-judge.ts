/**
 * The milestone judge beside a running session: it takes each recorded step's frame as the
 * session emits it, judges in the background (the loop never waits for it), reports the
 * checklist through the session as it changes, and — awaited before run.json is final — gives
 * each episode its score (reached / total × 100) and run.json its `milestones` record.
 */
import path from 'node:path';
import type { Profile } from '../profiles/profile-schema.ts';
import type { Session } from './session.ts';
import type { JudgeModel } from '../scoring/json-ask.ts';
import { MilestoneJudging, type JudgingOptions } from '../scoring/milestone-judging.ts';
import { withMilestoneScores } from '../scoring/milestone-scores.ts';

export function attachLiveJudge(
  session: Session,
  profile: Profile,
  model: JudgeModel,
  opts: JudgingOptions,
): MilestoneJudging {
  const judging = new MilestoneJudging(profile, model, opts, (p) => session.reportMilestones(p), true);
  const dir = session.store.dir;
  session.on('step', (rec) => {
    if (rec.frame)
      judging.observe({ episode: rec.episode, step: rec.step, frame: rec.frame, file: path.join(dir, rec.frame) });
  });
  session.on('episode', (e) => judging.endEpisode(e.episode));
  session.beforeClose(async (stopped, episodes) => {
    const record = await judging.finish({ abandon: stopped });
    return { episodes: withMilestoneScores(episodes, record), patch: { milestones: { ...record } } };
  });
  return judging;
}
