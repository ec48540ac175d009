/**
 * Human-baseline recording under Xvfb: a scripted player (xdotool) plays built-in 2048 while
 * `gamepilot record` runs for 60 s. Every injected key is in events.jsonl in the action schema
 * within 20 ms; frames keep ≥ 20 fps at 1280×720 with < 10 % dropped (a bound that holds on a busy
 * 2-core machine yet catches a real regression; the < 1 % goal is `gamepilot bench --record`'s
 * figure) and flat memory; keys typed into another window are not recorded; the session is scored.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BIN, spawnCli } from '../helpers/cli.ts';
import { solidWindow, stop } from '../helpers/windows.ts';
import { createWindowManager, findWindow, type WindowInfo } from '../../native/index.ts';
import { readRun } from '../../electron/store/run-store.ts';
import { readSession } from '../../electron/store/session-files.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);

describe('gamepilot record', () => {
  it('records a scripted player on built-in 2048 for 60 s', { timeout: 150_000 }, async () => {
    const out = mkdtempSync(path.join(tmpdir(), 'gp-rec-'));
    const child = spawnCli(
      [
        'record',
        '--game',
        '2048',
        '--role',
        'rookie',
        '--participant',
        'p07',
        '--consent',
        '--duration',
        '60',
        '--fps',
        '30',
        '--window-size',
        '1280x720',
        '--runs-dir',
        out,
        '--json',
        '--quiet',
      ],
      { GAMEPILOT_CONFIG_DIR: out },
    );
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.on('exit', r));
    // A failed expectation must not leave a 60 s recording (and its game window) running.
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    });

    const wm = createWindowManager();
    let game: WindowInfo | undefined;
    for (let i = 0; i < 200 && !game; i++) {
      game = await findWindow(wm, /^Gamepilot · 2048/);
      if (!game) await sleep(100);
    }
    expect(game, stderr).toBeTruthy();
    expect(game!.bounds).toMatchObject({ width: 1280, height: 720 });
    // Said once input is heard: the first key is kept.
    while (!stderr.includes('● recording')) await sleep(50);

    // xdotool injects somewhere between `t` (before it starts) and `after` (when it has exited).
    const injected: { key: string; t: number; after: number }[] = [];
    // RSS every 250 ms, timed from t0 (the sawtooth of freed frames has a period under a second).
    const rss: { t: number; kb: number }[] = [];
    const keys = ['Left', 'Up', 'Right', 'Down'];
    const names: Record<string, string> = { Left: 'left', Up: 'up', Right: 'right', Down: 'down' };
    const t0 = Date.now();
    const sampler = setInterval(() => rss.push({ t: Date.now() - t0, kb: rssKb(child.pid!) }), 250);
    let decoyDone = false;
    // A key every 350 ms on a schedule: the time xdotool takes (over 150 ms a call beside busy
    // loops) comes out of the wait instead of adding to it, so about 140 keys are checked however
    // busy the machine is (a sleep after each key gave 98 under load, below the 100 asked).
    const PACE_MS = 350;
    let due = Date.now();
    while (Date.now() - t0 < 52_000) {
      if (!decoyDone && Date.now() - t0 > 20_000) {
        // Another window takes focus; what is typed there must not be recorded.
        const decoy = await solidWindow('#333', 'gp-notes', { x: 200, y: 200, width: 300, height: 200 });
        await sleep(800);
        execFileSync('xdotool', ['type', '--delay', '40', 'secretpw']);
        await stop(decoy.child);
        await wm.focus(game!.id);
        await sleep(600);
        decoyDone = true;
        due = Date.now();
      }
      const k = keys[injected.length % 4]!;
      const t = Date.now();
      execFileSync('xdotool', ['key', k]);
      injected.push({ key: names[k]!, t, after: Date.now() });
      due += PACE_MS;
      await sleep(Math.max(0, due - Date.now()));
    }
    clearInterval(sampler);
    const code = await exited;
    expect(code, stderr).toBe(0);
    const summary = JSON.parse(stdout);

    // Frames: ≥ 20 fps at 1280×720, < 10 % dropped, and the summary says where drops came from.
    expect(summary.duration_s).toBeGreaterThanOrEqual(59);
    expect(summary.fps, JSON.stringify(summary)).toBeGreaterThanOrEqual(20);
    expect(summary.dropped / (summary.frames + summary.dropped), JSON.stringify(summary)).toBeLessThan(0.1);
    expect(summary.dropped).toBe(summary.dropped_late + summary.dropped_busy);
    expect(summary.drop_note === null).toBe(summary.dropped === 0);
    // The session's own files read back through their schemas: every row of the real recording is valid.
    const { session, frames, events, problems } = readSession(summary.session_dir);
    expect(problems).toEqual([]);
    expect(frames).toHaveLength(summary.frames);
    expect(existsSync(path.join(summary.session_dir, frames.at(-1)!.file))).toBe(true);

    // Memory stays flat: frames go to disk, not to RAM. RSS does not grow smoothly even without a
    // leak: freed frames are collected in bursts (a saw of tens of MB), and the process's
    // anonymous memory (its and its worker threads' heaps) steps up to a new plateau now and then
    // — +20 to +57 MB at 4 s, 5 s, 8 s or 22 s in four runs beside busy loops, then flat. Such a
    // step after the middle most likely failed the first-half-against-second-half check this
    // replaced, in CI (its printed series was cut off after 8.5 s). A leak grows window after
    // window instead: the peaks of six 8 s windows (after a 5 s warm-up) may rise by one step of
    // any size, but what they rise besides it stays under 40 MB. Raw frames kept (3.7 MB each,
    // 30 a second) overshoot that many times; a leak under ~1 MB/s (this board's JPEGs kept:
    // ~0.5 MB/s) is below what RSS can tell on a busy machine.
    const peaks = [5, 13, 21, 29, 37, 45].map(
      (from) =>
        Math.max(...rss.filter((s) => s.t >= from * 1000 && s.t < Math.min(from + 8, 52) * 1000).map((s) => s.kb)) /
        1024,
    );
    const rises = peaks.slice(1).map((p, i) => Math.max(0, p - peaks[i]!));
    const growthMb = peaks.at(-1)! - peaks[0]! - Math.max(...rises);
    const perSecond = Array.from({ length: 52 }, (_, sec) =>
      Math.round(Math.max(0, ...rss.filter((s) => Math.floor(s.t / 1000) === sec).map((s) => s.kb)) / 1024),
    );
    expect(growthMb, `window peaks ${peaks.map(Math.round)} MB; per-second peaks ${perSecond.join(' ')}`).toBeLessThan(
      40,
    );

    // Every injected key, in the action schema, within 20 ms.
    const missing = injected.filter(
      (inj) =>
        !events.some(
          (e) =>
            e.action_type === 'PRESS' && e.parameters.key === inj.key && e.t >= inj.t - 20 && e.t <= inj.after + 20,
        ),
    );
    const near = (t: number) =>
      events
        .filter((e) => Math.abs(e.t - t) < 400)
        .map((e) => `${e.parameters.key}@${e.t - t}`)
        .join(' ');
    expect(missing.map((m) => `${m.key}@${m.t - t0}ms (xdotool took ${m.after - m.t} ms): ${near(m.t)}`)).toEqual([]);
    const spread = injected.map(
      (inj) =>
        events.find(
          (e) =>
            e.action_type === 'PRESS' && e.parameters.key === inj.key && e.t >= inj.t - 20 && e.t <= inj.after + 20,
        )!.t - inj.t,
    );
    expect(injected.length).toBeGreaterThan(100);
    // Nothing typed into the other window.
    for (const c of 'secrpw') expect(events.some((e) => e.parameters.key === c)).toBe(false);

    // Scored like an agent run, listed like one.
    expect(summary.score).toBeGreaterThan(0);
    const { meta, steps } = readRun(summary.session_dir);
    expect(meta).toMatchObject({
      kind: 'human',
      agent: 'human-rookie',
      game: '2048',
      status: 'completed',
      mean: summary.score,
    });
    expect(steps.length).toBeGreaterThan(100);
    expect(session).toMatchObject({ participant: 'p07', role: 'rookie', consent: true, game: '2048' });
    spread.sort((a, b) => a - b);
    console.log(
      `record: ${injected.length} keys, ${summary.frames} frames, ${summary.fps} fps, ${summary.dropped} dropped (${summary.dropped_late} late, ${summary.dropped_busy} busy), ${summary.events} events, rss growth ${growthMb.toFixed(1)} MB, key event after xdotool start p50 ${spread[Math.floor(spread.length / 2)]} ms, max ${spread.at(-1)} ms`,
    );
  });

  it('writes sessions where the leaderboard, the Runs tab and `video` look: ./runs, as `run` does', {
    timeout: 60_000,
  }, async () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'gp-rec-cwd-'));
    const inCwd = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [BIN, ...args], {
          cwd,
          env: { ...process.env, GAMEPILOT_CONFIG_DIR: cwd },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.stderr.on('data', (d) => (stderr += d));
        child.on('exit', (code) => resolve({ code, stdout, stderr }));
      });
    const r = await inCwd([
      'record',
      '--game',
      'snake',
      '--role',
      'expert',
      '--participant',
      'e3',
      '--consent',
      '--duration',
      '2',
      '--fps',
      '5',
      '--json',
      '--quiet',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(path.dirname(summary.session_dir)).toBe(path.join(realpathSync(cwd), 'runs'));
    expect(JSON.parse(readFileSync(path.join(summary.session_dir, 'run.json'), 'utf8'))).toMatchObject({
      stage: 'play',
      config: { stage: 'play' },
    });
    // A rookie's second play (after the tutorial) is the VR = Yes row of the human rookie.
    const again = await inCwd([
      'record',
      '--game',
      'snake',
      '--role',
      'rookie',
      '--participant',
      'r3',
      '--consent',
      '--duration',
      '2',
      '--fps',
      '5',
      '--stage',
      'play-2',
      '--json',
      '--quiet',
    ]);
    expect(again.code, again.stderr).toBe(0);
    // The leaderboard reads ./runs by default, and pools the session as a human player.
    const board = await inCwd(['leaderboard', '--json']);
    expect(board.code, board.stderr).toBe(0);
    expect(JSON.parse(board.stdout)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ game: 'snake', player: 'human-expert', vr: '—', runs: 1 }),
        expect.objectContaining({ game: 'snake', player: 'human-rookie', vr: 'Yes', lessons: 'tutorial', runs: 1 }),
      ]),
    );
  });

  it('refuses to record without consent or with a real-looking name', async () => {
    const { runCli } = await import('../helpers/cli.ts');
    const out = mkdtempSync(path.join(tmpdir(), 'gp-rec-'));
    const a = await runCli([
      'record',
      '--game',
      '2048',
      '--role',
      'expert',
      '--participant',
      'p1',
      '--duration',
      '1',
      '--runs-dir',
      out,
    ]);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/required option '--consent' not specified/);
    expect(a.stderr).toMatch(/--consent\s+confirms the participant agreed to be recorded/); // the usage says what consenting means
    const b = await runCli([
      'record',
      '--game',
      '2048',
      '--role',
      'expert',
      '--participant',
      'Jane Doe',
      '--consent',
      '--duration',
      '1',
      '--runs-dir',
      out,
    ]);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/option '--participant <id>' argument 'Jane Doe' is invalid\. Allowed: a pseudonym/);
    expect(readdirSync(out)).toEqual([]); // nothing opened, nothing recorded
  });

  it('exports a session as a video, with a clear error when ffmpeg is missing', async () => {
    const { runCli, json } = await import('../helpers/cli.ts');
    const out = mkdtempSync(path.join(tmpdir(), 'gp-rec-'));
    const r = await runCli(
      [
        'record',
        '--game',
        'snake',
        '--role',
        'expert',
        '--participant',
        'e9',
        '--consent',
        '--duration',
        '3',
        '--fps',
        '10',
        '--runs-dir',
        out,
        '--json',
        '--quiet',
      ],
      { env: { GAMEPILOT_CONFIG_DIR: out } },
    );
    expect(r.code, r.stderr).toBe(0);
    const dir = json(r).session_dir;
    const v = await runCli(['video', dir]);
    expect(v.code, v.stderr).toBe(0);
    const file = v.stdout.trim();
    const seconds = Number(
      execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file], {
        encoding: 'utf8',
      }),
    );
    expect(seconds).toBeGreaterThan(2);
    expect(seconds).toBeLessThan(5);
    // A PATH with node and nothing else: no ffmpeg to be found.
    const bin = path.join(out, 'bin');
    mkdirSync(bin);
    symlinkSync(process.execPath, path.join(bin, 'node'));
    const missing = await runCli(['video', dir, '--out', path.join(out, 'x.mp4')], { env: { PATH: bin } });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/ffmpeg is not installed: install ffmpeg/);
  });
});
