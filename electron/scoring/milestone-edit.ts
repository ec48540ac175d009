/**
 * A profile's milestone list as an editor sees it — one flat list in order, each item with its
 * level when the title has levels — and back: the edited list becomes the profile's scoring,
 * grouped by level in the order the levels first appear. Names must stay unique within a level
 * (the judge and a person's labels name milestones by them); evidence frames can only be kept,
 * never pointed elsewhere.
 */
import { CodedError } from '../domain.ts';
import { milestoneList } from './normalise.ts';
import type { Profile } from '../profiles/profile-schema.ts';

export interface MilestoneEditEntry {
  name: string;
  description: string;
  level?: string | undefined;
  t?: number | undefined;
  evidence?: string | undefined;
}

export interface MilestonesEditValue {
  linear: boolean;
  items: MilestoneEditEntry[];
}

/** The profile's list as the editor shows it; undefined unless it scores by milestones. */
export function milestonesEditOf(p: Profile): MilestonesEditValue | undefined {
  if (p.scoring.kind !== 'milestones') return undefined;
  return {
    linear: p.scoring.linear,
    items: milestoneList(p.scoring).map((m) => ({
      name: m.title,
      description: m.description ?? '',
      ...(m.level ? { level: m.level } : {}),
      ...(m.t !== undefined ? { t: m.t } : {}),
      ...(m.evidence ? { evidence: m.evidence } : {}),
    })),
  };
}

/** Evidence frames the profile names (the only ones an edited list may keep). */
export function evidenceOf(p: Profile): Set<string> {
  if (p.scoring.kind !== 'milestones') return new Set();
  return new Set(milestoneList(p.scoring).flatMap((m) => (m.evidence ? [m.evidence] : [])));
}

/**
 * The profile's scoring with the edited list in place. A profile scored `none` becomes
 * milestone-scored; one with a score of its own (intrinsic, screen) is refused.
 */
export function applyMilestonesEdit(p: Profile, edit: MilestonesEditValue): Profile['scoring'] {
  const s = p.scoring;
  if (s.kind !== 'milestones' && s.kind !== 'none')
    throw new CodedError(
      'bad-input',
      `the profile was not saved: "${p.id}" scores by ${s.kind}, not by milestones; a milestone list is for titles without a score of their own`,
    );
  const withLevel = edit.items.filter((m) => m.level !== undefined).length;
  if (withLevel !== 0 && withLevel !== edit.items.length)
    throw new CodedError(
      'bad-input',
      'the profile was not saved: either every milestone has a level or none has (this list mixes both)',
    );
  const known = evidenceOf(p);
  const seen = new Set<string>();
  for (const [i, m] of edit.items.entries()) {
    const key = `${m.level ?? ''}\u0000${m.name.trim().toLowerCase()}`;
    if (seen.has(key))
      throw new CodedError(
        'bad-input',
        `the profile was not saved: milestone ${i + 1} "${m.name}" is named twice${m.level ? ` in ${m.level}` : ''}; names must be unique`,
      );
    seen.add(key);
    if (m.evidence !== undefined && !known.has(m.evidence))
      throw new CodedError(
        'bad-input',
        `the profile was not saved: milestone ${i + 1} "${m.name}" names evidence ${JSON.stringify(m.evidence)}, which is not one of the profile's evidence frames`,
      );
  }
  const entry = (m: MilestoneEditEntry) =>
    m.description || m.t !== undefined || m.evidence
      ? {
          title: m.name,
          ...(m.description ? { description: m.description } : {}),
          ...(m.t !== undefined ? { t: m.t } : {}),
          ...(m.evidence ? { evidence: m.evidence } : {}),
        }
      : m.name;
  const formula = `milestones reached / ${edit.items.length} × 100`;
  if (withLevel === 0) return { kind: 'milestones', linear: edit.linear, milestones: edit.items.map(entry), formula };
  const levels = new Map<string, ReturnType<typeof entry>[]>();
  for (const m of edit.items) levels.set(m.level!, [...(levels.get(m.level!) ?? []), entry(m)]);
  return {
    kind: 'milestones',
    linear: edit.linear,
    levels: [...levels].map(([name, milestones]) => ({ name, milestones })),
    formula: `${formula}, ${levels.size} levels pooled`,
  };
}
