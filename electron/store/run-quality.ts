/**
 * What every table may pool of a run, and how far its record can be trusted (issue 37): a run
 * that ended `failed` is listed apart with its error, an episode marked `invalid` with its
 * reason, and neither is ever pooled. The quality figures of several runs pool as sums of their
 * steps (a rate of the sums, not a mean of rates); a run without `quality` (made before it) adds
 * nothing to them, so a row of such runs has no rate ("n/a").
 */
import { round2, type FailedRun, type InvalidEpisode } from '../domain.ts';
import { mean, std } from '../util/time.ts';
import type { EpisodeSummary, RunMeta, RunQuality } from './run-store.ts';
import { titleOf } from './run-title.ts';

/** An episode that counts: it has a score and is not marked invalid. */
export const isCountedEpisode = (e: EpisodeSummary): e is EpisodeSummary & { score: number } =>
  typeof e.score === 'number' && e.invalid === undefined;

/**
 * A trial whose score could not be read (a screen reading or a milestone judging that gave
 * nothing) in a run that was scored: it counts as 0, flagged — never dropped, or a run that read
 * few of its scores would look better than one that read them all (the paper's Random is 0.0
 * where it scored nothing). Not an invalid episode (the model never answered: a harness failure,
 * listed apart), and not an episode of a run nothing scored (no scorer, or judging not done yet).
 */
export function isUnreadableEpisode(e: EpisodeSummary, meta: RunMeta): boolean {
  return e.score === null && e.invalid === undefined && wasScored(meta);
}

/** Some score was read or judged in the run: a judged milestone record, a screen reading, or a score. */
const wasScored = (meta: RunMeta) =>
  meta.milestones !== undefined || meta.episodes.some((e) => typeof e.score === 'number' || e.raw_score !== undefined);

export const isFailedRun = (meta: RunMeta) => meta.status === 'failed';

/** The sums a row's rates are made of, over the runs that record `quality`. */
export interface QualitySums {
  runs: number;
  steps: number;
  no_effect_steps: number;
  invalid_actions: number;
}

export const noQuality = (): QualitySums => ({ runs: 0, steps: 0, no_effect_steps: 0, invalid_actions: 0 });

export function addQuality(sums: QualitySums, q: RunQuality | undefined): void {
  if (!q) return;
  sums.runs++;
  sums.steps += q.steps;
  sums.no_effect_steps += q.no_effect_steps;
  sums.invalid_actions += q.invalid_actions;
}

/** A share (0–1, to four decimals) of a count; null with nothing to count. */
export const rate = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 1e4) / 1e4 : null);

/** The pooled rates (0–1; null when no run of the row records its steps) and how many runs they cover. */
export function pooledRates(s: QualitySums): {
  no_effect_rate: number | null;
  invalid_rate: number | null;
  quality_runs: number;
} {
  return {
    no_effect_rate: rate(s.no_effect_steps, s.steps),
    invalid_rate: rate(s.invalid_actions, s.steps),
    quality_runs: s.runs,
  };
}

/** The spread over reruns: the sample std of each run's mean (two runs or more), else null. */
export function runsSpread(perRun: number[][]): number | null {
  const means = perRun.filter((s) => s.length).map(mean);
  return means.length > 1 ? round2(std(means)) : null;
}

/** Every failed run among `runs`, oldest first, with the error its run.json gives. */
export function failedRuns(runs: { id: string; meta: RunMeta }[]): FailedRun[] {
  return runs
    .filter((r) => isFailedRun(r.meta))
    .map(({ id, meta }) => ({
      run: id,
      created: meta.created,
      game: titleOf(meta).id,
      player: meta.agent,
      model: meta.model,
      error: meta.error ?? null,
    }))
    .sort((a, b) => a.created.localeCompare(b.created) || a.run.localeCompare(b.run));
}

/** Every invalid episode of the runs that did not fail (a failed run is listed whole), with its reason. */
export function invalidEpisodes(runs: { id: string; meta: RunMeta }[]): InvalidEpisode[] {
  return runs
    .filter((r) => !isFailedRun(r.meta))
    .flatMap(({ id, meta }) =>
      meta.episodes.flatMap((e) =>
        e.invalid === undefined
          ? []
          : [
              {
                run: id,
                game: titleOf(meta).id,
                player: meta.agent,
                model: meta.model,
                episode: e.episode,
                score: e.score,
                reason: e.invalid,
              },
            ],
      ),
    )
    .sort((a, b) => a.run.localeCompare(b.run) || a.episode - b.episode);
}

/** The lines a listing prints under its table for what it left out (episodes counted from 1, as the replay shows them). */
export function leftOutLines(failed: FailedRun[], invalid: InvalidEpisode[]): string[] {
  const who = (x: { game: string; player: string; model: string | null }) =>
    `${x.game}, ${x.player}${x.model ? ` (${x.model})` : ''}`;
  return [
    ...failed.map((f) => `failed run ${f.run} (${who(f)}): ${f.error ?? 'no error recorded'}`),
    ...invalid.map(
      (e) =>
        `invalid episode ${e.episode + 1} of ${e.run} (${who(e)}; the game said ${e.score ?? 'no score'}): ${e.reason}`,
    ),
  ];
}
