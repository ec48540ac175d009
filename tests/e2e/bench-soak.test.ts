/**
 * `gamepilot bench --soak 0.5`: half a minute of the solver on built-in 2048 in one real
 * `gamepilot run`, sampled from outside. Every figure it promises is there and sane (steps
 * played, RSS and open files of the run process, bytes written per step); speed is not judged.
 * The human format names the same figures and the bound; nothing of the run is left behind.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { json, runCli } from '../helpers/cli.ts';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The soak's temporary folders go here (TMPDIR), so "nothing left behind" is judged on this
 * test's soak alone, whatever other soaks on the machine have open in /tmp.
 */
const scratch = mkdtempSync(path.join(tmpdir(), 'gp-soak-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('gamepilot bench --soak', () => {
  it('plays for the given time in one run and reports steps, RSS, open files and bytes per step', async () => {
    const r = await runCli(['bench', '--soak', '0.5', '--json'], { timeoutMs: 240_000, env: { TMPDIR: scratch } });
    expect([0, 1], r.stderr).toContain(r.code);
    const s = json(r);
    // Whether RSS stayed within the bound after the warm-up is the soak's verdict, not this test's:
    // 30 s is too short to tell a leak from warming up. The verdict must follow from the figures.
    expect(r.code).toBe(s.ok ? 0 : 1);
    expect(s.rss_ok).toBe(s.rss_floor_mb.growth_after_warmup <= 50);
    expect(s).toMatchObject({ game: '2048', agent: 'solver', minutes: 0.5, sample_every_s: 10, warmup_s: 10 });
    expect(s.command).toMatch(/^gamepilot run --game 2048 --agent solver /);
    expect(s.ok).toBe(s.rss_ok);
    expect(s.rss_bound_mb).toBe(50);
    expect(s.ended_early).toBe(false);
    expect(s.run_status).toBe('stopped'); // stopped at the end of the time, as Ctrl+C stops it

    expect(s.steps).toBeGreaterThan(0);
    expect(s.episodes).toBeGreaterThanOrEqual(1);
    expect(s.seconds).toBeGreaterThanOrEqual(29);
    expect(s.seconds).toBeLessThan(60);
    expect(s.steps_per_second).toBeGreaterThan(0);

    // Samples at 0, 10, 20 and 30 s of play, steps only ever growing.
    expect(s.samples.map((x: any) => x.t_s)).toEqual([0, 10, 20, 30]);
    const steps = s.samples.map((x: any) => x.steps);
    expect([...steps].sort((a: number, b: number) => a - b)).toEqual(steps);
    expect(steps.at(-1)).toBeGreaterThan(0);
    for (const x of s.samples) {
      expect(x.rss_mb).toBeGreaterThan(10);
      expect(x.rss_mb).toBeLessThan(4000);
      expect(x.rss_floor_mb).toBeGreaterThan(10);
      expect(x.rss_floor_mb).toBeLessThanOrEqual(x.rss_mb);
      expect(x.fds).toBeGreaterThan(0);
      expect(x.window_rss_mb).toBeGreaterThanOrEqual(0);
    }
    for (const k of ['start', 'after_warmup', 'max', 'end']) {
      expect(s.rss_mb[k]).toBeGreaterThan(10);
      expect(s.rss_floor_mb[k]).toBeGreaterThan(10);
      expect(s.fds[k]).toBeGreaterThan(0);
      expect(s.window_rss_mb[k]).toBeGreaterThan(0); // the game's Chromium window
    }
    expect(s.rss_mb.after_warmup).toBe(s.samples[1].rss_mb);
    expect(s.rss_mb.max).toBe(Math.max(...s.samples.map((x: any) => x.rss_mb)));
    expect(s.rss_floor_mb.growth_after_warmup).toBeCloseTo(s.rss_floor_mb.end - s.rss_floor_mb.after_warmup, 1);
    expect(s.bytes_written).toBeGreaterThan(0);
    expect(s.bytes_per_step).toBeGreaterThan(0);
    expect(s.bytes_per_step).toBe(Math.round(s.bytes_written / s.steps));

    // The run process is gone, and so is its temporary run folder.
    expect(alive(s.pid)).toBe(false);
    expect(readdirSync(scratch).filter((n) => n.startsWith('gamepilot-soak-'))).toEqual([]);
    console.log(
      `soak figures (30 s): ${s.steps} steps, ${s.steps_per_second} steps/s; rss ${s.rss_mb.start} → ${s.rss_mb.end} MB ` +
        `(max ${s.rss_mb.max}); ${s.fds.end} open files; ${s.bytes_per_step} bytes/step`,
    );
  }, 300_000);

  it('prints the same figures for people, with the bound it holds the run to', async () => {
    const r = await runCli(['bench', '--soak', '0.2', '--keep-frames', 'none'], { timeoutMs: 240_000 });
    expect([0, 1], r.stderr).toContain(r.code);
    expect(r.stdout).toContain(r.code === 0 ? 'soak: ok' : 'soak: FAILED');
    for (const label of ['steps/s', 'rss ', 'rss floor', 'after warm-up', 'open files', 'per step', 'bound +50 MB'])
      expect(r.stdout).toContain(label);
    expect(r.stdout).toContain('--keep-frames none');
    expect(r.stderr).toMatch(/soak: 0 s, \d+ steps, rss [\d.]+ MB/);
  }, 300_000);
});
