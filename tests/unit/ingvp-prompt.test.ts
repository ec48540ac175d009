/** ING-VP asks for the answer only ("… and not output anything else"); thinking is an option the tables mark. */
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { promptText } from '../../electron/ingvp/players.ts';
import { sokobanTurn } from '../helpers/ingvp-turn.ts';
import { RunStore } from '../../electron/store/run-store.ts';
import { buildReport } from '../../electron/report/build.ts';

const turn = sokobanTurn;

describe('ING-VP prompts', () => {
  it('ask for the JSON answer only by default, and invite thinking only when asked', () => {
    const plain = promptText(turn()).system;
    expect(plain).toMatch(/Output only that JSON object and nothing else\.$/);
    expect(plain).not.toMatch(/think/i);
    expect(promptText(turn(), true).system).toMatch(/You may think first; end your answer with the JSON object/);
  });

  it('lists a model that was let think as its own, marked row of the tables', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-ingvp-think-'));
    mkdirSync(path.join(root, 'ingvp', 'runs'), { recursive: true });
    writeFileSync(path.join(root, 'ingvp', 'suite.json'), '{}');
    for (const thinking of [false, true]) {
      const s = RunStore.create(path.join(root, 'ingvp', 'runs'), {
        kind: 'agent',
        game: 'sokoban',
        target: { kind: 'builtin', label: 'Sokoban' },
        agent: 'vlm',
        model: 'm',
        action_space: 'ingvp:multi-step-text',
        config: { suite: 'ingvp', setting: 'multi-step-text', level: 1, step_limit: 50, thinking },
      });
      s.update({
        ingvp: {
          game: 'sokoban',
          setting: 'multi-step-text',
          level: 1,
          solved: thinking,
          completion: 50,
          efficiency: 50,
          actions: 2,
          changed: 1,
        },
      } as never);
      s.close('completed');
    }
    const main = buildReport(root).ingvp_main.filter((r) => r.metric === 'accuracy');
    expect(main.map((r) => [r.label, r.cells['multi-step-text']])).toEqual([
      ['m', 0],
      ['m (thinking)', 100],
    ]);
  });
});
