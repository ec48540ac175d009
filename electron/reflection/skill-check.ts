/**
 * What the harness itself can check of a proposed IDC skill before it is kept (the checks
 * behind the `validate_skill` tool, idc-propose.ts): it is not empty, fits the word limit,
 * names in backticks only moves, actions and keys of the game's action space, and presses no
 * system combination or Gamepilot hotkey. Whether it is general and consistent with the
 * diagnosis stays the independent judge's call.
 */
import type { GameDefinition } from '../../games/types.ts';
import { GUI_ACTION_TYPES } from '../actions/schema.ts';
import { resolveKeyName } from '../actions/keys.ts';
import { KeyPolicy } from '../input/key-policy.ts';
import type { ActionSpace } from '../domain.ts';

export interface SkillCheck {
  ok: boolean;
  problems: string[];
}

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** A chord written as people write it ("alt+f4", "ctrl + shift + F12") as key names, or undefined when a part is no key. */
function chordKeys(text: string): string[] | undefined {
  const keys = text.split('+').map((k) => resolveKeyName(k));
  return keys.every((k): k is string => k !== undefined) ? keys : undefined;
}

/** Why a backticked name is not in the GUI action space, or undefined. */
function guiProblem(name: string, def: GameDefinition, policy: KeyPolicy): string | undefined {
  const [head = '', ...rest] = name.split(/\s+/);
  const isAction = (GUI_ACTION_TYPES as readonly string[]).includes(head.toUpperCase());
  const key = isAction ? rest.join(' ') : name;
  if (isAction && !key) return undefined;
  const chord = chordKeys(key.replace(/^["']|["']$/g, ''));
  if (!chord) return `\`${name}\` is neither a GUI action (${GUI_ACTION_TYPES.join(', ')}) nor a key`;
  const refused = policy.check(chord);
  if (refused) return `\`${name}\`: ${refused}`;
  const press = 'press' in def.actionSpace.gui ? def.actionSpace.gui.press : undefined;
  if (press && chord.length === 1) {
    const listed = press.map((k) => resolveKeyName(k));
    if (!listed.includes(chord[0])) return `\`${name}\` is not a key of ${def.title} (its keys: ${press.join(', ')})`;
  }
  return undefined;
}

/** Checks a proposed skill for `def` played in `space`. */
export function checkSkill(
  skill: string,
  def: GameDefinition,
  space: ActionSpace,
  maxWords: number,
  policy = new KeyPolicy(def.allowedHotkeys ?? []),
): SkillCheck {
  const problems: string[] = [];
  const text = skill.trim();
  if (!text) problems.push('the skill is empty');
  const n = words(text);
  if (n > maxWords) problems.push(`the skill has ${n} words, more than the ${maxWords} allowed`);
  for (const [, name] of text.matchAll(/`([^`\n]{1,60})`/g)) {
    const named = name!.trim();
    const problem =
      space === 'semantic'
        ? ((r) => (r.ok ? undefined : `\`${named}\` is not a move of ${def.title}: ${r.error}`))(def.parseMove(named))
        : guiProblem(named, def, policy);
    if (problem) problems.push(problem);
  }
  // Chords written outside backticks reach the player as much as named ones.
  for (const [chord] of text.replace(/`[^`\n]*`/g, ' ').matchAll(/\b[\w]+(?:\s*\+\s*[\w]+)+\b/g)) {
    const keys = chordKeys(chord);
    const refused = keys && policy.check(keys);
    if (refused) problems.push(`"${chord}": ${refused}`);
  }
  return { ok: problems.length === 0, problems };
}
