/**
 * The whole profile path on real Debian games (sgt-puzzles' Fifteen and Mines): a user-written
 * profile file picked with --profile, its rules in the model's system prompt, its key list
 * refusing a key before it reaches the window, its screen score in run.json; matching a window
 * to a shipped profile, refusing two that fit, the random baseline inside the profile's action
 * space, and a starter profile from a live window (refused for runs until its TODOs are filled).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { json, ROOT, runCli } from '../helpers/cli.ts';
import { startWindow, stop } from '../helpers/windows.ts';
import { readRun } from '../../electron/store/run-store.ts';
import { createWindowManager, type WindowInfo } from '../../native/index.ts';
import { loadProfileFile } from '../../electron/profiles/load.ts';

const RULES_MARKER = 'Slide the numbered tiles of this tray back into order; the marker is ZEBRA-FIFTEEN-7.';
let fifteen: { child: ChildProcess; window: WindowInfo };
let mines: { child: ChildProcess; window: WindowInfo };
let server: FakeOpenAI;
/** What the model answers, step by step; screen readings answer `reading`. */
let script: string[] = [];
let reading = '{"value": null, "level": null}';

beforeAll(async () => {
  let chat = 0;
  server = await new FakeOpenAI((body) => {
    if (!body.stream) return { text: reading }; // the screen reader asks without streaming
    const text = script[Math.min(chat, script.length - 1)]!;
    chat++;
    return { text };
  }).start();
  fifteen = await startWindow('/usr/games/sgt-fifteen', [], /^Fifteen$/);
  mines = await startWindow('/usr/games/sgt-mines', [], /^Mines$/);
  await new Promise((r) => setTimeout(r, 800)); // let GTK draw
});

afterAll(async () => {
  await stop(fifteen.child);
  await stop(mines.child);
  await server.close();
});

function resetServer(steps: string[]) {
  script = steps;
  server.requests.length = 0;
  server.setResponder(
    (
      (chat = 0) =>
      (body: { stream?: boolean }) => {
        if (!body.stream) return { text: reading };
        return { text: script[Math.min(chat++, script.length - 1)]! };
      }
    )(),
  );
}

const press = (key: string) => answer(`press ${key}`, [{ action_type: 'PRESS', parameters: { key } }]);
const model = () => ['--agent', 'vlm', '--model', 'test-vlm', '--base-url', server.baseURL];
const tmp = (p: string) => mkdtempSync(path.join(tmpdir(), p));

