/**
 * The IDC's skill proposal with OmniGameArena's `validate_skill` tool: the proposer may check
 * a draft against what the harness can verify (skill-check.ts) and revise it before answering,
 * for a bounded number of checks. Every check is returned for the IDC's files. A model that
 * answers without calling the tool, or an endpoint that refuses tools, proposes as before.
 */
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ModelCaller } from '../agents/model-endpoint.ts';
import type { SkillCheck } from './skill-check.ts';

/** Checks one proposal may make before its answer is taken. */
export const MAX_SKILL_CHECKS = 3;

const VALIDATE_SKILL = 'validate_skill';

export const VALIDATE_SKILL_TOOL: ChatCompletionTool = {
  type: 'function',
  function: {
    name: VALIDATE_SKILL,
    description:
      'Check a draft skill before you answer: the harness says whether it fits the word limit and names (in `backticks`) only moves, actions and keys the game has, and no system or Gamepilot hotkey. Name every move or key in backticks.',
    parameters: { type: 'object', properties: { skill: { type: 'string' } }, required: ['skill'] },
  },
};

/** One check of a proposed skill as the IDC records it: a validate_skill call, or the harness's own before judging. */
export interface SkillValidation extends SkillCheck {
  skill: string;
  by?: 'harness';
}

export interface Proposal {
  /** The proposer's answer (its "### Skill" section is the skill). */
  text: string;
  validations: SkillValidation[];
  /** Why the proposal was made without the tool (refused by the endpoint), if it was. */
  note?: string;
}

/**
 * Asks `caller` for a skill with validate_skill offered. After MAX_SKILL_CHECKS checks, the last
 * draft checked is the answer.
 */
export async function proposeSkill(
  caller: ModelCaller,
  system: string,
  user: string,
  check: (skill: string) => SkillCheck,
  signal?: AbortSignal,
): Promise<Proposal> {
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
  const validations: SkillValidation[] = [];
  const ctx = signal ? { signal } : {};
  // Rounds are bounded as checks are: a model that keeps calling tools (any tool) gets an answer each
  // time, and after MAX_SKILL_CHECKS rounds its last checked draft, or its own text, is the proposal.
  for (let round = 1; ; round++) {
    let r: Awaited<ReturnType<ModelCaller['chat']>>;
    try {
      r = await caller.chat({ messages, tools: [VALIDATE_SKILL_TOOL] }, ctx);
    } catch (err) {
      const status = (err as { status?: number }).status;
      if (validations.length || (status !== 400 && status !== 404 && status !== 422)) throw err;
      const plain = await caller.chat({ messages, stream: false }, ctx);
      return { text: plain.text, validations, note: `the endpoint refused tool calling (HTTP ${status})` };
    }
    const calls = (r.message?.tool_calls ?? []).filter((c) => c.type === 'function');
    if (!calls.length) return { text: r.message?.content ?? r.text, validations };
    messages.push({ role: 'assistant', content: r.message?.content ?? null, tool_calls: calls });
    for (const call of calls) {
      if (call.type !== 'function') continue;
      // Only validate_skill is offered: another name is told so, and checks nothing.
      const result =
        call.function.name === VALIDATE_SKILL
          ? checked(call.function.arguments)
          : { ok: false, problems: [`no tool "${call.function.name}": only ${VALIDATE_SKILL} is offered`] };
      messages.push({
        role: 'tool',
        tool_call_id: call.id,
        content: JSON.stringify({ ok: result.ok, problems: result.problems }),
      });
    }
    if (validations.length >= MAX_SKILL_CHECKS || round >= MAX_SKILL_CHECKS) {
      const last = validations.at(-1);
      return { text: last ? `### Skill\n${last.skill}` : (r.message?.content ?? ''), validations };
    }
  }

  function checked(args: string): SkillValidation {
    let skill = '';
    try {
      skill = String((JSON.parse(args || '{}') as { skill?: unknown }).skill ?? '');
    } catch {
      /* an unreadable argument is checked as an empty skill */
    }
    const result = { skill, ...check(skill) };
    validations.push(result);
    return result;
  }
}
