import { defineConfig } from 'vitest/config';

/**
 * Four projects. `unit`: plain Node, no display — seconds (`npm run test:unit`). `e2e`: real
 * windows, input and Chromium on a private Xvfb display (`npm run test:e2e`). `chaos`: sweeps,
 * workers and Redis killed and restarted at random (`npm run test:chaos`). `real-server`: the
 * CLI against a real third-party OpenAI-compatible server, llama.cpp's llama-server with a tiny
 * random-weight model (scripts/llama-server.sh, docs/testing-real-server.md); opt-in: it skips
 * unless GAMEPILOT_LLAMA_SERVER is set, as .ci/run does. `npm test` runs all four, the unit
 * files first; e2e, chaos and real-server files one at a time.
 */
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
          globalSetup: [
            'tests/helpers/config-setup.ts',
            'tests/helpers/build-setup.ts',
            'tests/helpers/display-setup.ts',
          ],
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
      {
        // Kills and restarts sweeps, workers and Redis; alone, after the others (npm run test:chaos).
        test: {
          ...common,
          name: 'chaos',
          include: ['tests/chaos/**/*.test.ts'],
          globalSetup: ['tests/helpers/config-setup.ts', 'tests/helpers/build-setup.ts'],
          fileParallelism: false,
          sequence: { groupOrder: 2 },
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
          testTimeout: 240_000,
          fileParallelism: false,
          sequence: { groupOrder: 3 },
        },
      },
    ],
  },
});
