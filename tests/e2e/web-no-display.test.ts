/**
 * `gamepilot web` where there is no X display (a server, an SSH session, a display that died):
 * uiohook used to abort the whole process (SIGABRT, "XOpenDisplay failure!"); now the shell
 * says why it has no global stop hotkey and serves the UI anyway.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startWebShellCli } from '../helpers/web-ui.ts';
import { stop } from '../helpers/windows.ts';

describe('gamepilot web without an X display', () => {
  for (const [what, display, reason] of [
    ['DISPLAY unset', '', /no X display: DISPLAY is not set/],
    ['a display nobody serves', ':87', /cannot open the X display :87/],
  ] as const) {
    it(`runs without the global hotkey and says why (${what})`, async () => {
      const tmp = mkdtempSync(path.join(tmpdir(), 'gp-nodisplay-'));
      const shell = await startWebShellCli(
        ['--no-demo', '--runs-dir', path.join(tmp, 'runs'), '--config-dir', path.join(tmp, 'config')],
        { DISPLAY: display, WAYLAND_DISPLAY: '' },
      );
      try {
        const health = await fetch(
          `${new URL(shell.url).origin}/api/health?token=${new URL(shell.url).searchParams.get('token')}`,
        );
        expect(health.status).toBe(200);
        await expect.poll(() => shell.stderr(), { timeout: 20_000 }).toMatch(/warning: no global stop hotkey/);
        expect(shell.stderr()).toMatch(/the global input hook needs an X display/);
        expect(shell.stderr()).toMatch(reason);
        expect(shell.child.exitCode).toBeNull(); // still serving: no abort
        expect(shell.child.signalCode).toBeNull();
      } finally {
        await stop(shell.child);
      }
    }, 60_000);
  }
});
