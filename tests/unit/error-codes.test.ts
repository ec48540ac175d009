/**
 * Which code a failure gets on the wire, for errors the core's rooms really throw: a model
 * endpoint that does not answer, a file a run names that is not there, a missing file, a fault.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { errorCode, wireError } from '../../electron/api/errors.ts';
import { resolveRunFile } from '../../electron/store/run-files.ts';
import { ModelCallError } from '../../electron/agents/model-call-error.ts';
import { CodedError } from '../../electron/domain.ts';
import { getGame } from '../../games/index.ts';

const thrown = async (f: () => unknown) => {
  try {
    await f();
  } catch (err) {
    return err;
  }
  throw new Error('it did not throw');
};

describe('error codes', () => {
  it('a model endpoint nobody listens on is model-unreachable', async () => {
    const client = new OpenAI({ baseURL: 'http://127.0.0.1:9/v1', apiKey: 'none', maxRetries: 0, timeout: 5000 });
    const err = await thrown(() => client.models.list());
    expect(err).toBeInstanceOf(OpenAI.APIConnectionError);
    expect(errorCode(err)).toBe('model-unreachable');
    expect(errorCode(new ModelCallError('no answer for 30 s', 'idle'))).toBe('model-unreachable');
  });

  it('a file a run names that is not there, or any missing file, is not-found', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gp-codes-'));
    expect(errorCode(await thrown(() => resolveRunFile(dir, 'frames/e000-s00000.jpg')))).toBe('not-found');
    expect(errorCode(await thrown(() => readFileSync(path.join(dir, 'run.json'))))).toBe('not-found');
    expect(errorCode(await thrown(() => getGame('chess')))).toBe('not-found');
  });

  it('a coded error keeps its code; anything else is internal, with its message', async () => {
    expect(wireError(new CodedError('busy', 'a run is already going; stop it first'))).toEqual({
      error: 'a run is already going; stop it first',
      code: 'busy',
    });
    expect(wireError(await thrown(() => JSON.parse('{')))).toMatchObject({
      code: 'internal',
      error: expect.stringMatching(/JSON/),
    });
  });
});
