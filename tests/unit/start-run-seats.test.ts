/**
 * The start-run request's two seats: a one-seat run names its agent, a two-seat run its seats
 * (the RunSpec's `seats`: solver, random or vlm:<model>). The core reads a seated request as the
 * same RunSpec `gamepilot run --seats` makes, with the endpoint in Settings, and refuses what a
 * two-seat run does not take (reflection, the memory agent, a window), naming the setting. An
 * MCP client's run says so (agent mcp): a request without a client is refused, and so is a
 * client on a request that names another player.
 */
import { describe, expect, it } from 'vitest';
import { parseParams, type Params } from '../../electron/api/contract.ts';
import { RunActivity, runFromRequest, specFromRequest, type RunContext } from '../../electron/api/run-activity.ts';
import { RemoteAgent } from '../../electron/agents/remote-agent.ts';
import { startSessionRequest } from '../../electron/mcp/play.ts';

const ctx = {
  model: () => ({ model: 'settings-vlm', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-test' }),
  imageSize: 1280,
  runsDir: 'runs',
};
const base = { target: { game: 'tictactoe-pvp' }, actionSpace: 'gui' } as const;
const seats = ['vlm:model-a', 'solver'];
const spec = (p: Params<'startRun'>) => specFromRequest(parseParams('startRun', p), ctx);
const refusal = (p: Params<'startRun'>) => {
  try {
    spec(p);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('accepted');
};

describe('startRun with seats', () => {
  it('names its agent or its seats', () => {
    expect(parseParams('startRun', { ...base, seats }).seats).toEqual(seats);
    expect(() => parseParams('startRun', { target: { game: '2048' } })).toThrow(/^startRun: agent is needed/);
  });

  it('is the RunSpec of `run --seats`, the model seats at the endpoint in Settings', () => {
    const s = spec({ ...base, seats, episodes: 2, latency: 'stop' });
    expect(s).toMatchObject({ game: 'tictactoe-pvp', seats, episodes: 2, latency: 'stop', agent: 'random' });
    expect(s).toMatchObject({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-test' });
    const run = runFromRequest(parseParams('startRun', { ...base, seats }), {
      ...ctx,
      configDir: 'config',
    } as RunContext);
    expect(run.seats).toEqual([{ agent: 'vlm', model: 'model-a' }, { agent: 'solver' }]);
    expect(run.spec).toMatchObject({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-test' });
    // Baselines only: no model, no endpoint.
    expect(spec({ ...base, seats: ['solver', 'random'] }).baseUrl).toBeUndefined();
  });

  it('refuses what a two-seat run does not take, naming the setting', () => {
    expect(refusal({ ...base, seats, agent: 'vlm' })).toMatch(/agent or seats, not both/);
    expect(refusal({ ...base, seats: ['solver'] })).toMatch(/seats takes two agents/);
    expect(refusal({ ...base, seats: ['vlm:m', 'memory:m'] })).toMatch(/memory agent does not play/);
    expect(refusal({ ...base, seats, reflection: 'self-f' })).toMatch(/reflection does not apply to a two-seat run/);
    expect(refusal({ target: { windowId: '0x1' }, seats })).toMatch(/seats needs a two-seat game/);
  });
});

describe('startRun: who plays', () => {
  // Every refusal comes before a window opens or a run folder is made: a target is never touched.
  const untouched = new Proxy({} as RunContext['wm'], {
    get: () => {
      throw new Error('the window manager was used');
    },
  });
  const runCtx = { ...ctx, wm: untouched, configDir: 'config' } as unknown as RunContext;
  const mcpArgs = { game: '2048', action_space: 'gui', episodes: 1, seed: 0 } as const;

  it("an MCP client's run is agent mcp; the spec carries no stand-in player", () => {
    const req = startSessionRequest(mcpArgs, false);
    expect(req.agent).toBe('mcp');
    expect(specFromRequest(req, ctx).agent).toBe('mcp');
  });

  it('agent mcp without a client, or a client on another agent, is refused', async () => {
    await expect(
      RunActivity.open(parseParams('startRun', { target: { game: '2048' }, agent: 'mcp' }), runCtx),
    ).rejects.toThrow(/agent mcp is an MCP client: connect one to `gamepilot mcp` and call start_session/);
    await expect(
      RunActivity.open(parseParams('startRun', { target: { game: '2048' }, agent: 'random' }), runCtx, {
        agent: new RemoteAgent('mcp:x'),
      }),
    ).rejects.toThrow(/an MCP client plays only a run of agent mcp, not random/);
  });

  it('memory settings need the memory agent, each refusal naming its setting', () => {
    expect(() => parseParams('startRun', { target: { game: '2048' }, agent: 'vlm', embeddingModel: 'e' })).toThrow(
      /^startRun: embeddingModel needs the memory agent/,
    );
    expect(refusal({ target: { game: '2048' }, agent: 'vlm', memoryScope: 'p01' })).toMatch(
      /memory scope needs agent memory/,
    );
    expect(
      spec({ target: { game: '2048' }, agent: 'memory', memoryScope: 'p01', embeddingModel: 'none' }),
    ).toMatchObject({ memoryScope: 'p01', embeddingModel: 'none' });
  });
});
