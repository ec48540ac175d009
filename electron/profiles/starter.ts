/**
 * A starter profile for a live window: what Gamepilot can see for itself (title, size,
 * executable, a first screenshot) filled in, and every part only a person can write marked
 * TODO — valid as it stands, so it loads and can be improved run by run.
 */
import { parseProfile } from './load.ts';

export interface StarterFacts {
  title: string;
  width: number;
  height: number;
  executable?: string | undefined;
  /** The first screenshot's file name, saved beside the profile. */
  screenshot?: string | undefined;
}

/** A profile id from a title: lower-case words joined by dashes. */
export function idFromTitle(title: string): string {
  const id = title
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return /^[a-z0-9]/.test(id) ? id : `game-${id || 'untitled'}`;
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const q = (s: string) => JSON.stringify(s); // a JSON string is a YAML string

/** The starter profile's YAML text (checked against the schema before it is returned). */
export function starterProfile(f: StarterFacts, id = idFromTitle(f.title)): string {
  const lines = [
    '# yaml-language-server: $schema=https://raw.githubusercontent.com/gamepilot/gamepilot/main/docs/profile.schema.json',
    `# Starter profile written by \`gamepilot profile new\` from the window ${q(f.title)} (${f.width}×${f.height}).`,
    f.screenshot ? `# Its first screenshot is ${f.screenshot}, beside this file.` : undefined,
    '# Replace every TODO with what the title needs; the format is in docs/profiles.md.',
    `id: ${q(id)}`,
    `title: ${q(f.title)}`,
    'match:',
    `  title: ${q(`^${escapeRegex(f.title)}$`)}`,
    f.executable ? `  executable: ${q(f.executable)}` : undefined,
    'category: nonrealtime-linear  # markov-grid | nonrealtime-linear | nonrealtime-nonlinear | realtime-linear | realtime-nonlinear',
    'tier: easy  # easy | medium | hard',
    'setup:',
    '  start: "TODO: where a run starts (level, chapter, save), and how to get there"',
    `  resolution: ${q(`${f.width}x${f.height} (the window as it was seen)`)}`,
    'prompt:',
    '  task: "TODO: the goal of a run in one sentence"',
    '  rules: "TODO: the goal, how it is won and how it is lost, in the title\'s own terms"',
    '  screen: "TODO: where things are on the screen (score, health, minimap, menus)"',
    '  controls: "TODO: the keys and mouse actions the title uses"',
    'actions:',
    '  gui: true',
    '  # allowedKeys: [up, down, left, right]  # the only keys the model may press',
    '  # allowedHotkeys: [alt+enter]           # system combinations the title needs',
    '  # maxActionsPerStep: 1',
    'episode:',
    '  maxSteps: 50',
    '  trials: 1',
    '  agent: zero-shot  # zero-shot | memory',
    '  # How a game ends, and how the next starts (docs/profiles.md#episode-end-and-reset); check with',
    '  # `gamepilot profile check` on the game-over screen. Without them an episode runs to maxSteps.',
    '  # end:',
    '  #   - ocr: { region: { x: 0.3, y: 0.4, width: 0.4, height: 0.1 }, text: "game over" }',
    '  # reset:',
    '  #   do:',
    '  #     - press: enter',
    '  #   timeout: 20',
    'latency:',
    '  mode: normal  # stop | slow | normal | lcrt',
    '  freeze: process  # process | pause-key (with pauseKey) | none',
    'scoring:',
    '  kind: none  # or screen (read a number off the frame) or milestones',
    '',
  ];
  const yaml = lines.filter((l) => l !== undefined).join('\n');
  parseProfile(yaml, `${id}.yaml`); // a starter that does not load would be a bug here, not the user's
  return yaml;
}
