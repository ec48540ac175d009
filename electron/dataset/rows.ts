/**
 * One row of a training dataset per decision: the frame the player saw and what it did. An agent
 * run (an ING-VP suite's level run too) gives a row per recorded step that kept its frame; a
 * two-seat match a row per seat that acted in a step, each with that seat's player, actions and
 * score; a person's session a row per input event (in the agent's action schema), with the last
 * frame captured before it. Only what a dataset may hold goes in: no settings (an endpoint, a
 * key), and of a person only the pseudonym and the consent the session recorded.
 */
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { readRun, type RunMeta, type StepRecord } from '../store/run-store.ts';
import { firstIssue } from '../store/json-rows.ts';
import { readSession } from '../store/session-files.ts';
import { titleOf } from '../store/run-title.ts';
import { resolveRunFile } from '../store/run-files.ts';
import { originOf, type Origin } from './walk.ts';

/** A row before its split and image path are known. */
export interface DatasetRow {
  run_id: string;
  /** What the run is: a plain `run`, a person's `session`, an ING-VP `suite` level, an `arena` match (two seats). */
  origin: Origin;
  episode: number;
  step: number;
  /** The title's id (a built-in game, a profile, or `window:<title>`) and name. */
  game: string;
  title: string;
  /** Who acted: `agent` or `human` (a person's session, or a person who took over an agent's run). */
  actor: 'agent' | 'human';
  /** The run had a takeover (session/takeover.ts). */
  assisted: boolean;
  /** The player as the leaderboard names it: `vlm`, `mcp:claude-code`, `human-expert`, … (a match: the seat's). */
  player: string;
  /** A two-seat match: the seat that decided (0 is player 1), its name in the game, and the other seat's player. */
  seat: number | null;
  seat_name: string | null;
  other_player: string | null;
  /** An ING-VP suite's level run: the level (its setting is in `action_space`, `ingvp:<setting>`). */
  level: number | null;
  model: string | null;
  action_space: string;
  /** The actions as JSON text (each `{"action_type", "parameters"}` or a semantic move). */
  actions: string;
  /** The player's reasoning for the step ('' when it gives none). */
  reasoning: string;
  /** Each action's outcome as JSON text (agent runs; '[]' for a person's events). */
  outcomes: string;
  /** The score after the step where the run records one (0–100), else null. */
  step_score: number | null;
  /** The episode's score (0–100) and how it ended. */
  episode_score: number | null;
  episode_end: string;
  /** A person's session: pseudonym, role, and the consent it was recorded with. */
  participant: string | null;
  role: string | null;
  consent: boolean | null;
  /** Milliseconds since the epoch when the frame was captured. */
  t_capture: number;
  width: number | null;
  height: number | null;
}

/** A row, the frame file it shows (absolute path in the run folder), and its image's name in the dataset (no extension). */
export interface SourceRow {
  row: DatasetRow;
  frame: string;
  image: string;
}

/**
 * The rows of one run or session folder, how many decisions had no frame to show, and the
 * lines of its files that could not be read (each names its file and line).
 */
export interface RunRows {
  rows: SourceRow[];
  withoutFrame: number;
  problems: string[];
}

/** The rows of the run folder `dir`, named `id` in the dataset (its path under the source folder). */
export function rowsOf(id: string, dir: string, meta: RunMeta): RunRows {
  return meta.kind === 'human' ? sessionRows(id, dir, meta) : runRows(id, dir, meta);
}

function common(id: string, meta: RunMeta) {
  const title = titleOf(meta);
  const level = meta.config.level;
  const origin = originOf(meta);
  return {
    run_id: id,
    origin,
    game: title.id,
    title: title.name,
    model: meta.model,
    action_space: meta.action_space,
    level: origin === 'suite' && typeof level === 'number' ? level : null,
  };
}

function episodeOf(meta: RunMeta, episode: number) {
  const e = meta.episodes.find((x) => x.episode === episode);
  return { episode_score: e?.score ?? null, episode_end: e?.end ?? 'unfinished' };
}

