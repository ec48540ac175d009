/**
 * Milestone judging of one run, fed step by step — live beside the play loop, or afterwards
 * from the run's files. Steps are judged in batches (every N steps, and whatever is left when an
 * episode ends) by one worker, so a slow judge never holds a step up: batches that pile up
 * while a call is out are merged into the next call (thinned to a frame budget). A budget of K
 * calls is never exceeded: live batches leave one call for each episode's end.
 */
import type { ChatCompletionContentPart } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { render } from '../agents/prompts.ts';
import type { MilestoneScoring, Profile } from '../profiles/profile-schema.ts';
import { toDataUrl } from './trajectory.ts';
import { mean, std } from '../util/time.ts';
import { round2, type MilestoneProgressView } from '../domain.ts';
import { Checklist, checklistItems, type ChecklistView, type Refusal } from './milestone-checklist.ts';
import { JsonAsker, type AskRecord, type JudgeModel } from './json-ask.ts';

/** A step's frame: where it is in the run folder (`frame`) and on disk (`file`). */
export interface StepFrame {
  episode: number;
  step: number;
  frame: string;
  file: string;
}

export interface JudgingOptions {
  /** A batch every this many steps (besides each episode's end). */
  everySteps: number;
  /** At most this many judge calls in all (retries included); undefined: no limit. */
  budget?: number | undefined;
  /** Frames in one call at most; a longer batch is thinned evenly, its last frame kept. */
  maxFrames: number;
  /** Long side of each frame sent (px). */
  maxSide: number;
  /** Episodes the run will have (for the calls kept back for episode ends). */
  episodes: number;
}

export const DEFAULT_JUDGING: Omit<JudgingOptions, 'episodes'> = { everySteps: 3, maxFrames: 8, maxSide: 768 };

/** The checklist of one episode as it stands, each item with the judge call that reached it. */
export interface MilestoneProgress extends MilestoneProgressView {
  items: ChecklistView[];
}

/** run.json's `milestones`. */
export interface MilestoneRecord {
  judge_model: string;
  live: boolean;
  every_steps: number;
  budget: number | null;
  linear: boolean;
  total: number;
  calls: number;
  tokens: { input: number; output: number };
  cost_usd: number | null;
  episodes: {
    episode: number;
    reached: number;
    total: number;
    score: number;
    levels?: { name: string; reached: number; total: number }[];
    items: ChecklistView[];
  }[];
  mean: number | null;
  std: number | null;
  refused: (Refusal & { episode: number; call: number })[];
  /** Batches that could not be judged: a malformed answer asked again and still unusable, a failed call, no budget. */
  skipped: { episode: number; steps: number[]; why: string }[];
  /** Frames left out of calls because a batch was longer than the frame budget. */
  unseen_frames: number;
  requests: AskRecord[];
  note?: string;
}

const ReachedSchema = z.object({
  reached: z
    .array(
      z.object({
        milestone: z.string().min(1).max(400),
        step: z.number().int().nonnegative(),
        reason: z.string().max(4000).default(''),
      }),
    )
    .max(500),
});

export class MilestoneJudging {
  private readonly spec: MilestoneScoring;
  private readonly lists = new Map<number, Checklist>();
  private readonly pending = new Map<number, StepFrame[]>();
  private readonly ended = new Set<number>();
  private readonly endJudged = new Set<number>();
  private readonly asker: JsonAsker;
  private readonly refused: MilestoneRecord['refused'] = [];
  private readonly skipped: MilestoneRecord['skipped'] = [];
  private unseen = 0;
  private worker: Promise<void> | undefined;
  private readonly abort = new AbortController();
  private abandoned = false;

  constructor(
    private readonly profile: Profile,
    model: JudgeModel,
    private readonly opts: JudgingOptions,
    private readonly onProgress: (p: MilestoneProgress) => void = () => {},
    private readonly live = true,
  ) {
    if (profile.scoring.kind !== 'milestones') throw new Error(`the profile "${profile.id}" is not milestone-scored`);
    this.spec = profile.scoring;
    this.asker = new JsonAsker(model, 'milestone-judge');
  }

  get calls(): number {
    return this.asker.totals.calls;
  }

  /** The episode's checklist (made when first asked for). */
  checklist(episode: number): Checklist {
    let c = this.lists.get(episode);
    if (!c) {
      c = new Checklist(checklistItems(this.spec), this.spec.linear);
      this.lists.set(episode, c);
    }
    return c;
  }

  /** A step was recorded: queue its frame; a batch starts once enough steps wait. */
  observe(s: StepFrame) {
    if (this.abandoned) return;
    const first = !this.lists.has(s.episode);
    this.checklist(s.episode);
    if (first) this.report(s.episode, false);
    const list = this.pending.get(s.episode) ?? [];
    list.push(s);
    this.pending.set(s.episode, list);
    this.kick();
  }

  /** The episode ended: what is left of it is judged next. */
  endEpisode(episode: number) {
    if (this.abandoned) return;
    this.checklist(episode);
    this.ended.add(episode);
    this.kick();
  }

  /** Resolves once no batch is being judged (judging afterwards feeds one batch at a time). */
  async idle() {
    while (this.worker) await this.worker;
  }

  /** Waits for every queued batch (or, abandoned, stops the call that is out) and returns run.json's record. */
  async finish(opts: { abandon?: boolean } = {}): Promise<MilestoneRecord> {
    if (opts.abandon) {
      this.abandoned = true;
      this.abort.abort();
    }
    while (this.worker) await this.worker;
    return this.record(
      opts.abandon ? 'judging stopped with the run; judge it again with `gamepilot milestones judge`' : undefined,
    );
  }

