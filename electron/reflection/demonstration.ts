/**
 * A tutorial made on the spot: the built-in game's solver plays it in a real window, and that
 * run becomes the expert video the reflector watches.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createWindowManager } from '../../native/index.ts';
import { getGame } from '../../games/index.ts';
import { BuiltinTarget, type ViewLauncher } from '../session/targets.ts';
import { SolverAgent } from '../agents/baselines.ts';
import { wireSession } from '../session/compose.ts';
import { parseRunSpec } from '../run-spec.ts';

export async function solverDemonstration(
  gameId: string,
  opts: { maxSteps?: number; launch?: ViewLauncher; outDir?: string } = {},
): Promise<string> {
  const def = getGame(gameId);
  const wm = createWindowManager();
  const target = await BuiltinTarget.open(def, wm, { ...(opts.launch ? { launch: opts.launch } : {}), x: 700, y: 40 });
  try {
    const spec = parseRunSpec({
      game: def.id,
      agent: 'solver',
      episodes: 1,
      maxSteps: opts.maxSteps ?? Math.min(def.defaultMaxSteps, 60),
      seed: 4242,
      imageSize: 1024,
      paceMs: 100,
    });
    const outDir = opts.outDir ?? mkdtempSync(path.join(tmpdir(), 'gamepilot-demo-'));
    const { session } = wireSession(spec, { outDir }, target, new SolverAgent(), wm);
    const r = await session.run();
    if (r.status === 'failed') throw new Error(`the solver demonstration failed: ${r.error}`);
    return r.runDir;
  } finally {
    await target.close();
  }
}
