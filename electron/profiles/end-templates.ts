/**
 * The template pictures a profile's image detectors name: files beside the profile, read at load
 * so a missing or broken one is refused with its field before any run starts. Only the PNG
 * header is read here (its size); the pixels are read when a detector runs.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { pngHeaderSize } from '../util/png-header.ts';
import type { Detector } from './episode-end-schema.ts';

/** Largest template side (pixels): a template is a region of a game's frame, not a screenshot archive. */
export const MAX_TEMPLATE_SIDE = 2048;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A PNG's width and height from its header, or why the file is no PNG. */
export function pngSize(file: string): { width: number; height: number } | { error: string } {
  let fd: number | undefined;
  const head = Buffer.alloc(24);
  try {
    fd = openSync(file, 'r');
    if (readSync(fd, head, 0, 24, 0) < 24) return { error: 'is too short to be a PNG picture' };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { error: code === 'ENOENT' ? 'does not exist beside the profile' : `cannot be read (${code})` };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  const size = head.subarray(0, 8).equals(PNG_SIGNATURE) ? pngHeaderSize(head) : undefined;
  return size ?? { error: 'is not a PNG picture' };
}

type EpisodeDetectors = {
  episode: { end?: Detector[] | undefined; reset?: { ready?: Detector[] | undefined } | undefined };
};

/** The image detectors of the profile's episode section (end, then reset.ready), each with its path in the profile. */
function imageDetectors(p: EpisodeDetectors) {
  const out: { path: (string | number)[]; template: string }[] = [];
  for (const [i, d] of (p.episode.end ?? []).entries())
    if (d.image) out.push({ path: ['episode', 'end', i, 'image', 'template'], template: d.image.template });
  for (const [i, d] of (p.episode.reset?.ready ?? []).entries())
    if (d.image) out.push({ path: ['episode', 'reset', 'ready', i, 'image', 'template'], template: d.image.template });
  return out;
}

/** The templates a profile's image detectors name (end and ready), as files relative to the profile. */
export function templatesOf(p: EpisodeDetectors): string[] {
  return imageDetectors(p).map((d) => d.template);
}

/** Why each template cannot be used (missing, not a PNG, empty or too large), with its path. */
export function templateProblems(p: EpisodeDetectors, dir: string): { path: (string | number)[]; message: string }[] {
  const problems: { path: (string | number)[]; message: string }[] = [];
  for (const d of imageDetectors(p)) {
    const size = pngSize(path.join(dir, d.template));
    const say = (why: string) => problems.push({ path: d.path, message: `the template ${d.template} ${why}` });
    if ('error' in size) say(size.error);
    else if (size.width < 4 || size.height < 4) say(`is ${size.width}×${size.height}: at least 4×4 pixels`);
    else if (size.width > MAX_TEMPLATE_SIDE || size.height > MAX_TEMPLATE_SIDE)
      say(`is ${size.width}×${size.height}: at most ${MAX_TEMPLATE_SIDE} pixels a side`);
  }
  return problems;
}
