/**
 * The pre-flight's checks against a local HTTP server that plays each kind of endpoint: one that
 * lists its models, one without /models (the one-token call instead), one that never answers,
 * one that refuses the key; a closed port; a hosted endpoint with no key (refused before any
 * call); and the display and window-target checks on a stand-in window manager.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { isLocalHost, needsKey, type EndpointUse } from '../../electron/agents/endpoint-check.ts';
import {
  ENDPOINT_BUDGET_MS,
  preflight,
  PreflightError,
  runPlan,
  type PreflightPlan,
} from '../../electron/session/preflight.ts';
import { namedAsFlags, parseRunSpec } from '../../electron/run-spec.ts';
import { frontDoor } from '../../electron/session/front-door.ts';
import type { WindowInfo, WindowManager } from '../../native/types.ts';

/** What the server's paths do, by their first segment: /list/v1, /nolist/v1, /hang/v1, /denied/v1. */
const hits: { method: string; url: string; body: string }[] = [];
let server: http.Server;
let base: string;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      hits.push({ method: req.method!, url: req.url!, body });
      const kind = req.url!.split('/')[1];
      const json = (status: number, v: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(v));
      if (kind === 'hang') return; // headers never come
      if (kind === 'denied') return json(401, { error: { message: 'invalid api key' } });
      if (req.url!.endsWith('/models')) {
        if (kind === 'nolist') return json(404, { error: { message: 'not found' } });
        // llama.cpp's llama-server: one model listed under its file name, served under any name.
        if (kind === 'onefile') return json(200, { object: 'list', data: [{ id: '/models/x.gguf', object: 'model' }] });
        return json(200, { object: 'list', data: ['alpha', 'beta'].map((id) => ({ id, object: 'model' })) });
      }
      if (req.url!.endsWith('/chat/completions')) {
        const model = JSON.parse(body).model;
        if (model !== 'alpha') return json(404, { error: { message: `model ${model} not found` } });
        return json(200, {
          id: 'x',
          object: 'chat.completion',
          created: 0,
          model,
          choices: [{ index: 0, message: { role: 'assistant', content: 'p' }, finish_reason: 'length' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        });
      }
      json(404, {});
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});
afterEach(() => {
  hits.length = 0;
  vi.restoreAllMocks();
});

/** A window manager with these windows (the display opens). */
function windows(list: WindowInfo[], platform = 'linux-x11'): WindowManager {
  return {
    platform,
    list: async () => list,
    get: async (id) => list.find((w) => w.id === id),
    focus: async () => {},
    activeId: async () => undefined,
  };
}
const game: WindowInfo = {
  id: '0x1',
  title: 'Some Game',
  pid: 1,
  bounds: { x: 0, y: 0, width: 640, height: 480 },
  scaleFactor: 1,
};
const noWindows = windows([game]);

const use = (path: string, model = 'alpha', extra: Partial<EndpointUse> = {}): EndpointUse => ({
  role: 'player',
  model,
  field: 'model',
  baseUrl: `${base}/${path}/v1`,
  ...extra,
});
const plan = (...uses: EndpointUse[]): PreflightPlan => ({ uses, target: { game: '2048' } });

/** The pre-flight's failure, with how long it took. */
async function failure(p: PreflightPlan, wm = noWindows, budgetMs?: number) {
  const t0 = performance.now();
  const err = await preflight(p, wm, budgetMs ? { budgetMs } : {}).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PreflightError);
  const e = err as PreflightError;
  return { check: e.check, code: e.code, line: e.as(namedAsFlags), ms: performance.now() - t0 };
}

