/**
 * `gamepilot idc` against the local test server: four rounds (round 0 without a skill), a
 * tool-using reflector that explores each round's files, a judge that rejects a first skill, a
 * regression that rolls back to the best skill, held-out variants — a staged fallback for
 * a model without tool calling, and the rounds played in the game's semantic space.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer, type ScriptedReply } from '../helpers/fake-openai.ts';
import { json, runCli } from '../helpers/cli.ts';
import { readIdc } from '../../electron/reflection/idc-files.ts';

const SEQ: Record<string, string[]> = { none: ['left', 'down', 'right', 'down'], good: ['down', 'left'], bad: ['up'] };
const servers: FakeOpenAI[] = [];
afterAll(async () => Promise.all(servers.map((s) => s.close())));

function scripted(opts: { tools: boolean; semantic?: boolean }) {
  let proposals = 0;
  let judged = 0;
  const plays = new Map<string, number>();
  return (body: any): ScriptedReply => {
    const system = String(body.messages[0].content);
    const user = JSON.stringify(body.messages.findLast((m: any) => m.role === 'user').content);
    // The proposer with validate_skill: it checks a draft that presses a system key first, then answers.
    if (body.tools?.some((t: any) => t.function.name === 'validate_skill')) {
      if (!opts.tools) return { status: 400 };
      if (!body.messages.some((m: any) => m.role === 'tool'))
        return { toolCalls: [{ name: 'validate_skill', arguments: { skill: 'Press alt+f4 to restart.' } }] };
    } else if (body.tools) {
      if (!opts.tools) return { status: 400 };
      const turn = body.messages.filter((m: any) => m.role === 'tool').length;
      const script = [
        { name: 'list_files', arguments: { path: '.' } },
        { name: 'read_text', arguments: { path: 'steps.jsonl', limit: 2000 } },
        { name: 'read_image', arguments: { path: 'frames/e000-s00000.jpg' } },
        { name: 'grep', arguments: { pattern: 'PRESS' } },
        { name: 'write_notebook', arguments: { text: 'Hypothesis: moves that change nothing waste the step budget.' } },
        {
          name: 'commit_diagnosis',
          arguments: { diagnosis: 'DIAG: too many moves that change nothing; tiles scatter.' },
        },
      ];
      return { toolCalls: [script[Math.min(turn, script.length - 1)]!] };
    }
    if (system.includes('strict, independent judge')) {
      judged++;
      return {
        text:
          judged === 1
            ? '{"accept": false, "reason": "it memorises the tile positions of this seed"}'
            : '{"accept": true, "reason": "general and consistent"}',
      };
    }
    if (user.includes('was rejected'))
      return { text: `### Skill\nSKILL-${proposals}b: alternate down and left; keep the big tile in a corner.` };
    if (user.includes('Write an improved skill')) {
      proposals++;
      return {
        text: `### Skill\nSKILL-${proposals}: ${proposals === 2 ? 'press up every time.' : 'alternate down and left; keep the big tile in a corner.'}`,
      };
    }
    if (system.includes('You review gameplay'))
      return { text: '### Diagnosis\nSTAGED-DIAG: the board filled.\n### Lessons\nkeep a corner' };
    // The player: its moves follow the skill in its system prompt.
    const kind = /SKILL-2:/.test(system) ? 'bad' : /SKILL-\d/.test(system) ? 'good' : 'none';
    const n = plays.get(kind) ?? 0;
    plays.set(kind, n + 1);
    const seq = SEQ[kind]!;
    const move = seq[n % seq.length]!;
    if (opts.semantic) return { text: answer(`playing ${kind}`, [{ action: move }]) };
    return { text: answer(`playing ${kind}`, [{ action_type: 'PRESS', parameters: { key: move } }]) };
  };
}

/** `gamepilot idc` with these flags against the test server, into `out` (a fresh folder by default). */
function runIdc(server: FakeOpenAI, flags: string[], out?: string, timeoutMs = 120_000) {
  const dir = out ?? mkdtempSync(path.join(tmpdir(), 'gp-idc-'));
  return runCli(['idc', ...flags, '--model', 'test-vlm', '--base-url', server.baseURL, '--runs-dir', dir, '--json'], {
    timeoutMs,
  });
}

