/**
 * A takeover's bookkeeping (session/takeover.ts) and the person's input path's filter
 * (recording/person-input.ts): what counts as the person's, what the agent's, what a hotkey's.
 */
import { describe, expect, it } from 'vitest';
import { handBackNote, TakeoverLog } from '../../electron/session/takeover.ts';
import { HookedPersonInput } from '../../electron/recording/person-input.ts';
import type { StepRecord } from '../../electron/store/run-store.ts';
import type { WindowWatch } from '../../electron/recording/window-watch.ts';

const step = (n: number, over: Partial<StepRecord> = {}): StepRecord => ({
  step: n,
  episode: 0,
  t_capture: 1000 + n,
  frame: `frames/e000-s${n}.jpg`,
  reasoning: `r${n}`,
  raw: null,
  actions: [{ action_type: 'PRESS', parameters: { key: 'left' } }],
  errors: [],
  latency_ms: { locate: 0, capture: 0, encode: 0, model: 0, act: 0, total: 0 },
  ...over,
});
const press = (t: number, key: string) => ({ t, action_type: 'PRESS', parameters: { key } });

describe('TakeoverLog', () => {
  it('keeps the agent’s last steps before, the person’s during, and sums the spans', () => {
    const log = new TakeoverLog();
    for (let i = 0; i < 8; i++) log.agentStep(step(i));
    const span = log.begin(0, 'hotkey', 10_000);
    expect(log.open).toBe(span);
    log.agentStep(step(8, { actions: [], errors: ['a person took over: this answer was not acted on'] })); // cut short
    log.humanStep({ ...step(9, { actions: [] }), input_events: [press(10_100, 'up')] });
    log.humanStep({ ...step(10, { actions: [] }), input_events: [press(10_200, 'down'), press(10_250, 'left')] });
    const rec = log.end(12_500, true)!;
    expect(rec.before.map((s) => s.step)).toEqual([4, 5, 6, 7, 8]);
    expect(rec.during.map((s) => s.step)).toEqual([9, 10]);
    expect(rec).toMatchObject({ index: 0, trigger: 'hotkey', from_step: 9, to_step: 10, handed_back: true });
    expect(log.open).toBeUndefined();
    expect(log.summary()).toEqual({
      assisted: true,
      takeovers: [expect.objectContaining({ human_steps: 2, inputs: 3, ended: 12_500 })],
      human_steps: 2,
      human_ms: 2500,
    });
    expect(handBackNote(log.spans[0]!, [press(1, 'up'), press(2, 'down')])).toBe(
      'A person had the controls for 2.5 s and played 2 step(s): PRESS up, PRESS down. The screen now shows the result; go on from here.',
    );
    // The next takeover's context starts after the hand-back; another episode's steps are none of it.
    log.agentStep(step(11));
    log.newEpisode();
    log.agentStep(step(0, { episode: 1 }));
    log.begin(1, 'input', 20_000);
    expect(log.end(21_000, false)!.before.map((s) => s.reasoning)).toEqual(['r0']); // episode 1's step 0 only
  });

  it('an unassisted run says so; a long person’s play is summed up, not listed', () => {
    expect(new TakeoverLog().summary()).toEqual({ assisted: false, takeovers: [], human_steps: 0, human_ms: 0 });
    const log = new TakeoverLog();
    const span = log.begin(0, 'button', 0);
    log.end(1000, true);
    const many = Array.from({ length: 30 }, (_, i) => press(i, `k${i}`));
    expect(handBackNote(span, many)).toMatch(/… 18 earlier input\(s\), then PRESS k18, .*PRESS k29\./);
    expect(handBackNote(span, [])).toMatch(/no input in the game window/);
  });
});

