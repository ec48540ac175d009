/**
 * Secrets stay out of run files: a base URL with a user name or password is refused wherever a
 * person or a file can give one (flag/spec, Settings, sweep file, OPENAI_BASE_URL), naming the
 * field, and what run.json records of an endpoint has no query string (`?key=…`).
 */
import { describe, expect, it } from 'vitest';
import { parseRunSpec, RunSpecError } from '../../electron/run-spec.ts';
import { SettingsPatchSchema } from '../../electron/api/contract.ts';
import { parseSweep } from '../../electron/sweep/spec.ts';
import { resolveEndpoint } from '../../electron/agents/model-endpoint.ts';
import { recordedEndpoint } from '../../electron/util/endpoint.ts';
import { endpointUrlProblem } from '../../electron/domain.ts';
import { runConfig } from '../../electron/session/run-config.ts';
import { DEFAULT_LATENCY } from '../../electron/latency/clock-policy.ts';

const WITH_PASSWORD = 'http://alice:s3cret@llm.example:8080/v1';

describe('credentials in a base URL', () => {
  it('are refused in a run spec (flags, the contract, a sweep job), naming the setting', () => {
    let err: unknown;
    try {
      parseRunSpec({ game: '2048', agent: 'vlm', model: 'm', baseUrl: WITH_PASSWORD });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RunSpecError);
    expect((err as RunSpecError).field).toBe('baseUrl');
    expect((err as Error).message).toMatch(/^the base URL has a user name or password in it/);
    expect((err as Error).message).not.toContain('s3cret');
    expect(() =>
      parseRunSpec({ game: '2048', agent: 'vlm', model: 'm', baseUrl: 'http://llm.example/v1?key=k' }),
    ).not.toThrow();
  });

  it('are refused in Settings', () => {
    const r = SettingsPatchSchema.safeParse({ baseUrl: WITH_PASSWORD });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.path).toEqual(['baseUrl']);
    expect(r.error!.issues[0]!.message).toMatch(/has a user name or password/);
    expect(SettingsPatchSchema.safeParse({ baseUrl: 'http://llm.example/v1' }).success).toBe(true);
  });

  it('are refused in a sweep file, naming the file and the line', () => {
    const yaml = ['games: [2048]', 'agents: [vlm]', 'models: [m]', `base_url: ${WITH_PASSWORD}`, ''].join('\n');
    expect(() => parseSweep(yaml, 'sweep.yaml')).toThrow(
      /^sweep sweep\.yaml:4: base_url: the base URL has a user name or password/,
    );
  });

  it('are refused from the environment (OPENAI_BASE_URL) before anything is sent', () => {
    expect(() => resolveEndpoint({ model: 'm' }, { OPENAI_BASE_URL: WITH_PASSWORD })).toThrow(
      /^OPENAI_BASE_URL has a user name or password in it.*nothing was sent$/,
    );
    expect(() => resolveEndpoint({ model: 'm', baseUrl: 'https://bob@h/v1' }, {})).toThrow(
      /^the base URL has a user name/,
    );
    expect(resolveEndpoint({ model: 'm', baseUrl: 'https://h/v1' }, {})).toEqual({
      model: 'm',
      baseUrl: 'https://h/v1',
    });
  });

  it('endpointUrlProblem leaves what is not a URL to the caller', () => {
    expect(endpointUrlProblem('not a url')).toBeUndefined();
    expect(endpointUrlProblem('https://api.openai.com/v1')).toBeUndefined();
  });
});

describe('the endpoint run files record', () => {
  it('has no query string and no credentials', () => {
    expect(recordedEndpoint('https://llm.example/v1?key=abc&api-version=2')).toBe('https://llm.example/v1');
    expect(recordedEndpoint('https://u:p@llm.example/v1#x')).toBe('https://llm.example/v1');
    expect(recordedEndpoint('llm.example/v1?key=abc')).toBe('llm.example/v1');
  });

  it("run.json's config.base_url is the recorded form", () => {
    const spec = parseRunSpec({ game: '2048', agent: 'vlm', model: 'm', baseUrl: 'https://llm.example/v1?key=abc' });
    const config = runConfig(
      spec,
      { episodes: 1, maxSteps: 3, latency: 'normal', latencySettings: DEFAULT_LATENCY },
      { modelSettings: true },
    );
    expect(config.base_url).toBe('https://llm.example/v1');
    expect(JSON.stringify(config)).not.toContain('abc');
  });
});
