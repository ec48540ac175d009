/**
 * Every role that calls a model, through its real entry point and the real `openai` client,
 * against a server that stalls after its headers: the call ends within the role's time limit,
 * a stop ends it at once, and every attempt is recorded with its role. The same factory
 * (agents/model-endpoint.ts) serves them all, so a guard added there holds for each.
 */
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostileOpenAI } from '../helpers/hostile-openai.ts';
import { FAILED_RUN, frameObservation } from '../helpers/agent-fixtures.ts';
import { VlmAgent } from '../../electron/agents/vlm.ts';
import { MemoryAgent } from '../../electron/agents/memory-agent.ts';
import { ModelClient } from '../../electron/agents/model-client.ts';
import {
  callerFor,
  MODEL_ROLES,
  ModelCaller,
  parseLimitOverrides,
  ROLE_LIMITS,
  resolveEndpoint,
  worstCaseMs,
  type ModelRole,
  type RoleCallRecord,
} from '../../electron/agents/model-endpoint.ts';
import { RUN_SPEC_FIELDS } from '../../electron/run-spec.ts';
import { Reflector } from '../../electron/reflection/reflector.ts';
import { explore } from '../../electron/reflection/explorer.ts';
import { JsonAsker } from '../../electron/scoring/json-ask.ts';
import { ScreenScoreReader } from '../../electron/scoring/screen-reader.ts';
import { loadCatalog } from '../../electron/profiles/registry.ts';
import { ROOT, json, runCli } from '../helpers/cli.ts';
import type { ScreenScoring } from '../../electron/profiles/profile-schema.ts';
import { g2048 } from '../../games/g2048/index.ts';

let server: HostileOpenAI;
beforeAll(async () => {
  server = await new HostileOpenAI(() => ({ kind: 'stall-after-headers', firstChunk: true })).start();
});
afterAll(() => server.close());

/** The time limit each role gets here; the stall must end near it, never at the role's default. */
const LIMIT_MS = 700;
const frame = { data: Buffer.from([9, 9, 9]), mime: 'image/png' as const, width: 10, height: 10, scale: 1 };

/** Starts one role's real call; resolves (never rejects) with what the role reported. */
type RoleRun = (signal: AbortSignal, calls: RoleCallRecord[]) => Promise<string | undefined>;

function endpoint(calls: RoleCallRecord[]) {
  return {
    model: 'test-vlm',
    baseUrl: server.baseURL,
    apiKey: 'k',
    timeoutMs: LIMIT_MS,
    onCall: (r: RoleCallRecord) => calls.push(r),
  };
}
const settle = async (p: Promise<unknown>) => {
  try {
    await p;
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
};

/** The milestone extractor and judge: one JSON object asked through json-ask.ts. */
async function askJson(
  role: 'milestone-extract' | 'milestone-judge' | 'error-judge',
  signal: AbortSignal,
  calls: RoleCallRecord[],
) {
  const r = await new JsonAsker(endpoint(calls), role).ask(
    [{ type: 'text', text: role }],
    z.object({}),
    () => true,
    signal,
  );
  return r.ok ? undefined : r.error;
}

const ROLES: Record<ModelRole, RoleRun> = {
  player: async (signal, calls) => {
    const agent = new VlmAgent({
      model: 'test-vlm',
      baseUrl: server.baseURL,
      apiKey: 'k',
      timeoutMs: LIMIT_MS,
      maxRetries: 0,
      repairs: 0,
    });
    const d = await agent.decide(frameObservation(0), { actionSpace: 'gui', game: g2048, signal });
    calls.push(...(d.calls ?? []));
    return d.error;
  },
  'memory-review': async (signal, calls) => {
    const agent = new MemoryAgent(
      { model: 'test-vlm', baseUrl: server.baseURL, apiKey: 'k', timeoutMs: LIMIT_MS, maxRetries: 0, repairs: 0 },
      { scope: 'roles', configDir: mkdtempSync(path.join(tmpdir(), 'gp-roles-')), embeddingModel: null },
    );
    const d = await agent.decide(frameObservation(0), { actionSpace: 'gui', game: g2048, signal });
    calls.push(...(d.calls ?? []));
    return d.error;
  },
  embeddings: (signal, calls) =>
    settle(
      new ModelClient({
        model: 'test-vlm',
        baseUrl: server.baseURL,
        apiKey: 'k',
        timeoutMs: LIMIT_MS,
        idleTimeoutMs: 30_000,
        maxAnswerBytes: 1 << 20,
        maxRetries: 0,
        retryAfterCapMs: 0,
      }).embed('test-embed', ['a memory'], signal, calls),
    ),
  reflector: (signal, calls) =>
    settle(
      new Reflector({ ...endpoint(calls), maxWords: 50, maxRetries: 0 }).reflect(
        'self-f',
        g2048,
        { failure: FAILED_RUN },
        signal,
      ),
    ),
  'idc-explorer': (signal, calls) => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-roles-'));
    writeFileSync(path.join(root, 'run.json'), '{}');
    return settle(
      explore(
        callerFor(endpoint(calls), 'idc-explorer', { limits: { maxRetries: 0 } }),
        root,
        'explore',
        '',
        16,
        signal,
      ),
    );
  },
  'idc-judge': (signal, calls) =>
    settle(
      callerFor(endpoint(calls), 'idc-judge', { limits: { maxRetries: 0 } }).chat(
        { messages: [{ role: 'user', content: 'judge' }], stream: false },
        { signal },
      ),
    ),
  'screen-reader': async (signal, calls) => {
    const p = loadCatalog({ shippedDir: path.join(ROOT, 'games') }).entries.find(
      (e) => e.profile.id === 'angry-birds',
    )!.profile;
    const reader = new ScreenScoreReader(p, p.scoring as ScreenScoring, endpoint(calls));
    await reader.read(frame, 0, signal);
    return reader.log.at(-1)?.error;
  },
  'milestone-extract': (signal, calls) => askJson('milestone-extract', signal, calls),
  'milestone-judge': (signal, calls) => askJson('milestone-judge', signal, calls),
  'error-judge': (signal, calls) => askJson('error-judge', signal, calls),
  'test-connection': (signal, calls) =>
    settle(
      new ModelCaller({ model: 'test-vlm', baseUrl: server.baseURL, apiKey: 'k' }, 'test-connection', {
        limits: { timeoutMs: LIMIT_MS },
        onCall: (r) => calls.push(r),
      }).listModels({ signal }),
    ),
};

