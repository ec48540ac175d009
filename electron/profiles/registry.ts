/**
 * Where profiles live and which one a run uses: shipped with Gamepilot (games/<id>/profile.yaml),
 * the user's own (<config>/profiles/*.yaml|yml|json, which replace a shipped profile of the same
 * id), and a file given for one run. A window is matched by its title and its process's
 * executable; two matches are never guessed between.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { CodedError } from '../domain.ts';
import { resources } from '../util/resources.ts';
import { textPattern, type TextPattern } from '../util/text-pattern.ts';
import { describePlaceholders, loadProfileFile, ProfileError, type LoadedProfile } from './load.ts';
import type { Profile } from './profile-schema.ts';

export type ProfileSource = 'shipped' | 'user' | 'given';

/** A profile as loaded (its file absolute), and where it came from. */
export interface ProfileEntry extends LoadedProfile {
  source: ProfileSource;
}

/**
 * A profile's content hash (SHA-256 of its parsed fields, keys sorted, 16 hex digits): the same
 * for the same profile written as YAML or JSON, in any key order or comment; any edit that
 * changes a field changes it. `$schema` (an editor hint) is left out.
 */
export function profileHash(p: Profile): string {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .filter((k) => k !== '$schema' && (v as Record<string, unknown>)[k] !== undefined)
              .sort()
              .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
          )
        : v;
  return createHash('sha256')
    .update(JSON.stringify(canonical(p)))
    .digest('hex')
    .slice(0, 16);
}

/** Which profile an entry is and where it came from: the fields run.json and the profile list both show first. */
export function profileIdentity(e: ProfileEntry) {
  const p = e.profile;
  return {
    id: p.id,
    title: p.title,
    file: e.file,
    source: e.source,
    category: p.category,
    tier: p.tier,
    hash: profileHash(p),
  };
}

export interface ProfileCatalog {
  entries: ProfileEntry[];
  /** Files that were refused whole (bad YAML, a field that fails, a duplicate id), each naming file, line and field. */
  errors: CodedError[];
}

const PROFILE_FILE = /\.(ya?ml|json)$/i;

/** Shipped profiles (util/resources.ts: the app's games/, or GAMEPILOT_GAMES_DIR). */
export function shippedProfilesDir(): string {
  return resources().games;
}

/** The user's profiles folder. */
export function userProfilesDir(configDir: string): string {
  return path.join(configDir, 'profiles');
}

function shippedFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => path.join(dir, d.name, 'profile.yaml'))
    .filter((f) => existsSync(f))
    .sort();
}

function userFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => PROFILE_FILE.test(f))
    .map((f) => path.join(dir, f))
    .filter((f) => statSync(f).isFile())
    .sort();
}

/**
 * Every profile: shipped, then the user's (replacing shipped ones by id), then given files.
 * A file that fails is listed in `errors` and left out whole; the others load.
 */
export function loadCatalog(opts: { configDir?: string; shippedDir?: string; files?: string[] } = {}): ProfileCatalog {
  const byId = new Map<string, ProfileEntry>();
  const errors: CodedError[] = [];
  const add = (file: string, source: ProfileSource) => {
    try {
      const loaded = loadProfileFile(file);
      const { profile } = loaded;
      const prior = byId.get(profile.id);
      if (prior && prior.source === source)
        throw new ProfileError(file, undefined, 'id', `"${profile.id}" is already the id of ${prior.file}`);
      byId.set(profile.id, { ...loaded, source });
    } catch (err) {
      errors.push(err instanceof CodedError ? err : new CodedError('bad-input', (err as Error).message));
    }
  };
  for (const f of shippedFiles(opts.shippedDir ?? shippedProfilesDir())) add(f, 'shipped');
  if (opts.configDir) for (const f of userFiles(userProfilesDir(opts.configDir))) add(f, 'user');
  for (const f of opts.files ?? []) add(path.resolve(f), 'given');
  return { entries: [...byId.values()].sort((a, b) => a.profile.id.localeCompare(b.profile.id)), errors };
}

/** What a window is, for matching: its title and, when known, its process's executable name. */
export interface WindowFacts {
  title: string;
  executable?: string | undefined;
}

