import { describe, expect, it } from 'vitest';
import { parseModelOutput } from '../../electron/actions/parse.ts';
import { fullSizeGeometry, imageToScreen } from '../../electron/input/coordinates.ts';
import { MALFORMED, REPAIRABLE } from '../fixtures/malformed-outputs.ts';
import { toWire } from '../../electron/actions/schema.ts';
import { g2048 } from '../../games/g2048/index.ts';
import { tictactoe } from '../../games/tictactoe/index.ts';

const geometry = fullSizeGeometry({ x: 100, y: 50, width: 520, height: 640 });

describe('model output parser', () => {
  it('refuses an answer cut off anywhere inside its actions, and takes the whole one', () => {
    const actions = [
      { action_type: 'PRESS', parameters: { key: 'left' } },
      { action_type: 'CLICK', parameters: { x: 10, y: 20 } },
    ];
    const whole = `### Reasoning\nslide left, then click the cell.\n\n### Actions\n${JSON.stringify(actions)}`;
    const full = parseModelOutput(whole, { actionSpace: 'gui' });
    expect(full.ok).toBe(true);
    if (full.ok) expect(full.actions.map(toWire)).toEqual(actions);
    // A stream that stopped early is never completed into a plan, not even a shorter one.
    for (let n = whole.indexOf('[') + 1; n < whole.length; n++) {
      const cut = parseModelOutput(whole.slice(0, n), { actionSpace: 'gui' });
      expect(cut.ok, whole.slice(0, n)).toBe(false);
    }
  });

  for (const c of MALFORMED) {
    it(`rejects: ${c.name}`, () => {
      const r = parseModelOutput(c.raw, { actionSpace: 'gui' });
      if (c.stage === 'parse') {
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.error).toMatch(c.expect);
      } else {
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        const a = r.actions[0]!;
        expect(a.kind).toBe('gui');
        const p = (a as { params: { x: number; y: number } }).params;
        const m = imageToScreen(geometry, p.x, p.y);
        expect(m.ok).toBe(false);
        if (!m.ok) expect(m.error).toMatch(c.expect);
      }
    });
  }

  for (const c of REPAIRABLE) {
    it(`repairs without touching string contents: ${c.name}`, () => {
      const r = parseModelOutput(c.raw, { actionSpace: 'gui' });
      expect(r.ok, r.ok ? '' : r.error).toBe(true);
      if (r.ok) expect(r.actions.map(toWire)).toEqual(c.actions);
    });
  }

  it('accepts the house format with prose and a fenced block', () => {
    const raw =
      'Sure! Here you go.\n### Reasoning\nThe 8s can merge.\n\n### Actions\nI will do this:\n```json\n[{"action_type": "press", "parameters": {"key": "ArrowLeft"}}]\n```\nGood luck.';
    const r = parseModelOutput(raw, { actionSpace: 'gui' });
    expect(r).toMatchObject({
      ok: true,
      reasoning: 'The 8s can merge.',
      actions: [{ kind: 'gui', type: 'PRESS', params: { key: 'ArrowLeft' } }],
    });
  });

  it('accepts flat parameters, a single object, trailing commas and bold headers', () => {
    const raw = '**Reasoning:** go\n**Actions:**\n{"action_type": "CLICK", "x": 10, "y": 20,}';
    const r = parseModelOutput(raw, { actionSpace: 'gui' });
    expect(r).toMatchObject({ ok: true, actions: [{ type: 'CLICK', params: { x: 10, y: 20 } }] });
  });

  it('accepts {"actions": [...]} wrappers and inline "Actions:" lines', () => {
    const r = parseModelOutput(
      'Reasoning: fine\nActions: {"actions": [{"action_type": "WAIT", "parameters": {"duration": 0.5}}]}',
      { actionSpace: 'gui' },
    );
    expect(r).toMatchObject({ ok: true, actions: [{ type: 'WAIT', params: { duration: 0.5 } }] });
  });

  it('parses semantic moves through the game and rejects non-moves', () => {
    expect(
      parseModelOutput('### Actions\n[{"action": "b2"}]', { actionSpace: 'semantic', parseMove: tictactoe.parseMove }),
    ).toMatchObject({ ok: true, actions: [{ kind: 'semantic', move: 'B2' }] });
    expect(
      parseModelOutput('### Actions\nLeft', { actionSpace: 'semantic', parseMove: g2048.parseMove }),
    ).toMatchObject({
      ok: true,
      actions: [{ move: 'left' }],
    });
    const bad = parseModelOutput('### Actions\n[{"action": "Z9"}]', {
      actionSpace: 'semantic',
      parseMove: tictactoe.parseMove,
    });
    expect(bad).toMatchObject({ ok: false });
    if (!bad.ok) expect(bad.error).toMatch(/not a cell/);
  });
});
