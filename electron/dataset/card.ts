/**
 * The dataset card (README.md) of an export: Hugging Face's YAML header (splits, features), then
 * in words what a row is, every column, the action schema, what the export holds and what it
 * leaves out. The columns are listed from one table, so the card and the rows cannot drift.
 */
import type { DatasetRow } from './rows.ts';
import type { ExportOptions, ExportSummary } from './export.ts';
import type { Origin } from './walk.ts';

/** How the card counts the runs of each origin. */
const ORIGIN_NAMES: Record<Origin, [string, string]> = {
  run: ['plain run', 'plain runs'],
  session: ['person’s session', 'people’s sessions'],
  suite: ['ING-VP suite level', 'ING-VP suite levels'],
  arena: ['arena match', 'arena matches'],
};

type Dtype = 'string' | 'int64' | 'float64' | 'bool';

/** Every column of metadata.jsonl with its type (nullable where null is said) and meaning. */
export const COLUMNS: { name: keyof DatasetRow | 'file_name'; dtype: Dtype; nullable?: true; about: string }[] = [
  {
    name: 'file_name',
    dtype: 'string',
    about: 'the frame the player saw, relative to the split folder (the `image` column once loaded)',
  },
  {
    name: 'run_id',
    dtype: 'string',
    about: 'the run or session folder it comes from, as a path under the exported folder (`arena-duel/runs/<run>`)',
  },
  {
    name: 'origin',
    dtype: 'string',
    about:
      '`run` (a plain run), `session` (a person’s recording), `suite` (a level of an ING-VP suite), `arena` (a two-seat match)',
  },
  { name: 'episode', dtype: 'int64', about: 'episode in the run, from 0' },
  { name: 'step', dtype: 'int64', about: 'step in the episode (a person’s session: the input event’s index), from 0' },
  { name: 'game', dtype: 'string', about: 'the title’s id: a built-in game, a profile, or `window:<title>`' },
  { name: 'title', dtype: 'string', about: 'the title as people read it' },
  {
    name: 'actor',
    dtype: 'string',
    about: '`agent` or `human`: who acted (a person’s session, or a person who took over an agent’s run)',
  },
  {
    name: 'assisted',
    dtype: 'bool',
    about: 'the run had a takeover: a person played part of it (its scores are not the agent’s alone)',
  },
  {
    name: 'player',
    dtype: 'string',
    about:
      'the player as the leaderboard names it (`vlm`, `solver`, `mcp:<client>`, `human-expert`, …); a match: the seat’s player',
  },
  {
    name: 'seat',
    dtype: 'int64',
    nullable: true,
    about: 'a two-seat match: the seat that decided (0: player 1, 1: player 2); a row per seat that acted on the frame',
  },
  {
    name: 'seat_name',
    dtype: 'string',
    nullable: true,
    about: 'a two-seat match: the seat’s name in the game (`X`, …)',
  },
  {
    name: 'other_player',
    dtype: 'string',
    nullable: true,
    about: 'a two-seat match: the other seat’s player (the opponent in PvP, the partner in co-op)',
  },
  {
    name: 'level',
    dtype: 'int64',
    nullable: true,
    about: 'an ING-VP suite’s level run: the level played (the setting is in `action_space`: `ingvp:<setting>`)',
  },
  { name: 'model', dtype: 'string', nullable: true, about: 'the model of a model agent (a match: the seat’s)' },
  {
    name: 'action_space',
    dtype: 'string',
    about:
      '`gui` (keys and pointer), `semantic` (the game’s own moves), or `ingvp:<setting>` (an ING-VP level’s moves)',
  },
  { name: 'actions', dtype: 'string', about: 'the actions as JSON text: see the action schema below' },
  { name: 'reasoning', dtype: 'string', about: 'the player’s reasoning for the step (empty when it gave none)' },
  {
    name: 'outcomes',
    dtype: 'string',
    about: 'JSON text: one `{action, ok, error?, dropped?}` per action tried (empty list for a person)',
  },
  {
    name: 'step_score',
    dtype: 'float64',
    nullable: true,
    about: 'the score after the step (0–100) where the run records one; a match: the seat’s',
  },
  {
    name: 'episode_score',
    dtype: 'float64',
    nullable: true,
    about: 'the episode’s score (0–100), as run.json has it; a match: the seat’s (PvP 100 win, 50 draw, 0 loss)',
  },
  { name: 'episode_end', dtype: 'string', about: 'how the episode ended (`max_steps`, `game_over`, `stopped`, …)' },
  {
    name: 'participant',
    dtype: 'string',
    nullable: true,
    about: 'a person’s session: the pseudonym it was recorded under (never a name)',
  },
  { name: 'role', dtype: 'string', nullable: true, about: 'a person’s session: `rookie` or `expert`' },
  {
    name: 'consent',
    dtype: 'bool',
    nullable: true,
    about: 'a person’s session: the consent recorded with it (always true: no session is recorded without)',
  },
  { name: 't_capture', dtype: 'float64', about: 'when the frame was captured, ms since the epoch' },
  { name: 'width', dtype: 'int64', nullable: true, about: 'the frame’s width in pixels, where recorded' },
  { name: 'height', dtype: 'int64', nullable: true, about: 'the frame’s height in pixels, where recorded' },
];

