/**
 * A profile's episode end and reset: what load refuses (each with file, line and field) and what
 * the detectors answer on frames drawn here — a colour's share of a region, a region against a
 * template cut from a frame, the window's title and its going away, a model's yes or no.
 */
import { profileRefusal } from '../helpers/profile-refusal.ts';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EncodedFrame } from '../../electron/capture/encode.ts';
import { resetActions } from '../../electron/profiles/episode-reset.ts';
import { MAX_TEMPLATE_SIDE } from '../../electron/profiles/end-templates.ts';
import { loadProfileFile, parseProfile, ProfileError } from '../../electron/profiles/load.ts';
import { cutTemplate, Detectors, type WindowNow } from '../../electron/scoring/end-detectors.ts';
import type { Detector } from '../../electron/profiles/episode-end-schema.ts';
import { ROOT } from '../helpers/cli.ts';
import { FakeOpenAI } from '../helpers/fake-openai.ts';

const shipped = readFileSync(path.join(ROOT, 'games', 'sgt-fifteen', 'profile.yaml'), 'utf8');
const OCR_LINE = /^ {4}- ocr: .*$/m;
const RESET = /^ {2}reset:\n( {4}.*\n)+/m;
const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

/** The shipped sgt-fifteen with its end detector replaced by `detector` (YAML lines under `end:`). */
const withEnd = (detector: string) => {
  expect(shipped).toMatch(OCR_LINE);
  return shipped.replace(OCR_LINE, detector);
};
/** The shipped sgt-fifteen with its reset steps replaced by `steps` (YAML lines under `do:`). */
const withReset = (steps: string) => {
  expect(shipped).toMatch(RESET);
  return shipped.replace(RESET, `  reset:\n    do:\n${steps}\n`);
};

const refusal = profileRefusal;

/** Loads `text` as a profile file in its own folder, beside which `files` are written. */
function refusalBeside(text: string, files: Record<string, Buffer | string>): ProfileError {
  const dir = mkdtempSync(path.join(tmpdir(), 'gp-end-'));
  for (const [name, data] of Object.entries(files)) writeFileSync(path.join(dir, name), data);
  const file = path.join(dir, 'p.yaml');
  writeFileSync(file, text);
  try {
    loadProfileFile(file);
  } catch (err) {
    expect(err).toBeInstanceOf(ProfileError);
    expect((err as ProfileError).message).toContain(file);
    return err as ProfileError;
  }
  throw new Error('the profile was accepted');
}

const png = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: '#336699' } })
    .png()
    .toBuffer();

