/**
 * A sweep of model runs against the local OpenAI-compatible server: the sweep's per-provider
 * request limit holds across its two workers (requests beyond a minute's worth are spaced by
 * 60/rpm s), each run records the real provider behind the gate, and the cost budget stops new
 * jobs once it is spent.
 */
import { mkdtempSync, readdirSync, readFileSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { runCli } from '../helpers/cli.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'gp-sweep-limits-'));
let server: FakeOpenAI;

beforeAll(async () => {
  const keys = ['left', 'up', 'right', 'down'];
  server = await new FakeOpenAI((_body, i) => ({
    text: answer('Going round the board.', [{ action_type: 'PRESS', parameters: { key: keys[i % 4] } }]),
    usage: { prompt_tokens: 1000, completion_tokens: 20 },
  })).start();
});
afterAll(async () => {
  await server.close();
  rmSync(tmp, { recursive: true, force: true });
});

function sweepFile(name: string, body: string): string {
  const f = path.join(tmp, name);
  writeFileSync(
    f,
    `games: [2048]\nagents: [vlm]\nmodels: [test-vlm]\nbase_url: ${server.baseURL}\nprice_in: 1\nprice_out: 2\n${body}`,
  );
  return f;
}

describe('sweep limits', () => {
  it('spaces requests beyond the per-minute limit across both workers', async () => {
    const host = new URL(server.baseURL).host;
    const f = sweepFile('rpm.yaml', `trials: 2\nmax_steps: 14\nrate_limits:\n  "${host}": { rpm: 20 }\n`);
    const out = path.join(tmp, 'rpm');
    const r = await runCli(['sweep', f, '--out', out, '--workers', '2'], {
      env: { OPENAI_API_KEY: 'sk-sweep-test', OPENAI_BASE_URL: server.baseURL },
      timeoutMs: 300_000,
    });
    expect(r.code, r.stderr).toBe(0);
    const at = server.requests.map((q) => q.at).sort((a, b) => a - b);
    // (A 2048 game may end early when a move changes nothing; most of the 28 steps are played.)
    expect(at.length).toBeGreaterThanOrEqual(24);
    // 20 at once (a minute's worth), then one every 3 s.
    expect(at.at(-1)! - at[0]!).toBeGreaterThanOrEqual((at.length - 20) * 3000 * 0.9);
    expect(server.requests.every((q) => q.headers.authorization === 'Bearer sk-sweep-test')).toBe(true);
    const metas = readdirSync(out)
      .filter((n) => existsSync(path.join(out, n, 'run.json')))
      .map((n) => JSON.parse(readFileSync(path.join(out, n, 'run.json'), 'utf8')));
    expect(metas).toHaveLength(2);
    expect(metas.reduce((t, m) => t + m.totals.steps, 0)).toBe(at.length);
    for (const m of metas) {
      expect(m.job.upstream).toBe(server.baseURL);
      expect(m.status).toBe('completed');
      expect(m.totals.cost_usd).toBeGreaterThan(0);
    }
    expect(new Set(metas.map((m) => m.worker.display)).size).toBe(2);
  }, 300_000);

  it('starts no new job once the budget is spent', async () => {
    const f = sweepFile('budget.yaml', 'trials: 5\nmax_steps: 2\n');
    const r = await runCli(
      ['sweep', f, '--out', path.join(tmp, 'budget'), '--workers', '2', '--budget-usd', '0.0001', '--json'],
      {
        env: { OPENAI_API_KEY: 'sk-sweep-test', OPENAI_BASE_URL: server.baseURL },
        timeoutMs: 300_000,
      },
    );
    expect(r.code).toBe(1);
    const summary = JSON.parse(r.stdout.trim().split('\n').at(-1)!).summary;
    expect(summary.budget_reached).toBe(true);
    expect(summary.completed).toBeGreaterThanOrEqual(1);
    expect(summary.completed).toBeLessThanOrEqual(2); // the two already running when it was spent
    expect(summary.skipped).toBe(5 - summary.completed);
    expect(summary.jobs.filter((j: any) => j.status === 'skipped').every((j: any) => /budget/.test(j.error))).toBe(
      true,
    );
    expect(summary.cost_usd).toBeGreaterThan(0.0001);
  }, 300_000);
});
