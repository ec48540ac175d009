/**
 * A person takes over a model's run on a real third-party window (Debian's gnome-2048): with
 * --take-over-on-input, arrow keys typed into the game (xdotool: X input the global hook hears
 * like a keyboard's, the recorder's path) while the model thinks take the controls; the person's
 * keys move the tiles; the take-over hotkey hands back; the model plays on, told what the person
 * did. The steps say who played them, run.json counts the takeover, corrections.jsonl keeps what
 * the agent did before and the person did instead, and the leaderboard lists the run as assisted.
 */
import { execFile, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answer, FakeOpenAI } from '../helpers/fake-openai.ts';
import { runCli, testModelArgs, watchCli } from '../helpers/cli.ts';
import { magentaShare, solidWindow, startWindow, stop } from '../helpers/windows.ts';
import { readRun } from '../../electron/store/run-store.ts';
import type { WindowInfo } from '../../native/index.ts';
import type { CorrectionRecord } from '../../electron/session/takeover.ts';
import { processState } from '../../native/process.ts';
import { heldInput, keycodeOf, releaseKeysyms } from '../helpers/xinput.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const AGENT_KEYS = ['left', 'up', 'right', 'down'];
/** What the "person" types into the game while the model thinks. */
const PERSON_KEYS = ['Down', 'Right', 'Up', 'Left', 'Down', 'Right'];

let game: { child: ChildProcess; window: WindowInfo };
let server: FakeOpenAI;

beforeAll(async () => {
  game = await startWindow('/usr/games/gnome-2048', [], /^GNOME 2048$/);
  await sleep(1000); // let GTK draw the first board
});

afterAll(async () => {
  await stop(game.child);
  await server?.close();
});

/** Differing pixels between two frame files (0–1). */
async function changed(a: string, b: string): Promise<number> {
  const [x, y] = await Promise.all([a, b].map((f) => sharp(f).raw().toBuffer()));
  let n = 0;
  for (let i = 0; i < x!.length; i++) if (x![i] !== y![i]) n++;
  return n / x!.length;
}

/** `gamepilot run` on a window by id with the test model, for `steps` steps, into a fresh runs folder. */
function runOnWindow(windowId: string, baseURL: string, steps: number, flags: string[] = []) {
  const runs = mkdtempSync(path.join(tmpdir(), 'gp-takeover-window-'));
  const run = watchCli([
    'run',
    '--window-id',
    windowId,
    ...testModelArgs(baseURL),
    '--max-steps',
    String(steps),
    ...flags,
    '--runs-dir',
    runs,
    '--json',
  ]);
  return { runs, run };
}

