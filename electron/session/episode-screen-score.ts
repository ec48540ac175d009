/**
 * A window's episode score read off its screen (a profile's `screen` scoring): the final state's
 * frame read once more, combined with the readings taken during the episode.
 */
import type { EncodedFrame } from '../capture/encode.ts';
import type { ScreenScoreReader } from '../scoring/screen-reader.ts';

export interface EpisodeScreenScore {
  /** The number read (before normalising). */
  value: number | null;
  score: number | null;
  readings: unknown[];
}

/**
 * `frame`: the window as the episode ended (or the last frame the agent saw), looked at only when
 * there is a scorer; a reading that failed is said as a warning with its step. Undefined without a scorer.
 */
export async function readEpisodeScore(
  scorer: ScreenScoreReader | undefined,
  o: {
    frame: () => Promise<EncodedFrame | undefined>;
    steps: number;
    signal: AbortSignal;
    warn: (message: string) => void;
  },
): Promise<EpisodeScreenScore | undefined> {
  if (!scorer) return undefined;
  const frame = await o.frame();
  if (frame && !o.signal.aborted) await scorer.read(frame, o.steps, o.signal);
  const r = scorer.result();
  for (const l of scorer.log) if (l.error) o.warn(`screen score after step ${l.step}: ${l.error}`);
  return { ...r, readings: [...scorer.log] };
}
