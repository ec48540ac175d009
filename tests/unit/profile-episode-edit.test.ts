/**
 * The profile editor's episode section over the contract (electron/api/profile-episode.ts) on a
 * window whose pictures the test draws: "try it" runs the form's detectors on the window's current
 * frame (a pixels share of a frame built half red, half blue; a judge asking the test server);
 * a template is cut from the frame beside the user's profile; "try reset" sends the form's steps
 * through the key input and is ready once the window shows another picture, or says why not
 * within its timeout; saving carries episode.end/reset/startWithReset, a bad detector refused
 * naming its field.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseParams, type DetectorEdit, type EpisodeEndEdit } from '../../electron/api/contract.ts';
import { profileHandlers } from '../../electron/api/profiles.ts';
import type { RawFrame, ScreenCapturer } from '../../electron/capture/capturer.ts';
import { loadProfileFile } from '../../electron/profiles/load.ts';
import { userProfilesDir } from '../../electron/profiles/registry.ts';
import type { InputBackend, WindowInfo, WindowManager } from '../../native/types.ts';
import { ROOT } from '../helpers/cli.ts';
import { FakeOpenAI } from '../helpers/fake-openai.ts';

const W = 200;
const H = 100;
const WINDOW: WindowInfo = {
  id: '0x00000051',
  title: 'Fifteen',
  pid: 1,
  bounds: { x: 10, y: 20, width: W, height: H },
  scaleFactor: 1,
  minimized: false,
};

/** A frame of the window: its left `split` columns one colour, the rest another. */
function frame(left: number[], right: number[], split = W / 2): RawFrame {
  const data = Buffer.alloc(W * H * 3);
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) data.set(x < split ? left : right, (y * W + x) * 3);
  return { data, width: W, height: H, channels: 3, order: 'rgb' };
}
const RED = [255, 0, 0];
const BLUE = [0, 0, 255];
const GREEN = [0, 200, 0];

/** A desktop of one window whose picture turns green when `n` is let go (a game that starts anew on n). */
function desktop() {
  const sent: string[] = [];
  let shows = frame(RED, BLUE);
  const wm = {
    get: async (id: string) => (id === WINDOW.id ? WINDOW : undefined),
    focus: async () => {},
  } as unknown as WindowManager;
  const input: InputBackend = {
    name: 'recording',
    keyDown: async (k) => void sent.push(`down ${k}`),
    keyUp: async (k) => {
      sent.push(`up ${k}`);
      if (k.toLowerCase() === 'n') shows = frame(GREEN, GREEN);
    },
    type: async () => {},
    move: async () => {},
    position: async () => ({ x: 0, y: 0 }),
    button: async () => {},
    scroll: async () => {},
  };
  const capturer: ScreenCapturer = {
    name: 'drawn',
    screenBounds: async () => ({ x: 0, y: 0, width: 1280, height: 800 }),
    grab: async (r) => {
      expect(r).toMatchObject(WINDOW.bounds);
      return shows;
    },
  };
  return { wm, input, capturer, sent, reset: () => (shows = frame(RED, BLUE)) };
}

let configDir = '';
let judge: FakeOpenAI;
const d = desktop();
let h: ReturnType<typeof profileHandlers>;

beforeAll(async () => {
  judge = await new FakeOpenAI(() => ({ text: '{"yes": true, "why": "the board is red and blue"}' })).start();
  configDir = mkdtempSync(path.join(tmpdir(), 'gp-episode-edit-'));
  mkdirSync(userProfilesDir(configDir), { recursive: true });
  writeFileSync(
    path.join(userProfilesDir(configDir), 'sgt-fifteen.yaml'),
    readFileSync(path.join(ROOT, 'games', 'sgt-fifteen', 'profile.yaml'), 'utf8'),
  );
  h = profileHandlers({
    configDir,
    wm: d.wm,
    input: d.input,
    capturer: d.capturer,
    procs: () => [],
    judgeModel: () => ({ model: 'test-vlm', baseUrl: judge.baseURL, apiKey: 'k' }),
  });
});
afterAll(() => judge.close());

const LEFT = { x: 0, y: 0, width: 0.5, height: 1 };
const MIDDLE = { x: 0.25, y: 0, width: 0.5, height: 1 };
const pixels = (region: typeof LEFT, share: number): DetectorEdit => ({
  pixels: { region, colour: '#ff0000', tolerance: 10, share },
});

