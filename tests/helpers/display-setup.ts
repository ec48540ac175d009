/**
 * Starts private X displays (Xvfb 1600×900 + openbox) for the suites that need real windows,
 * so tests never inject input into the developer's own desktop — the same private display a
 * sweep worker gets (electron/sweep/display.ts). One display per test worker of the project
 * (its `maxWorkers`): files that run at the same time never share a screen, a keyboard or a
 * focus (display-worker-setup.ts picks the worker's own). GAMEPILOT_TEST_DISPLAY=:N reuses an
 * existing display instead, and the config then runs those files one at a time.
 */
import type { TestProject } from 'vitest/node';
import { startPrivateDisplay, type PrivateDisplay } from '../../electron/sweep/display.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The X displays of this project's workers, by VITEST_POOL_ID − 1. */
    displays: string[];
  }
}

export async function setup(project: TestProject) {
  const given = process.env.GAMEPILOT_TEST_DISPLAY;
  if (given || process.platform !== 'linux') {
    if (given) process.env.DISPLAY = given;
    project.provide('displays', given ? [given] : []);
    return;
  }
  const workers = Math.max(1, Number(project.config.maxWorkers) || 1);
  const started: PrivateDisplay[] = [];
  try {
    // One after another: startPrivateDisplay takes the first free number, and two at once may race for it.
    for (let i = 0; i < workers; i++) started.push(await startPrivateDisplay({ size: '1600x900', from: 90 }));
  } catch (err) {
    await Promise.all(started.map((d) => d.close()));
    throw err;
  }
  project.provide(
    'displays',
    started.map((d) => d.display),
  );
  return async () => {
    await Promise.all(started.map((d) => d.close()));
  };
}
