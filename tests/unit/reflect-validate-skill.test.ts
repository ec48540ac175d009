/**
 * OmniGameArena's validate_skill in the IDC: what the harness checks of a skill, and the
 * proposer's tool loop against the local test server — a model that calls the tool gets the
 * problems back and revises, the checks are bounded and returned for the IDC's files, and a
 * model or endpoint without tools still proposes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getGame } from '../../games/index.ts';
import { callerFor } from '../../electron/agents/model-endpoint.ts';
import { checkSkill } from '../../electron/reflection/skill-check.ts';
import { MAX_SKILL_CHECKS, proposeSkill } from '../../electron/reflection/idc-propose.ts';
import { FakeOpenAI, type Responder } from '../helpers/fake-openai.ts';

const g2048 = getGame('2048');

describe('what the harness checks of a skill', () => {
  it('passes a skill naming the game’s own keys and actions within the word limit', () => {
    expect(checkSkill('Alternate `PRESS down` and `left`; keep the big tile in a corner.', g2048, 'gui', 40)).toEqual({
      ok: true,
      problems: [],
    });
    expect(checkSkill('Prefer `down` and `left`, never `up`.', g2048, 'semantic', 40).ok).toBe(true);
  });

  it('names each problem: words, keys and moves the game lacks, system and Gamepilot hotkeys', () => {
    const r = checkSkill(
      '`JUMP` often, `PRESS space` to merge; alt+f4 restarts; `ctrl+shift+F12` too.',
      g2048,
      'gui',
      40,
    );
    expect(r.ok).toBe(false);
    expect(r.problems).toEqual([
      expect.stringMatching(/`JUMP` is neither a GUI action .* nor a key/),
      expect.stringMatching(/`PRESS space` is not a key of 2048 \(its keys: up, down, left, right\)/),
      expect.stringMatching(/`ctrl\+shift\+F12`: .*Gamepilot's stop hotkey/),
      expect.stringMatching(/"alt\+f4": alt\+F4 is a system combination/),
    ]);
    expect(checkSkill('Play `B2` first.', g2048, 'semantic', 40).problems).toEqual([
      expect.stringMatching(/`B2` is not a move of 2048/),
    ]);
    expect(checkSkill('one two three four five six', g2048, 'gui', 5).problems).toEqual([
      'the skill has 6 words, more than the 5 allowed',
    ]);
    expect(checkSkill('  ', g2048, 'gui', 5).problems).toEqual(['the skill is empty']);
  });
});

describe('validate_skill offered to the proposer', () => {
  let server: FakeOpenAI;
  let respond: Responder = () => ({ text: '' });
  beforeAll(async () => {
    server = await new FakeOpenAI((body, i) => respond(body, i)).start();
  });
  afterAll(() => server.close());
  const caller = () => callerFor({ model: 'test-vlm', baseUrl: server.baseURL }, 'reflector');
  const check = (skill: string) => checkSkill(skill, g2048, 'gui', 40);
  const toolResults = (body: any) =>
    body.messages.filter((m: any) => m.role === 'tool').map((m: any) => JSON.parse(m.content));

  it('returns the problems to a model that calls it, which then answers with a revised skill', async () => {
    server.requests.length = 0;
    respond = (body) => {
      const results = toolResults(body);
      if (results.length === 0)
        return { toolCalls: [{ name: 'validate_skill', arguments: { skill: 'Press alt+f4 when stuck.' } }] };
      if (results.length === 1)
        return { toolCalls: [{ name: 'validate_skill', arguments: { skill: 'Alternate `down` and `left`.' } }] };
      return { text: '### Skill\nAlternate `down` and `left`.' };
    };
    const p = await proposeSkill(caller(), 'system', 'Write an improved skill', check);
    expect(p.text).toBe('### Skill\nAlternate `down` and `left`.');
    expect(p.validations).toEqual([
      { skill: 'Press alt+f4 when stuck.', ok: false, problems: [expect.stringMatching(/system combination/)] },
      { skill: 'Alternate `down` and `left`.', ok: true, problems: [] },
    ]);
    expect(server.requests).toHaveLength(3);
    expect(server.requests[0]!.body.tools.map((t: any) => t.function.name)).toEqual(['validate_skill']);
    // What the model was told back is the harness's verdict.
    expect(toolResults(server.requests[1]!.body)).toEqual([
      { ok: false, problems: [expect.stringMatching(/alt\+F4 is a system combination/)] },
    ]);
  });

  it('stops after a bounded number of checks, taking the last draft', async () => {
    server.requests.length = 0;
    let n = 0;
    respond = () => ({ toolCalls: [{ name: 'validate_skill', arguments: { skill: `draft ${++n}` } }] });
    const p = await proposeSkill(caller(), 'system', 'Write an improved skill', check);
    expect(p.validations).toHaveLength(MAX_SKILL_CHECKS);
    expect(p.text).toBe(`### Skill\ndraft ${MAX_SKILL_CHECKS}`);
    expect(server.requests).toHaveLength(MAX_SKILL_CHECKS);
  });

  it('tells a model that calls a tool it was not offered so, and takes its answer after', async () => {
    server.requests.length = 0;
    respond = (body) =>
      toolResults(body).length
        ? { text: '### Skill\nAlternate `down` and `left`.' }
        : { toolCalls: [{ name: 'commit_diagnosis', arguments: { diagnosis: 'x' } }] };
    const p = await proposeSkill(caller(), 'system', 'Write an improved skill', check);
    expect(p).toEqual({ text: '### Skill\nAlternate `down` and `left`.', validations: [] });
    expect(toolResults(server.requests[1]!.body)).toEqual([
      { ok: false, problems: ['no tool "commit_diagnosis": only validate_skill is offered'] },
    ]);
    // One that never stops calling it is bounded like checks are.
    server.requests.length = 0;
    respond = () => ({ toolCalls: [{ name: 'commit_diagnosis', arguments: {} }] });
    expect(await proposeSkill(caller(), 'system', 'Write an improved skill', check)).toEqual({
      text: '',
      validations: [],
    });
    expect(server.requests).toHaveLength(MAX_SKILL_CHECKS);
  });

  it('works with a model that ignores the tool, and with an endpoint that refuses tools', async () => {
    respond = () => ({ text: '### Skill\nKeep a corner.' });
    expect(await proposeSkill(caller(), 's', 'u', check)).toEqual({
      text: '### Skill\nKeep a corner.',
      validations: [],
    });
    server.requests.length = 0;
    respond = (body) => (body.tools ? { status: 400 } : { text: '### Skill\nKeep a corner.' });
    const p = await proposeSkill(caller(), 's', 'u', check);
    expect(p).toMatchObject({
      text: '### Skill\nKeep a corner.',
      validations: [],
      note: expect.stringMatching(/HTTP 400/),
    });
    expect(server.requests.map((q) => !!q.body.tools)).toEqual([true, false]);
  });
});