describe('a user-written profile on a real Debian game (sgt-fifteen)', () => {
  it('puts its rules in the system prompt, refuses a key it does not allow, and scores off the screen', async () => {
    const folder = tmp('gp-user-profile-');
    const file = path.join(folder, 'my-fifteen.yaml');
    const shipped = readFileSync(path.join(ROOT, 'games', 'sgt-fifteen', 'profile.yaml'), 'utf8');
    writeFileSync(
      file,
      shipped
        .replace('id: sgt-fifteen', 'id: my-fifteen')
        .replace(/ {2}rules: >-\n( {4}.*\n)+/, `  rules: ${JSON.stringify(RULES_MARKER)}\n`),
    );
    // q quits sgt-fifteen: were it pressed, the window would be gone.
    resetServer([press('q'), press('up'), press('left')]);
    reading = '{"value": 3, "level": null}';
    const out = tmp('gp-prof-run-');
    const r = await runCli([
      'run',
      '--window',
      '^Fifteen$',
      '--profile',
      file,
      ...model(),
      '--max-steps',
      '3',
      '--runs-dir',
      out,
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /profile: my-fifteen — Fifteen \(sgt-puzzles\) \(given: .*my-fifteen\.yaml\); markov-grid, medium, scoring screen/,
    );
    expect(r.stderr).toMatch(/setup it expects: A fresh game/);

    const chats = server.requests.filter((q) => q.body.stream);
    expect(chats).toHaveLength(3);
    const system = chats[0]!.body.messages[0];
    expect(system.role).toBe('system');
    expect(system.content).toContain(RULES_MARKER);
    expect(system.content).toContain('Only these keys work here; any other key is refused: up, down, left, right.');

    const res = json(r);
    const { meta, steps } = readRun(res.run_dir);
    expect(steps[0]!.outcomes).toEqual([
      {
        action: 'PRESS',
        ok: false,
        error: expect.stringMatching(
          /^Q is not a key this title's profile allows \(allowedKeys: up, down, left, right\)/,
        ),
      },
    ]);
    expect(steps[0]!.errors).toEqual([expect.stringMatching(/^refused PRESS: Q is not a key/)]);
    expect(steps[1]!.outcomes).toEqual([{ action: 'PRESS', ok: true }]);
    // The refused q never reached the game: it is still running, its window still there.
    expect(fifteen.child.exitCode).toBeNull();
    expect(await createWindowManager().get(fifteen.window.id)).toBeDefined();
    // The model heard about the refusal in the next step's message.
    expect(JSON.stringify(chats[1]!.body.messages.at(-1))).toMatch(/refused: Q is not a key/);

    expect(meta.profile).toMatchObject({
      id: 'my-fifteen',
      source: 'given',
      file,
      category: 'markov-grid',
      tier: 'medium',
      scoring: { kind: 'screen', normaliser: { divisor: 15 } },
    });
    expect(meta.config).toMatchObject({
      max_steps: 3,
      only_keys: ['up', 'down', 'left', 'right'],
      max_actions_per_step: 4,
    });
    // One reading at the end of the episode: 3 tiles in place of 15 → 20.
    expect(res.episodes).toEqual([{ episode: 0, score: 20, steps: 3, end: 'max_steps' }]);
    expect(res.mean).toBe(20);
    expect(meta.episodes[0]).toMatchObject({ raw_score: 3, screen_readings: [{ step: 3, reading: { value: 3 } }] });
    const reads = server.requests.filter((q) => !q.body.stream);
    expect(reads).toHaveLength(1);
    expect(JSON.stringify(reads[0]!.body.messages)).toContain('how many of the fifteen numbered tiles');
  });

  it('refuses a profile file that fails validation, naming file, line and field, before anything runs', async () => {
    const folder = tmp('gp-bad-profile-');
    const file = path.join(folder, 'bad.yaml');
    const shipped = readFileSync(path.join(ROOT, 'games', 'sgt-fifteen', 'profile.yaml'), 'utf8');
    const text = shipped.replace('  trials: 1', '  trials: 0');
    writeFileSync(file, text);
    const out = tmp('gp-prof-run-');
    const r = await runCli(['run', '--window', '^Fifteen$', '--profile', file, ...model(), '--runs-dir', out]);
    expect(r.code).toBe(2);
    const line = text.split('\n').indexOf('  trials: 0') + 1;
    expect(r.stderr).toContain(`--profile: profile ${file}:${line}: episode.trials:`);
    expect(readdirSync(out)).toEqual([]);
  });
});

describe('matching a window to a profile', () => {
  it('picks the shipped profile whose match fits and says which', async () => {
    resetServer([answer('look', [{ action_type: 'WAIT', parameters: { duration: 0.1 } }])]);
    reading = '{"value": 0, "level": null}';
    const r = await runCli([
      'run',
      '--window',
      '^Mines$',
      ...model(),
      '--max-steps',
      '1',
      '--runs-dir',
      tmp('gp-prof-run-'),
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /profile: sgt-mines — Mines \(sgt-puzzles\) \(shipped: .*games\/sgt-mines\/profile\.yaml\)/,
    );
    const { meta } = readRun(json(r).run_dir);
    expect(meta.profile).toMatchObject({ id: 'sgt-mines', source: 'shipped' });
    expect(server.requests.find((q) => q.body.stream)!.body.messages[0].content).toContain(
      'A grid of covered squares hides',
    );
    // --no-profile: the generic prompt.
    resetServer([answer('look', [{ action_type: 'WAIT', parameters: { duration: 0.1 } }])]);
    const bare = await runCli([
      'run',
      '--window',
      '^Mines$',
      '--no-profile',
      ...model(),
      '--max-steps',
      '1',
      '--runs-dir',
      tmp('gp-prof-run-'),
      '--json',
    ]);
    expect(bare.code, bare.stderr).toBe(0);
    expect(bare.stderr).toMatch(/profile: none \(--no-profile\)/);
    expect(server.requests[0]!.body.messages[0].content).toContain('You are playing a game');
    expect(readRun(json(bare).run_dir).meta.profile).toBeUndefined();
  });

  it("plays the random baseline in the title's own action space: 100 steps, nothing refused", async () => {
    reading = '{"value": 0, "level": null}';
    // The shipped profile ends an episode on DEAD! (episode-end.test.ts); here the game plays on
    // for all 100 steps, so its end detector and reset are left out.
    const file = path.join(tmp('gp-prof-noend-'), 'mines-no-end.yaml');
    const shipped = readFileSync(path.join(ROOT, 'games', 'sgt-mines', 'profile.yaml'), 'utf8');
    const noEnd = shipped.replace('id: sgt-mines', 'id: mines-no-end').replace(/ {2}end:\n[\s\S]*?timeout: 10\n/, '');
    expect(noEnd).not.toMatch(/end:|reset:/);
    writeFileSync(file, noEnd);
    const r = await runCli([
      'run',
      '--window',
      '^Mines$',
      '--profile',
      file,
      '--agent',
      'random',
      '--seed',
      '3',
      '--model',
      'test-vlm', // reads the score off the screen
      '--base-url',
      server.baseURL,
      '--max-steps',
      '100',
      '--settle-ms',
      '20',
      '--runs-dir',
      tmp('gp-prof-random-'),
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const { steps } = readRun(json(r).run_dir);
    const outcomes = steps.flatMap((s) => (s.outcomes ?? []) as { action: string; ok: boolean; error?: string }[]);
    expect(steps).toHaveLength(100);
    expect(outcomes.filter((o) => !o.ok)).toEqual([]);
    const kinds = new Set(outcomes.map((o) => o.action));
    expect([...kinds].sort()).toEqual(['CLICK', 'PRESS']); // both: the profile allows keys and the pointer
  });

  it('refuses two profiles that fit one window, listing both and suggesting --profile', async () => {
    const config = tmp('gp-prof-config-');
    mkdirSync(path.join(config, 'profiles'));
    const shipped = readFileSync(path.join(ROOT, 'games', 'sgt-mines', 'profile.yaml'), 'utf8');
    writeFileSync(path.join(config, 'profiles', 'my-mines.yaml'), shipped.replace('id: sgt-mines', 'id: my-mines'));
    const out = tmp('gp-prof-run-');
    const r = await runCli(['run', '--window', '^Mines$', ...model(), '--max-steps', '1', '--runs-dir', out], {
      env: { GAMEPILOT_CONFIG_DIR: config },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/2 profiles match the window "Mines":/);
    expect(r.stderr).toMatch(/my-mines .*my-mines\.yaml/);
    expect(r.stderr).toMatch(/sgt-mines .*games\/sgt-mines\/profile\.yaml/);
    expect(r.stderr).toMatch(/choose one with --profile ID/);
    expect(readdirSync(out)).toEqual([]);
    // Choosing one runs.
    resetServer([answer('look', [{ action_type: 'WAIT', parameters: { duration: 0.1 } }])]);
    const chosen = await runCli(
      [
        'run',
        '--window',
        '^Mines$',
        '--profile',
        'my-mines',
        ...model(),
        '--max-steps',
        '1',
        '--runs-dir',
        out,
        '--json',
      ],
      {
        env: { GAMEPILOT_CONFIG_DIR: config },
      },
    );
    expect(chosen.code, chosen.stderr).toBe(0);
    expect(readRun(json(chosen).run_dir).meta.profile).toMatchObject({ id: 'my-mines', source: 'user' });
  });
});

describe('gamepilot profiles and profile new', () => {
  it('lists at least sixteen profiles with category and scoring', async () => {
    const r = await runCli(['profiles', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const { profiles, errors } = json(r);
    expect(errors).toEqual([]);
    expect(profiles.length).toBeGreaterThanOrEqual(16);
    const row = profiles.find((p: { id: string }) => p.id === 'angry-birds');
    expect(row).toMatchObject({ category: 'nonrealtime-linear', tier: 'medium', scoring: 'screen', source: 'shipped' });
    expect(profiles.find((p: { id: string }) => p.id === 'plants-vs-zombies')).toMatchObject({
      scoring: 'milestones',
      milestones: 19,
    });
    for (const p of profiles) expect(p.category).toMatch(/^(markov-grid|(non)?realtime-(non)?linear)$/);
  });

  it('writes a starter profile from a live window, with its executable and a first screenshot', async () => {
    const folder = tmp('gp-starter-');
    const file = path.join(folder, 'mines-starter.yaml');
    const r = await runCli(['profile', 'new', '--window', '^Mines$', '--out', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(file);
    const { profile } = loadProfileFile(file);
    expect(profile).toMatchObject({
      id: 'mines',
      title: 'Mines',
      match: { title: '^Mines$', executable: 'sgt-mines' },
    });
    expect(profile.setup?.resolution).toBe(
      `${mines.window.bounds.width}x${mines.window.bounds.height} (the window as it was seen)`,
    );
    const png = readFileSync(path.join(folder, 'mines-starter.png'));
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(png.readUInt32BE(16)).toBe(mines.window.bounds.width);
    // It says what to fill in, and a run refuses it until then: exit 2 naming the file and its
    // lines, before a run folder is made or a key is sent.
    expect(r.stderr).toMatch(/a run refuses it until you fill in setup\.start \(line \d+\), prompt\.task \(line \d+\)/);
    const runs = tmp('gp-starter-runs-');
    const refused = await runCli([
      'run',
      '--window',
      '^Mines$',
      '--profile',
      file,
      '--agent',
      'random',
      '--runs-dir',
      runs,
    ]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(
      `the profile "mines" (${file}) still has placeholders to fill in: setup.start (line`,
    );
    expect(refused.stderr).toMatch(/prompt\.controls \(line \d+\); replace each TODO .*\(--no-profile\)/);
    expect(readdirSync(runs)).toEqual([]);
    // Never overwrites.
    const again = await runCli(['profile', 'new', '--window', '^Mines$', '--out', file]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/exists/);
    expect(existsSync(file)).toBe(true);
  });
});
