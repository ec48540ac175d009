#!/usr/bin/env node
// The independent reference capture for `npm run test:windows` under Wine: answers the tests'
// requests (`<name>.request.json` with a screen rectangle, in the folder given as argument) with
// the X server's own pixels of that rectangle (`<name>.raw`, BGRA; then `<name>.done`). Runs
// until killed, on the display in DISPLAY.
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const dir = process.argv[2];
if (!dir || !process.env.DISPLAY) {
  process.stderr.write('usage: DISPLAY=:N windows-screen-observer.mjs <folder>\n');
  process.exit(2);
}
const nut = await import('@nut-tree-fork/nut-js');
const by = `the X server (XGetImage through libnut on ${process.env.DISPLAY})`;

async function answer(name, request) {
  let reply;
  try {
    const r = JSON.parse(readFileSync(request, 'utf8'));
    const img = await nut.screen.grabRegion(new nut.Region(r.x, r.y, r.width, r.height));
    writeFileSync(path.join(dir, `${name}.raw`), img.data);
    reply = { by };
  } catch (err) {
    reply = { error: err.message };
  }
  rmSync(request);
  // Renamed into place: the test never reads half an answer.
  writeFileSync(path.join(dir, `${name}.tmp`), JSON.stringify(reply));
  renameSync(path.join(dir, `${name}.tmp`), path.join(dir, `${name}.done`));
}

for (;;) {
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.request.json')))
    await answer(f.slice(0, -'.request.json'.length), path.join(dir, f));
  await new Promise((r) => setTimeout(r, 20));
}