function frameFile(dir: string, rel: string | null | undefined): string | undefined {
  if (!rel) return undefined;
  try {
    const file = resolveRunFile(dir, rel); // inside the run folder only
    return existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

/** One seat's part of a two-seat step, as seated-session.ts records it in the step's `seats`. */
const SeatTurnSchema = z.looseObject({
  seat: z.number().int().min(0).max(1),
  agent: z.string(),
  reasoning: z.string(),
  actions: z.array(z.unknown()),
  outcomes: z.array(z.unknown()).optional(),
});

function runRows(id: string, dir: string, meta: RunMeta): RunRows {
  const { steps, problems } = readRun(dir);
  const rows: SourceRow[] = [];
  let withoutFrame = 0;
  const base = common(id, meta);
  const seated = !!meta.seats?.length;
  for (const s of steps) {
    const frame = frameFile(dir, s.frame);
    const turns = seated ? seatTurns(s, problems) : [];
    if (!frame) {
      withoutFrame += seated ? turns.length : 1;
      continue;
    }
    const shared = {
      ...base,
      episode: s.episode,
      step: s.step,
      assisted: !!meta.assisted,
      ...episodeOf(meta, s.episode),
      participant: null,
      role: null,
      consent: null,
      t_capture: s.t_capture,
      width: s.frame_size?.width ?? null,
      height: s.frame_size?.height ?? null,
    };
    if (!seated) {
      rows.push({
        frame,
        image: `${s.episode}-${s.step}`,
        row: {
          ...shared,
          actor: s.actor === 'human' ? 'human' : 'agent',
          player: meta.agent,
          seat: null,
          seat_name: null,
          other_player: null,
          actions: JSON.stringify(s.actions),
          reasoning: s.reasoning ?? '',
          outcomes: JSON.stringify(s.outcomes ?? []),
          step_score: typeof s.score === 'number' ? s.score : null,
        },
      });
      continue;
    }
    // A match: a row per seat that decided on this frame, with that seat's part and score.
    const episode = meta.episodes.find((e) => e.episode === s.episode);
    const stepScores = Array.isArray(s.seat_scores) ? (s.seat_scores as unknown[]) : [];
    for (const t of turns) {
      const seat = meta.seats!.find((x) => x.seat === t.seat);
      const other = meta.seats!.find((x) => x.seat !== t.seat);
      const stepScore = stepScores[t.seat];
      rows.push({
        frame,
        image: `${s.episode}-${s.step}-seat${t.seat}`,
        row: {
          ...shared,
          actor: t.agent === 'human' ? 'human' : 'agent',
          player: t.agent,
          model: seat?.model ?? null,
          seat: t.seat,
          seat_name: seat?.name ?? null,
          other_player: other?.agent ?? null,
          actions: JSON.stringify(t.actions),
          reasoning: t.reasoning,
          outcomes: JSON.stringify(t.outcomes ?? []),
          step_score: typeof stepScore === 'number' ? stepScore : null,
          episode_score: episode?.seat_scores?.[t.seat] ?? null,
        },
      });
    }
  }
  return { rows, withoutFrame, problems };
}

/** A two-seat step's seats that decided; one that cannot be read is a problem named by step. */
function seatTurns(s: StepRecord, problems: string[]): z.output<typeof SeatTurnSchema>[] {
  const seats = z.array(SeatTurnSchema).safeParse(s.seats);
  if (seats.success) return seats.data;
  problems.push(`steps.jsonl: episode ${s.episode} step ${s.step}: seats ${firstIssue(seats.error)}`);
  return [];
}

function sessionRows(id: string, dir: string, meta: RunMeta): RunRows {
  const { session, frames, events, problems } = readSession(dir);
  const ordered = [...frames].sort((a, b) => a.t - b.t);
  const rows: SourceRow[] = [];
  let withoutFrame = 0;
  let f = -1;
  events.forEach((ev, i) => {
    while (f + 1 < ordered.length && ordered[f + 1]!.t <= ev.t) f++;
    const shown = f >= 0 ? ordered[f]! : undefined;
    const frame = frameFile(dir, shown?.file);
    if (!shown || !frame) {
      withoutFrame++;
      return;
    }
    rows.push({
      frame,
      image: `0-${i}`,
      row: {
        ...common(id, meta),
        episode: 0,
        step: i,
        actor: 'human',
        assisted: false,
        player: meta.agent,
        seat: null,
        seat_name: null,
        other_player: null,
        actions: JSON.stringify([{ action_type: ev.action_type, parameters: ev.parameters }]),
        reasoning: '',
        outcomes: '[]',
        step_score: null,
        ...episodeOf(meta, 0),
        participant: session.participant,
        role: session.role,
        consent: session.consent,
        t_capture: shown.t,
        width: null,
        height: null,
      },
    });
  });
  return { rows, withoutFrame, problems };
}
