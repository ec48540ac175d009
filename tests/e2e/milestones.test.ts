/**
 * Milestone scoring end to end with real components — ffmpeg, a real Debian game window
 * (sgt-puzzles' Fifteen) under Xvfb, real input, real run folders — and the local test server
 * as the only stand-in: it looks at the frames it is sent (decodes them) to answer as a
 * watching model would.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { json, ROOT, runCli, testModelSpec } from '../helpers/cli.ts';
import { writeFifteenProfile } from '../helpers/profiles.ts';
import { startWindow, stop } from '../helpers/windows.ts';
import { prepareRun } from '../../electron/session/compose.ts';
import { parseRunSpec } from '../../electron/run-spec.ts';
import { loadProfileFile } from '../../electron/profiles/load.ts';
import { readRun } from '../../electron/store/run-store.ts';
import { setLabel } from '../../electron/scoring/milestone-labels.ts';
import type { WindowInfo } from '../../native/index.ts';

const tmp = (p: string) => mkdtempSync(path.join(tmpdir(), p));

/** Each image of a request with the text label just before it ("t = 4 s", "step 3"). */
async function labelledImages(body: any): Promise<{ label: string; rgb: number[]; raw: Buffer }[]> {
  const parts = body.messages[0].content as any[];
  const out: { label: string; rgb: number[]; raw: Buffer }[] = [];
  for (const [i, p] of parts.entries()) {
    if (p.type !== 'image_url') continue;
    const img = sharp(Buffer.from(p.image_url.url.split(',')[1], 'base64'));
    const stats = await img.stats();
    const raw = await img.clone().resize(64, 64, { fit: 'fill' }).greyscale().raw().toBuffer();
    out.push({ label: parts[i - 1]?.text ?? '', rgb: stats.channels.slice(0, 3).map((c) => c.mean), raw });
  }
  return out;
}

const colourName = ([r, g, b]: number[]) =>
  r! > 150 && g! < 100 ? 'Red' : g! > 100 && r! < 100 && b! < 100 ? 'Green' : b! > 150 && r! < 100 ? 'Blue' : 'Other';

describe('milestones extracted from a walkthrough video made with ffmpeg', () => {
  let server: FakeOpenAI;
  beforeAll(async () => {
    // The "model" names a scene each time the colour changes, at the labelled time of its first frame.
    server = await new FakeOpenAI(async (body) => {
      const text = body.messages[0].content[0].text as string;
      const found = /found earlier.*?: (.*)\.$/m.exec(text)?.[1]?.split('; ') ?? [];
      const milestones: { name: string; description: string; t: number }[] = [];
      for (const f of await labelledImages(body)) {
        const name = `${colourName(f.rgb)} scene`;
        if (found.includes(name) || milestones.some((m) => m.name === name)) continue;
        milestones.push({
          name,
          description: `the whole screen is ${colourName(f.rgb).toLowerCase()}`,
          t: Number(/t = ([\d.]+) s/.exec(f.label)![1]),
        });
      }
      return { text: `Here they are:\n${JSON.stringify({ milestones })}` };
    }).start();
  });
  afterAll(() => server.close());

  it('saves an ordered list into a user copy of the profile, each with its evidence frame from the right time', async () => {
    const dir = tmp('gp-extract-');
    const video = path.join(dir, 'walkthrough.mp4');
    const scene = (c: string) => ['-f', 'lavfi', '-i', `color=c=${c}:s=320x240:d=4:r=10`];
    execFileSync('ffmpeg', [
      '-v',
      'error',
      ...scene('red'),
      ...scene('green'),
      ...scene('blue'),
      '-filter_complex',
      '[0][1][2]concat=n=3:v=1:a=0',
      '-pix_fmt',
      'yuv420p',
      video,
    ]);
    const config = tmp('gp-extract-config-');
    const shipped = path.join(ROOT, 'games', 'sgt-fifteen', 'profile.yaml');
    const before = readFileSync(shipped, 'utf8');
    const r = await runCli(
      [
        'milestones',
        'extract',
        '--video',
        video,
        '--profile',
        'sgt-fifteen',
        '--model',
        'test-vlm',
        '--base-url',
        server.baseURL,
        '--chunk-frames',
        '5',
        '--json',
      ],
      { env: { GAMEPILOT_CONFIG_DIR: config } },
    );
    expect(r.code, r.stderr).toBe(0);
    const out = json(r);
    expect(out.milestones.map((m: any) => [m.name, m.t])).toEqual([
      ['Red scene', 0],
      ['Green scene', 4],
      ['Blue scene', 8],
    ]);
    expect(out.chunks).toBe(3); // 12 frames at 1 fps, 5 a call: the long video in chunks, merged in order
    expect(server.requests.length).toBe(3);
    // The second chunk was told what the first found.
    expect(server.requests[1]!.body.messages[0].content[0].text).toMatch(/found earlier.*Red scene/);
    // Saved into the user's copy; the shipped profile is untouched.
    expect(readFileSync(shipped, 'utf8')).toBe(before);
    const file = path.join(config, 'profiles', 'sgt-fifteen.yaml');
    expect(out.profile).toBe(file);
    const { profile } = loadProfileFile(file);
    expect(profile.scoring.kind).toBe('milestones');
    const items = profile.scoring.kind === 'milestones' ? (profile.scoring.milestones as any[]) : [];
    expect(items.map((m) => [m.title, m.t])).toEqual([
      ['Red scene', 0],
      ['Green scene', 4],
      ['Blue scene', 8],
    ]);
    for (const m of items) {
      const evidence = path.join(path.dirname(file), m.evidence);
      expect(existsSync(evidence)).toBe(true);
      const stats = await sharp(evidence).stats();
      expect(`${colourName(stats.channels.slice(0, 3).map((c) => c.mean))} scene`).toBe(m.title);
    }
  });
});

