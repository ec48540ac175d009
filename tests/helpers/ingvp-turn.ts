/** A first ING-VP turn (Sokoban level 1, multi-step text) for tests of the prompts. */
import type { Turn } from '../../electron/ingvp/players.ts';
import { settingSpec } from '../../electron/ingvp/ingvp-settings.ts';
import { ingvpGame } from '../../games/ingvp/games.ts';

export function sokobanTurn(): Turn {
  const { spec } = ingvpGame('sokoban')!;
  return {
    spec,
    setting: settingSpec('multi-step-text'),
    level: 1,
    step: 0,
    puzzle: spec.load(spec.levels[0]!),
    history: [],
    undo: false,
    key: 'k',
  };
}