describe('taking over a run', () => {
  it('a person takes over by typing into the window, plays, hands back; the run says so everywhere', {
    timeout: 180_000,
  }, async () => {
    let typing: Promise<void> | undefined;
    server = await new FakeOpenAI((_b, i) => {
      // The third request: the person types while the model thinks (its answer never counts).
      if (i === 2)
        typing = (async () => {
          await sleep(400);
          for (const k of PERSON_KEYS) {
            await new Promise((r) => execFile('xdotool', ['key', k], r));
            await sleep(350);
          }
        })();
      return {
        text: answer('slide', [{ action_type: 'PRESS', parameters: { key: AGENT_KEYS[i % AGENT_KEYS.length] } }]),
        delayMs: i === 2 ? 8000 : 300,
      };
    }).start();
    const runs = mkdtempSync(path.join(tmpdir(), 'gp-takeover-'));
    const run = watchCli([
      'run',
      '--window',
      '^GNOME 2048$',
      ...testModelArgs(server.baseURL),
      '--max-steps',
      '6',
      '--take-over-on-input',
      '--runs-dir',
      runs,
      '--json',
    ]);
    try {
      await run.waitFor(/a person has the controls \(input\)/);
      await typing;
      await sleep(800); // the last key's step is taken
      execFileSync('xdotool', ['key', 'ctrl+shift+F11']);
      await run.waitFor(/handed back: the agent plays on/, 20_000);
      expect(await run.exited, run.stderr()).toBe(0);
    } finally {
      run.child.kill('SIGKILL');
    }
    const res = JSON.parse(run.stdout());
    const { meta, steps } = readRun(res.run_dir);

    // Who played each step: six of the agent's (its budget), the person's in between.
    const agent = steps.filter((s) => s.actor === 'agent');
    const human = steps.filter((s) => s.actor === 'human');
    expect(agent).toHaveLength(6);
    expect(human.length).toBeGreaterThanOrEqual(3);
    expect(steps.map((s) => s.step)).toEqual(steps.map((_, i) => i));
    const firstHuman = steps.indexOf(human[0]!);
    const lastHuman = steps.indexOf(human.at(-1)!);
    expect(steps.slice(firstHuman, lastHuman + 1).every((s) => s.actor === 'human')).toBe(true);
    expect(agent.filter((s) => steps.indexOf(s) > lastHuman).length).toBeGreaterThanOrEqual(2);
    // The step the person cut short: its answer was not acted on.
    expect(steps[firstHuman - 1]!.errors.join(' ')).toMatch(/a person took over/);
    expect(steps[firstHuman - 1]!.actions).toEqual([]);

    // The person's keys, in the action schema, in order; nothing of the hotkey.
    const typed = human.flatMap((s) => s.actions as { action_type: string; parameters: { key: string } }[]);
    expect(typed.map((a) => a.action_type)).toEqual(PERSON_KEYS.map(() => 'PRESS'));
    expect(typed.map((a) => a.parameters.key)).toEqual(PERSON_KEYS.map((k) => k.toLowerCase()));
    for (const s of human) {
      expect(s.frame).toMatch(/^frames\//);
      expect(s.input_events).toHaveLength((s.actions as unknown[]).length);
    }
    // The game changed under the person's keys.
    const frame = (s: (typeof steps)[number]) => path.join(res.run_dir, s.frame!);
    expect(await changed(frame(human[0]!), frame(human.at(-1)!))).toBeGreaterThan(0.01);

    // run.json: assisted, the takeover's span.
    expect(meta.assisted).toBe(true);
    expect(meta.human_steps).toBe(human.length);
    expect(meta.takeovers).toEqual([
      expect.objectContaining({
        index: 0,
        episode: 0,
        trigger: 'input',
        from_step: human[0]!.step,
        to_step: human.at(-1)!.step,
        handed_back: true,
        human_steps: human.length,
        inputs: PERSON_KEYS.length,
      }),
    ]);
    expect(meta.config.take_over_on_input).toBe(true);

    // The correction record: the agent's steps before, the person's during.
    const corrections = readFileSync(path.join(res.run_dir, 'corrections.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as CorrectionRecord);
    expect(corrections).toHaveLength(1);
    const c = corrections[0]!;
    expect(c.before.map((s) => s.step)).toEqual(steps.slice(0, firstHuman).map((s) => s.step));
    expect(c.during.map((s) => s.step)).toEqual(human.map((s) => s.step));
    expect(c.during.flatMap((s) => s.input_events ?? []).map((e) => e.parameters.key)).toEqual(
      PERSON_KEYS.map((k) => k.toLowerCase()),
    );

    // The model's next prompt says a person played, and what.
    const prompts = server.requests.map((r) => JSON.stringify(r.body));
    const told = prompts.findIndex((p) => p.includes('A person had the controls'));
    expect(told).toBeGreaterThan(2);
    expect(prompts[told]).toMatch(/PRESS down, PRESS right/);
  });

  it('in stop mode: the frozen game thaws and the agent’s held key is let go the moment a person takes over', {
    timeout: 120_000,
  }, async () => {
    const fifteen = await startWindow('/usr/games/sgt-fifteen', [], /^Fifteen$/);
    const model = await new FakeOpenAI((_b, i) => ({
      text: answer(
        'hold right',
        i === 0
          ? [{ action_type: 'KEY_DOWN', parameters: { key: 'right' } }]
          : [{ action_type: 'PRESS', parameters: { key: 'up' } }],
      ),
      delayMs: i === 1 ? 20_000 : 200,
    })).start();
    const { run } = runOnWindow(fifteen.window.id, model.baseURL, 3, [
      '--latency',
      'stop',
      '--stop-interval-ms',
      '200',
    ]);
    const pid = fifteen.window.pid;
    const right = keycodeOf('Right');
    try {
      // The model thinks about its second step: the game is stopped, the agent's key still down.
      await expect.poll(() => model.requests.length, { timeout: 60_000 }).toBe(2);
      await expect.poll(() => processState(pid), { timeout: 10_000 }).toBe('T');
      expect(heldInput().keys).toContain(right);
      const t0 = Date.now();
      execFileSync('xdotool', ['key', 'ctrl+shift+F11']);
      await expect.poll(() => processState(pid), { timeout: 10_000 }).not.toBe('T');
      await expect.poll(() => heldInput().keys.includes(right), { timeout: 10_000 }).toBe(false);
      expect(Date.now() - t0).toBeLessThan(10_000); // not after the 20 s answer
      // (The line reaches us through the launcher's pipe a little after the thaw itself.)
      await run.waitFor(/a person has the controls \(hotkey\)/, 10_000);
      // It stays running while the person has the controls.
      await sleep(1000);
      expect(processState(pid)).not.toBe('T');
      execFileSync('xdotool', ['key', 'ctrl+shift+F11']);
      expect(await run.exited, run.stderr()).toBe(0);
      const { meta, steps } = readRun(JSON.parse(run.stdout()).run_dir);
      expect(meta.takeovers).toEqual([expect.objectContaining({ trigger: 'hotkey', handed_back: true })]);
      expect(steps.filter((x) => x.actor === 'agent')).toHaveLength(3);
      expect(steps.some((x) => x.actor === 'human')).toBe(true);
      // Nothing of the hotkey is recorded as the person's play.
      expect(steps.filter((x) => x.actor === 'human').flatMap((x) => x.actions)).toEqual([]);
    } finally {
      run.child.kill('SIGKILL');
      releaseKeysyms(['Right']);
      await model.close();
      await stop(fifteen.child);
    }
  });

  it('the agent’s own held key (X autorepeats it) never takes over, during its plan or after', {
    timeout: 120_000,
  }, async () => {
    const plans = [
      [
        { action_type: 'KEY_DOWN', parameters: { key: 'right' } },
        { action_type: 'WAIT', parameters: { duration: 2 } },
      ],
      [{ action_type: 'WAIT', parameters: { duration: 2 } }], // still held between and during steps
      [{ action_type: 'KEY_UP', parameters: { key: 'right' } }],
    ];
    const model = await new FakeOpenAI((_b, i) => ({
      text: answer('hold right', plans[Math.min(i, plans.length - 1)]!),
      delayMs: 500,
    })).start();
    const { run } = runOnWindow(game.window.id, model.baseURL, 3, ['--take-over-on-input']);
    const right = keycodeOf('Right');
    try {
      // The key is really down (the X server autorepeats it) while the model thinks.
      await expect.poll(() => model.requests.length, { timeout: 60_000 }).toBe(2);
      expect(heldInput().keys).toContain(right);
      expect(await run.exited, run.stderr()).toBe(0);
      const { meta, steps } = readRun(JSON.parse(run.stdout()).run_dir);
      expect(run.stderr()).not.toMatch(/a person has the controls/);
      expect(meta.assisted ?? false).toBe(false);
      expect(meta.takeovers ?? []).toEqual([]);
      expect(steps.map((x) => x.actor ?? 'agent')).toEqual(['agent', 'agent', 'agent']);
      expect(heldInput().keys).not.toContain(right);
    } finally {
      run.child.kill('SIGKILL');
      releaseKeysyms(['Right']);
      await model.close();
    }
  });

  it('a takeover’s frames show only the game: while another window covers it none is taken, and its export has no pixel of that window', {
    timeout: 180_000,
  }, async () => {
    const model = await new FakeOpenAI((_b, i) => ({
      text: answer('slide', [{ action_type: 'PRESS', parameters: { key: AGENT_KEYS[i % AGENT_KEYS.length] } }]),
      delayMs: i === 1 ? 30_000 : 200, // the person takes over while the model thinks about step 2
    })).start();
    const { runs, run } = runOnWindow(game.window.id, model.baseURL, 3);
    let cover: { child: ChildProcess; window: WindowInfo } | undefined;
    const personSteps = () => {
      const dir = readdirSync(runs)[0];
      return dir ? readRun(path.join(runs, dir)).steps.filter((x) => x.actor === 'human').length : 0;
    };
    try {
      await expect.poll(() => model.requests.length, { timeout: 60_000 }).toBe(2);
      execFileSync('xdotool', ['key', 'ctrl+shift+F11']);
      await run.waitFor(/a person has the controls \(hotkey\)/, 20_000);
      await expect.poll(personSteps, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
      // A magenta window comes over the game (it takes the focus, as a person's other window does).
      const b = game.window.bounds;
      cover = await solidWindow('#ff00ff', 'gp-cover', { x: b.x + 20, y: b.y + 20, width: 300, height: 300 });
      await run.waitFor(/another window covers the game: the person's frames are not recorded/, 20_000);
      const before = personSteps();
      await sleep(1500); // the person looks at the other window for a while: ~15 frame times
      await stop(cover.child);
      cover = undefined;
      await expect.poll(personSteps, { timeout: 20_000 }).toBeGreaterThan(before + 1);
      execFileSync('xdotool', ['key', 'ctrl+shift+F11']);
      await run.waitFor(/handed back: the agent plays on/, 20_000);
      expect(await run.exited, run.stderr()).toBe(0);
    } finally {
      run.child.kill('SIGKILL');
      if (cover) await stop(cover.child);
      await model.close();
    }
    const runDir = JSON.parse(run.stdout()).run_dir as string;
    const { meta, steps } = readRun(runDir);
    expect(meta.takeovers).toEqual([
      expect.objectContaining({ handed_back: true, covered_frames: expect.any(Number) }),
    ]);
    expect(meta.takeovers![0]!.covered_frames).toBeGreaterThanOrEqual(5);
    const human = steps.filter((x) => x.actor === 'human');
    expect(human.length).toBeGreaterThanOrEqual(4);
    expect(steps.map((x) => x.step)).toEqual(steps.map((_, i) => i)); // no step number lost to a dropped frame

    // The dataset: every image of the run, the person's included, and none shows the cover.
    const out = mkdtempSync(path.join(tmpdir(), 'gp-takeover-export-'));
    const exported = await runCli(['export', runDir, '--out', out, '--json']);
    expect(exported.code, exported.stderr).toBe(0);
    const images = readdirSync(out, { recursive: true, withFileTypes: true }).filter((e) =>
      /\.(jpe?g|png)$/.test(e.name),
    );
    expect(images.length).toBe(steps.filter((x) => x.frame).length);
    for (const e of images) expect(await magentaShare(path.join(e.parentPath, e.name)), e.name).toBeLessThan(0.001);
  });
});