describe('every role against a server that stalls after its headers', () => {
  it('has an entry here for each role the factory declares', () => {
    expect(Object.keys(ROLES).sort()).toEqual([...MODEL_ROLES].sort());
  });

  for (const role of MODEL_ROLES) {
    it(`${role}: the stalled call ends in its time limit, recorded under its role`, async () => {
      const calls: RoleCallRecord[] = [];
      const t0 = performance.now();
      const error = await ROLES[role](new AbortController().signal, calls);
      const ms = performance.now() - t0;
      expect(error).toMatch(/timed out/);
      expect(ms).toBeGreaterThanOrEqual(LIMIT_MS - 50);
      expect(ms).toBeLessThan(LIMIT_MS + 5000); // generous: a busy 2-core machine
      const own = calls.filter((c) => c.role === role);
      expect(own.length).toBeGreaterThan(0);
      expect(own.every((c) => !c.ok && /timed out/.test(c.error ?? ''))).toBe(true);
    });

    it(`${role}: a stop during the call ends it at once`, async () => {
      const calls: RoleCallRecord[] = [];
      const stop = new AbortController();
      const before = server.requests.length;
      const run = ROLES[role](stop.signal, calls);
      await server.untilRequests(before + 1);
      const t0 = performance.now();
      stop.abort();
      const error = await run;
      const ms = performance.now() - t0;
      expect(ms).toBeLessThan(Math.min(LIMIT_MS, 600)); // before the time limit could have ended it
      expect(error ?? 'stopped').toMatch(/stopped/);
      await expect.poll(() => server.requests[before]!.hungUp).toBe(true);
    });
  }
});

