/**
 * GameVerse sets a rookie after the tutorial (Rookie, VR = Yes) beside agents that reflected on
 * the same tutorial (lessons self-t or self). Each run records its tutorial's sha256
 * (store/tutorial-identity.ts); a title whose such rows rest on different tutorials, or on one
 * whose hash was never recorded, is named in the report's warnings.
 */
import type { RunMeta } from '../store/run-store.ts';
import { episodeCells, isScoredRun } from '../store/leaderboard.ts';
import { titleOf } from '../store/run-title.ts';

interface Taught {
  who: 'rookie' | 'agent';
  sha256: string | null;
  file: string;
}

const str = (v: unknown) => (typeof v === 'string' && v ? v : null);

/** Where the lessons of a VR = Yes row came from a tutorial: a rookie after watching it, an agent reflecting on it. */
const FROM_TUTORIAL: readonly (string | null)[] = ['tutorial', 'self-t', 'self'];

/** The tutorial a counted run's VR = Yes rows rest on, if it has such rows (the leaderboard's own cells). */
function taughtBy(meta: RunMeta): Taught | null {
  if (!episodeCells(meta).some(({ cell }) => cell.vr === 'Yes' && FROM_TUTORIAL.includes(cell.lessons))) return null;
  if (meta.kind === 'human')
    return {
      who: 'rookie',
      sha256: str(meta.config.tutorial_sha256),
      file: str(meta.config.tutorial) ?? '(not recorded)',
    };
  const r = meta.reflection;
  return { who: 'agent', sha256: str(r?.tutorial_sha256), file: str(r?.tutorial) ?? '(not recorded)' };
}

const short = (t: Taught) => (t.sha256 ? `${t.sha256.slice(0, 12)} (${t.file})` : `unknown (${t.file})`);

export function tutorialWarnings(metas: RunMeta[]): string[] {
  const byTitle = new Map<string, { name: string; taught: Taught[] }>();
  for (const meta of metas) {
    if (!isScoredRun(meta)) continue;
    const t = taughtBy(meta);
    if (!t) continue;
    const title = titleOf(meta);
    const entry = byTitle.get(title.id) ?? { name: title.name, taught: [] };
    entry.taught.push(t);
    byTitle.set(title.id, entry);
  }
  const warnings: string[] = [];
  for (const [id, { name, taught }] of byTitle) {
    const rookie = taught.filter((t) => t.who === 'rookie');
    const agent = taught.filter((t) => t.who === 'agent');
    if (!rookie.length || !agent.length) continue;
    const unknown = taught.filter((t) => !t.sha256).length;
    const hashes = new Set(taught.flatMap((t) => (t.sha256 ? [t.sha256] : [])));
    const list = (ts: Taught[]) => [...new Set(ts.map(short))].join(', ');
    if (hashes.size > 1)
      warnings.push(
        `${name} (${id}): the Rookie VR = Yes and agent VR = Yes rows rest on different tutorials — rookie: ${list(rookie)}; agents: ${list(agent)}`,
      );
    else if (unknown)
      warnings.push(
        `${name} (${id}): ${unknown} run(s) after the tutorial record no tutorial hash (older runs), so the Rookie and agent VR = Yes rows cannot be checked to rest on one tutorial`,
      );
  }
  return warnings;
}
