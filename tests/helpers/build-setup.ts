/**
 * The suites run what users run: the main-process bundle (dist-electron/, which bin/gamepilot.mjs,
 * the web shell and sweep workers execute) is built fresh before any suite, and the renderer
 * when its sources are newer than its build.
 */
import { execFileSync } from 'node:child_process';
import { ensureRenderer } from '../../electron/web/web-shell.ts';
import { ROOT } from './cli.ts';

export async function setup() {
  execFileSync(process.execPath, ['scripts/build-electron.mjs', '--quiet'], { cwd: ROOT, stdio: 'inherit' });
  await ensureRenderer((s) => process.stderr.write(`${s}\n`));
}