export function datasetCard(s: ExportSummary, rows: DatasetRow[], o: ExportOptions): string {
  const players = [...new Set(rows.map((r) => r.player))].sort();
  const games = [...new Set(rows.map((r) => r.game))].sort();
  const origins = (Object.keys(ORIGIN_NAMES) as Origin[])
    .map((k) => `${s.origins[k]} ${ORIGIN_NAMES[k][s.origins[k] === 1 ? 0 : 1]}`)
    .join(', ');
  const features = COLUMNS.filter((c) => c.name !== 'file_name')
    .map((c) => `  - name: ${c.name}\n    dtype: ${c.dtype}`)
    .join('\n');
  return `---
task_categories:
- image-to-text
- reinforcement-learning
tags:
- gamepilot
- game-agents
dataset_info:
  features:
  - name: image
    dtype: image
${features}
  splits:
  - name: train
    num_examples: ${s.rows.train}
  - name: validation
    num_examples: ${s.rows.validation}
---

# Gamepilot trajectories

Exported by \`gamepilot export\` from ${s.runs} run(s): ${origins}. ${s.rows.train} train and
${s.rows.validation} validation rows. Titles: ${games.join(', ') || 'none'}. Players: ${players.join(', ') || 'none'}.

Load it with \`datasets.load_dataset("imagefolder", data_dir="<this folder>")\`: each split
folder holds its images and a \`metadata.jsonl\` whose \`file_name\` names each row's image.

## A row

One decision: the frame the player saw, and what it did then.
- **An agent run** (an ING-VP suite's level too): one row per recorded step that kept its frame.
- **A two-seat match** (an arena's, or \`run --seats\`): one row per seat that acted in a step, with that
  seat's player, actions, reasoning and score; both seats' rows show the same frame.
- **A person's session:** one row per input event, with the last frame captured before it.

Whole episodes go to one split. Which split is decided by a hash of the run, the episode and the
seed (${o.seed}), so that ${Math.round(o.validation * 100)}% of the episodes land in validation.

| column | type | what it is |
| --- | --- | --- |
| image (\`file_name\`) | image | ${COLUMNS[0]!.about} |
${COLUMNS.slice(1)
  .map((c) => `| ${c.name} | ${c.dtype}${c.nullable ? ' or null' : ''} | ${c.about} |`)
  .join('\n')}

## The action schema

\`actions\` is a JSON list.

**GUI space.** Each action is \`{"action_type": T, "parameters": {…}}\`, GameVerse's set:
- \`MOVE_TO {x, y}\`, \`MOVE_BY {dx, dy}\`;
- \`CLICK {x?, y?, button?, num_clicks?}\`, \`RIGHT_CLICK\`, \`DOUBLE_CLICK\`;
- \`MOUSE_DOWN\`, \`MOUSE_UP\`, \`DRAG_TO {x, y}\`, \`SCROLL {dx, dy}\`;
- \`TYPING {text}\`, \`PRESS {key, duration?}\`, \`KEY_DOWN {key}\`, \`KEY_UP {key}\`, \`HOTKEY {keys}\`;
- \`WAIT {duration}\`, \`DONE\`, \`FAIL\`.

An agent's coordinates are pixels of the frame it saw. A person's are window-relative pixels, and
the frame is the window.

**Semantic space.** Each action is the game's own move (\`"left"\`, \`"B3"\`) or a profile's call
(\`"shoot(angle=35, power=0.9)"\`).

**ING-VP space** (\`ingvp:<setting>\`, a suite level). Each action is a move in the puzzle's own
notation, as read from the model's answer (a one-step answer: the whole plan, a move each), or
\`undo N\` (back to the state after step N). Where no move could be read, the action is the
text that was read (empty when none was), its error in \`outcomes\`.

## What it holds, and what it leaves out

**Included:** completed runs, sessions, ING-VP suite levels and arena matches, except the web shell's
demo and suite levels played on the puzzle's text (no frame).${
    Object.keys(o.filter).length ? ` Filters: ${JSON.stringify(o.filter)}.` : ''
  }${s.skipped.length ? ` Left out: ${s.skipped.length} run(s), folder(s) or invalid episode(s), each with its reason in export.json's \`skipped\`.` : ''}${
    s.withoutFrame ? ` ${s.withoutFrame} decision(s) had no kept frame and are not rows.` : ''
  }

**Frames:** only the target window's, as the run captured them.

**Never exported:** run settings (endpoints, keys), the model's raw answers, and of a person
anything but the pseudonym, role and consent the session recorded.
`;
}
