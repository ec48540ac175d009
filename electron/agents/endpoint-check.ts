/**
 * Whether the endpoints a run will call can serve it, asked before anything opens: a key where a
 * hosted endpoint needs one (no call made), the endpoint answering (its `/models`, or a one-token
 * call where it has none) and each model among those it lists. A problem is one line saying what
 * is wrong and what to do, its settings named as `{field}` (run-spec.ts sayFields) so each way in
 * says them its own way. The calls go through a ModelCaller like every other model call.
 */
import { isIP } from 'node:net';
import OpenAI from 'openai';
import { ModelCaller, resolveEndpoint, type ModelRole } from './model-endpoint.ts';
import { ModelCallError, formatSeconds } from './model-call-error.ts';
import { OPENAI_BASE_URL, recordedEndpoint } from '../util/endpoint.ts';

/** One model a role of the run will call, and the setting that names it (`model`, `reflectorModel`…). */
export interface EndpointUse {
  role: ModelRole;
  model: string;
  field: string;
  baseUrl?: string | undefined;
  apiKey?: string | undefined;
}

/** What is wrong with an endpoint: which check failed and the line saying it. */
export interface EndpointProblem {
  check: 'key' | 'endpoint' | 'model';
  /** Fields named as `{field}`. */
  template: string;
}

/** Models named in a "not served" line, at most. */
const LISTED = 8;

/**
 * A host on this machine or a private network, where servers (Ollama, vLLM, llama.cpp) take no
 * key: loopback, RFC 1918 and link-local addresses, shared address space (VPNs such as
 * Tailscale), IPv6 unique-local, and names no public DNS serves (`localhost`, one label such as
 * a compose service, `.local`, `.lan`, `.internal`, `.home.arpa`). Anything else is hosted. A
 * local server that does want a key still answers 401, which the endpoint check reports.
 */
export function isLocalHost(hostname: string): boolean {
  const h = hostname
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
  if (isIP(h) === 4) return privateV4(h);
  if (isIP(h) === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
    if (mapped) return privateV4(mapped[1]!);
    return h === '::1' || /^f[cd][0-9a-f]{0,2}:/.test(h) || /^fe[89ab][0-9a-f]?:/.test(h);
  }
  return !h.includes('.') || /(^|\.)(localhost|local|lan|internal|home\.arpa)$/.test(h);
}

function privateV4(ip: string): boolean {
  const [a, b] = ip.split('.').map(Number) as [number, number];
  return (
    a === 127 ||
    a === 10 ||
    a === 0 ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 169 && b === 254) ||
    (a === 100 && b >= 64 && b <= 127)
  );
}

/** Whether calls to this base URL need a key (a hosted endpoint). */
export function needsKey(baseUrl: string): boolean {
  try {
    return !isLocalHost(new URL(baseUrl).hostname);
  } catch {
    return true;
  }
}

/** A use with the environment filling what it left open (resolveEndpoint), and its base URL settled. */
function settled(u: EndpointUse): EndpointUse & { baseUrl: string } {
  const e = resolveEndpoint({ model: u.model, baseUrl: u.baseUrl, apiKey: u.apiKey });
  return { ...u, baseUrl: e.baseUrl ?? OPENAI_BASE_URL, apiKey: e.apiKey };
}

/** Check 1, no call made: a hosted endpoint without a key. */
export function missingKey(uses: readonly EndpointUse[]): EndpointProblem | undefined {
  const bare = uses.map(settled).find((u) => !u.apiKey && needsKey(u.baseUrl));
  if (!bare) return undefined;
  return {
    check: 'key',
    template: `${recordedEndpoint(bare.baseUrl)} (the ${bare.role}'s endpoint) needs an API key and none was given: give {apiKey}, set OPENAI_API_KEY, or save the key in Settings`,
  };
}

/**
 * Checks 2 and 3 for every distinct endpoint the uses call, at once, each within `budgetMs`:
 * the first problem found, or undefined when all answered and serve their models.
 */
export async function unservedEndpoint(
  uses: readonly EndpointUse[],
  budgetMs: number,
): Promise<EndpointProblem | undefined> {
  const byEndpoint = new Map<string, (EndpointUse & { baseUrl: string })[]>();
  for (const u of uses.map(settled)) {
    const key = `${recordedEndpoint(u.baseUrl)}\n${u.apiKey ?? ''}`;
    byEndpoint.set(key, [...(byEndpoint.get(key) ?? []), u]);
  }
  const problems = await Promise.all([...byEndpoint.values()].map((group) => checkEndpoint(group, budgetMs)));
  return problems.find((p) => p !== undefined);
}

