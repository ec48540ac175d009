#!/usr/bin/env node
// The Node.js floor is package.json's `engines.node` (">=MAJOR.MINOR"), declared once there.
// Imported by bin/gamepilot.mjs and scripts/test.mjs; run as a script (.ci/run) it exits 0 when
// this Node is new enough and 1 when not. Plain JavaScript that any old Node can run.
import { readFileSync } from 'node:fs';

/** The floor as [major, minor], and whether this Node meets it. */
export function nodeFloor() {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const m = /^>=\s*(\d+)\.(\d+)/.exec(pkg.engines?.node ?? '');
  if (!m) throw new Error(`package.json engines.node should read ">=MAJOR.MINOR", not "${pkg.engines?.node}"`);
  const floor = [Number(m[1]), Number(m[2])];
  const [major, minor] = process.versions.node.split('.').map(Number);
  return { floor: floor.join('.'), ok: major > floor[0] || (major === floor[0] && minor >= floor[1]) };
}

if (import.meta.url === new URL(process.argv[1] ?? '', 'file:').href) process.exit(nodeFloor().ok ? 0 : 1);
