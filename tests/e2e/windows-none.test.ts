/**
 * `gamepilot windows` when it has nothing to list says so, and why: a display with no windows
 * (exit 0, stdout still the empty list), or no display at all (exit 1, what to do).
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateDisplay, type PrivateDisplay } from '../../electron/sweep/display.ts';
import { runCli } from '../helpers/cli.ts';

describe('gamepilot windows with nothing to list', () => {
  let empty: PrivateDisplay;
  beforeAll(async () => {
    // A bare X server of its own: no window manager, no window.
    empty = await startPrivateDisplay({ size: '800x600', from: 140, windowManager: false });
  });
  afterAll(async () => {
    await empty?.close();
  });

  it('a display with no windows: says so, exit 0', async () => {
    const text = await runCli(['windows'], { env: { DISPLAY: empty.display } });
    expect(text.code).toBe(0);
    expect(text.stdout).toBe('');
    expect(text.stderr).toContain(`no windows: the X display ${empty.display} has no top-level windows open`);
    const asJson = await runCli(['windows', '--json'], { env: { DISPLAY: empty.display } });
    expect(asJson.code).toBe(0);
    expect(JSON.parse(asJson.stdout)).toEqual([]);
  });

  it('DISPLAY unset: says there is no display and how to get one, exit 1', async () => {
    const r = await runCli(['windows'], { env: { DISPLAY: '', WAYLAND_DISPLAY: '' } });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/no windows to list: no X display: DISPLAY is not set: start an X server .* set DISPLAY/);
  });

  it('a display nobody serves: says it cannot be opened, exit 1', async () => {
    let n = 390;
    while (existsSync(`/tmp/.X11-unix/X${n}`)) n++;
    const r = await runCli(['windows'], { env: { DISPLAY: `:${n}` } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`no windows to list: the X display :${n} cannot be opened`);
  });
});
