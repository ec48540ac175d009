/**
 * One row of a training dataset per decision: the frame the player saw and what it did. An agent
 * run gives a row per recorded step that kept its frame; a person's session a row per input event
 * (in the agent's action schema), with the last frame captured before it. Only what a dataset
 * may hold goes in: no settings (an endpoint, a key), and of a person only the pseudonym and the
 * consent the session recorded.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { readRun, type RunMeta } from '../store/run-store.ts';
import { readSession } from '../store/session-files.ts';
import { titleOf } from '../store/run-title.ts';
import { resolveRunFile } from '../store/run-files.ts';

/** A row before its split and image path are known. */
export interface DatasetRow {
  run_id: string;
  episode: number;
  step: number;
  /** The title's id (a built-in game, a profile, or `window:<title>`) and name. */
  game: string;
  title: string;
  /** Who acted: `agent` or `human` (a person's session, or a person who took over an agent's run). */
  actor: 'agent' | 'human';
  /** The run had a takeover (session/takeover.ts). */
  assisted: boolean;
  /** The player as the leaderboard names it: `vlm`, `mcp:claude-code`, `human-expert`, … */
  player: string;
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

/** A row and the frame file it shows (absolute path in the run folder). */
export interface SourceRow {
  row: DatasetRow;
  frame: string;
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

export function rowsOf(dir: string, meta: RunMeta): RunRows {
  return meta.kind === 'human' ? sessionRows(dir, meta) : runRows(dir, meta);
}

function common(meta: RunMeta) {
  const title = titleOf(meta);
  return { game: title.id, title: title.name, model: meta.model, action_space: meta.action_space };
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

function runRows(dir: string, meta: RunMeta): RunRows {
  const { steps, problems } = readRun(dir);
  const rows: SourceRow[] = [];
  let withoutFrame = 0;
  for (const s of steps) {
    const frame = frameFile(dir, s.frame);
    if (!frame) {
      withoutFrame++;
      continue;
    }
    rows.push({
      frame,
      row: {
        run_id: path.basename(dir),
        episode: s.episode,
        step: s.step,
        ...common(meta),
        actor: s.actor === 'human' ? 'human' : 'agent',
        assisted: !!meta.assisted,
        player: meta.agent,
        actions: JSON.stringify(s.actions),
        reasoning: s.reasoning ?? '',
        outcomes: JSON.stringify(s.outcomes ?? []),
        step_score: typeof s.score === 'number' ? s.score : null,
        ...episodeOf(meta, s.episode),
        participant: null,
        role: null,
        consent: null,
        t_capture: s.t_capture,
        width: s.frame_size?.width ?? null,
        height: s.frame_size?.height ?? null,
      },
    });
  }
  return { rows, withoutFrame, problems };
}

function sessionRows(dir: string, meta: RunMeta): RunRows {
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
      row: {
        run_id: path.basename(dir),
        episode: 0,
        step: i,
        ...common(meta),
        actor: 'human',
        assisted: false,
        player: meta.agent,
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
