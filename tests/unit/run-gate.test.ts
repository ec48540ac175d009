/**
 * The run gate says every state it enters with its reason, so the UI can show why a run is
 * paused: a person paused it, its window cannot be seen, or both in turn.
 */
import { describe, expect, it } from 'vitest';
import { RunGate } from '../../electron/session/run-gate.ts';

function gate() {
  const said: [string, string?][] = [];
  const warnings: string[] = [];
  const g = new RunGate(new AbortController().signal, {
    status: (s, why) => said.push(why === undefined ? [s] : [s, why]),
    warn: (m) => warnings.push(m),
  });
  return { g, said, warnings };
}

describe('RunGate: every pause with its reason', () => {
  it('a person pauses and resumes', () => {
    const { g, said } = gate();
    g.pause('paused from the controls');
    g.resume();
    expect(said).toEqual([['paused', 'paused from the controls'], ['running']]);
  });

  it('a hidden window pauses the run with its own reason, said once, and shown again it runs', () => {
    const { g, said, warnings } = gate();
    g.hidden('the window is minimized');
    g.hidden('the window is minimized');
    g.shown();
    g.shown(); // shown while shown: nothing to say
    expect(said).toEqual([['paused', 'the window is minimized'], ['running']]);
    expect(warnings).toEqual([expect.stringMatching(/^the window is minimized: the run is paused until/)]);
  });

  it('paused by a person while hidden: the window’s reason first, then the person’s once it is shown', () => {
    const { g, said } = gate();
    g.pause('paused by a person');
    g.hidden('the window is off the screen');
    g.pause('paused again'); // the window's reason stays what is shown
    g.shown();
    expect(said).toEqual([
      ['paused', 'paused by a person'],
      ['paused', 'the window is off the screen'],
      ['paused', 'paused again'],
    ]);
  });
});