describe('gamepilot idc', () => {
  it('writes a 4-point curve, rolls back a regression, judges skills and scores held-out variants', async () => {
    const server = await new FakeOpenAI(scripted({ tools: true })).start();
    servers.push(server);
    const out = mkdtempSync(path.join(tmpdir(), 'gp-idc-'));
    const r = await runIdc(
      server,
      ['--game', '2048', '--rounds', '3', '--episodes', '1', '--max-steps', '8', '--held-out', '1'],
      out,
      200_000,
    );
    expect(r.code, r.stderr).toBe(0);
    const res = json(r);
    expect(res.curve).toHaveLength(4);
    expect(res.curve[0]).toBeCloseTo(0.08);
    expect(res.curve[1]).toBeCloseTo(0.1);
    expect(res.curve[2]).toBe(0);
    expect(res.best_round).toBe(1);
    expect(res.best_skill).toMatch(/^SKILL-1b: alternate down and left/);
    const rounds = res.rounds;
    expect(rounds[2].rollback).toBe(true);
    // After the rollback the next round plays the best skill itself; no reflection overwrote it first.
    expect(rounds[3].skill).toBe(res.best_skill);
    expect(rounds[2].note).toMatch(/round 3 plays the best skill \(round 1\) before reflection resumes/);
    expect(rounds[2].diagnosis).toBeUndefined();
    expect(
      server.requests.filter((q) => JSON.stringify(q.body.messages.at(-1).content).includes('Write an improved skill')),
    ).toHaveLength(2);
    expect(rounds[0]).toMatchObject({
      skill: '',
      reflector_mode: 'tools',
      diagnosis: expect.stringMatching(/^DIAG:/),
      judge: { tries: 2, accepted: true, reasons: [expect.stringMatching(/memorises/)] },
    });
    expect(rounds[0].tool_calls).toBeGreaterThanOrEqual(6);
    // validate_skill: the proposer's check of its draft came back with the harness's verdict, recorded.
    expect(rounds[0].validations[0]).toEqual({
      skill: 'Press alt+f4 to restart.',
      ok: false,
      problems: [expect.stringMatching(/alt\+F4 is a system combination/)],
    });
    const told = server.requests.find((q) =>
      q.body.messages.some((m: any) => m.role === 'tool' && m.content.includes('alt+F4')),
    );
    expect(told).toBeTruthy();
    // OmniGameArena's reference line and gaps.
    expect(res.r0).toBeCloseTo(0.08);
    expect(res.gain_vs_r0).toBeCloseTo(0.02);
    expect(res.best_vs_final).toBeCloseTo(0.1 - res.curve[3]);
    // Transfer: the game itself on fresh seeds (the origin row, replayed, not the best round's own
    // mean) and 2048's three designed variants, each played with no skill and with the best skill.
    expect(res.transfer.episodes).toBe(1);
    expect(res.transfer.splits.map((s: { variant: string }) => s.variant)).toEqual([
      'origin',
      'heavy-fours',
      'double-spawn',
      'crowded-start',
    ]);
    for (const s of res.transfer.splits) {
      expect(s.seed).toBe(10000);
      expect(s.baseline.scores).toHaveLength(1);
      expect(s.best.scores).toHaveLength(1);
      expect(s.gain).toBeCloseTo(s.best.mean - s.baseline.mean);
    }
    // Each held-out run names its variant, plays it (its rule is in the player's rules) with the right skill.
    const held = readdirSync(res.run_dir)
      .map((n) => path.join(res.run_dir, n, 'run.json'))
      .filter((f) => existsSync(f))
      .map((f) => JSON.parse(readFileSync(f, 'utf8')))
      .filter((m) => String(m.config.idc).startsWith('held-out'));
    expect(held.map((m) => [m.config.idc, m.config.variant, m.config.skill === res.best_skill]).sort()).toEqual(
      [
        ['held-out origin', undefined, true],
        ['held-out origin baseline', undefined, false],
        ['held-out crowded-start', 'crowded-start', true],
        ['held-out crowded-start baseline', 'crowded-start', false],
        ['held-out double-spawn', 'double-spawn', true],
        ['held-out double-spawn baseline', 'double-spawn', false],
        ['held-out heavy-fours', 'heavy-fours', true],
        ['held-out heavy-fours baseline', 'heavy-fours', false],
      ].sort(),
    );
    // The origin row is a measurement of the same shape: its own runs' scores, on the held-out seed.
    const origin = res.transfer.splits[0];
    for (const [label, side] of [
      ['held-out origin baseline', origin.baseline],
      ['held-out origin', origin.best],
    ] as const) {
      const run = held.find((m) => m.config.idc === label)!;
      expect(run.config.seed).toBe(10000);
      expect(side.scores).toEqual(run.episodes.map((e: { score: number | null }) => e.score ?? 0));
    }
    const rulesSeen = server.requests.map((q) => String(q.body.messages[0].content));
    expect(rulesSeen.some((t) => t.includes('Variant — after every move that changes the board, two new tiles'))).toBe(
      true,
    );
    expect(rulesSeen.some((t) => t.includes('Variant — the board starts with eight tiles'))).toBe(true);

    // The revise call gets the diagnosis and the rejected skill, not only the judge's reason.
    const revise = server.requests.find((q) =>
      JSON.stringify(q.body.messages.at(-1).content).includes('was rejected'),
    )!;
    const reviseText = String(revise.body.messages.at(-1).content);
    expect(reviseText).toContain('DIAG: too many moves that change nothing; tiles scatter.');
    expect(reviseText).toContain('SKILL-1: alternate down and left; keep the big tile in a corner.');
    expect(reviseText).toContain('it memorises the tile positions of this seed');

    // Rounds run under PDQ (the world frozen during each model call) with no extra interval after acting.
    for (const round of rounds) {
      const meta = JSON.parse(readFileSync(path.join(round.run_dir, 'run.json'), 'utf8'));
      expect(meta.config).toMatchObject({ latency: 'stop', stop_interval_ms: 0 });
      const steps = readFileSync(path.join(round.run_dir, 'steps.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(steps.every((st: any) => st.latency_mode === 'stop')).toBe(true);
    }

    // The reflector was given what it asked for: the frame it opened arrived as an image.
    const explore = server.requests.filter((q) => q.body.tools);
    const withImage = explore.find((q) =>
      q.body.messages.some(
        (m: any) => m.role === 'user' && Array.isArray(m.content) && m.content.some((p: any) => p.type === 'image_url'),
      ),
    );
    expect(withImage).toBeTruthy();
    // The notebook persists across rounds but never reaches the player.
    const playPrompts = server.requests
      .filter((q) => String(q.body.messages[0].content).includes('You are playing'))
      .map((q) => String(q.body.messages[0].content));
    expect(playPrompts.some((p) => p.includes('Hypothesis'))).toBe(false);
    expect(readFileSync(path.join(res.run_dir, 'notebook.md'), 'utf8')).toMatch(/Hypothesis/);
    const onDisk = readIdc(res.run_dir); // idc.json and skills.jsonl through their schemas
    expect(onDisk.result.curve).toEqual(res.curve);
    expect(onDisk.problems).toEqual([]);
    expect(onDisk.skills[0]!.validations).toEqual(rounds[0].validations);
    expect(onDisk.skills.map((k) => k.after_round)).toEqual(
      res.rounds.slice(0, -1).map((r: { round: number }) => r.round),
    );
  });

  it('keeps one cost cap over the whole IDC: rounds, reflector and judge', async () => {
    const server = await new FakeOpenAI(scripted({ tools: false })).start();
    servers.push(server);
    const out = mkdtempSync(path.join(tmpdir(), 'gp-idc-'));
    const cap = ['--price-in', '1', '--price-out', '2', '--budget-usd', '0.012'];
    const flags = ['--game', '2048', '--rounds', '3', '--episodes', '1', '--max-steps', '4', '--held-out', '1'];
    const r = await runIdc(server, [...flags, ...cap], out);
    expect(r.code, r.stderr).toBe(0);
    const res = json(r);
    expect(res.stopped).toMatch(/^budget: \$[\d.]+ of \$0\.012 spent; the next \S+ call could cost/);
    expect(res.spent_usd).toBeGreaterThan(0);
    expect(res.spent_usd).toBeLessThanOrEqual(0.012);
    // Round 0 was played whole; the cap came before the rounds and held-out splits a run of them needs.
    expect(res.curve.length).toBeGreaterThanOrEqual(1);
    expect(res.curve.length).toBeLessThan(4);
    expect(res.transfer.splits).toEqual([]);
    const runs = readdirSync(res.run_dir)
      .filter((n) => existsSync(path.join(res.run_dir, n, 'run.json')))
      .map((n) => JSON.parse(readFileSync(path.join(res.run_dir, n, 'run.json'), 'utf8')));
    expect(runs.every((m) => m.config.budget_usd === 0.012)).toBe(true);
    // The rounds' runs and the reflector's calls together are what the IDC spent.
    const reflector = readFileSync(path.join(res.run_dir, 'model-calls.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).cost_usd ?? 0)
      .reduce((a: number, b: number) => a + b, 0);
    const played = runs.reduce((n, m) => n + m.spent_usd, 0);
    expect(played + reflector).toBeCloseTo(res.spent_usd, 6);
  });

  it('falls back to a staged reflection without tools, and says so', async () => {
    const server = await new FakeOpenAI(scripted({ tools: false })).start();
    servers.push(server);
    const r = await runIdc(server, [
      '--game',
      '2048',
      '--rounds',
      '1',
      '--episodes',
      '1',
      '--max-steps',
      '4',
      '--held-out',
      '1',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const res = json(r);
    expect(res.curve).toHaveLength(2);
    expect(res.rounds[0]).toMatchObject({
      reflector_mode: 'staged (no tool calling)',
      diagnosis: expect.stringMatching(/STAGED-DIAG/),
      // The proposer, too, goes on without validate_skill, and the round says why.
      proposer_note: expect.stringMatching(/refused tool calling \(HTTP 400\)/),
      validations: [],
      judge: { accepted: true },
    });
    expect(r.stderr).toMatch(/refused tool calling.*staged reflection without tools/);
  });

  it('plays its rounds in the semantic space when asked', async () => {
    const server = await new FakeOpenAI(scripted({ tools: false, semantic: true })).start();
    servers.push(server);
    const r = await runIdc(server, [
      '--game',
      '2048',
      '--action-space',
      'semantic',
      '--rounds',
      '1',
      '--episodes',
      '1',
      '--max-steps',
      '3',
      '--held-out',
      '1',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const res = json(r);
    expect(res.action_space).toBe('semantic');
    const run = JSON.parse(readFileSync(path.join(res.rounds[0].run_dir, 'run.json'), 'utf8'));
    expect(run.action_space).toBe('semantic');
    const steps = readFileSync(path.join(res.rounds[0].run_dir, 'steps.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(steps[0].actions).toEqual([{ action: 'left' }]);
    expect(steps[0].outcomes).toEqual([{ action: 'left', ok: true }]);
    // The player was told the game's moves, not mouse and keyboard actions.
    const player = server.requests.find((q) => String(q.body.messages[0].content).startsWith('You are playing'))!;
    expect(String(player.body.messages[0].content)).toContain('act through named game moves');
  });
});