describe('the factory', () => {
  it('fills the endpoint from the environment in one order: what was given, then the environment', () => {
    const env = { GAMEPILOT_MODEL: 'env-model', OPENAI_BASE_URL: 'http://env/v1', OPENAI_API_KEY: 'env-key' };
    expect(resolveEndpoint({}, env)).toEqual({ model: 'env-model', baseUrl: 'http://env/v1', apiKey: 'env-key' });
    expect(resolveEndpoint({ model: 'm', baseUrl: 'http://given/v1', apiKey: 'g' }, env)).toEqual({
      model: 'm',
      baseUrl: 'http://given/v1',
      apiKey: 'g',
    });
    expect(resolveEndpoint({ model: '  ' }, {})).toEqual({});
  });

  it('reads a person’s overrides of roles’ limits, and refuses a bad one by name', () => {
    expect(parseLimitOverrides('reflector.timeoutMs=300000; player.maxTokens=8192,player.maxRetries=0')).toEqual({
      reflector: { timeoutMs: 300000 },
      player: { maxTokens: 8192, maxRetries: 0 },
    });
    expect(() => parseLimitOverrides('critic.timeoutMs=5')).toThrow(
      /GAMEPILOT_MODEL_LIMITS: "critic.timeoutMs=5" is not ROLE.LIMIT=NUMBER \(roles: player,/,
    );
    expect(() => parseLimitOverrides('player.speed=5')).toThrow(/limits: timeoutMs, idleTimeoutMs/);
    expect(() => parseLimitOverrides('player.timeoutMs=-1')).toThrow(/not ROLE.LIMIT=NUMBER/);
    process.env.GAMEPILOT_MODEL_LIMITS = 'screen-reader.maxTokens=77';
    try {
      const c = new ModelCaller({ model: 'm' }, 'screen-reader', { limits: { maxTokens: 9000 } });
      expect(c.limits.maxTokens).toBe(77); // the person's say wins over a command's own
    } finally {
      delete process.env.GAMEPILOT_MODEL_LIMITS;
    }
  });

  it('gives every chat role an output limit, which a person may raise', async () => {
    for (const role of MODEL_ROLES.filter((r) => r !== 'embeddings' && r !== 'test-connection'))
      expect(ROLE_LIMITS[role].maxTokens, role).toBeGreaterThan(0);
    // The run's --max-tokens help says the player's default as the factory declares it.
    expect(RUN_SPEC_FIELDS.maxTokens.description).toContain(`default: ${ROLE_LIMITS.player.maxTokens}`);
    server.setBehaviour(() => ({ kind: 'answer', text: 'ok' }));
    try {
      await new ModelCaller({ model: 'm', baseUrl: server.baseURL }, 'screen-reader').chat({ messages: [] });
      await new ModelCaller({ model: 'm', baseUrl: server.baseURL }, 'screen-reader', {
        limits: { maxTokens: 9000 },
      }).chat({
        messages: [],
      });
      expect(server.requests.map((r) => r.body.max_tokens)).toEqual([ROLE_LIMITS['screen-reader'].maxTokens, 9000]);
    } finally {
      server.setBehaviour(() => ({ kind: 'stall-after-headers', firstChunk: true }));
    }
  });
});

describe('idle limits and the longest wait', () => {
  it('a whole (non-streamed) reflector call that stalls after its headers ends in its idle limit, not its time limit', async () => {
    server.setBehaviour(() => ({ kind: 'stall-after-headers' })); // headers flushed, then not a byte
    try {
      const calls: RoleCallRecord[] = [];
      const caller = new ModelCaller({ model: 'test-vlm', baseUrl: server.baseURL, apiKey: 'k' }, 'reflector', {
        limits: { idleTimeoutMs: 600, timeoutMs: 60_000, maxRetries: 0 },
        onCall: (r) => calls.push(r),
      });
      const t0 = performance.now();
      await expect(caller.chat({ messages: [{ role: 'user', content: 'x' }], stream: false })).rejects.toThrow(
        /timed out: no data for 0\.6 s/,
      );
      const ms = performance.now() - t0;
      expect(ms).toBeGreaterThanOrEqual(550);
      expect(ms).toBeLessThan(10_000); // far below the 60 s time limit, on a busy machine too
      expect(calls).toMatchObject([{ role: 'reflector', ok: false }]);
    } finally {
      server.setBehaviour(() => ({ kind: 'stall-after-headers', firstChunk: true }));
    }
  });

  it('worst case of one call: every attempt to its time limit, every wait to its longest', () => {
    const l = { ...ROLE_LIMITS.player, timeoutMs: 60_000, maxRetries: 2, retryAfterCapMs: 20_000 };
    expect(worstCaseMs(l)).toBe(3 * 60_000 + 2 * 20_000);
    expect(worstCaseMs({ ...l, retryAfterCapMs: 0 })).toBe(3 * 60_000 + 500 + 1000); // the backoff alone
    expect(worstCaseMs({ ...l, maxRetries: 0 })).toBe(60_000);
  });

  it('`run --dry-run` prints each role the run may call, the flags governing only the client roles; nothing opens', async () => {
    const out = mkdtempSync(path.join(tmpdir(), 'gp-dry-run-'));
    const r = await runCli(
      [
        'run',
        '--game',
        '2048',
        '--agent',
        'vlm',
        '--model',
        'm',
        '--timeout-ms',
        '60000',
        '--max-retries',
        '1',
        '--dry-run',
        '--json',
        '--runs-dir',
        out,
      ],
      { env: { GAMEPILOT_MODEL_LIMITS: 'reflector.timeoutMs=300000' } },
    );
    expect(r.code, r.stderr).toBe(0);
    const rows = json(r).model_calls as {
      role: string;
      timeout_ms: number;
      max_retries: number;
      worst_case_ms: number;
      from: string;
    }[];
    expect(rows.map((x) => x.role)).toEqual([
      'player',
      'memory-review',
      'embeddings',
      'reflector',
      'screen-reader',
      'milestone-judge',
    ]);
    expect(rows[0]).toMatchObject({
      timeout_ms: 60_000,
      max_retries: 1,
      worst_case_ms: 2 * 60_000 + 20_000,
      from: 'run flags',
    });
    // The reflector keeps its own limits, under the person's override.
    expect(rows[3]).toMatchObject({
      timeout_ms: 300_000,
      max_retries: ROLE_LIMITS.reflector.maxRetries,
      from: 'role defaults',
    });
    expect(readdirSync(out)).toEqual([]);
  });
});
