/**
 * The README stays a page a newcomer reads in minutes (the reference lives in docs/), and the
 * pages' relative links lead somewhere: every link or image in README.md, docs/*.md and the
 * electron READMEs names a file that exists, and a link to a heading of a Markdown page names one
 * that page has. (Its `gamepilot …` examples are checked against the CLI in cli.test.ts.)
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.ts';

const README_MAX_LINES = 250;

const pages = [
  'README.md',
  'electron/README.md',
  'electron/api/README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** The text outside fenced code blocks, line by line (code is not Markdown: `[x](y)` there is not a link). */
function proseLines(text: string): string[] {
  let fence: string | null = null;
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*(`{3,}|~{3,})/.exec(line);
    if (m) {
      if (fence === null) fence = m[1]!;
      else if (m[1]!.startsWith(fence)) fence = null;
      continue;
    }
    if (fence === null) out.push(line);
  }
  return out;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes; repeats get -1, -2… */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of proseLines(text)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = m[1]!
      .replace(/<[^>]*>/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n ? `${base}-${n}` : base);
  }
  return anchors;
}

/** Every inline link and image target of a page, outside code. */
function linksOf(text: string): string[] {
  const targets: string[] = [];
  for (const line of proseLines(text)) {
    const prose = line.replace(/`[^`]*`/g, '``');
    for (const m of prose.matchAll(/!?\[(?:[^\]]|\][^(])*?\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      targets.push(m[1]!);
  }
  return targets;
}

const external = (target: string) => /^[a-z][a-z\d+.-]*:/i.test(target);

describe('the README and the docs', () => {
  it(`README.md is at most ${README_MAX_LINES} lines: the reference lives in docs/`, () => {
    const lines = read('README.md').replace(/\n$/, '').split('\n').length;
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('every relative link and image names a file that exists, and every #anchor a heading there', () => {
    let checked = 0;
    for (const page of pages) {
      for (const target of linksOf(read(page))) {
        if (external(target)) continue;
        checked++;
        const [file, anchor] = target.split('#') as [string, string | undefined];
        const resolved = file ? path.posix.join(path.posix.dirname(page), decodeURI(file.split('?')[0]!)) : page;
        expect(existsSync(path.join(ROOT, resolved)), `${page}: ${target} (${resolved} does not exist)`).toBe(true);
        if (anchor && resolved.endsWith('.md') && existsSync(path.join(ROOT, resolved)))
          expect(anchorsOf(read(resolved)), `${page}: ${target} (no such heading in ${resolved})`).toContain(
            decodeURIComponent(anchor),
          );
      }
    }
    expect(checked).toBeGreaterThan(50);
  });

  it('the link checker itself: finds links and images outside code, and GitHub’s anchors', () => {
    expect(
      linksOf(
        'see [a](a.md) and ![b](docs/b.png "title") but not `[c](c.md)`\n```\n[d](d.md)\n```\n[e](https://x.org)',
      ),
    ).toEqual(['a.md', 'docs/b.png', 'https://x.org']);
    expect([
      ...anchorsOf("# A step's cost (`gamepilot bench`)\n## GameVerse — the tables\n## Figures\n## Figures"),
    ]).toEqual(['a-steps-cost-gamepilot-bench', 'gameverse--the-tables', 'figures', 'figures-1']);
  });
});
