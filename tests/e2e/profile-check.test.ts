/**
 * `gamepilot profile check` on a real Debian game (sgt-puzzles' Fifteen, one move from solved):
 * the shipped profile's end detector (OCR of the status line) stays quiet on a frame of play and
 * fires on the solved board's frame, saved as a run keeps its end frame; the live window answers
 * the same, and a title detector on a saved frame says it needs the window.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCapturer } from '../../electron/capture/index.ts';
import { encodeFrame } from '../../electron/capture/encode.ts';
import { json, ROOT, runCli } from '../helpers/cli.ts';
import { activate, settled, startWindow, stop, xdo } from '../helpers/windows.ts';
import type { WindowInfo } from '../../native/index.ts';

/** Tiles 1–14 in place, the gap, then 15: pressing left solves it. */
const ONE_MOVE_LEFT = '4x4:1,2,3,4,5,6,7,8,9,10,11,12,13,14,0,15';
const capturer = createCapturer();
const dir = mkdtempSync(path.join(tmpdir(), 'gp-profile-check-'));
let fifteen: { child: ChildProcess; window: WindowInfo };

/** The window's picture once two grabs in a row agree and differ from `unlike`, as a PNG file. */
async function savedFrame(win: WindowInfo, name: string, unlike?: Buffer): Promise<{ file: string; data: Buffer }> {
  let last: Buffer | undefined;
  const deadline = Date.now() + 15_000;
  for (;;) {
    const data = (await encodeFrame(await capturer.grab(win.bounds), { format: 'png', imageSize: 2000, quality: 100 }))
      .data;
    if (last?.equals(data) && !unlike?.equals(data)) {
      const file = path.join(dir, name);
      writeFileSync(file, data);
      return { file, data };
    }
    if (Date.now() > deadline) throw new Error(`the window did not settle on a new picture for ${name}`);
    last = data;
    await new Promise((r) => setTimeout(r, 200));
  }
}

interface Result {
  label: string;
  kind: string;
  fired: boolean;
  detail: string;
  error?: string;
}
interface Check {
  end: Result[];
  ready: Result[];
  window?: { title: string };
}

const check = async (...args: string[]) => {
  const r = await runCli(['profile', 'check', ...args, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return json<Check>(r);
};

let play: { file: string; data: Buffer };
let end: { file: string; data: Buffer };

beforeAll(async () => {
  fifteen = await startWindow('/usr/games/sgt-fifteen', [ONE_MOVE_LEFT], /^Fifteen$/);
  const win = await settled(fifteen.window.id);
  play = await savedFrame(win, 'play.png');
  activate(win.id);
  xdo('key', '--clearmodifiers', 'Left');
  end = await savedFrame(win, 'e000-end.png', play.data);
});

afterAll(async () => {
  await stop(fifteen.child);
});

describe('gamepilot profile check (sgt-fifteen)', () => {
  it('on a saved frame of play no detector fires; on the saved end frame the status line one does', async () => {
    const onPlay = await check('sgt-fifteen', '--frame', play.file);
    expect(onPlay.end).toEqual([
      { label: 'end[0] ocr', kind: 'ocr', fired: false, detail: expect.stringMatching(/Moves: 0/) },
    ]);
    const onEnd = await check('sgt-fifteen', '--frame', end.file);
    expect(onEnd.end).toEqual([
      { label: 'end[0] ocr', kind: 'ocr', fired: true, detail: expect.stringMatching(/COMPLETED! Moves: 1/) },
    ]);
  });

  it('on the live window it fires too, and prints one line per detector', async () => {
    const live = await check('sgt-fifteen', '--window-id', fifteen.window.id);
    expect(live.window?.title).toBe('Fifteen');
    expect(live.end[0]).toMatchObject({ fired: true, detail: expect.stringMatching(/COMPLETED/) });
    const text = await runCli([
      'profile',
      'check',
      path.join(ROOT, 'games', 'sgt-fifteen', 'profile.yaml'),
      '--window',
      '^Fifteen$',
    ]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^ {2}end\[0\] ocr +fires +OCR read "COMPLETED! Moves: 1"$/m);
  });

  it('says a title detector needs the window when given a saved frame; checks reset.ready too', async () => {
    const file = path.join(dir, 'titled.yaml');
    const shipped = readFileSync(path.join(ROOT, 'games', 'sgt-fifteen', 'profile.yaml'), 'utf8');
    const ocr = /^ {4}- ocr: .*$/m;
    const timeout = /^ {4}timeout: 10$/m;
    expect(shipped).toMatch(ocr);
    expect(shipped).toMatch(timeout);
    writeFileSync(
      file,
      shipped
        .replace('id: sgt-fifteen', 'id: titled-fifteen')
        .replace(ocr, '    - title: "^Fifteen$"')
        .replace(
          timeout,
          '    ready:\n      - ocr: { region: { x: 0.02, y: 0.88, width: 0.9, height: 0.11 }, text: "^moves: 0$" }',
        ),
    );
    const onEnd = await check(file, '--frame', end.file);
    const needsWindow = expect.stringMatching(/needs a live window/);
    expect(onEnd.end).toEqual([{ label: 'end[0] title', kind: 'title', fired: false, detail: '', error: needsWindow }]);
    expect(onEnd.ready).toEqual([expect.objectContaining({ label: 'ready[0] ocr', fired: false })]);
    const onPlay = await check(file, '--frame', play.file);
    expect(onPlay.ready).toEqual([expect.objectContaining({ label: 'ready[0] ocr', fired: true })]);
  });

  it('refuses to look at two things, or at a file that is no picture (exit 2)', async () => {
    const both = await runCli(['profile', 'check', 'sgt-fifteen', '--frame', end.file, '--window', '^Fifteen$']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/one of --window <title regex>, --window-id <id> or --frame <file>/);
    const notPicture = path.join(dir, 'not-a-picture.png');
    writeFileSync(notPicture, 'hello');
    const bad = await runCli(['profile', 'check', 'sgt-fifteen', '--frame', notPicture]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/not a PNG or JPEG picture/);
  });
});
