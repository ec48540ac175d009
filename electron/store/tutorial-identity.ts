/**
 * What a tutorial was, byte for byte: a run records the sha256 of the tutorial it reflected on
 * (a rookie's session, of the one the person watched), so two rows that both say "after the
 * tutorial" can be checked to rest on the same one (report/tutorial-check.ts).
 * - a video: its bytes;
 * - a folder (a run or session, a folder of frames): its images and steps.jsonl, each by its
 *   path inside the folder, so a run.json rewritten later (a judge's milestones) leaves it as it was.
 */
import { createHash, type Hash } from 'node:crypto';
import { closeSync, lstatSync, openSync, readdirSync, readSync } from 'node:fs';
import path from 'node:path';

export interface TutorialIdentity {
  sha256: string;
  bytes: number;
  /** Files hashed: 1 for a video. */
  files: number;
}

const FOLDER_PART = /(\.(png|jpe?g|webp|bmp)|^steps\.jsonl)$/i;
const CHUNK = 1 << 20;

function hashFile(hash: Hash, file: string, buf: Buffer): number {
  const fd = openSync(file, 'r');
  try {
    let total = 0;
    for (let n = readSync(fd, buf, 0, CHUNK, null); n > 0; n = readSync(fd, buf, 0, CHUNK, null)) {
      hash.update(buf.subarray(0, n));
      total += n;
    }
    return total;
  } finally {
    closeSync(fd);
  }
}

/** A folder's hashed files, by their path inside it, sorted; symlinks are not followed. */
function folderParts(root: string, rel = ''): string[] {
  return readdirSync(path.join(root, rel), { withFileTypes: true })
    .flatMap((d) => {
      const name = path.posix.join(rel, d.name);
      if (d.isDirectory()) return folderParts(root, name);
      return d.isFile() && FOLDER_PART.test(d.name) ? [name] : [];
    })
    .sort();
}

/** The identity of a tutorial source (a video, a frames folder, a run or session folder); throws when it cannot be read. */
export function tutorialIdentity(source: string): TutorialIdentity {
  const hash = createHash('sha256');
  const buf = Buffer.allocUnsafe(CHUNK);
  if (!lstatSync(source).isDirectory()) {
    const bytes = hashFile(hash, source, buf);
    return { sha256: hash.digest('hex'), bytes, files: 1 };
  }
  const parts = folderParts(source);
  let bytes = 0;
  for (const rel of parts) {
    // Each file's name and length go in before its bytes: the same frames renamed or reordered
    // are another tutorial, and no two folders' streams can run together.
    const file = path.join(source, rel);
    hash.update(`${rel}\0${lstatSync(file).size}\0`);
    bytes += hashFile(hash, file, buf);
  }
  return { sha256: hash.digest('hex'), bytes, files: parts.length };
}

/** The tutorial's sha256 for run.json, or null when it cannot be read (the run goes on; the report says "unknown"). */
export function tutorialSha256(source: string): string | null {
  try {
    return tutorialIdentity(source).sha256;
  } catch {
    return null;
  }
}