describe('a live milestone judge on a real Debian game (sgt-fifteen)', () => {
  let fifteen: { child: ChildProcess; window: WindowInfo };
  let server: FakeOpenAI;
  /** The judge's first answer is malformed once (then it is asked again). */
  let malformedOnce = false;
  let judgeCalls = 0;
  const profileFile = path.join(tmp('gp-ms-profile-'), 'fifteen-quest.yaml');

  beforeAll(async () => {
    // Play: up, left, down, right in turn (each slides a tile). Judge: look at the frames.
    let first: Buffer | undefined;
    let chat = 0;
    server = await new FakeOpenAI(async (body) => {
      if (body.stream) {
        const key = ['up', 'left', 'down', 'right'][chat++ % 4]!;
        return { text: answer(`slide ${key}`, [{ action_type: 'PRESS', parameters: { key } }]) };
      }
      judgeCalls++;
      if (malformedOnce) {
        malformedOnce = false;
        return { text: 'The tray is visible and a tile has moved.' };
      }
      const open = body.messages[0].content[0].text as string;
      const reached: { milestone: string; step: number; reason: string }[] = [];
      for (const f of await labelledImages(body)) {
        const step = Number(/step (\d+)/.exec(f.label)![1]);
        first ??= f.raw;
        const changed = f.raw.reduce((n, v, i) => n + Math.abs(v - first![i]!), 0) / f.raw.length;
        if (open.includes('- Tray shown') && !reached.some((r) => r.milestone === 'Tray shown'))
          reached.push({ milestone: 'Tray shown', step, reason: 'the numbered tiles fill the window' });
        if (open.includes('- A tile moved') && changed > 0.5 && !reached.some((r) => r.milestone === 'A tile moved'))
          reached.push({
            milestone: 'A tile moved',
            step,
            reason: `the tiles differ from the first frame (${changed.toFixed(1)})`,
          });
      }
      // A claim on a frame it was not shown: the harness must refuse it.
      reached.push({ milestone: 'Puzzle solved', step: 9999, reason: 'wishful' });
      return { text: JSON.stringify({ reached }) };
    }).start();
    writeFifteenProfile(profileFile, {
      id: 'fifteen-quest',
      scoring: [
        'kind: milestones',
        'linear: true',
        'milestones:',
        '  - { title: Tray shown, description: the tray of numbered tiles is on the screen }',
        '  - { title: A tile moved, description: a tile is in another place than at the start }',
        '  - { title: Puzzle solved, description: the status line says COMPLETED! }',
      ],
    });
    fifteen = await startWindow('/usr/games/sgt-fifteen', [], /^Fifteen$/);
    await new Promise((r) => setTimeout(r, 800)); // let GTK draw
  });

  afterAll(async () => {
    await stop(fifteen.child);
    await server.close();
  });

  async function play(opts: { budget?: number; steps: number }) {
    const entry = { ...loadProfileFile(profileFile), source: 'given' as const };
    const out = tmp('gp-ms-runs-');
    const { session, target } = await prepareRun(
      parseRunSpec({
        windowId: fifteen.window.id,
        ...testModelSpec(server.baseURL),
        episodes: 1,
        maxSteps: opts.steps,
        seed: 0,
        capture: 'nut',
        imageSize: 640,
        paceMs: 350,
        judgeModel: 'judge-vlm',
        judgeEvery: 3,
        ...(opts.budget ? { judgeBudget: opts.budget } : {}),
      }),
      { outDir: out, profile: { kind: 'chosen', entry } },
    );
    const events: { type: 'step' | 'milestones'; reached?: number; final?: boolean }[] = [];
    session.on('step', () => events.push({ type: 'step' }));
    session.on('milestones', (p) => events.push({ type: 'milestones', reached: p.reached, final: p.final }));
    try {
      const result = await session.run();
      return { result, events };
    } finally {
      await target.close();
    }
  }

  it('ticks the checklist during the run, scores reached / total × 100 with evidence steps, and a human label changes the agreement', async () => {
    malformedOnce = true;
    judgeCalls = 0;
    const { result, events } = await play({ steps: 12 });
    expect(result.status, result.error).toBe('completed');
    // Checklist events arrive during the run: a milestone ticked before the last step was played.
    const firstTick = events.findIndex((e) => e.type === 'milestones' && e.reached! > 0);
    const lastStep = events.map((e) => e.type).lastIndexOf('step');
    expect(firstTick).toBeGreaterThan(-1);
    expect(firstTick).toBeLessThan(lastStep);
    expect(events.at(-1)).toMatchObject({ type: 'milestones', final: true });

    const { meta, steps } = readRun(result.runDir);
    const m = meta.milestones as any;
    expect(m.judge_model).toBe('judge-vlm');
    expect(m.calls).toBe(judgeCalls);
    expect(m.tokens.input).toBeGreaterThan(0);
    const ep = m.episodes[0];
    expect(ep.reached, JSON.stringify(m, null, 1).slice(0, 3000)).toBe(2);
    expect(ep.score).toBe(66.67); // 2 of 3
    expect(meta.episodes[0]!.score).toBe(66.67);
    expect(meta.mean).toBe(66.67);
    for (const item of ep.items.filter((i: any) => i.reached)) {
      const step = steps.find((s) => s.step === item.step)!;
      expect(step.frame).toBe(item.frame);
      expect(existsSync(path.join(result.runDir, item.frame))).toBe(true);
    }
    expect(ep.items[1].step).toBeGreaterThan(0); // the tile moved after the first frame
    expect(m.refused.some((r: any) => r.milestone === 'Puzzle solved' && /not a step whose frame/.test(r.why))).toBe(
      true,
    );
    // The malformed first answer was recorded and asked again once.
    expect(m.requests[0].answer).toMatch(/a tile has moved/);

    // A person overrules one verdict: run.json keeps the judge's, the agreement figure moves.
    const agree = async () => json(await runCli(['milestones', 'agreement', result.runDir, '--json']));
    expect((await agree()).games).toEqual([]);
    setLabel(result.runDir, meta, { episode: 0, milestone: 'A tile moved', reached: true });
    expect((await agree()).games[0]).toMatchObject({ game: 'fifteen-quest', judged: 66.67, human: 66.67, pct_diff: 0 });
    const r = await runCli(['milestones', 'label', result.runDir, '--milestone', 'A tile moved', '--reached', 'no']);
    expect(r.code, r.stderr).toBe(0);
    expect((await agree()).games[0]).toMatchObject({ judged: 66.67, human: 33.33, pct_diff: 100 });
    expect((readRun(result.runDir).meta.milestones as any).episodes[0].reached).toBe(2);
  });

  it('makes at most K judge calls with a budget of K (counted at the server)', async () => {
    judgeCalls = 0;
    const { result } = await play({ steps: 12, budget: 2 });
    expect(result.status, result.error).toBe('completed');
    expect(judgeCalls).toBeLessThanOrEqual(2);
    expect(judgeCalls).toBe(2); // one live call, one kept back for the episode's end
    expect((readRun(result.runDir).meta.milestones as any).calls).toBe(2);
  });
});
