import { describe, expect, it } from 'vitest';
import { createClockPolicy } from '../../electron/latency/clock-policy.ts';
import { GameClock } from '../../electron/games/game-clock.ts';
import { EngineWorld } from '../../electron/latency/world.ts';
import type { BuiltinGame } from '../../electron/games/builtin-game.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A world on a real GameClock (the engine clock built-ins use), without a window. */
function world(tickMs = 10) {
  let ticks = 0;
  const clock = new GameClock(tickMs, () => ticks++);
  clock.start();
  return { w: new EngineWorld({ clock } as unknown as BuiltinGame), clock, ticks: () => ticks };
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

  it('stop: frozen from capture to action, then runs the interval', async () => {
    const { w, clock } = world();
    const p = createClockPolicy('stop', { stopIntervalMs: 80, slowBufferMs: 0 });
    await p.beforeCapture(w);
    const t0 = w.ticks();
    p.afterCapture(w);
    await sleep(60);
    await p.beforeAct(w, 60, signal);
    expect(w.ticks()).toBe(t0); // no drift
    const t = performance.now();
    await p.afterAct(w, signal);
    expect(performance.now() - t).toBeGreaterThanOrEqual(75);
    expect(w.frozen).toBe(false);
    clock.dispose();
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

  it('lcrt: frozen during the call, then advanced by the compute time before acting', async () => {
    const { w, clock } = world(10);
    const p = createClockPolicy('lcrt');
    await p.beforeCapture(w);
    const t0 = w.ticks()!;
    p.afterCapture(w);
    await sleep(50);
    expect(w.ticks()).toBe(t0);
    await p.beforeAct(w, 200, signal);
    expect(w.ticks()! - t0).toBe(20);
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
