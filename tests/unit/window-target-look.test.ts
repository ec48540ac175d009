/**
 * A window target reuses its last look at the window until the window system says the window
 * changed (WindowWatch), and never after a look that failed.
 */
import { describe, expect, it } from 'vitest';
import { TargetGoneError, WindowTarget } from '../../electron/session/targets.ts';
import type { WindowInfo, WindowManager, WindowWatch } from '../../native/types.ts';

const ID = '0x00400001';
const at = (x: number): WindowInfo => ({
  id: ID,
  title: 'Game',
  pid: 7,
  bounds: { x, y: 10, width: 300, height: 200 },
  scaleFactor: 1,
});

/** A window manager that answers from `shown` (undefined: the window is gone), and a watch whose next answers are queued. */
function fakeDesk(opts: { watch: boolean }) {
  const desk = { shown: at(0) as WindowInfo | undefined, gets: 0, changes: [] as boolean[], closed: 0 };
  const watch: WindowWatch = {
    changed: () => desk.changes.shift() ?? false,
    close: () => void desk.closed++,
  };
  const wm: WindowManager = {
    platform: 'test',
    list: async () => (desk.shown ? [desk.shown] : []),
    get: async () => {
      desk.gets++;
      return desk.shown;
    },
    focus: async () => {},
    activeId: async () => ID,
    ...(opts.watch ? { watchWindow: () => watch } : {}),
  };
  return { desk, wm };
}

describe('WindowTarget.locate', () => {
  it('reuses the last look while the window says nothing changed, and asks once it does', async () => {
    const { desk, wm } = fakeDesk({ watch: true });
    const target = await WindowTarget.byId(wm, ID);
    desk.gets = 0;
    desk.changes.push(true); // a new watch has seen nothing yet
    expect((await target.locate({ reuse: true })).bounds.x).toBe(0);
    expect([desk.gets, target.lookups]).toEqual([1, 1]);

    desk.shown = at(50); // moved, but the watch has not said so: the last look stands
    expect((await target.locate({ reuse: true })).bounds.x).toBe(0);
    expect(desk.gets).toBe(1);

    desk.changes.push(true);
    expect((await target.locate({ reuse: true })).bounds.x).toBe(50);
    expect([desk.gets, target.lookups]).toEqual([2, 2]);
  });

  it('asks always without reuse, and a plain look starts the next reuse from its answer', async () => {
    const { desk, wm } = fakeDesk({ watch: true });
    const target = await WindowTarget.byId(wm, ID);
    desk.gets = 0;
    desk.shown = at(20);
    expect((await target.locate()).bounds.x).toBe(20);
    expect((await target.locate({ reuse: true })).bounds.x).toBe(20);
    expect(desk.gets).toBe(1);
  });

  it('after a look that found the window gone, the next look asks again even when nothing was heard since', async () => {
    const { desk, wm } = fakeDesk({ watch: true });
    const target = await WindowTarget.byId(wm, ID);
    desk.changes.push(true);
    await target.locate({ reuse: true });
    desk.shown = undefined;
    desk.changes.push(true); // its destroy was heard by this (plain) look…
    await expect(target.locate()).rejects.toBeInstanceOf(TargetGoneError);
    // …so the watch has nothing new for the next one, which must not hand back the old look.
    await expect(target.locate({ reuse: true })).rejects.toBeInstanceOf(TargetGoneError);
  });

  it('asks every time where the window system cannot follow the window', async () => {
    const { desk, wm } = fakeDesk({ watch: false });
    const target = await WindowTarget.byId(wm, ID);
    desk.gets = 0;
    await target.locate({ reuse: true });
    await target.locate({ reuse: true });
    expect([desk.gets, target.lookups]).toEqual([2, 2]);
  });

  it('stops following the window when closed', async () => {
    const { desk, wm } = fakeDesk({ watch: true });
    const target = await WindowTarget.byId(wm, ID);
    await target.locate({ reuse: true });
    await target.close();
    expect(desk.closed).toBe(1);
  });
});
