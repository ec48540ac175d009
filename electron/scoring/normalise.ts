/**
 * The papers' normalisations to 0–100, as profiles declare them: a number read off the screen
 * through a normaliser (Angry Birds: points / 133000 × 100), and milestones reached / total × 100.
 */
import type { MilestoneScoring, Profile, ScreenScoring } from '../profiles/profile-schema.ts';

/** A normaliser as a profile declares it (its defaults filled in or not). */
type Normaliser = Pick<ScreenScoring['normaliser'], 'divisor'> & Partial<ScreenScoring['normaliser']>;

/** (value − offset) / divisor × multiplier, clipped to 0–100 unless the normaliser says not to. */
export function normalise(value: number, n: Normaliser): number {
  const score = ((value - (n.offset ?? 0)) / n.divisor) * (n.multiplier ?? 100);
  return n.clip === false ? score : Math.min(100, Math.max(0, score));
}

/** `normalise` in words, naming the number it is applied to: "score = points / 133000 × 100, clipped to 0–100". */
export function normaliserText(n: Normaliser, number: string): string {
  const offset = n.offset ?? 0;
  const value = offset === 0 ? number : `(${number} ${offset > 0 ? '−' : '+'} ${Math.abs(offset)})`;
  return `score = ${value} / ${n.divisor} × ${n.multiplier ?? 100}${n.clip === false ? '' : ', clipped to 0–100'}`;
}

/** What a screen-scored episode's number is, as its readings combine. */
const COMBINED: Record<ScreenScoring['combine'], string> = {
  last: 'the number read last',
  max: 'the highest number read',
  'sum-levels': 'the sum of each level’s highest number read',
};

/**
 * A profile's score formula in words, from the declaration the scorers compute with; null where
 * the game's engine says it step by step (a built-in's `scoring()`) or nothing scores.
 */
export function profileFormula(s: Profile['scoring']): string | null {
  if (s.kind === 'screen') return normaliserText(s.normaliser, COMBINED[s.combine]);
  if (s.kind === 'milestones') return `score = milestones reached / ${milestoneList(s).length} × 100`;
  return null;
}

/** One milestone as scoring sees it: the profile's entry, with its level when the title has levels. */
export interface MilestoneEntry {
  title: string;
  description?: string;
  level?: string;
  /** Seconds into the walkthrough it was extracted from, and its evidence frame (beside the profile). */
  t?: number;
  evidence?: string;
}

type MilestoneInput = NonNullable<MilestoneScoring['milestones']>[number];

/** Every milestone in order, each with the level it belongs to (flat lists have none). */
export function milestoneList(m: MilestoneScoring): MilestoneEntry[] {
  const item = (x: MilestoneInput, level?: string): MilestoneEntry => ({
    ...(typeof x === 'string'
      ? { title: x }
      : {
          title: x.title,
          ...(x.description ? { description: x.description } : {}),
          ...(x.t !== undefined ? { t: x.t } : {}),
          ...(x.evidence ? { evidence: x.evidence } : {}),
        }),
    ...(level ? { level } : {}),
  });
  if (m.levels) return m.levels.flatMap((l) => l.milestones.map((x) => item(x, l.name)));
  return (m.milestones ?? []).map((x) => item(x));
}

/** reached / total × 100, the milestones of every level pooled (GameVerse §3.3). */
export function milestoneScore(m: MilestoneScoring, reached: number): number {
  const total = milestoneList(m).length;
  if (!Number.isInteger(reached) || reached < 0 || reached > total)
    throw new RangeError(`milestones reached must be a whole number from 0 to ${total}, got ${reached}`);
  return (reached / total) * 100;
}

/** One reading of the screen: the number, and the level it belongs to when the title has levels. */
export interface ScreenReading {
  value: number;
  level?: string | null | undefined;
}

/** Combines an episode's readings as the profile says: the last, the highest, or the sum of each level's highest. */
export function combineReadings(readings: ScreenReading[], combine: ScreenScoring['combine']): number | null {
  if (!readings.length) return null;
  if (combine === 'last') return readings.at(-1)!.value;
  if (combine === 'max') return Math.max(...readings.map((r) => r.value));
  const best = new Map<string, number>();
  for (const r of readings) {
    const key = r.level ?? '';
    best.set(key, Math.max(best.get(key) ?? Number.NEGATIVE_INFINITY, r.value));
  }
  return [...best.values()].reduce((a, b) => a + b, 0);
}

/** What run.json says of a profile's scoring: its kind, formula and the numbers behind it. */
export function scoringRecord(p: Profile): Record<string, unknown> {
  const s = p.scoring;
  const formula = s.formula ? { formula: s.formula } : {};
  switch (s.kind) {
    case 'intrinsic':
      return { kind: s.kind, engine: s.engine, ...formula };
    case 'screen':
      return {
        kind: s.kind,
        read: s.read,
        reader: s.reader,
        ...(s.region ? { region: s.region } : {}),
        normaliser: s.normaliser,
        combine: s.combine,
        ...formula,
      };
    case 'milestones':
      return {
        kind: s.kind,
        linear: s.linear,
        total: milestoneList(s).length,
        ...(s.levels ? { levels: s.levels.map((l) => ({ name: l.name, count: l.milestones.length })) } : {}),
        milestones: milestoneList(s),
        ...formula,
      };
    case 'none':
      return { kind: s.kind, ...formula };
  }
}
