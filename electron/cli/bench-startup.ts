/**
 * `gamepilot bench --startup`: how long the CLI takes to start and answer, measured as a user
 * sees it — a fresh process running `gamepilot games --json` to its exit, `runs` times. The
 * build users run is measured, and in a checkout with its dev dependencies the TypeScript
 * sources through tsx (GAMEPILOT_DEV=1) alternately with it, so the two are compared in one run.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resources } from '../util/resources.ts';
import { now, percentile } from '../util/time.ts';

export interface StartupFigures {
  median_ms: number;
  p90_ms: number;
  min_ms: number;
  samples_ms: number[];
}

export interface StartupBench {
  command: string;
  runs: number;
  built: StartupFigures;
  /** The sources through tsx, where tsx is installed (a checkout); absent in a package. */
  source?: StartupFigures;
}

function timeOnce(env: NodeJS.ProcessEnv): Promise<number> {
  const t0 = now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [resources().cliLauncher, 'games', '--json'], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve(now() - t0);
      else reject(new Error(`gamepilot games exited ${code}: ${stderr.trim()}`));
    });
  });
}

function figures(samples: number[]): StartupFigures {
  const rounded = samples.map((s) => Math.round(s));
  return {
    median_ms: Math.round(percentile(samples, 50)),
    p90_ms: Math.round(percentile(samples, 90)),
    min_ms: Math.min(...rounded),
    samples_ms: rounded,
  };
}

/** Whether the sources can run here (a checkout with its dev dependencies): one try decides. */
async function sourcesRun(env: NodeJS.ProcessEnv): Promise<boolean> {
  if (!existsSync(resources().cliSource)) return false;
  try {
    await timeOnce({ ...env, GAMEPILOT_DEV: '1' });
    return true;
  } catch {
    return false; // no tsx (installed without dev dependencies)
  }
}

export async function runStartupBench(opts: { runs: number; log: (s: string) => void }): Promise<StartupBench> {
  const { GAMEPILOT_DEV: _dev, ...base } = process.env;
  const withSource = await sourcesRun(base);
  const built: number[] = [];
  const source: number[] = [];
  await timeOnce(base); // warms the file cache, not counted
  for (let i = 0; i < opts.runs; i++) {
    built.push(await timeOnce(base));
    if (withSource) source.push(await timeOnce({ ...base, GAMEPILOT_DEV: '1' }));
    opts.log(`startup: run ${i + 1}/${opts.runs}`);
  }
  return {
    command: 'gamepilot games --json',
    runs: opts.runs,
    built: figures(built),
    ...(withSource ? { source: figures(source) } : {}),
  };
}

export function formatStartupBench(b: StartupBench): string {
  const row = (name: string, f: StartupFigures) =>
    `${name.padEnd(22)} median ${String(f.median_ms).padStart(5)} ms   p90 ${String(f.p90_ms).padStart(5)} ms   min ${String(f.min_ms).padStart(5)} ms`;
  return [
    `start-up of \`${b.command}\`, ${b.runs} runs each (a fresh process to its exit):`,
    row('built (what users run)', b.built),
    ...(b.source ? [row('sources through tsx', b.source)] : []),
  ].join('\n');
}
