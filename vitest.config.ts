import { defineConfig } from 'vitest/config';

/**
 * Five projects. `unit`: plain Node, no display — seconds (`npm run test:unit`). `e2e`: real
 * windows, input and Chromium on private Xvfb displays, and `e2e-alone`: the same for files that
 * must have the machine to themselves (both: `npm run test:e2e`). `chaos`: sweeps,
 * workers, Redis and the storage server killed and restarted at random (`npm run test:chaos`). `real-server`: the
 * CLI against a real third-party OpenAI-compatible server, llama.cpp's llama-server with a tiny
 * random-weight model (scripts/llama-server.sh, docs/testing-real-server.md); opt-in: it skips
 * unless GAMEPILOT_LLAMA_SERVER is set, as .ci/run does. `npm test` runs them all in that order:
 * the unit files first, then e2e and chaos files two at a time (each e2e worker on its own
 * display), then e2e-alone and real-server files one at a time.
 */

/**
 * e2e files run this many at a time (GAMEPILOT_E2E_WORKERS, default 2: the CI machine's cores),
 * each worker on its own private display (display-setup.ts); one at a time on a display a
 * person gave (GAMEPILOT_TEST_DISPLAY), where they would share one screen and keyboard.
 */
const e2eWorkers = process.env.GAMEPILOT_TEST_DISPLAY ? 1 : Number(process.env.GAMEPILOT_E2E_WORKERS) || 2;

/**
 * e2e files that need the machine to themselves run after the others, one at a time: those
 * whose subject is how the machine keeps time — a quiet time that ends a settle, a recorder's
 * frame rate (beside a second e2e file, Chromium stalled for over 150 ms and a settle took that
 * for the end of the answer) — and the anti-cheat guard's, whose stand-in process every run on
 * the machine sees.
 */
export const E2E_ALONE = [
  'tests/e2e/settle.test.ts',
  'tests/e2e/record.test.ts',
  'tests/e2e/recorder-threads.test.ts',
  'tests/e2e/anticheat.test.ts',
];

const e2eGlobalSetup = [
  'tests/helpers/config-setup.ts',
  'tests/helpers/build-setup.ts',
  'tests/helpers/display-setup.ts',
];

const common = {
  pool: 'forks' as const,
  testTimeout: 120_000,
  hookTimeout: 60_000,
  expect: { poll: { timeout: 10_000, interval: 50 } },
  // Fails a file that leaves a process running or a key down (tests/helpers/leak-check-setup.ts).
  setupFiles: ['tests/helpers/leak-check-setup.ts'],
  // No retries: a retried pass hides the next flake.
  retry: 0,
};

export default defineConfig({
  test: {
    reporters: ['default', './tests/helpers/summary-reporter.ts'],
    projects: [
      {
        test: {
          ...common,
          name: 'unit',
          include: ['tests/unit/**/*.test.ts'],
          globalSetup: ['tests/helpers/config-setup.ts', 'tests/helpers/build-setup.ts'],
          setupFiles: [...common.setupFiles, 'tests/helpers/no-display-setup.ts'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...common,
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          exclude: E2E_ALONE,
          globalSetup: e2eGlobalSetup,
          setupFiles: [...common.setupFiles, 'tests/helpers/display-worker-setup.ts'],
          maxWorkers: e2eWorkers,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          ...common,
          name: 'e2e-alone',
          include: E2E_ALONE,
          globalSetup: e2eGlobalSetup,
          setupFiles: [...common.setupFiles, 'tests/helpers/display-worker-setup.ts'],
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
      {
        // Kills and restarts sweeps, workers, Redis and the S3 server (npm run test:chaos): only what it started
        // (its own mark), on its workers' own displays, so beside the e2e files, in their group.
        test: {
          ...common,
          name: 'chaos',
          include: ['tests/chaos/**/*.test.ts'],
          globalSetup: ['tests/helpers/config-setup.ts', 'tests/helpers/build-setup.ts'],
          maxWorkers: e2eWorkers,
          sequence: { groupOrder: 1 },
        },
      },
      {
        // llama-server takes both cores of a small machine: alone, last. Without it set up
        // (GAMEPILOT_LLAMA_SERVER unset) the tests skip and no display or build is prepared.
        test: {
          ...common,
          name: 'real-server',
          include: ['tests/real-server/**/*.test.ts'],
          globalSetup: process.env.GAMEPILOT_LLAMA_SERVER
            ? ['tests/helpers/config-setup.ts', 'tests/helpers/build-setup.ts', 'tests/helpers/display-setup.ts']
            : ['tests/helpers/config-setup.ts'],
          setupFiles: process.env.GAMEPILOT_LLAMA_SERVER
            ? [...common.setupFiles, 'tests/helpers/display-worker-setup.ts']
            : common.setupFiles,
          testTimeout: 240_000,
          fileParallelism: false,
          sequence: { groupOrder: 3 },
        },
      },
    ],
  },
});
