/**
 * Cost caps and a sweep's limits against the local OpenAI-compatible server (priced by
 * --price-in/--price-out): a run stops before a call that could pass its --budget-usd, and a cap
 * on an unpriced model is refused; the sweep's per-provider
 * request limit holds across its two workers (requests beyond a minute's worth are spaced by
 * 60/rpm s), each run records the real provider behind the gate, and the cost budget is shared
 * out among the jobs as their runs' own caps.
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
    const r = await runCli(['sweep', f, '--runs-dir', out, '--workers', '2'], {
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

  it('hands each job a share of what is left: the sweep stays within its budget, within one call a running job', async () => {
    // Each call costs 1000 × $1/M + 20 × $2/M = $0.00104; at worst (1000 in, 2048 out) $0.005096.
    const worstCall = (1000 * 1 + 2048 * 2) / 1e6;
    const f = sweepFile('budget.yaml', 'trials: 3\nmax_steps: 20\n');
    const out = path.join(tmp, 'budget');
    const before = server.requests.length;
    const r = await runCli(['sweep', f, '--runs-dir', out, '--workers', '2', '--budget-usd', '0.02', '--json'], {
      env: { OPENAI_API_KEY: 'sk-sweep-test', OPENAI_BASE_URL: server.baseURL },
      timeoutMs: 300_000,
    });
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const summary = lines.at(-1).summary;
    expect(summary.budget_reached, r.stderr).toBe(true);
    expect(summary.budget_usd).toBe(0.02);
    // Two jobs ran with $0.01 each and stopped within one call of it; the third never started.
    expect(summary.cost_usd).toBeLessThanOrEqual(0.02);
    expect(summary.cost_usd).toBeGreaterThan(0.02 - 2 * worstCall);
    const stopped = summary.jobs.filter((j: any) => /^budget: /.test(j.error ?? ''));
    expect(stopped).toHaveLength(2);
    expect(summary.jobs.filter((j: any) => j.error === 'the cost budget was spent before it started')).toHaveLength(1);
    expect(lines.filter((e) => e.type === 'progress').every((e) => e.budget_usd === 0.02)).toBe(true);
    const runs = readdirSync(path.join(out, '.sweep', 'work')).flatMap((job) =>
      readdirSync(path.join(out, '.sweep', 'work', job, 'a1'))
        .filter((n) => existsSync(path.join(out, '.sweep', 'work', job, 'a1', n, 'run.json')))
        .map((n) => JSON.parse(readFileSync(path.join(out, '.sweep', 'work', job, 'a1', n, 'run.json'), 'utf8'))),
    );
    expect(runs).toHaveLength(2);
    for (const m of runs) {
      expect(m.status).toBe('stopped');
      expect(m.config.budget_usd).toBe(0.01);
      expect(m.spent_usd).toBeLessThanOrEqual(0.01);
      expect(m.spent_usd).toBeGreaterThan(0.01 - worstCall);
      expect(m.model_usage.player.calls).toBeGreaterThanOrEqual(4);
    }
    expect(server.requests.length - before).toBe(runs.reduce((n, m) => n + m.model_usage.player.calls, 0));
  }, 300_000);
});

// After the sweeps: the rate-limit test counts every request the shared server had.
describe('a run under a cost cap', () => {
  // Each call costs 1000 × $1/M + 20 × $2/M = $0.00104; at worst (1000 in, 2048 out) $0.005096.
  const worstCall = (1000 * 1 + 2048 * 2) / 1e6;
  const priced = ['--agent', 'vlm', '--model', 'test-vlm', '--price-in', '1', '--price-out', '2'];

  it('stops before the call that could pass it: stopped, budget, its spend within the cap', async () => {
    const out = path.join(tmp, 'capped-run');
    const before = server.requests.length;
    const cap = ['--budget-usd', '0.012', '--max-steps', '40', '--runs-dir', out];
    const r = await runCli(['run', '--game', '2048', ...priced, '--base-url', server.baseURL, ...cap], {
      env: { OPENAI_API_KEY: 'sk-cap-test' },
      timeoutMs: 120_000,
    });
    expect(r.code, r.stderr).toBe(0); // a stopped run is not a failed one (docs/cli.md)
    expect(r.stderr).toMatch(
      /done \(stopped: budget\).* — budget: \$[\d.]+ of \$0\.012 spent; the next player call could cost/,
    );
    const [dir] = readdirSync(out);
    const meta = JSON.parse(readFileSync(path.join(out, dir!, 'run.json'), 'utf8'));
    expect(meta.status).toBe('stopped');
    expect(meta.error).toMatch(/^budget: /);
    expect(meta.episodes.at(-1).end).toBe('budget');
    expect(meta.config.budget_usd).toBe(0.012);
    expect(meta.spent_usd).toBeLessThanOrEqual(0.012);
    expect(meta.spent_usd).toBeGreaterThan(0.012 - worstCall);
    const calls = meta.model_usage.player.calls;
    expect(calls).toBeGreaterThanOrEqual(6);
    expect(server.requests.length - before).toBe(calls);
  }, 120_000);

  it('refuses a cap on a model with no known price, before any window opens', async () => {
    const r = await runCli(['run', '--game', '2048', '--agent', 'vlm', '--model', 'test-vlm', '--budget-usd', '1'], {
      env: { OPENAI_BASE_URL: server.baseURL },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--budget-usd needs the price of test-vlm.*give --price-in and --price-out/);
  });
});