  private kick() {
    if (this.worker || this.abandoned || !this.nextBatch()) return;
    this.worker = this.drain().finally(() => {
      this.worker = undefined;
      if (this.nextBatch()) this.kick();
    });
  }

  /** The earliest episode with a batch due: enough steps waiting, or the episode ended. */
  private nextBatch(): { episode: number; end: boolean } | undefined {
    const episodes = [...new Set([...this.pending.keys(), ...this.ended])].sort((a, b) => a - b);
    for (const e of episodes) {
      const waiting = this.pending.get(e)?.length ?? 0;
      if (this.ended.has(e) && !this.endJudged.has(e)) return { episode: e, end: true };
      if (waiting >= this.opts.everySteps && this.withinBudget(e, false)) return { episode: e, end: false };
    }
    return undefined;
  }

  private async drain() {
    for (let b = this.nextBatch(); b && !this.abandoned; b = this.nextBatch()) await this.judge(b.episode, b.end);
  }

  /** Calls that must stay free for the ends of episodes other than this batch's own end. */
  private reserved(episode: number, end: boolean): number {
    let n = 0;
    for (let e = 0; e < Math.max(this.opts.episodes, episode + 1); e++)
      if (!this.endJudged.has(e) && !(end && e === episode)) n++;
    return n;
  }

  /** Whether a call for this batch leaves enough for the episode ends still to come. */
  private withinBudget(episode: number, end: boolean): boolean {
    const budget = this.opts.budget;
    return budget === undefined || this.asker.totals.calls + this.reserved(episode, end) < budget;
  }

  private async judge(episode: number, end: boolean) {
    const batch = this.pending.get(episode) ?? [];
    this.pending.set(episode, []);
    if (end) this.endJudged.add(episode);
    const list = this.checklist(episode);
    if (!batch.length || !list.open().length) {
      if (end) this.report(episode, true);
      return;
    }
    const mayCall = () => this.withinBudget(episode, end);
    if (!mayCall()) {
      if (!end)
        this.pending.set(episode, [...batch, ...(this.pending.get(episode) ?? [])]); // judged at the episode's end
      else {
        this.skip(episode, batch, 'no judge calls left in the budget');
        this.report(episode, true);
      }
      return;
    }
    const shown = thin(batch, this.opts.maxFrames);
    this.unseen += batch.length - shown.length;
    const content = await this.content(list, shown);
    const out = await this.asker.ask(content, ReachedSchema, mayCall, this.abort.signal);
    if (this.abandoned) return;
    if (!out.ok) this.skip(episode, shown, out.retried ? `${out.error} (asked again once)` : out.error);
    else {
      const frames = new Map(shown.map((s) => [s.step, s.frame]));
      const { refused } = list.apply(out.value.reached, frames, this.asker.totals.calls);
      for (const r of refused) this.refused.push({ ...r, episode, call: this.asker.totals.calls });
    }
    this.report(episode, end);
  }

  private skip(episode: number, frames: StepFrame[], why: string) {
    this.skipped.push({ episode, steps: frames.map((f) => f.step), why });
  }

  private async content(list: Checklist, frames: StepFrame[]): Promise<ChatCompletionContentPart[]> {
    const open = list.open().map((i) => list.items[i]!);
    const text = render('milestone-judge', {
      game_title: this.profile.title,
      task: this.profile.prompt.task ?? '',
      order: this.spec.linear
        ? 'The milestones happen in the order listed (within each level): a later one cannot come before an earlier one.'
        : 'The milestones may happen in any order.',
      milestones: open
        .map(
          (m) =>
            `- ${m.name}${m.level && !m.name.startsWith(m.level) ? ` (${m.level})` : ''}${m.description ? `: ${m.description}` : ''}`,
        )
        .join('\n'),
    });
    const parts: ChatCompletionContentPart[] = [{ type: 'text', text }];
    for (const f of frames) {
      parts.push({ type: 'text', text: `step ${f.step}` });
      parts.push({ type: 'image_url', image_url: { url: await toDataUrl(f.file, this.opts.maxSide), detail: 'low' } });
    }
    return parts;
  }

  private report(episode: number, final: boolean) {
    const list = this.checklist(episode);
    const s = list.score(this.spec);
    this.onProgress({
      episode,
      items: list.view(),
      reached: s.reached,
      total: s.total,
      score: s.score,
      calls: this.asker.totals.calls,
      budget: this.opts.budget ?? null,
      final,
    });
  }

  private record(note?: string): MilestoneRecord {
    const episodes = [...this.lists.keys()]
      .sort((a, b) => a - b)
      .map((e) => {
        const list = this.lists.get(e)!;
        return { episode: e, ...list.score(this.spec), items: list.view() };
      });
    const scores = episodes.map((e) => e.score);
    const t = this.asker.totals;
    return {
      judge_model: this.asker.settings.model,
      live: this.live,
      every_steps: this.opts.everySteps,
      budget: this.opts.budget ?? null,
      linear: this.spec.linear,
      total: checklistItems(this.spec).length,
      calls: t.calls,
      tokens: { ...t.tokens },
      cost_usd: t.cost_usd,
      episodes,
      mean: scores.length ? round2(mean(scores)) : null,
      std: scores.length ? round2(std(scores)) : null,
      refused: this.refused,
      skipped: this.skipped,
      unseen_frames: this.unseen,
      requests: this.asker.log,
      ...(note ? { note } : {}),
    };
  }
}

/** At most `max` items, evenly spread, the last one always kept. */
export function thin<T>(items: T[], max: number): T[] {
  if (items.length <= max) return items;
  if (max === 1) return [items.at(-1)!];
  return Array.from({ length: max }, (_, i) => items[Math.round((i * (items.length - 1)) / (max - 1))]!);
}
