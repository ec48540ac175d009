/**
 * ING-VP's six settings (§3.2): one-step (the whole plan from the initial state) or multi-step
 * (one move a round, the new state each round); image (a screenshot of the game's real window)
 * or text; multi-step with or without the model's earlier outputs (history), and with history an
 * undo for Sokoban, Sudoku and 8-Queens. And §4.3's two adjustments of the multi-step output:
 * step-wise Best of N (ten answers drawn each step, the most frequent one played) and Forced
 * Planning (the whole plan written before each answer). The paper names no modality for these;
 * the surrounding comparison (one-step vs multi-step, the text-only Maze example) is text-only,
 * so both are multi-step, text, without history.
 */
import {
  INGVP_ANALYSIS_SETTINGS,
  INGVP_SETTINGS,
  INGVP_SUITE_SETTINGS,
  type IngvpSetting,
  type SuiteSetting,
} from '../domain.ts';

export { INGVP_ANALYSIS_SETTINGS, INGVP_SETTINGS, INGVP_SUITE_SETTINGS, type IngvpSetting, type SuiteSetting };

/** Answers drawn each step in the step-wise Best of N setting (the paper's N). */
export const BEST_OF = 10;

export interface SettingSpec {
  id: SuiteSetting;
  oneStep: boolean;
  image: boolean;
  history: boolean;
  /** Answers drawn per step; the most frequent move is played (1: the answer itself). */
  samples: number;
  /** Each answer starts with the whole plan from the current state (Forced Planning). */
  forcedPlan: boolean;
}

export function settingSpec(id: SuiteSetting): SettingSpec {
  return {
    id,
    oneStep: id.startsWith('one-step'),
    image: id.includes('image'),
    history: id.endsWith('history'),
    samples: id === 'best-of-10' ? BEST_OF : 1,
    forcedPlan: id === 'forced-planning',
  };
}

/**
 * Moves a level may take: the multi-step rounds (the authors' code's MAX_STEPS = 50; the paper
 * sets none) and the longest one-step plan replayed (the same bound; the rest is dropped).
 */
export const INGVP_STEP_LIMIT = 50;

/** `all` (the six of Table 1), or a comma list of setting ids → the settings, in the paper's order. */
export function parseSettings(v: string): SuiteSetting[] {
  if (v.trim() === 'all') return [...INGVP_SETTINGS];
  const asked = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = asked.filter((s) => !(INGVP_SUITE_SETTINGS as readonly string[]).includes(s));
  if (bad.length || !asked.length)
    throw new Error(
      `unknown setting ${bad.join(', ') || '(none)'}: use all or ${INGVP_SETTINGS.join(', ')}, or §4.3's ${INGVP_ANALYSIS_SETTINGS.join(', ')}`,
    );
  return INGVP_SUITE_SETTINGS.filter((s) => asked.includes(s));
}

/** What `--settings` takes. */
export const SETTINGS_HELP = `all (the six), or comma-separated: ${INGVP_SETTINGS.join(', ')}, and §4.3's ${INGVP_ANALYSIS_SETTINGS.join(', ')}`;

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

/** `4,12,16` → the maze-length study's shortest-solution lengths, sorted (at most the step limit: longer could not be solved). */
export function parseMazeSteps(v: string): number[] {
  const out = new Set<number>();
  for (const part of v.split(',').map((s) => s.trim())) {
    const n = /^\d+$/.test(part) ? Number(part) : Number.NaN;
    if (!Number.isInteger(n) || n < 1 || n > INGVP_STEP_LIMIT)
      throw new Error(`"${part}" is not a maze length: give moves from 1 to ${INGVP_STEP_LIMIT}, e.g. 4,12,16`);
    out.add(n);
  }
  return [...out].sort((x, y) => x - y);
}
