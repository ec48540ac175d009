/**
 * A reset step as the profile form's one-line field shows it and reads it back
 * (renderer/src/components/reset-steps.ts): what is typed becomes the step the profile schema
 * takes, and a step written in the file shows as it was written.
 */
import { describe, expect, it } from 'vitest';
import { stepPoint, stepText, stepVerb, withPoint, withStepText } from '../../renderer/src/components/reset-steps.ts';

describe('reset steps in the form', () => {
  it('reads what is typed for each verb as the step the profile takes', () => {
    const typed = (verb: string, text: string) => withStepText({ press: '' }, verb, text);
    expect(typed('press', ' n ')).toEqual({ press: 'n' });
    expect(typed('hotkey', 'ctrl + n')).toEqual({ hotkey: ['ctrl', 'n'] });
    expect(typed('wait', '1.5')).toEqual({ wait: 1.5 });
    expect(typed('wait', '1.')).toEqual({ wait: '1.' }); // on the way to 1.5: kept as typed, the core says if it stays so
    expect(typed('click', '0.5, 0.12')).toEqual({ click: { x: 0.5, y: 0.12 } });
    expect(typed('click', 'new_game')).toEqual({ click: 'new_game' });
    expect(typed('click', '{"grid": "board", "row": 1, "column": 2}')).toEqual({
      click: { grid: 'board', row: 1, column: 2 },
    });
    expect(typed('type', 'hello world')).toEqual({ type: 'hello world' });
  });

  it('shows a step as its verb and one line, and keeps its options when the value changes', () => {
    const step = { click: { x: 0.25, y: 0.5 }, button: 'right', repeat: 2 };
    expect(stepVerb(step)).toBe('click');
    expect(stepText(step)).toBe('0.25, 0.5');
    expect(stepPoint(step)).toEqual({ x: 0.25, y: 0.5 });
    expect(withPoint(step, { x: 0.1, y: 0.9 })).toEqual({ click: { x: 0.1, y: 0.9 }, button: 'right', repeat: 2 });
    // `button` goes with click only: another verb drops it.
    expect(withStepText(step, 'press', 'n')).toEqual({ press: 'n', repeat: 2 });
    expect(stepText({ hotkey: ['ctrl', 'shift', 'n'] })).toBe('ctrl+shift+n');
    expect(stepText({ scroll: { dx: 0, dy: -3 } })).toBe('{"dx":0,"dy":-3}');
    expect(stepPoint({ click: 'new_game' })).toBeUndefined();
  });
});
