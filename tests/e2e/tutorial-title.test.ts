/**
 * One tutorial per title: a rookie's session and an agent's reflection given `--tutorial title`
 * rest on the same file (the title's declared tutorial, store/tutorials.ts), each run.json
 * records its sha256, and the report warns once a title's Rookie and agent VR = Yes rows rest on
 * different files. Real CLI, real recording of built-in 2048, the test server as the model.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { json, runCli, testModelArgs } from '../helpers/cli.ts';
import { testVideo } from '../helpers/test-video.ts';
import { readRun } from '../../electron/store/run-store.ts';

const isReflection = (body: any) => String(body.messages[0].content).includes('You review gameplay');
const PLAY = answer('slide', [{ action_type: 'PRESS', parameters: { key: 'left' } }]);
let server: FakeOpenAI;
let runs = '';
const folder = () => path.join(runs, 'tutorials', '2048');
const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

function video(name: string, pattern: string, mtime: Date): string {
  const file = path.join(folder(), name);
  testVideo(file, { source: pattern, seconds: 3, fps: 10 });
  utimesSync(file, mtime, mtime); // the declared tutorial is the newest: the test sets which
  return file;
}

const agentRun = () =>
  runCli([
    'run',
    '--game',
    '2048',
    ...testModelArgs(server.baseURL),
    '--max-steps',
    '2',
    '--episodes',
    '2',
    '--reflection',
    'self-t',
    '--reflect-after',
    'every',
    '--tutorial',
    'title',
    '--runs-dir',
    runs,
    '--json',
    '--quiet',
  ]);

async function reportWarnings(): Promise<string[]> {
  const out = path.join(runs, '..', `report-${Date.now()}.json`);
  const r = await runCli(['report', '--runs', runs, '--out', path.join(runs, '..', 'r.html'), '--json', out]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(readFileSync(out, 'utf8')).warnings;
}

beforeAll(async () => {
  server = await new FakeOpenAI((body) => ({
    text: isReflection(body) ? '### Diagnosis\nToo slow.\n### Lessons\nKeep the big tile in a corner.' : PLAY,
  })).start();
  runs = path.join(mkdtempSync(path.join(tmpdir(), 'gp-tut-')), 'runs');
  mkdirSync(folder(), { recursive: true });
});
afterAll(() => server.close());

describe('--tutorial title', () => {
  it('gives the rookie and the agent one file, hashed in both run.json, and the report checks it', {
    timeout: 240_000,
  }, async () => {
    const t0 = Date.now();
    const first = video('walkthrough-a.mp4', 'testsrc', new Date(Date.now() - 60_000));

    const rec = await runCli([
      'record',
      '--game',
      '2048',
      '--role',
      'rookie',
      '--stage',
      'play-2',
      '--participant',
      'p01',
      '--consent',
      '--tutorial',
      'title',
      '--duration',
      '2',
      '--runs-dir',
      runs,
      '--json',
      '--quiet',
    ]);
    expect(rec.code, rec.stderr).toBe(0);
    const rookie = readRun(json(rec).session_dir).meta;
    expect(rookie.config.tutorial).toBe(first);
    expect(rookie.config.tutorial_sha256).toBe(sha256(first));

    const a = await agentRun();
    expect(a.code, a.stderr).toBe(0);
    const agent = readRun(json(a).run_dir).meta;
    expect(agent.reflection?.tutorial).toBe(first);
    expect(agent.reflection?.tutorial_sha256).toBe(sha256(first));
    expect(agent.reflection?.lessons.some((l) => l.source === 'self-t')).toBe(true);
    expect((await reportWarnings()).filter((w) => w.includes('tutorial'))).toEqual([]);

    // A newer walkthrough becomes the title's tutorial: the next agent run rests on it, and the
    // report says the rookie's and the agents' rows no longer rest on one file.
    const second = video('walkthrough-b.mp4', 'smptebars', new Date());
    const b = await agentRun();
    expect(b.code, b.stderr).toBe(0);
    expect(readRun(json(b).run_dir).meta.reflection?.tutorial_sha256).toBe(sha256(second));
    const warned = (await reportWarnings()).filter((w) => w.includes('different tutorials'));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain(sha256(first).slice(0, 12));
    expect(warned[0]).toContain(sha256(second).slice(0, 12));
    console.log(`tutorial-title: ${Date.now() - t0} ms`);
  });

  it('refuses a title with no tutorial, naming the folder where it goes', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'gp-tut-none-'));
    const r = await runCli([
      'record',
      '--game',
      'snake',
      '--role',
      'rookie',
      '--participant',
      'p02',
      '--consent',
      '--tutorial',
      'title',
      '--duration',
      '1',
      '--runs-dir',
      empty,
      '--quiet',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(path.join(empty, 'tutorials', 'snake'));
  });
});