describe('HookedPersonInput', () => {
  const watch = {} as WindowWatch;
  const bounds = { x: 100, y: 100, width: 200, height: 200 };
  const key = (kind: 'keydown' | 'keyup', t: number, keycode = 1) =>
    ({ kind, t, keycode, ctrl: false, shift: false, alt: false, meta: false }) as const;

  it('keeps the person’s input from the listening time on, not the agent’s nor the hotkeys’', () => {
    const input = new HookedPersonInput({ windowId: 'w', bounds, ignoreKeys: ['f11'] }, watch);
    input.heard(press(50, 'up')); // before listening
    input.listenFrom(100);
    input.heard(press(150, 'up'));
    input.agentActs(200, 300);
    input.heard(press(250, 'left')); // the executor's own press
    input.heard(press(700, 'down')); // after the echo grace
    input.raw(key('keydown', 800), 'f11'); // the hotkey
    input.heard({ t: 790, action_type: 'PRESS', parameters: { key: 'ctrl', duration: 0.05 } }); // its modifier
    input.heard(press(800, 'f11'));
    input.heard({ t: 900, action_type: 'PRESS', parameters: { key: 'shift', duration: 0.05 } }); // a modifier alone: play
    expect(input.drain().map((e) => e.parameters.key)).toEqual(['up', 'down', 'shift']);
    expect(input.drain()).toEqual([]);
    input.pause();
    input.heard(press(1000, 'up'));
    expect(input.drain()).toEqual([]);
  });

  it('takes over on a key in the focused window or the pointer inside it, never on the agent’s input', () => {
    const seen: number[] = [];
    const input = new HookedPersonInput({ windowId: 'w', bounds, onInput: (t) => seen.push(t) }, watch);
    input.raw(key('keydown', 10), 'a'); // not focused
    input.focused = true;
    input.raw(key('keydown', 20), 'ctrl'); // a modifier may begin a hotkey
    input.raw(key('keydown', 30), 'a');
    input.raw({ kind: 'mousemove', t: 40, x: 50, y: 50, button: 0 }, undefined); // outside
    input.raw({ kind: 'mousemove', t: 50, x: 150, y: 150, button: 0 }, undefined);
    input.agentActs(100, 200);
    input.raw({ kind: 'mousedown', t: 150, x: 150, y: 150, button: 1 }, undefined); // the executor's click
    input.raw(key('keydown', 420), 'up'); // within the echo grace: still the executor's
    input.raw(key('keydown', 520), 'up');
    expect(seen).toEqual([30, 50, 520]);
  });

  it('an open span covers input heard while the executor is still acting', () => {
    const seen: number[] = [];
    const input = new HookedPersonInput({ windowId: 'w', bounds, onInput: (t) => seen.push(t) }, watch);
    input.focused = true;
    input.agentActs(100); // acting: no end yet
    input.raw(key('keydown', 2_000), 'right'); // e.g. during a WAIT 3 in the same plan
    input.agentActs(100, 3_100);
    input.raw(key('keydown', 3_200), 'right'); // within the echo grace
    input.raw(key('keydown', 3_600), 'right');
    expect(seen).toEqual([3_600]);
  });

  it('the autorepeat of a key the agent holds is never a person’s: no takeover, nothing kept', () => {
    const seen: number[] = [];
    let held: string[] = ['Right'];
    const input = new HookedPersonInput(
      { windowId: 'w', bounds, onInput: (t) => seen.push(t), agentHeld: () => held },
      watch,
    );
    input.focused = true;
    input.listenFrom(0);
    input.agentActs(0, 100);
    for (let t = 600; t < 3_000; t += 40) input.raw(key('keydown', t), 'right'); // X autorepeat, long after
    input.heard(press(1_000, 'right'));
    input.raw(key('keydown', 1_500), 'left'); // a person's other key
    input.heard(press(1_500, 'left'));
    expect(seen).toEqual([1_500]);
    expect(input.drain().map((e) => e.parameters.key)).toEqual(['left']);
    held = []; // let go: the same key is a person's again
    input.raw(key('keydown', 4_000), 'right');
    expect(seen).toEqual([1_500, 4_000]);
  });
});