describe("the editor's end detectors on a window now", () => {
  it('a pixels detector reports the share of its colour in the frame and fires at its share', async () => {
    d.reset();
    const r = await h.checkEndDetectors({
      id: 'sgt-fifteen',
      windowId: WINDOW.id,
      detectors: [pixels(LEFT, 0.9), pixels(MIDDLE, 0.9), pixels(MIDDLE, 0.45)],
    });
    expect(r.seen).toBeNull();
    expect(r.frame).toMatch(/^data:image\/jpeg;base64,/);
    expect(r.results.map((x) => [x.label, x.fired])).toEqual([
      ['end[0] pixels', true],
      ['end[1] pixels', false],
      ['end[2] pixels', true],
    ]);
    // The detectors look at the frame a run sees (a JPEG): the red/blue edge blurs a little.
    const shares = r.results.map((x) => Number(/^([\d.]+) % of the region within 10 of #ff0000$/.exec(x.detail)?.[1]));
    expect(shares[0]).toBeGreaterThanOrEqual(97);
    for (const s of shares.slice(1)) expect(Math.abs(s - 50)).toBeLessThan(3);
  });

  it('a judge detector asks the model in Settings with the frame, and says what it answered', async () => {
    const before = judge.requests.length;
    const r = await h.checkEndDetectors({
      id: 'sgt-fifteen',
      windowId: WINDOW.id,
      detectors: [{ judge: 'Is the game over?' }],
    });
    expect(r.results[0]).toMatchObject({ fired: true, detail: 'the judge said yes: the board is red and blue' });
    expect(judge.requests.length).toBe(before + 1);
    expect(FakeOpenAI.images(judge.requests.at(-1)!.body)).toHaveLength(1);
  });

  it('a detector that is not one kind, or not a usable pattern, is refused naming its field', async () => {
    await expect(
      h.checkEndDetectors({
        id: 'sgt-fifteen',
        windowId: WINDOW.id,
        detectors: [pixels(LEFT, 0.9), { title: 'a', exit: true }],
      }),
    ).rejects.toMatchObject({ code: 'bad-input', message: /^detectors\.1: a detector is exactly one of/ });
    await expect(
      h.checkEndDetectors({ id: 'nope', windowId: WINDOW.id, detectors: [pixels(LEFT, 0.9)] }),
    ).rejects.toMatchObject({ code: 'not-found' });
  });

  it('a window that is gone: a frame detector errs with the reason, an exit detector fires', async () => {
    const r = await h.checkEndDetectors({
      id: 'sgt-fifteen',
      windowId: '0x00000999',
      detectors: [pixels(LEFT, 0.9), { exit: true }],
    });
    expect(r.seen).toBe('window 0x00000999 is gone');
    expect(r.results[0]!.error).toMatch(/cannot be seen/);
    expect(r.results[1]).toMatchObject({ fired: true, detail: 'the window or its process is gone' });
  });
});

describe('a template cut from the current frame', () => {
  it('is saved beside the user’s profile at the region’s pixels, and an image detector fires with it', async () => {
    d.reset();
    const cut = await h.cutEndTemplate({ id: 'sgt-fifteen', windowId: WINDOW.id, region: MIDDLE, name: 'over' });
    expect(cut).toMatchObject({ template: 'sgt-fifteen.templates/over.png', width: 100, height: 100 });
    const file = path.join(userProfilesDir(configDir), cut.template);
    const px = await sharp(file).raw().toBuffer({ resolveWithObject: true });
    expect([px.info.width, px.info.height]).toEqual([100, 100]);
    // Its left half is the window's red (as the run's JPEG frame shows it).
    for (const [i, c] of [...px.data.subarray(0, 3)].entries()) expect(Math.abs(c - RED[i]!)).toBeLessThan(4);
    const r = await h.checkEndDetectors({
      id: 'sgt-fifteen',
      windowId: WINDOW.id,
      detectors: [{ image: { region: MIDDLE, template: cut.template, threshold: 0.99 } }],
    });
    expect(r.results[0]).toMatchObject({ fired: true });
    expect(r.results[0]!.detail).toMatch(/^similarity 1\.000 /);
  });

  it('a name that is a path is refused by the contract; nothing is written', () => {
    for (const name of ['../over', 'a/b', '..', ''])
      expect(() =>
        parseParams('cutEndTemplate', { id: 'sgt-fifteen', windowId: WINDOW.id, region: MIDDLE, name }),
      ).toThrow(/name must be a plain name/);
    expect(existsSync(path.join(configDir, 'over.png'))).toBe(false);
  });
});

describe('try reset', () => {
  it('sends the steps through the input and is ready once the window shows another picture', async () => {
    d.reset();
    d.sent.length = 0;
    const r = await h.tryReset({
      id: 'sgt-fifteen',
      windowId: WINDOW.id,
      reset: { do: [{ press: 'n' }], timeout: 5 },
      end: [pixels(LEFT, 0.9)],
    });
    expect(d.sent.map((k) => k.toLowerCase())).toEqual(['down n', 'up n']);
    if (!r.ok) throw new Error(r.error);
    expect(r.detail).toMatch(/^no end detector fires and 100\.0 % of the window differs from the end frame$/);
    expect(r.before).toMatch(/^data:image\/jpeg/);
    expect(r.frame).toMatch(/^data:image\/jpeg/);
  });

  it('with ready detectors, ready once one of them fires, saying which', async () => {
    d.reset();
    const r = await h.tryReset({
      id: 'sgt-fifteen',
      windowId: WINDOW.id,
      reset: {
        do: [{ press: 'n' }],
        ready: [{ pixels: { region: LEFT, colour: '#00c800', tolerance: 10, share: 0.9 } }],
        timeout: 5,
      },
      end: [],
    });
    if (!r.ok) throw new Error(r.error);
    expect(r.detail).toBe('ready[0] pixels: 100.0 % of the region within 10 of #00c800');
  });

  it('a key the game ignores: not ready within the timeout, saying the window still shows the same', async () => {
    d.reset();
    const r = await h.tryReset({
      id: 'sgt-fifteen',
      windowId: WINDOW.id,
      reset: { do: [{ press: 'x' }], timeout: 0.6 },
      end: [],
    });
    expect(r).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^no new game within 0\.6 s: the window still shows the end frame/),
    });
  });

  it('a step the key policy refuses is not sent, naming the field', async () => {
    d.sent.length = 0;
    await expect(
      h.tryReset({
        id: 'sgt-fifteen',
        windowId: WINDOW.id,
        reset: { do: [{ hotkey: ['alt', 'f4'] }], timeout: 5 },
        end: [],
      }),
    ).rejects.toMatchObject({
      code: 'bad-input',
      message: /^nothing was sent: episode\.reset\.do: a reset step would be refused/,
    });
    expect(d.sent).toEqual([]);
  });
});

