import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    globalSetup: ['tests/helpers/display-setup.ts'],
    // Real input goes to one shared X display: suites must not interleave.
    fileParallelism: false,
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 60_000,
    expect: { poll: { timeout: 10_000, interval: 50 } },
    reporters: ['default', './tests/helpers/summary-reporter.ts'],
  },
});
