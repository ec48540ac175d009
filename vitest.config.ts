import { defineConfig } from 'vitest/config';

/**
 * Two projects. `unit`: plain Node, no display — seconds (`npm run test:unit`). `e2e`: real
 * windows, input and Chromium on a private Xvfb display (`npm run test:e2e`). `npm test` runs
 * both, the unit files first; e2e files one at a time, since real input goes to one display.
 */
const common = {
  pool: 'forks' as const,
  testTimeout: 120_000,
  hookTimeout: 60_000,
  expect: { poll: { timeout: 10_000, interval: 50 } },
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
          setupFiles: ['tests/helpers/no-display-setup.ts'],
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
    ],
  },
});
