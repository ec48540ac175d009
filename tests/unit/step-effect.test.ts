/**
 * What a step's actions did (step-effect.ts), the run's audit of its steps (run-audit.ts) and
 * the draw times the X damage watch reads from the server's stamps.
 */
import { describe, expect, it } from 'vitest';
import { drawTime } from '../../native/x11/damage.ts';
import type { ChangeWatch, WindowInfo, WindowManager } from '../../native/types.ts';
import type { Action } from '../../electron/actions/schema.ts';
import { builtinEffect, inputsSent, windowEffect } from '../../electron/session/step-effect.ts';
import { RunAudit } from '../../electron/session/run-audit.ts';
import type { SessionStepRecord } from '../../electron/session/session-types.ts';

const press = (key: string): Action => ({ kind: 'gui', type: 'PRESS', params: { key } }) as Action;
const wait: Action = { kind: 'gui', type: 'WAIT', params: { duration: 1 } } as Action;
const ok = (action: string) => ({ action, ok: true });

/** A watch whose draws happened at the given times. */
const drewAt = (...times: number[]): ChangeWatch =>
  ({ drawnSince: (t: number) => times.find((x) => x >= t) }) as unknown as ChangeWatch;

describe('a step’s effect', () => {
  it('counts as sent only inputs that went out: not WAITs, not refused ones', () => {
    expect(inputsSent([press('a')], [ok('PRESS')])).toBe(true);
    expect(inputsSent([wait], [ok('WAIT')])).toBe(false);
    expect(inputsSent([press('a')], [{ action: 'PRESS', ok: false }])).toBe(false);
    expect(inputsSent([press('a')], [])).toBe(false);
  });

  it('a built-in: changed with the time to its first draw after the input, or none', () => {
    expect(builtinEffect({ sent: true, stateChanged: true, drawing: drewAt(90, 130) }, 100)).toEqual({
      effect: 'changed',
      effect_ms: 30,
    });
    expect(builtinEffect({ sent: true, stateChanged: true, drawing: undefined }, 100)).toEqual({
      effect: 'changed',
      effect_ms: null,
    });
    expect(builtinEffect({ sent: true, stateChanged: false, drawing: drewAt(130) }, 100)).toEqual({
      effect: 'none',
      effect_ms: null,
    });
    expect(builtinEffect({ sent: false, stateChanged: true, drawing: undefined }, 100).effect).toBe('unknown');
  });

  it('a window: drew (changed), did not (none), or cannot be told (unknown)', () => {
    const drew = { by: 'drawing', drew: true, still: true, draws: 3 } as const;
    const quiet = { by: 'drawing', drew: false, still: true, draws: 0 } as const;
    const base = { sent: true, quietBefore: true, drawing: drewAt(142.5) };
    expect(windowEffect({ ...base, settle: drew }, 100)).toEqual({ effect: 'changed', effect_ms: 42.5 });
    expect(windowEffect({ ...base, settle: quiet }, 100)).toEqual({ effect: 'none', effect_ms: null });
    // Drawing by itself when the step acted: its answer cannot be told from the rest.
    expect(windowEffect({ ...base, quietBefore: false, settle: drew }, 100).effect).toBe('unknown');
    expect(windowEffect({ ...base, quietBefore: false, settle: quiet }, 100).effect).toBe('none');
    expect(windowEffect({ ...base, settle: { by: 'fixed' } }, 100).effect).toBe('unknown');
  });
});

describe('draw times from the X server’s stamps', () => {
  it('uses the stamp when the server’s clock is this machine’s monotonic clock', () => {
    expect(drawTime(1_000, 1_250, 5_000)).toBe(4_750);
  });
  it('reads across the 32-bit wrap of X time', () => {
    expect(drawTime(2 ** 32 - 10, 2 ** 32 + 30, 5_000)).toBe(4_960);
  });
  it('falls back to the time it was read when the clocks do not agree (another machine’s server)', () => {
    expect(drawTime(9_000_000, 1_000, 5_000)).toBe(5_000);
  });
});

const win: WindowInfo = {
  id: '0x1',
  title: 'game',
  pid: 1,
  bounds: { x: 0, y: 0, width: 100, height: 100 },
  scaleFactor: 1,
};
const fakeWm = (over: Partial<WindowManager> = {}): WindowManager => ({
  platform: 'test',
  list: async () => [win],
  get: async (id) =>
    id === '0x1' ? win : { ...win, id, title: 'an editor', bounds: { x: 50, y: 50, width: 100, height: 100 } },
  focus: async () => {},
  activeId: async () => '0x1',
  windowManagerRunning: async () => true,
  ...over,
});

