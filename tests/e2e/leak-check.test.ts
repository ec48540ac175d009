/**
 * The suites' leak check (tests/helpers/leak-check-setup.ts) on a made-up test that leaves a
 * real Chromium window open on the test display: the file fails, the failure names the file
 * and the browser, and the browser is gone afterwards.
 */
import { spawn } from 'node:child_process';
import { afterAll, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.ts';
import { markedProcesses } from '../helpers/leak-check.ts';

const FIXTURE = 'tests/fixtures/leak/leaves-chromium.leak.ts';

afterAll(() => {
  for (const p of markedProcesses({ file: FIXTURE })) process.kill(p.pid, 'SIGKILL'); // had the check missed it
});

it('fails a test file that leaves a Chromium window open, naming the file and the browser', async () => {
  const child = spawn(
    process.execPath,
    ['node_modules/vitest/vitest.mjs', 'run', '--config', 'tests/fixtures/leak/vitest.config.ts'],
    {
      cwd: ROOT,
      env: { ...process.env, FORCE_COLOR: '0', GAMEPILOT_LEAK_GRACE_MS: '1000' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  expect(code, out).not.toBe(0);
  expect(out).toContain(`${FIXTURE} left things behind`);
  expect(out).toMatch(/pid \d+ \(\w\): \/usr\/bin\/chromium|pid \d+ \(\w\): \S*chrom/);
  expect(markedProcesses({ file: FIXTURE })).toEqual([]);
}, 120_000);