describe('load refuses a bad episode end or reset with file, line and field', () => {
  it('the shipped profile loads: its reset presses n, which allowedKeys (the model’s keys) leave out', () => {
    const p = parseProfile(shipped, 'fifteen.yaml');
    expect(p.actions.allowedKeys).not.toContain('n');
    const reset = resetActions(p, { width: 240, height: 302 });
    expect(reset.ok && reset.actions.map((a) => a.type)).toEqual(['PRESS']);
    expect(reset.ok && reset.actions[0]!.params).toMatchObject({ key: 'n' });
  });

  it('a detector region outside the window', () => {
    const text = withEnd('    - ocr: { region: { x: 0.5, y: 0.9, width: 0.6, height: 0.1 }, text: "completed" }');
    const e = refusal(text);
    expect([e.field, e.line]).toEqual(['episode.end.0.ocr.region', lineOf(text, 'x: 0.5, y: 0.9')]);
    expect(e.reason).toMatch(/inside the window/);
    expect(e.message).toMatch(/^profile x\.yaml:\d+: episode\.end\.0\.ocr\.region: /);
  });

  it('a regex RE2 cannot run (lookaround), in an OCR text and a title', () => {
    let text = withEnd('    - ocr: { region: { x: 0, y: 0.9, width: 1, height: 0.1 }, text: "(?=COMP)completed" }');
    let e = refusal(text);
    expect([e.field, e.line]).toEqual(['episode.end.0.ocr.text', lineOf(text, '(?=COMP)')]);
    expect(e.reason).toMatch(/lookaround/);
    text = withEnd('    - title: "(?<!x)Fifteen"');
    e = refusal(text);
    expect([e.field, e.line]).toEqual(['episode.end.0.title', lineOf(text, '(?<!x)')]);
  });

  it('a detector of two kinds, or of none', () => {
    let text = withEnd('    - { title: "^Fifteen$", exit: true }');
    const e = refusal(text);
    expect([e.field, e.line]).toEqual(['episode.end.0', lineOf(text, 'exit: true')]);
    expect(e.reason).toMatch(/exactly one of ocr, image, pixels, title, exit, judge \(got title, exit\)/);
    text = withEnd('    - checkEvery: 5');
    expect(refusal(text).reason).toMatch(/exactly one of/);
  });

  it('a reset step the key policy refuses: a system key, or Gamepilot’s own stop hotkey', () => {
    let text = withReset('      - hotkey: [alt, f4]');
    let e = refusal(text);
    expect([e.field, e.line]).toEqual(['episode.reset.do', lineOf(text, '    do:')]);
    expect(e.reason).toMatch(/a reset step would be refused: .*alt\+F4 closes the window/);
    text = withReset('      - hotkey: [ctrl, shift, f12]');
    e = refusal(text);
    expect(e.field).toBe('episode.reset.do');
    expect(e.reason).toMatch(/Gamepilot's stop hotkey/);
    // A key that is no key is refused at the step itself.
    text = withReset('      - press: flurb');
    expect(refusal(text).field).toMatch(/^episode\.reset\.do\.0/);
  });

  it('startWithReset without a reset', () => {
    const text = shipped.replace(RESET, '  startWithReset: true\n');
    const e = refusal(text);
    expect([e.field, e.line]).toEqual(['episode.startWithReset', lineOf(text, 'startWithReset: true')]);
    expect(e.reason).toMatch(/needs episode\.reset/);
  });

  it('a template that is missing, not a PNG, too large or not named .png', async () => {
    const text = withEnd('    - image: { region: { x: 0, y: 0.9, width: 1, height: 0.1 }, template: done.png }');
    const line = lineOf(text, 'template: done.png');
    let e = refusalBeside(text, {});
    expect([e.field, e.line]).toEqual(['episode.end.0.image.template', line]);
    expect(e.reason).toMatch(/the template done\.png does not exist beside the profile/);
    e = refusalBeside(text, { 'done.png': 'not a picture at all, but long enough' });
    expect([e.field, e.reason]).toEqual(['episode.end.0.image.template', 'the template done.png is not a PNG picture']);
    e = refusalBeside(text, { 'done.png': await png(MAX_TEMPLATE_SIDE + 1, 8) });
    expect(e.reason).toMatch(new RegExp(`is ${MAX_TEMPLATE_SIDE + 1}×8: at most ${MAX_TEMPLATE_SIDE} pixels a side`));
    // The same file, a fitting size, loads.
    const dir = mkdtempSync(path.join(tmpdir(), 'gp-end-ok-'));
    writeFileSync(path.join(dir, 'done.png'), await png(200, 20));
    writeFileSync(path.join(dir, 'p.yaml'), text);
    expect(loadProfileFile(path.join(dir, 'p.yaml')).profile.episode.end?.[0]?.image?.threshold).toBe(0.9);
    e = refusal(text.replace('template: done.png', 'template: done.jpg'));
    expect([e.field, e.reason]).toEqual(['episode.end.0.image.template', expect.stringMatching(/must be a PNG file/)]);
  });
});

/** A 200×100 frame: the left half `left`, the right half `right`; a white 40×20 box at (120, 40) when `box`. */
async function frame(left: string, right: string, box = false): Promise<EncodedFrame> {
  const half = (background: string) =>
    sharp({ create: { width: 100, height: 100, channels: 3, background } })
      .png()
      .toBuffer();
  const layers = [
    { input: await half(left), left: 0, top: 0 },
    { input: await half(right), left: 100, top: 0 },
    ...(box
      ? [
          {
            input: await sharp({ create: { width: 40, height: 20, channels: 3, background: '#ffffff' } })
              .png()
              .toBuffer(),
            left: 120,
            top: 40,
          },
        ]
      : []),
  ];
  const data = await sharp({ create: { width: 200, height: 100, channels: 3, background: '#ffffff' } })
    .composite(layers)
    .png()
    .toBuffer();
  return { data, mime: 'image/png', width: 200, height: 100, scale: 1 };
}

/** A window that is there, showing `frame` under `title`. */
const seen = (frame: EncodedFrame | undefined, title = 'Game'): WindowNow => ({ frame, title, gone: false });

describe('detectors on drawn frames', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gp-detect-'));
  const right = { x: 0.5, y: 0, width: 0.5, height: 1 };
  const boxRegion = { x: 0.5, y: 0.3, width: 0.4, height: 0.4 };
  let server: FakeOpenAI;
  let judgeSays = '{"yes": true, "why": "the board is full"}';

  beforeAll(async () => {
    server = await new FakeOpenAI(() => ({ text: judgeSays })).start();
  });
  afterAll(async () => {
    await server.close();
  });

  const run = async (defs: Detector[], now: WindowNow) => {
    const d = new Detectors(defs, {
      profileDir: dir,
      gameTitle: 'Drawn',
      judge: { model: 'test-judge', baseUrl: server.baseURL },
    });
    try {
      return await d.all(now);
    } finally {
      await d.close();
    }
  };

  it('pixels: fires when the colour fills its share of the region, with the share it measured', async () => {
    const f = await frame('#ff0000', '#0000ff');
    const [onRight, onAll, near] = await run(
      [
        { pixels: { region: right, colour: '#0000ff', tolerance: 0, share: 0.9 } },
        { pixels: { region: { x: 0, y: 0, width: 1, height: 1 }, colour: '#0000ff', tolerance: 0, share: 0.9 } },
        { pixels: { region: right, colour: '#0a0af0', tolerance: 16, share: 0.9 } },
      ],
      seen(f),
    );
    expect(onRight).toMatchObject({
      label: 'end[0] pixels',
      fired: true,
      detail: '100.0 % of the region within 0 of #0000ff',
    });
    expect(onAll).toMatchObject({ fired: false, detail: expect.stringMatching(/^50\.0 % /) });
    expect(near!.fired).toBe(true);
  });

  it('image: a template cut from the end frame fires there and not on a frame of play', async () => {
    const end = await frame('#ff0000', '#0000ff', true);
    const play = await frame('#ff0000', '#0000ff');
    writeFileSync(path.join(dir, 'box.png'), await cutTemplate(end, boxRegion));
    const def: Detector = { image: { region: boxRegion, template: 'box.png', threshold: 0.95 } };
    const [onEnd] = await run([def], seen(end));
    expect(onEnd).toMatchObject({ fired: true, detail: 'similarity 1.000 to box.png (fires at 0.95)' });
    const [onPlay] = await run([def], seen(play));
    expect(onPlay!.fired).toBe(false);
    expect(Number(/similarity (\S+)/.exec(onPlay!.detail)![1])).toBeLessThan(0.9);
    // The template's shape must be the region's: another shape is an error, not a miss.
    const [wrongShape] = await run([{ image: { region: right, template: 'box.png', threshold: 0.95 } }], seen(end));
    expect(wrongShape).toMatchObject({ fired: false, error: expect.stringMatching(/not the same shape/) });
  });

  it('title and exit look at the window, not the frame', async () => {
    const defs: Detector[] = [{ title: 'game over' }, { exit: true }];
    expect((await run(defs, seen(undefined, 'Tetris — GAME OVER'))).map((r) => r.fired)).toEqual([true, false]);
    expect((await run(defs, seen(undefined, 'Tetris'))).map((r) => r.fired)).toEqual([false, false]);
    const gone = await run(defs, { frame: undefined, title: undefined, gone: true });
    expect(gone.map((r) => [r.fired, r.detail])).toEqual([
      [false, 'title ""'],
      [true, 'the window or its process is gone'],
    ]);
  });

  it('judge: the model’s yes fires with its reason; an unreadable answer is an error, never an end', async () => {
    const f = await frame('#ff0000', '#0000ff');
    judgeSays = '{"yes": true, "why": "the board is full"}';
    const [yes] = await run([{ judge: 'the game-over screen is shown' }], seen(f));
    expect(yes).toMatchObject({ fired: true, detail: 'the judge said yes: the board is full' });
    expect(JSON.stringify(server.requests.at(-1)?.body)).toContain('the game-over screen is shown');
    judgeSays = 'maybe';
    const [unsure] = await run([{ judge: 'the game-over screen is shown' }], seen(f));
    expect(unsure).toMatchObject({ fired: false, error: expect.stringMatching(/could not be read/) });
    const noModel = new Detectors([{ judge: 'over?' }], { profileDir: dir, gameTitle: 'Drawn' });
    expect((await noModel.all(seen(f)))[0]!.error).toMatch(/needs a model/);
  });

  it('first(): the first due detector that fires, in order; checkEvery skips steps', async () => {
    const f = await frame('#ff0000', '#0000ff');
    const defs: Detector[] = [
      { pixels: { region: right, colour: '#0000ff', tolerance: 0, share: 0.5 }, checkEvery: 3 },
      { title: '^Game$' },
    ];
    const d = new Detectors(defs, { profileDir: dir, gameTitle: 'Drawn' });
    expect((await d.first(seen(f), 0)).hit?.label).toBe('end[1] title');
    expect((await d.first(seen(f), 2)).hit?.label).toBe('end[0] pixels');
    expect(d.due(0)).toBe(true);
    const costly = new Detectors([defs[0]!], { profileDir: dir, gameTitle: 'Drawn' });
    expect([0, 1, 2, 5].map((s) => costly.due(s))).toEqual([false, false, true, true]);
  });
});