function step(n: number, over: Partial<SessionStepRecord> & { calls?: boolean[] } = {}): SessionStepRecord {
  const { calls, ...rest } = over;
  return {
    step: n,
    episode: 0,
    t_capture: 0,
    frame: null,
    reasoning: '',
    raw: null,
    actions: [{ action_type: 'PRESS', parameters: { key: 'space' } }],
    outcomes: [{ action: 'PRESS', ok: true }],
    errors: [],
    latency_ms: { locate: 0, capture: 0, encode: 0, model: 0, act: 0, total: 0 },
    latency_mode: 'normal',
    world: 'engine',
    paused_ms: 0,
    effect: 'none',
    ...(calls ? { model_calls: calls.map((ok) => ({ ok })) } : {}),
    ...rest,
  } as SessionStepRecord;
}

describe('the run’s audit', () => {
  it('warns once after N steps in a row changed nothing, naming what it checked and found', async () => {
    const warnings: string[] = [];
    const wm = fakeWm({ activeId: async () => '0x2', stacking: async () => ['0x1', '0x2'] });
    const audit = new RunAudit({ wm, label: 'window "game"' }, 3, (m) => warnings.push(m));
    for (let i = 0; i < 6; i++) audit.noteStep(step(i), win);
    await audit.settled();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^3 steps in a row acted and changed nothing in window "game": /);
    expect(warnings[0]).toMatch(/keyboard focus is on another window: 0x2 "an editor"/);
    expect(warnings[0]).toMatch(/covered by 0x2 "an editor"/);
  });

  it('starts counting again after a step that changed something', async () => {
    const warnings: string[] = [];
    const audit = new RunAudit({ wm: fakeWm(), label: 'w' }, 3, (m) => warnings.push(m));
    for (const effect of ['none', 'none', 'changed', 'none', 'none'] as const) audit.noteStep(step(0, { effect }), win);
    await audit.settled();
    expect(warnings).toEqual([]);
    expect(audit.quality(undefined)).toMatchObject({ steps: 5, no_effect_steps: 4, no_effect_rate: 0.8 });
  });

  it('names keys that are not among the profile’s controls', async () => {
    const warnings: string[] = [];
    const profile = { actions: { allowedKeys: ['left', 'right'] } } as never;
    const audit = new RunAudit({ wm: fakeWm(), profile, label: 'w' }, 2, (m) => warnings.push(m));
    audit.noteStep(step(0), win);
    audit.noteStep(step(1), win);
    await audit.settled();
    expect(warnings[0]).toMatch(/keys not among the title's controls: space/);
  });

  it('an episode mostly without model answers is invalid; a run that never got one never answered', () => {
    const audit = new RunAudit({ wm: fakeWm(), label: 'w' }, 5, () => {});
    audit.noteStep(step(0, { calls: [false, false] }), win);
    audit.noteStep(step(1, { calls: [false, true] }), win);
    audit.noteStep(step(2, { calls: [false] }), win);
    expect(audit.episodeVerdict(0)).toEqual({ invalid: '2 of 3 steps had no model answer' });
    expect(audit.neverAnswered).toBe(false);
    const silent = new RunAudit({ wm: fakeWm(), label: 'w' }, 5, () => {});
    silent.noteStep(step(0, { calls: [false] }), win);
    expect(silent.neverAnswered).toBe(true);
    // A player that calls no model (random, solver) is never "unanswered".
    const random = new RunAudit({ wm: fakeWm(), label: 'w' }, 5, () => {});
    random.noteStep(step(0), win);
    expect(random.neverAnswered).toBe(false);
    expect(random.episodeVerdict(0)).toEqual({});
  });

  it('counts refused actions and unreadable answers as invalid, and every role’s calls', () => {
    const audit = new RunAudit({ wm: fakeWm(), label: 'w' }, 5, () => {});
    audit.noteStep(step(0, { outcomes: [{ action: 'PRESS', ok: false }] }), win);
    audit.noteStep(step(1, { actions: [], outcomes: [], errors: ['parse: no JSON'] }), win);
    audit.noteStep(step(2, { effect: 'changed' }), win);
    const usage = {
      player: { calls: 3, failed: 1, tokens_in: 0, tokens_out: 0, cost_usd: null },
      reflector: { calls: 1, failed: 1, tokens_in: 0, tokens_out: 0, cost_usd: null },
    };
    expect(audit.quality(usage)).toEqual({
      steps: 3,
      no_effect_steps: 2,
      no_effect_rate: 0.6667,
      invalid_actions: 2,
      invalid_rate: 0.6667,
      model_calls: 4,
      model_call_failures: 2,
    });
  });
});
