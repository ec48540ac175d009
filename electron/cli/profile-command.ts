/** `gamepilot profiles` (what Gamepilot knows of titles) and `gamepilot profile new` (a starter for a live window). */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { createWindowManager } from '../../native/index.ts';
import { createCapturer } from '../capture/index.ts';
import { encodeFrame } from '../capture/encode.ts';
import { WindowTarget } from '../session/targets.ts';
import { executableOf } from '../profiles/executable.ts';
import {
  loadCatalog,
  looksLikeFile,
  profileById,
  userProfilesDir,
  type ProfileCatalog,
  type ProfileEntry,
} from '../profiles/registry.ts';
import { describePlaceholders, loadProfileFile, parseProfileSource } from '../profiles/load.ts';
import { idFromTitle, starterProfile } from '../profiles/starter.ts';
import { milestoneList } from '../scoring/normalise.ts';
import { writeFileAtomic } from '../util/atomic-file.ts';
import { withFileLock } from '../util/file-lock.ts';
import { defaultConfigDir } from '../util/paths.ts';
import { textPattern } from '../util/text-pattern.ts';
import type { ProfileChoice } from '../session/compose.ts';
import { io } from './io.ts';
import { UsageError } from './options.ts';

export interface ProfileListRow {
  id: string;
  title: string;
  file: string;
  source: string;
  category: string;
  tier: string;
  scoring: string;
  builtin: string | null;
  agent: string;
  max_steps: number;
  trials: number;
  milestones?: number;
}

/** The catalog with its refused files reported on stderr (each names file, line and field). */
export function catalogWithWarnings(): ProfileCatalog {
  const catalog = loadCatalog({ configDir: defaultConfigDir() });
  for (const e of catalog.errors) io.log(`warning: ${e.message}`);
  return catalog;
}

export function profilesCommand(o: { json?: boolean }): number {
  const catalog = catalogWithWarnings();
  const rows: ProfileListRow[] = catalog.entries.map(({ profile: p, file, source }) => ({
    id: p.id,
    title: p.title,
    file,
    source,
    category: p.category,
    tier: p.tier,
    scoring: p.scoring.kind,
    builtin: p.builtin ?? null,
    agent: p.episode.agent,
    max_steps: p.episode.maxSteps,
    trials: p.episode.trials,
    ...(p.scoring.kind === 'milestones' ? { milestones: milestoneList(p.scoring).length } : {}),
  }));
  if (o.json) io.out(JSON.stringify({ profiles: rows, errors: catalog.errors.map((e) => e.message) }));
  else
    for (const r of rows)
      io.out(
        `${r.id.padEnd(24)} ${r.category.padEnd(22)} ${r.tier.padEnd(7)} ${r.scoring.padEnd(11)} ${r.title}  (${r.source}: ${r.file})`,
      );
  return 0;
}

/** `--profile ID|FILE` / `--no-profile` / neither (match the target), as the composition root takes it. */
export function profileChoiceFrom(ref: string | false | undefined): ProfileChoice {
  if (ref === false) return { kind: 'none' };
  if (ref === undefined) return { kind: 'match', entries: catalogWithWarnings().entries };
  return { kind: 'chosen', entry: profileEntryFrom(ref) };
}

/** `--profile ID|FILE` (or the argument `what`): a profile of the catalog by id, or a file given for this command. */
export function profileEntryFrom(ref: string, what = '--profile'): ProfileEntry {
  try {
    if (!looksLikeFile(ref)) return profileById(catalogWithWarnings(), ref);
    return { ...loadProfileFile(path.resolve(ref)), source: 'given' };
  } catch (err) {
    throw new UsageError(`${what}: ${(err as Error).message}`);
  }
}

export async function profileNewCommand(o: { window: string; out?: string; id?: string }): Promise<number> {
  const wm = createWindowManager();
  const target = await WindowTarget.find(wm, textPattern(o.window));
  const win = await target.locate();
  const id = o.id ?? idFromTitle(win.title);
  const file = path.resolve(o.out ?? path.join(userProfilesDir(defaultConfigDir()), `${id}.yaml`));
  const shot = `${file.replace(/\.(ya?ml|json)$/i, '')}.png`;
  for (const f of [file, shot])
    if (existsSync(f)) throw new UsageError(`${f} exists; give another --out (a starter never overwrites a file)`);
  mkdirSync(path.dirname(file), { recursive: true });
  let png: Buffer | undefined;
  try {
    if (win.minimized) throw new Error('the window is minimized');
    await wm.focus(win.id);
    const raw = await createCapturer().grab(win.bounds);
    png = (
      await encodeFrame(raw, {
        format: 'png',
        imageSize: Math.max(win.bounds.width, win.bounds.height),
        quality: 100,
      })
    ).data;
  } catch (err) {
    io.log(`warning: no first screenshot (${(err as Error).message}); the profile is written without one`);
  }
  const executable = executableOf(win.pid);
  // Under the profile file's lock (the one the app's saves take), checked again: two starters
  // for one id at once, or a save from the app meanwhile, never overwrite each other.
  const yaml = await withFileLock(file, () => {
    for (const f of [file, shot])
      if (existsSync(f)) throw new UsageError(`${f} exists; give another --out (a starter never overwrites a file)`);
    let screenshot: string | undefined;
    if (png) {
      try {
        writeFileAtomic(shot, png);
        screenshot = path.basename(shot);
      } catch (err) {
        io.log(`warning: no first screenshot (${(err as Error).message}); the profile is written without one`);
      }
    }
    const text = starterProfile(
      { title: win.title, width: win.bounds.width, height: win.bounds.height, executable, screenshot },
      id,
    );
    writeFileAtomic(file, text);
    return text;
  });
  io.out(file);
  const { placeholders } = parseProfileSource(yaml, file);
  io.log(
    `starter profile for "${win.title}" written; a run refuses it until you fill in ${describePlaceholders(placeholders)}; then: gamepilot run --window … --profile ${file}`,
  );
  return 0;
}
