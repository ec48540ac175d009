/**
 * One episode's milestone checklist: which milestones are reached, at which step and frame, and
 * why. Claims from a judge are checked here before anything is ticked: the milestone must be
 * one still open, the step one whose frame the judge was shown, and — for a linear title — the
 * milestones before it in its level must already be reached, at or before that step.
 */
import { milestoneList, milestoneScore, type MilestoneEntry } from './normalise.ts';
import type { MilestoneScoring } from '../profiles/profile-schema.ts';
import { round2, type MilestoneItem } from '../domain.ts';

/** A milestone with the name a judge and a person use for it (unique within the list). */
export interface ChecklistItem extends MilestoneEntry {
  name: string;
}

export interface Reached {
  step: number;
  /** The frame that proves it, relative to the run folder. */
  frame: string;
  reason: string;
  /** The judge call (1-based) that confirmed it. */
  call: number;
}

/** A claim as a judge makes it. */
export interface Claim {
  milestone: string;
  step: number;
  reason: string;
}

export interface Refusal {
  milestone: string;
  step: number | null;
  why: string;
}

/** The items of a profile's list, named uniquely: a title that occurs in two levels is "Level: Title". */
export function checklistItems(spec: MilestoneScoring): ChecklistItem[] {
  const list = milestoneList(spec);
  const count = new Map<string, number>();
  for (const m of list) count.set(m.title.toLowerCase(), (count.get(m.title.toLowerCase()) ?? 0) + 1);
  return list.map((m) => ({
    ...m,
    name: (count.get(m.title.toLowerCase()) ?? 0) > 1 && m.level ? `${m.level}: ${m.title}` : m.title,
  }));
}

const norm = (s: string) => s.trim().toLowerCase().replace(/\s+/g, ' ');

export class Checklist {
  readonly reached = new Map<number, Reached>();

  constructor(
    readonly items: ChecklistItem[],
    readonly linear: boolean,
  ) {}

  /** Indexes of the milestones not reached yet, in list order. */
  open(): number[] {
    return this.items.map((_, i) => i).filter((i) => !this.reached.has(i));
  }

  /** The item a judge means: its unique name, else a title that fits exactly one open item. */
  find(name: string): number | undefined {
    const n = norm(name);
    const exact = this.items.findIndex((m) => norm(m.name) === n);
    if (exact >= 0) return exact;
    const byTitle = this.open().filter((i) => norm(this.items[i]!.title) === n);
    return byTitle[0];
  }

  /**
   * Checks every claim and ticks the ones that hold. `shown` maps each step the judge saw to its
   * frame. Claims are taken in list order, so one answer may tick several milestones of a level.
   */
  apply(claims: Claim[], shown: Map<number, string>, call: number): { accepted: string[]; refused: Refusal[] } {
    const refused: Refusal[] = [];
    const accepted: string[] = [];
    const known: { index: number; claim: Claim }[] = [];
    for (const c of claims) {
      const index = this.find(c.milestone);
      if (index === undefined) refused.push({ milestone: c.milestone, step: c.step, why: 'no such milestone' });
      else known.push({ index, claim: c });
    }
    known.sort((a, b) => a.index - b.index || a.claim.step - b.claim.step);
    for (const { index, claim } of known) {
      const item = this.items[index]!;
      const why = this.refusal(index, claim, shown);
      if (why) {
        refused.push({ milestone: item.name, step: claim.step, why });
        continue;
      }
      this.reached.set(index, { step: claim.step, frame: shown.get(claim.step)!, reason: claim.reason, call });
      accepted.push(item.name);
    }
    return { accepted, refused };
  }

  private refusal(index: number, claim: Claim, shown: Map<number, string>): string | undefined {
    const prior = this.reached.get(index);
    if (prior) return prior.step === claim.step ? 'already reached' : `already reached at step ${prior.step}`;
    if (!shown.has(claim.step))
      return `step ${claim.step} is not a step whose frame was shown (shown: ${[...shown.keys()].join(', ') || 'none'})`;
    if (!this.linear) return undefined;
    const item = this.items[index]!;
    for (let i = index - 1; i >= 0; i--) {
      const before = this.items[i]!;
      if (before.level !== item.level) break;
      const r = this.reached.get(i);
      if (!r) return `out of order: "${before.name}" comes first and is not reached`;
      if (r.step > claim.step) return `out of order: "${before.name}" was reached later, at step ${r.step}`;
    }
    return undefined;
  }

  /** reached / total × 100, every level pooled; and each level's own count. */
  score(spec: MilestoneScoring): {
    reached: number;
    total: number;
    score: number;
    levels?: { name: string; reached: number; total: number }[];
  } {
    const reached = this.reached.size;
    const levels = spec.levels?.map((l) => {
      const idx = this.items.map((m, i) => (m.level === l.name ? i : -1)).filter((i) => i >= 0);
      return { name: l.name, reached: idx.filter((i) => this.reached.has(i)).length, total: idx.length };
    });
    return {
      reached,
      total: this.items.length,
      score: round2(milestoneScore(spec, reached)),
      ...(levels ? { levels } : {}),
    };
  }

  /** The checklist as run.json and the live view show it. */
  view(): ChecklistView[] {
    return this.items.map((m, i) => {
      const r = this.reached.get(i);
      return {
        name: m.name,
        ...(m.level ? { level: m.level } : {}),
        ...(m.description ? { description: m.description } : {}),
        reached: !!r,
        ...(r ? { step: r.step, frame: r.frame, reason: r.reason, call: r.call } : {}),
      };
    });
  }
}

/** An item as the live view shows it, and the judge call that reached it. */
export interface ChecklistView extends MilestoneItem {
  call?: number;
}
