/**
 * ING-VP's six settings (§3.2): one-step (the whole plan from the initial state) or multi-step
 * (one move a round, the new state each round); image (a screenshot of the game's real window)
 * or text; multi-step with or without the model's earlier outputs (history), and with history an
 * undo for Sokoban, Sudoku and 8-Queens.
 */
import { INGVP_SETTINGS, type IngvpSetting } from '../domain.ts';

export { INGVP_SETTINGS, type IngvpSetting };

export interface SettingSpec {
  id: IngvpSetting;
  oneStep: boolean;
  image: boolean;
  history: boolean;
}

export function settingSpec(id: IngvpSetting): SettingSpec {
  return {
    id,
    oneStep: id.startsWith('one-step'),
    image: id.includes('image'),
    history: id.endsWith('history'),
  };
}

/**
 * Moves a level may take: the multi-step rounds (the authors' code's MAX_STEPS = 50; the paper
 * sets none) and the longest one-step plan replayed (the same bound; the rest is dropped).
 */
export const INGVP_STEP_LIMIT = 50;

/** `all`, or a comma list of setting ids → the settings, in the paper's order. */
export function parseSettings(v: string): IngvpSetting[] {
  if (v.trim() === 'all') return [...INGVP_SETTINGS];
  const asked = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = asked.filter((s) => !(INGVP_SETTINGS as readonly string[]).includes(s));
  if (bad.length || !asked.length)
    throw new Error(`unknown setting ${bad.join(', ') || '(none)'}: use all or ${INGVP_SETTINGS.join(', ')}`);
  return INGVP_SETTINGS.filter((s) => asked.includes(s));
}

/** `1-50`, `3`, `1-5,9` → sorted level numbers within 1…count. */
export function parseLevels(v: string, count = 50): number[] {
  const out = new Set<number>();
  for (const part of v.split(',').map((s) => s.trim())) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) throw new Error(`"${part}" is not a level or a range (e.g. 1-50, 7, 1-5,9)`);
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    if (a < 1 || b > count || a > b) throw new Error(`levels run from 1 to ${count} (got ${part})`);
    for (let i = a; i <= b; i++) out.add(i);
  }
  return [...out].sort((x, y) => x - y);
}