async function checkEndpoint(
  uses: (EndpointUse & { baseUrl: string })[],
  budgetMs: number,
): Promise<EndpointProblem | undefined> {
  const signal = AbortSignal.timeout(budgetMs);
  const where = recordedEndpoint(uses[0]!.baseUrl);
  const caller = (u: EndpointUse) =>
    new ModelCaller(
      { model: u.model, baseUrl: u.baseUrl!, ...(u.apiKey ? { apiKey: u.apiKey } : {}) },
      'test-connection',
      {
        limits: { timeoutMs: budgetMs, idleTimeoutMs: budgetMs, maxRetries: 0 },
      },
    );
  /** A one-token call: whether the endpoint serves the model by that name. */
  const probe = async (u: EndpointUse): Promise<unknown> => {
    try {
      await caller(u).chat({ messages: [{ role: 'user', content: 'ping' }], stream: false, maxTokens: 1 }, { signal });
      return undefined;
    } catch (err) {
      return err ?? new Error('failed');
    }
  };
  let served: string[];
  try {
    served = await caller(uses[0]!).listModels({ signal });
  } catch (err) {
    if (!noModelList(err)) return { check: 'endpoint', template: unreachable(where, err, signal, budgetMs) };
    // No /models here: each model gets a one-token call instead.
    for (const u of required(uses)) {
      const callErr = await probe(u);
      if (callErr)
        return {
          check: 'endpoint',
          template: `${unreachable(where, callErr, signal, budgetMs)} (model "${u.model}", {${u.field}})`,
        };
    }
    return undefined;
  }
  if (!served.length) return undefined; // lists nothing: cannot tell
  // A model not listed is asked for by name once: some servers list one model under a file name and
  // serve it under any (llama.cpp's llama-server); others refuse a name they do not serve.
  for (const missing of required(uses).filter((u) => !served.includes(u.model))) {
    if (!(await probe(missing))) continue;
    const some = served.slice(0, LISTED).join(', ') + (served.length > LISTED ? `, … (${served.length} in all)` : '');
    return {
      check: 'model',
      template: `${where} does not serve the model "${missing.model}" ({${missing.field}}, the ${missing.role}'s); it serves: ${some}`,
    };
  }
  return undefined;
}

/**
 * The models a run cannot do without, each once: not the memory agent's embeddings, whose
 * absence makes retrieval lexical (the run says so) rather than failing it.
 */
function required<T extends EndpointUse>(uses: T[]): T[] {
  const chat = uses.filter((u) => u.role !== 'embeddings');
  return chat.filter((u, i) => chat.findIndex((v) => v.model === u.model) === i);
}

/** A server without a model list answers it 404 or 405. */
function noModelList(err: unknown): boolean {
  return err instanceof OpenAI.APIError && (err.status === 404 || err.status === 405);
}

/** Why an endpoint did not answer, in one line. */
function unreachable(where: string, err: unknown, signal: AbortSignal, budgetMs: number): string {
  if (
    signal.aborted ||
    err instanceof OpenAI.APIConnectionTimeoutError ||
    (err instanceof ModelCallError && err.kind === 'total')
  )
    return `${where} did not answer within ${formatSeconds(budgetMs)}: check {baseUrl} and that the server is up`;
  if (err instanceof OpenAI.APIConnectionError) {
    const cause = (err as { cause?: { code?: string; message?: string; cause?: { code?: string } } }).cause;
    const code = cause?.cause?.code ?? cause?.code;
    if (code === 'ECONNREFUSED')
      return `${where} refused the connection: no server listens there; start it, or check {baseUrl}`;
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
      return `${where}: its host was not found (DNS): check {baseUrl} and the network`;
    // fetch's own refusals (a blocked port such as 1 or 9) say why in the message.
    return `${where} cannot be reached (${code ?? cause?.message ?? err.message}): check {baseUrl} and the network`;
  }
  if (err instanceof OpenAI.APIError && (err.status === 401 || err.status === 403))
    return `${where} refused the API key (HTTP ${err.status}): give the right key with {apiKey}, OPENAI_API_KEY or Settings`;
  if (err instanceof OpenAI.APIError && err.status)
    return `${where} answered HTTP ${err.status} (${oneLine(err.message)}): check {baseUrl}`;
  return `${where} did not answer usably (${oneLine((err as Error)?.message ?? String(err))}): check {baseUrl}`;
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim().slice(0, 200);
