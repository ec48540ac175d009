/** The runs folder as a library: list, open, read frames, export. Ids are folder names. */
import { cpSync, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { readRun, type RunMeta } from './run-store.ts';
import type { RunSummary } from '../api/contract.ts';

function runPath(root: string, id: string): string {
  if (!/^[\w.-]+$/.test(id) || id.startsWith('.')) throw new Error(`bad run id "${id}"`);
  const dir = path.join(root, id);
  if (!existsSync(path.join(dir, 'run.json'))) throw new Error(`no run "${id}" in ${root}`);
  return dir;
}

export function summarize(meta: RunMeta): RunSummary {
  return {
    id: meta.id,
    created: meta.created,
    status: meta.status,
    kind: meta.kind,
    game: meta.game,
    target: meta.target.label,
    agent: meta.agent,
    model: meta.model,
    space: meta.action_space,
    mean: meta.mean,
    std: meta.std,
    episodes: meta.episodes.length,
    steps: meta.totals.steps,
  };
}

export function listRuns(root: string): RunSummary[] {
  if (!existsSync(root)) return [];
  const out: RunSummary[] = [];
  for (const name of readdirSync(root)) {
    const file = path.join(root, name, 'run.json');
    if (!existsSync(file)) continue;
    try {
      out.push(summarize(JSON.parse(readFileSync(file, 'utf8')) as RunMeta));
    } catch {
      /* a run.json being replaced right now, or damaged: skip it in the list */
    }
  }
  return out.sort((a, b) => b.created.localeCompare(a.created));
}

export function openRun(root: string, id: string) {
  return readRun(runPath(root, id));
}

export function readFrame(root: string, id: string, frame: string): { data: Buffer; mime: string } {
  const dir = runPath(root, id);
  const file = path.resolve(dir, frame);
  if (!file.startsWith(path.join(dir, 'frames') + path.sep)) throw new Error('frame path outside the run');
  return { data: readFileSync(file), mime: file.endsWith('.png') ? 'image/png' : 'image/jpeg' };
}

/** Copies a run folder; refuses to overwrite an existing destination. */
export function exportRun(root: string, id: string, destParent: string): string {
  const dir = runPath(root, id);
  const dest = path.resolve(destParent, id);
  if (existsSync(dest)) throw new Error(`${dest} already exists`);
  if (existsSync(destParent) && !statSync(destParent).isDirectory()) throw new Error(`${destParent} is not a folder`);
  cpSync(dir, dest, { recursive: true });
  return dest;
}
