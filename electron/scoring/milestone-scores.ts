/**
 * Episodes scored by their milestone checklist: what the live judge (session/live-judge.ts)
 * and the judging of a finished run (judge-run.ts) both write into run.json.
 */
import type { MilestoneRecord } from './milestone-judging.ts';
import type { EpisodeSummary } from '../store/run-store.ts';

/** Each episode scored by its checklist (an episode the judge never saw keeps its score). */
export function withMilestoneScores(episodes: EpisodeSummary[], record: MilestoneRecord): EpisodeSummary[] {
  return episodes.map((e) => {
    const judged = record.episodes.find((x) => x.episode === e.episode);
    return judged ? { ...e, score: judged.score } : e;
  });
}
