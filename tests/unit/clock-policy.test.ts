import { describe, expect, it } from 'vitest';
import { createClockPolicy } from '../../electron/latency/clock-policy.ts';
import { LATENCY_MODES } from '../../electron/domain.ts';
import { GameClock } from '../../electron/games/game-clock.ts';
import { EngineWorld, PauseKeyWorld } from '../../electron/latency/world.ts';
import type { BuiltinGame } from '../../electron/games/builtin-game.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A world on a real GameClock (the engine clock built-ins use), without a window. */
function world(tickMs = 10) {
  let ticks = 0;
  const clock = new GameClock(tickMs, () => ticks++);
  clock.start();
  return { w: new EngineWorld({ clock } as unknown as BuiltinGame), clock, ticks: () => ticks };
}

/** A held key: `ms` of wall time with the policy's world as it is; returns the engine ticks that passed. */
async function hold(w: EngineWorld, ms: number) {
  const before = w.ticks()!;
  await sleep(ms);
  return w.ticks()! - before;
}

describe('GameClock', () => {
  it('ticks with wall time, stands still while frozen, and advances exactly on demand', async () => {
    const { clock, ticks } = world(10);
    await sleep(120);
    expect(ticks()).toBeGreaterThanOrEqual(9);
    clock.freeze();
    const frozenAt = ticks();
    await sleep(100);
    expect(ticks()).toBe(frozenAt);
    clock.advance(50);
    expect(ticks()).toBe(frozenAt + 5);
    expect(clock.frozenMs()).toBeGreaterThanOrEqual(95);
    clock.dispose();
  });
});

describe('clock policies', () => {
  const signal = new AbortController().signal;

  it('stop: frozen from capture to action, running while the actions apply, then runs the interval', async () => {
    const { w, clock } = world();
    const p = createClockPolicy('stop', { stopIntervalMs: 80, slowBufferMs: 0 });
    await p.beforeCapture(w);
    const t0 = w.ticks();
    p.afterCapture(w);
    await sleep(60);
    expect(w.ticks()).toBe(t0);
    await p.beforeAct(w, 60, signal);
    expect(w.ticks()).toBe(t0); // no drift
    expect(w.frozen).toBe(false);
    const held = await hold(w, 150);
    expect(held).toBeGreaterThanOrEqual(5); // 150 ms of 10 ms ticks passed during the hold
    const t = performance.now();
    await p.afterAct(w, signal);
    expect(performance.now() - t).toBeGreaterThanOrEqual(75);
    expect(w.frozen).toBe(false);
    clock.dispose();
  });

  it('every mode runs the world while the actions apply, and freezes it again only for the next inference', async () => {
    for (const mode of LATENCY_MODES) {
      const { w, clock } = world();
      // slow: the model answers well inside the buffer, which ends where the actions begin.
      const p = createClockPolicy(mode, { stopIntervalMs: 0, slowBufferMs: 10_000 });
      await p.beforeCapture(w);
      p.afterCapture(w);
      await sleep(30);
      await p.beforeAct(w, 30, signal);
      expect(w.frozen, mode).toBe(false);
      expect(await hold(w, 150), mode).toBeGreaterThanOrEqual(5);
      await p.afterAct(w, signal);
      expect(w.frozen, mode).toBe(false);
      await p.beforeCapture(w);
      expect(w.frozen, mode).toBe(mode !== 'normal');
      p.cancel();
      clock.dispose();
    }
  });

  it('slow: frozen for the buffer after capture, then running while the model thinks', async () => {
    const { w, clock } = world();
    let thawed = 0;
    const p = createClockPolicy('slow', { stopIntervalMs: 0, slowBufferMs: 50 }, () => thawed++);
    await p.beforeCapture(w);
    p.afterCapture(w);
    expect(w.frozen).toBe(true);
    await sleep(90);
    expect(w.frozen).toBe(false);
    expect(thawed).toBe(1);
    const before = w.ticks()!;
    await sleep(50);
    expect(w.ticks()!).toBeGreaterThan(before);
    await p.afterAct(w, signal);
    clock.dispose();
  });

  it('a world frozen by wall-clock means (its pause key) is unpaused for the actions in every mode', async () => {
    for (const mode of LATENCY_MODES) {
      let presses = 0;
      const w = new PauseKeyWorld(async () => void presses++);
      const p = createClockPolicy(mode, { stopIntervalMs: 0, slowBufferMs: 10_000 });
      await p.beforeCapture(w);
      p.afterCapture(w);
      await p.beforeAct(w, 40, signal);
      // The game's pause key was pressed an even number of times: the game runs as the keys arrive.
      expect({ mode, frozen: w.frozen, paused: presses % 2 === 1 }).toEqual({ mode, frozen: false, paused: false });
      await p.afterAct(w, signal);
      expect(presses % 2, mode).toBe(0);
    }
  });

  it('lcrt: frozen during the call, then advanced by the compute time before acting', async () => {
    const { w, clock } = world(10);
    const p = createClockPolicy('lcrt');
    await p.beforeCapture(w);
    const t0 = w.ticks()!;
    p.afterCapture(w);
    await sleep(50);
    expect(w.ticks()).toBe(t0);
    await p.beforeAct(w, 200, signal);
    expect(w.ticks()! - t0).toBe(20); // exactly the compute time, simulated at once
    expect(w.frozen).toBe(false); // and running for the actions
    await p.afterAct(w, signal);
    expect(w.frozen).toBe(false);
    clock.dispose();
  });

  it('normal: never freezes', async () => {
    const { w, clock } = world();
    const p = createClockPolicy('normal');
    await p.beforeCapture(w);
    p.afterCapture(w);
    expect(w.frozen).toBe(false);
    await p.beforeAct(w, 1000, signal);
    await p.afterAct(w, signal);
    expect(w.frozenMs()).toBe(0);
    clock.dispose();
  });
});
