/**
 * The README's and docs' screenshots are the ones the UI tests take of the current build: each
 * picture linked from README.md or docs/*.md is listed in scripts/docs-screenshots.ts with the
 * test that takes it and the sources of what it shows, and fails here when one of those sources
 * changed in a commit that the picture's last commit does not contain (its history, not clocks:
 * a merge keeps both sides' dates). `npm run docs-screenshots` copies the last test run's pictures.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOC_SCREENSHOTS } from '../../scripts/docs-screenshots.ts';
import { ROOT } from '../helpers/cli.ts';

const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
const lastCommit = (file: string) => git('log', '-1', '--format=%H', '--', file);
const contains = (commit: string, ancestor: string) => {
  try {
    git('merge-base', '--is-ancestor', ancestor, commit);
    return true;
  } catch {
    return false;
  }
};

/** The pictures in docs/ that README.md and docs/*.md show or link to. */
function linkedPictures(): string[] {
  const pages = [
    'README.md',
    ...readdirSync(path.join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const found = new Set<string>();
  for (const page of pages) {
    for (const m of readFileSync(path.join(ROOT, page), 'utf8').matchAll(/\]\(([^)\s#]+\.png)\)/g)) {
      const file = path.posix.normalize(path.posix.join(path.posix.dirname(page), m[1]!));
      if (file.startsWith('docs/') && existsSync(path.join(ROOT, file))) found.add(file);
    }
  }
  return [...found].sort();
}

describe('the docs screenshots', () => {
  it('lists every picture the README and docs link to, each with the test that takes it', () => {
    const linked = linkedPictures();
    expect(linked).toContain('docs/ui-live.png');
    expect(DOC_SCREENSHOTS.map((s) => s.doc).sort()).toEqual(linked);
    for (const s of DOC_SCREENSHOTS) {
      expect(readFileSync(path.join(ROOT, s.test), 'utf8'), s.doc).toContain(path.basename(s.artifact, '.png'));
      for (const source of s.shows) expect(existsSync(path.join(ROOT, source)), source).toBe(true);
    }
  });

  it('are no older than the UI they show (npm run docs-screenshots after the UI tests refreshes them)', () => {
    expect(git('rev-parse', '--is-inside-work-tree')).toBe('true');
    const stale: string[] = [];
    for (const s of DOC_SCREENSHOTS) {
      const picture = lastCommit(s.doc);
      expect(picture, `${s.doc} is not committed`).not.toBe('');
      for (const source of s.shows) {
        const changed = lastCommit(source);
        if (changed && !contains(picture, changed))
          stale.push(`${s.doc} (${picture.slice(0, 7)}) predates ${source} (${changed.slice(0, 7)}): run ${s.test}`);
      }
    }
    expect(stale).toEqual([]);
  });
});