/** An executable name as matched: the file name, without a Windows .exe, lower-case. */
export function executableKey(name: string): string {
  return (name.split(/[\\/]/).pop() ?? name).replace(/\.exe$/i, '').toLowerCase();
}

/** Compiled title patterns, by source: matching runs for every window and profile on each listing. */
const titlePatterns = new Map<string, TextPattern>();
function titlePattern(source: string): TextPattern {
  let p = titlePatterns.get(source);
  if (!p) {
    p = textPattern(source); // checked when the profile was loaded, so it compiles
    if (titlePatterns.size > 500) titlePatterns.clear();
    titlePatterns.set(source, p);
  }
  return p;
}

/** Whether a profile's match fits the window: every criterion it gives must fit (an unknown executable fits no executable-only profile). */
export function matches(profile: Profile, w: WindowFacts): boolean {
  const m = profile.match;
  if (!m) return false;
  if (m.title !== undefined && !titlePattern(m.title).test(w.title)) return false;
  if (m.executable !== undefined) {
    const names = (Array.isArray(m.executable) ? m.executable : [m.executable]).map(executableKey);
    if (w.executable === undefined) return m.title !== undefined;
    if (!names.includes(executableKey(w.executable))) return false;
  }
  return true;
}

/** Profiles whose match fits the window (built-in profiles never match a window). */
export function matchWindow(entries: ProfileEntry[], w: WindowFacts): ProfileEntry[] {
  return entries.filter((e) => matches(e.profile, w));
}

/** A profile by id, or a clear error listing the ids there are. */
export function profileById(catalog: ProfileCatalog, id: string): ProfileEntry {
  const e = catalog.entries.find((x) => x.profile.id === id);
  if (e) return e;
  throw new CodedError(
    'not-found',
    `no profile with id "${id}" (profiles: ${catalog.entries.map((x) => x.profile.id).join(', ') || 'none'})`,
  );
}

/** The built-in game's own profile, if it has one. */
export function builtinProfile(catalog: ProfileCatalog, game: string): ProfileEntry | undefined {
  return catalog.entries.find((e) => e.profile.builtin === game);
}

/** `--profile` takes an id or a file: a value naming an existing file, or ending in .yaml/.yml/.json, is a file. */
export function looksLikeFile(ref: string): boolean {
  return PROFILE_FILE.test(ref) || ref.includes('/') || ref.includes('\\') || existsSync(ref);
}

/** Several profiles fit one window: the caller must choose (CLI: --profile; UI: a choice). */
export class AmbiguousProfileError extends CodedError {
  constructor(
    readonly window: string,
    readonly candidates: ProfileEntry[],
  ) {
    super(
      'bad-input',
      `${candidates.length} profiles match the window "${window}":\n${candidates
        .map((c) => `  ${c.profile.id}  ${c.profile.title}  (${c.file})`)
        .join('\n')}\nchoose one with --profile ID (or run without one: --no-profile)`,
    );
  }
}

/** The one profile that fits the window, none, or an AmbiguousProfileError. */
export function pickForWindow(entries: ProfileEntry[], w: WindowFacts): ProfileEntry | undefined {
  const found = matchWindow(entries, w);
  if (found.length > 1) throw new AmbiguousProfileError(w.title, found);
  return found[0];
}

/**
 * A profile with fields still to fill in (a starter's TODOs): refused for runs, naming its file
 * and lines, since its placeholder text would reach the model as the title's task and rules.
 */
export class UnfilledProfileError extends CodedError {
  constructor(readonly entry: ProfileEntry) {
    super(
      'bad-input',
      `the profile "${entry.profile.id}" (${entry.file}) still has placeholders to fill in: ${describePlaceholders(entry.placeholders)}; replace each TODO (docs/profiles.md), or run without a profile`,
    );
  }
}

/** The profile itself when it is ready for a run; an UnfilledProfileError when it is not. */
export function readyForRun(entry: ProfileEntry | undefined): ProfileEntry | undefined {
  if (entry?.placeholders.length) throw new UnfilledProfileError(entry);
  return entry;
}