describe('saving the episode section', () => {
  const base = async () => (await h.listProfiles({})).profiles.find((p) => p.id === 'sgt-fifteen')!.edit;

  it('writes end, reset and startWithReset to the user’s profile, which loads with them', async () => {
    const edit = await base();
    // The form starts from the profile's own: sgt-fifteen ships an OCR end and the n reset.
    const shipped = loadProfileFile(path.join(ROOT, 'games', 'sgt-fifteen', 'profile.yaml')).profile.episode;
    expect(edit.episodeEnd).toEqual({
      end: shipped.end,
      reset: { do: shipped.reset!.do, timeout: shipped.reset!.timeout },
      startWithReset: false,
    });
    const episodeEnd: EpisodeEndEdit = {
      end: [
        pixels(LEFT, 0.9),
        { image: { region: MIDDLE, template: 'sgt-fifteen.templates/over.png', threshold: 0.95 } },
      ],
      reset: { do: [{ press: 'n' }, { wait: 0.5 }, { click: { x: 0.5, y: 0.1 } }], timeout: 8 },
      startWithReset: true,
    };
    const saved = await h.saveProfile({ id: 'sgt-fifteen', edit: { ...edit, episodeEnd } });
    expect(saved.profile.edit.episodeEnd).toEqual(episodeEnd);
    const { profile } = loadProfileFile(path.join(userProfilesDir(configDir), 'sgt-fifteen.yaml'));
    expect(profile.episode.end).toEqual(episodeEnd.end);
    expect(profile.episode.reset).toEqual(episodeEnd.reset);
    expect(profile.episode.startWithReset).toBe(true);
  });

  it('without detectors given, "check" runs the saved profile’s own on the window', async () => {
    d.reset();
    const r = await h.checkEndDetectors({ id: 'sgt-fifteen', windowId: WINDOW.id });
    expect(r.results.map((x) => [x.label, x.fired])).toEqual([
      ['end[0] pixels', true],
      ['end[1] image', true],
    ]);
  });

  it('refuses a detector of two kinds, naming the field, and keeps the file as it was', async () => {
    const file = path.join(userProfilesDir(configDir), 'sgt-fifteen.yaml');
    const before = readFileSync(file, 'utf8');
    const edit = await base();
    await expect(
      h.saveProfile({
        id: 'sgt-fifteen',
        edit: { ...edit, episodeEnd: { ...edit.episodeEnd!, end: [{ title: 'over', exit: true }] } },
      }),
    ).rejects.toMatchObject({
      code: 'bad-input',
      message: /^the profile was not saved: episode\.end\.0: a detector is exactly one of/,
    });
    expect(readFileSync(file, 'utf8')).toBe(before);
  });
});
