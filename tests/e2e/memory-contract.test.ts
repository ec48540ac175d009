/**
 * The memory calls of the contract against a real core: a memory run started over the contract
 * reports its store and retrieval in the live state and streams `memory` events; `listMemory`
 * lists the store; `clearMemory` refuses a bad scope and the scope of the running run, and
 * clears it once the run is over.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GamepilotCore } from '../../electron/api/core.ts';
import type { CoreEvent } from '../../electron/api/contract.ts';
import { coreIn } from '../helpers/contract-setup.ts';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'gp-mem-contract-'));
let server: FakeOpenAI;
let core: GamepilotCore;
const events: CoreEvent[] = [];

beforeAll(async () => {
  server = await new FakeOpenAI(
    (body) =>
      String(body.messages[0].content).includes('### History_summary')
        ? { text: '### History_summary\n[HIGH] moving\n### Reasoning\ngo\n### Plan\nleft' }
        : {
            text: `${answer('go', [{ action_type: 'PRESS', parameters: { key: 'left' } }])}\n### New_memory\nLeft merges tiles on this board\n### Should_save\nYes`,
            delayMs: 150,
          },
    ['test-vlm', 'test-embed'],
  ).start();
  core = coreIn(tmp);
  core.on('event', (e) => events.push(e));
  await core.handle('saveSettings', { settings: { provider: 'custom', baseUrl: server.baseURL, model: 'test-vlm' } });
});

afterAll(async () => {
  await core.stop();
  await server.close();
});

describe('memory over the contract', () => {
  it('runs the memory agent, lists and clears its store, and will not clear the store a run is using', async () => {
    await expect(
      core.handle('startRun', { target: { game: '2048' }, agent: 'vlm', memoryScope: 'x' }),
    ).rejects.toMatchObject({ code: 'bad-input', message: /memory scope needs agent memory/ });
    await core.handle('startRun', {
      target: { game: '2048' },
      agent: 'memory',
      maxSteps: 200,
      paceMs: 200,
      memoryScope: 'contract.p01',
      embeddingModel: 'test-embed',
    });
    await expect.poll(() => events.filter((e) => e.type === 'step').length, { timeout: 30000 }).toBeGreaterThan(1);
    const state = (await core.handle('state', {})) as { run: { agent: string; memory: unknown } };
    expect(state.run.agent).toBe('memory');
    expect(state.run.memory).toEqual({ scope: 'contract.p01', retrieval: 'embedding', embeddingModel: 'test-embed' });
    const memoryEvents = events.filter((e) => e.type === 'memory');
    expect(memoryEvents[0]).toMatchObject({ type: 'memory', episode: 0, step: 0, memory: { scope: 'contract.p01' } });
    const saved = memoryEvents.find((e) => e.type === 'memory' && e.memory.saved);
    expect(saved).toBeDefined();
    const step = events.find((e) => e.type === 'step');
    expect(step?.type === 'step' && step.data.memory?.summary).toBe('[HIGH] moving');

    await expect(core.handle('clearMemory', { scope: 'contract.p01' })).rejects.toMatchObject({
      code: 'busy',
      message: /the running memory agent uses scope "contract.p01"/,
    });
    await expect(core.handle('clearMemory', { scope: '../settings' })).rejects.toMatchObject({ code: 'bad-input' });
    await core.handle('control', { action: 'stop' });
    expect(await core.handle('listMemory', {})).toEqual({
      scopes: [{ scope: 'contract.p01', memories: 1, bytes: expect.any(Number) }],
    });
    expect(await core.handle('clearMemory', { scope: 'contract.p01' })).toEqual({ scope: 'contract.p01', cleared: 1 });
    expect(await core.handle('listMemory', {})).toEqual({ scopes: [] });
  });
});
