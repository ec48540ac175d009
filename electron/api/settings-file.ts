/**
 * The one settings file every shell shares, `settings.json`: a JSON object
 * `{ settings, apiKeyEncrypted? }`, the layout the app has always written (through
 * electron-store). Each shell owns one part and changes only that part: the app, web shell and
 * CLI `settings`; the app alone `apiKeyEncrypted` (safeStorage ciphertext, electron/app/). Every
 * change re-reads the file under a lock file, changes its own part, keeps every other key as it
 * was and replaces the file atomically, owner-only (0600); so two writers at once neither tear
 * the file nor drop each other's part (and within `settings`, a store's save changes only the
 * fields it changed: settings-store.ts). The lock file (`settings.json.lock`, ../util/file-lock.ts)
 * names its owner: a dead one's is taken over at once. A file that is not a JSON object is moved aside
 * (`settings.json.corrupt-<time>`, named in a warning), never silently replaced.
 *
 * Older web shells and CLIs wrote the settings object bare at the top level; such a file is
 * still read, and the next save moves its fields under `settings`. Fields saved under a former
 * name (`baseURL`, now the run spec's `baseUrl`) are read under the new one; the next save
 * writes the new name.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { writeFileAtomic } from '../util/atomic-file.ts';
import { readFormerNames } from '../util/former-names.ts';
import { lockFileOf, lockSync, LockTimeoutError, type FileLock } from '../util/file-lock.ts';
import { DEFAULT_SETTINGS, SettingsSchema, type Settings } from './contract.ts';

/** The parsed file: its parts by key, as far as the file layer is concerned. */
export type SettingsDoc = Record<string, unknown>;

/** Settings fields saved under another name by older versions: former name → name. */
const FORMER_NAMES: Readonly<Record<string, string>> = { baseURL: 'baseUrl' };

/** Keys of the old bare layout, and a plaintext key some very old files held: never settings, never kept. */
const LEGACY_KEYS = new Set([...Object.keys(SettingsSchema.shape), ...Object.keys(FORMER_NAMES), 'apiKey']);

type Parsed = { doc: SettingsDoc } | { why: string };

function parse(text: string): Parsed {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v)
      ? { doc: v as SettingsDoc }
      : { why: 'it does not hold a JSON object' };
  } catch (err) {
    return { why: `it is not valid JSON: ${(err as Error).message}` };
  }
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** The file now, with no side effects: undefined when it is missing or unreadable. */
export function peekSettingsDoc(file: string): SettingsDoc | undefined {
  const text = readText(file);
  if (text === undefined) return undefined;
  const p = parse(text);
  return 'doc' in p ? p.doc : undefined;
}

/**
 * A holder keeps the lock for one read-change-write (milliseconds): one dead is taken over at
 * once, one hung for 10 s is broken; the wait is bounded all the same.
 */
const LOCK = { staleMs: 10_000, timeoutMs: 15_000 };

function withLock<T>(file: string, fn: () => T): T {
  let lock: FileLock;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    lock = lockSync(lockFileOf(file), LOCK);
  } catch (err) {
    if (err instanceof LockTimeoutError) throw err;
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'EACCES' || e.code === 'EPERM' || e.code === 'EROFS' ? 'permission denied' : e.message;
    throw Object.assign(new Error(`cannot write ${file}: ${why}`), { code: e.code });
  }
  try {
    return fn();
  } finally {
    lock.release();
  }
}

/** Under the lock: the file as a doc; one that is not a JSON object is moved aside first. */
function readLocked(file: string, now: number): { doc: SettingsDoc; warning: string | null } {
  const text = readText(file);
  if (text === undefined) return { doc: {}, warning: null };
  const p = parse(text);
  if ('doc' in p) return { doc: p.doc, warning: null };
  const aside = `${file}.corrupt-${now}`;
  renameSync(file, aside);
  return {
    doc: {},
    warning: `${path.basename(file)} could not be read (${p.why}); it was kept as ${path.basename(aside)} — with the saved API key, if there was one — and Gamepilot started from default settings.`,
  };
}

/**
 * Reads the file: a missing one is empty; one that is not a JSON object is moved aside and a
 * warning names where it went.
 */
export function readSettingsDoc(file: string, now: number = Date.now()): { doc: SettingsDoc; warning: string | null } {
  const doc = peekSettingsDoc(file);
  if (doc || !existsSync(file)) return { doc: doc ?? {}, warning: null };
  // Unreadable: decide again under the lock, so a good file a writer just put there is not moved.
  return withLock(file, () => readLocked(file, now));
}

/**
 * Changes the file: under the lock, reads it as it is now, applies `change` and writes the
 * result atomically, owner-only (nothing when `change` changed nothing). Returns a warning when
 * it first had to move a corrupt file aside.
 */
export function updateSettingsDoc(
  file: string,
  change: (doc: SettingsDoc) => SettingsDoc,
  now: number = Date.now(),
): string | null {
  return withLock(file, () => {
    const { doc, warning } = readLocked(file, now);
    const next = change(doc);
    // The layout electron-store writes (tabs); a fresh temp file, so 0600 even over a wider file.
    if (!isDeepStrictEqual(next, doc)) writeFileAtomic(file, JSON.stringify(next, undefined, '\t'), { mode: 0o600 });
    return warning;
  });
}

function legacyPart(doc: SettingsDoc): SettingsDoc {
  return Object.fromEntries(Object.entries(doc).filter(([k]) => LEGACY_KEYS.has(k) && k !== 'apiKey'));
}

/**
 * The stored settings (unvalidated): `settings`, or the top-level fields of the old bare
 * layout. A file with both comes from an older app opening a bare file: it filled `settings`
 * with its defaults, so defaults there mean the top-level fields are the user's.
 */
export function settingsPart(doc: SettingsDoc): unknown {
  const legacy = legacyPart(doc);
  const hasLegacy = Object.keys(legacy).length > 0;
  if (!('settings' in doc)) return readFormerNames(legacy, FORMER_NAMES);
  const settings = readFormerNames(doc.settings, FORMER_NAMES);
  if (hasLegacy && isDeepStrictEqual(SettingsSchema.safeParse(settings).data, DEFAULT_SETTINGS))
    return readFormerNames(legacy, FORMER_NAMES);
  return settings;
}

/** `doc` with `settings` replaced and the old top-level copy dropped; every other part as it was. */
export function withSettings(doc: SettingsDoc, settings: Settings): SettingsDoc {
  const rest = Object.fromEntries(Object.entries(doc).filter(([k]) => k !== 'settings' && !LEGACY_KEYS.has(k)));
  return { settings, ...rest };
}

/** The file readable and writable by its owner only (POSIX). */
export function restrictToOwner(file: string): void {
  if (process.platform === 'win32' || !existsSync(file)) return;
  chmodSync(file, 0o600);
}
