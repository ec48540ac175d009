/**
 * The remote agent an MCP client plays through: a decision waits for the client's actions, a
 * bad list is refused without using up the turn, a stop ends every wait at once.
 */
import { describe, expect, it } from 'vitest';
import { RemoteAgent } from '../../electron/agents/remote-agent.ts';
import { playerName } from '../../electron/mcp/play.ts';
import { getGame } from '../../games/index.ts';
import { frameObservation } from '../helpers/agent-fixtures.ts';

describe('RemoteAgent', () => {
  it('hands the waiting observation to the client and decides what the client submits', async () => {
    const agent = new RemoteAgent('mcp:test');
    const abort = new AbortController();
    const tokens: string[] = [];
    const obs = frameObservation(3);
    const decided = agent.decide(obs, { actionSpace: 'gui', signal: abort.signal, onToken: (t) => tokens.push(t) });
    const turn = await agent.waitTurn(new AbortController().signal);
    expect(turn?.obs).toBe(obs);
    expect(turn!.briefing()).toMatch(/call the `act` tool once/);
    expect(turn!.briefing()).toMatch(/the screenshot is 520×640/);
    agent.submit(turn!, [{ action_type: 'PRESS', parameters: { key: 'left' } }], 'slide left');
    await expect(decided).resolves.toEqual({
      reasoning: 'slide left',
      actions: [{ kind: 'gui', type: 'PRESS', params: { key: 'left' } }],
    });
    expect(tokens).toEqual(['slide left']); // shown live as a model's answer is
    expect(agent.current).toBeUndefined();
  });

  it('refuses a list that does not parse, and the turn still waits', async () => {
    const agent = new RemoteAgent('mcp:test');
    const decided = agent.decide(frameObservation(), { actionSpace: 'gui', signal: new AbortController().signal });
    const turn = (await agent.waitTurn(new AbortController().signal))!;
    expect(() => agent.submit(turn, [{ action_type: 'PRESS', parameters: { key: 'nosuchkey' } }])).toThrow(
      /unknown key name "nosuchkey"/,
    );
    expect(() => agent.submit(turn, [])).toThrow(/the Actions list is empty/);
    expect(() => agent.submit(turn, ['x'], 'r'.repeat(20_001))).toThrow(/reasoning is longer than 20000/);
    expect(agent.current).toBe(turn);
    agent.submit(turn, [{ action_type: 'WAIT', parameters: { duration: 0.1 } }]);
    await expect(decided).resolves.toMatchObject({ actions: [{ type: 'WAIT' }] });
    expect(() => agent.submit(turn, [{ action_type: 'WAIT', parameters: { duration: 0.1 } }])).toThrow(
      /no longer waiting/,
    );
  });

  it('checks semantic moves with the game’s own parser', async () => {
    const agent = new RemoteAgent('mcp:test');
    const game = getGame('2048');
    const obs = { ...frameObservation(), validMoves: ['up', 'down', 'left', 'right'] };
    const decided = agent.decide(obs, { actionSpace: 'semantic', game, signal: new AbortController().signal });
    const turn = (await agent.waitTurn(new AbortController().signal))!;
    expect(() => agent.submit(turn, ['sideways'])).toThrow(/action 1/);
    agent.submit(turn, ['left']);
    await expect(decided).resolves.toMatchObject({ actions: [{ kind: 'semantic', move: 'left' }] });
  });

  it('ends the episode at the waiting turn instead of answering it, once', async () => {
    const agent = new RemoteAgent('mcp:test');
    const decided = agent.decide(frameObservation(), { actionSpace: 'gui', signal: new AbortController().signal });
    const turn = (await agent.waitTurn(new AbortController().signal))!;
    agent.endEpisode(turn);
    await expect(decided).resolves.toEqual({ reasoning: '', actions: [], endsEpisode: true });
    expect(agent.current).toBeUndefined();
    expect(() => agent.endEpisode(turn)).toThrow(/no longer waiting/);
  });

  it('a turn taken back before the client answered (a person took over) is said so until it observes again', async () => {
    const agent = new RemoteAgent('mcp:test');
    const step = new AbortController();
    const decided = agent.decide(frameObservation(), { actionSpace: 'gui', signal: step.signal });
    await agent.waitTurn(new AbortController().signal);
    agent.observed();
    expect(agent.answerWithdrawn).toBe(false);
    step.abort(); // the person takes the controls
    await expect(decided).resolves.toMatchObject({ actions: [], withdrawn: true });
    expect(agent.answerWithdrawn).toBe(true);
    const next = agent.decide(frameObservation(4), { actionSpace: 'gui', signal: new AbortController().signal });
    expect(agent.answerWithdrawn).toBe(true); // a new turn waits, but the client has not seen it
    const turn = (await agent.waitTurn(new AbortController().signal))!;
    agent.observed();
    agent.submit(turn, [{ action_type: 'WAIT', parameters: { duration: 0.1 } }]);
    await expect(next).resolves.toMatchObject({ actions: [{ type: 'WAIT' }] });
  });

  it('a stop ends the decision, as taken back with no actions, and every wait at once', async () => {
    const agent = new RemoteAgent('mcp:test');
    const abort = new AbortController();
    const decided = agent.decide(frameObservation(), { actionSpace: 'gui', signal: abort.signal });
    abort.abort();
    await expect(decided).resolves.toMatchObject({ actions: [], withdrawn: true });
    await expect(agent.decide(frameObservation(), { actionSpace: 'gui', signal: abort.signal })).resolves.toMatchObject(
      { withdrawn: true },
    );
    const waiting = agent.waitTurn(new AbortController().signal);
    agent.end();
    await expect(waiting).resolves.toBeNull();
    await expect(agent.waitTurn(new AbortController().signal)).resolves.toBeNull();
    const cancelled = new AbortController();
    const other = new RemoteAgent('mcp:x').waitTurn(cancelled.signal);
    cancelled.abort();
    await expect(other).resolves.toBeNull();
  });
});

describe('playerName', () => {
  it('names the player mcp:<client> in letters, digits, dot, dash and underscore', () => {
    expect(playerName('claude-code')).toBe('mcp:claude-code');
    expect(playerName('My Agent/2 ☃')).toBe('mcp:My-Agent-2');
    expect(playerName('../../etc')).toBe('mcp:..-..-etc');
    expect(playerName(undefined)).toBe('mcp:client');
    expect(playerName('x'.repeat(300))).toHaveLength(4 + 64);
  });
});
