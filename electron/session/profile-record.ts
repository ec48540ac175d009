/**
 * What run.json says of the profile a run or a human session followed: its identity and
 * content hash, taxonomy, setup, the prompt parts the model was given and how it is scored.
 * Kept whole in the run folder, so a later edit of the profile cannot change what an old
 * score meant (the report flags a title whose runs followed different versions).
 */
import { profileIdentity, type ProfileEntry } from '../profiles/registry.ts';
import { scoringRecord } from '../scoring/normalise.ts';

export function profileRecord(e: ProfileEntry): Record<string, unknown> {
  const p = e.profile;
  return {
    ...profileIdentity(e),
    agent: p.episode.agent,
    ...(p.setup ? { setup: p.setup } : {}),
    prompt: p.prompt,
    scoring: scoringRecord(p),
  };
}