describe('hosted or local', () => {
  it('takes loopback, private networks and local names as local, everything else as hosted', () => {
    for (const h of [
      'localhost',
      '127.0.0.1',
      '127.8.9.1',
      '10.1.2.3',
      '172.16.0.5',
      '172.31.255.1',
      '192.168.1.20',
      '169.254.3.4',
      '100.101.102.103',
      '[::1]',
      '[fd12:3456::1]',
      '[fe80::1]',
      '[::ffff:192.168.0.2]',
      'ollama',
      'gpu-box.local',
      'vllm.internal',
      'llm.home.arpa',
    ])
      expect(isLocalHost(h), h).toBe(true);
    for (const h of ['api.openai.com', '8.8.8.8', '172.32.0.1', '192.169.0.1', '[2001:db8::1]', 'example.com'])
      expect(isLocalHost(h), h).toBe(false);
    expect(needsKey('https://api.openai.com/v1')).toBe(true);
    expect(needsKey('http://127.0.0.1:11434/v1')).toBe(false);
  });
});

describe('the endpoint checks', () => {
  it('passes an endpoint that lists the model, asking /models once for all of its roles', async () => {
    await preflight(
      plan(use('list'), use('list', 'beta', { role: 'reflector', field: 'reflectorModel' })),
      noWindows,
      {},
    );
    expect(hits.map((h) => `${h.method} ${h.url}`)).toEqual(['GET /list/v1/models']);
  });

  it('names a model the endpoint does not list, and the ones it does', async () => {
    const f = await failure(plan(use('list'), use('list', 'gamma', { role: 'milestone-judge', field: 'judgeModel' })));
    expect(f.check).toBe('model');
    expect(f.line).toBe(
      `pre-flight: ${base}/list/v1 does not serve the model "gamma" (--judge-model, the milestone-judge's); it serves: alpha, beta`,
    );
  });

  it('asks a model it does not list for by name once: a server that serves it anyway passes', async () => {
    await preflight(plan(use('onefile')), noWindows, {});
    const chat = hits.filter((h) => h.url.endsWith('/chat/completions'));
    expect(chat).toHaveLength(1);
    expect(JSON.parse(chat[0]!.body)).toMatchObject({ model: 'alpha', max_tokens: 1 });
  });

  it('makes a one-token call where /models is missing, and names a model that call refuses', async () => {
    await preflight(plan(use('nolist')), noWindows, {});
    const chat = hits.filter((h) => h.url.endsWith('/chat/completions'));
    expect(chat).toHaveLength(1);
    expect(JSON.parse(chat[0]!.body)).toMatchObject({ model: 'alpha', max_tokens: 1 });
    expect(JSON.parse(chat[0]!.body).stream).not.toBe(true);
    const f = await failure(plan(use('nolist', 'gamma')));
    expect(f.check).toBe('endpoint');
    expect(f.line).toMatch(/nolist\/v1 answered HTTP 404 .*\(model "gamma", --model\)$/);
  });

  it('gives up on an endpoint that never answers within its budget', async () => {
    const f = await failure(plan(use('hang')), noWindows, 800);
    expect(f.check).toBe('endpoint');
    expect(f.code).toBe('model-unreachable');
    expect(f.line).toBe(
      `pre-flight: ${base}/hang/v1 did not answer within 0.8 s: check --base-url and that the server is up`,
    );
    expect(f.ms).toBeGreaterThanOrEqual(750);
    expect(f.ms).toBeLessThan(ENDPOINT_BUDGET_MS);
  });

  it('says a refused key and a closed port apart', async () => {
    const denied = await failure(plan(use('denied')));
    expect(denied.line).toMatch(/denied\/v1 refused the API key \(HTTP 401\): give the right key with --api-key/);
    const closed = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const port = (s.address() as AddressInfo).port;
        s.close(() => resolve(port));
      });
    });
    const refused = await failure(
      plan({ role: 'player', model: 'm', field: 'model', baseUrl: `http://127.0.0.1:${closed}/v1` }),
    );
    expect(refused.line).toBe(
      `pre-flight: http://127.0.0.1:${closed}/v1 refused the connection: no server listens there; start it, or check --base-url`,
    );
  });

  it('says when the host is not found', async () => {
    // `.invalid` never resolves (RFC 2606); a key is given so the key check passes.
    const f = await failure(
      plan({ role: 'player', model: 'm', field: 'model', baseUrl: 'http://gamepilot-test.invalid/v1', apiKey: 'k' }),
    );
    expect(f.line).toBe(
      'pre-flight: http://gamepilot-test.invalid/v1: its host was not found (DNS): check --base-url and the network',
    );
  });

  it('refuses a hosted endpoint without a key before any call is made', async () => {
    const fetch = vi.spyOn(globalThis, 'fetch');
    vi.stubEnv('OPENAI_API_KEY', '');
    vi.stubEnv('OPENAI_BASE_URL', '');
    try {
      const f = await failure(plan({ role: 'player', model: 'gpt-4o', field: 'model' }));
      expect(f.check).toBe('key');
      expect(f.line).toBe(
        "pre-flight: https://api.openai.com/v1 (the player's endpoint) needs an API key and none was given: give --api-key, set OPENAI_API_KEY, or save the key in Settings",
      );
      expect(fetch).not.toHaveBeenCalled();
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe('the display and the target', () => {
  it('says when the display cannot be opened, on Linux only', async () => {
    const broken: WindowManager = {
      ...noWindows,
      list: async () => Promise.reject(new Error('cannot open the X display :97')),
    };
    const f = await failure({ uses: [], target: { game: '2048' } }, broken);
    expect(f.check).toBe('display');
    expect(f.line).toMatch(/cannot open the X display :97.*start an X server/);
    await preflight({ uses: [], target: { game: '2048' } }, { ...broken, platform: 'win32' });
  });

  it('finds a window target, and refuses one that is missing or ambiguous', async () => {
    await preflight({ uses: [], target: { window: 'some game' } }, noWindows, {});
    await preflight({ uses: [], target: { windowId: '0x1' } }, noWindows, {});
    const none = await failure({ uses: [], target: { windowId: '0x9' } });
    expect([none.check, none.code]).toEqual(['target', 'not-found']);
    expect(none.line).toMatch(/no window has the id 0x9.*\(--window-id\)/);
    const two = await failure({ uses: [], target: { window: 'game' } }, windows([game, { ...game, id: '0x2' }]));
    expect(two.line).toMatch(/2 windows match the title "game": pick one by id \(--window-id/);
    // A minimised one passes: the run restores it before its first step.
    await preflight({ uses: [], target: { window: 'game' } }, windows([{ ...game, minimized: true }]));
  });
});

describe('a run’s plan', () => {
  it('checks the models its roles call, each once per endpoint', () => {
    const spec = parseRunSpec({
      game: '2048',
      agent: 'memory',
      model: 'alpha',
      baseUrl: `${base}/list/v1`,
      reflection: 'other',
      reflectorModel: 'beta',
      reflectorBaseUrl: `${base}/nolist/v1`,
      judgeModel: 'gamma',
    });
    const p = runPlan({
      ...frontDoor(spec),
      reflection: { mode: 'other', reflector: { model: 'beta', baseUrl: `${base}/nolist/v1` } },
    });
    expect(p.uses.map((u) => [u.role, u.model, u.field, u.baseUrl])).toEqual([
      ['player', 'alpha', 'model', `${base}/list/v1`],
      ['embeddings', 'text-embedding-3-small', 'embeddingModel', `${base}/list/v1`],
      ['reflector', 'beta', 'reflectorModel', `${base}/nolist/v1`],
      ['milestone-judge', 'gamma', 'judgeModel', `${base}/list/v1`],
    ]);
    expect(p.target).toEqual({ game: '2048', window: undefined, windowId: undefined });
    const baseline = runPlan(frontDoor(parseRunSpec({ window: 'x', agent: 'random' })));
    expect(baseline.uses).toEqual([]);
  });
});
