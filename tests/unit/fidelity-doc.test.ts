/**
 * docs/fidelity.md says what the code does: each of the paper contradictions issue 21 settled
 * (milestone scoring, the rookie's tutorial, the reflector's frames and video, ING-VP's answer-only
 * prompt, Tic-Tac-Toe's cell names) is read from the page and checked against the code it names,
 * so an edit of either that makes them disagree fails here.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../electron/cli/program.ts';
import type { Actions } from '../../electron/cli/command-flags.ts';
import { promptText } from '../../electron/ingvp/players.ts';
import {
  DEFAULT_CONTEXT_TOKENS,
  DEFAULT_REFLECTION_SAMPLING,
  frameTokens,
  REFLECTION_TEXT_TOKENS,
  reflectionSample,
} from '../../electron/reflection/sampling.ts';
import { MAX_VIDEO_BYTES } from '../../electron/reflection/video-part.ts';
import { TUTORIALS_DIR, tutorialFolder } from '../../electron/store/tutorials.ts';
import { cellName } from '../../games/tictactoe/rules.ts';
import { ROOT } from '../helpers/cli.ts';
import { sokobanTurn } from '../helpers/ingvp-turn.ts';

const doc = readFileSync(path.join(ROOT, 'docs', 'fidelity.md'), 'utf8');
const reflectionDoc = readFileSync(path.join(ROOT, 'docs', 'reflection.md'), 'utf8');
/** "32 000" → 32000: the docs write thousands with a space. */
const num = (s: string) => Number(s.replace(/\s/g, ''));
const grab = (text: string, re: RegExp) => {
  const m = re.exec(text);
  expect(m, `${re} in the docs`).not.toBeNull();
  return m!;
};

describe('docs/fidelity.md against the code', () => {
  it('milestone titles are scored by the live judge and by `milestones judge`, which exists', () => {
    expect(doc).not.toMatch(/not part of (this|the) release/i);
    expect(doc).toMatch(/scored by the live judge/);
    grab(doc, /`gamepilot milestones judge`/);
    const program = buildProgram(new Proxy({} as Actions, { get: () => () => 0 }), () => {});
    const milestones = program.commands.find((c: Command) => c.name() === 'milestones');
    expect(milestones?.commands.map((c: Command) => c.name())).toContain('judge');
    expect(milestones?.commands.find((c: Command) => c.name() === 'judge')?.options.map((o) => o.long)).toContain(
      '--profile',
    );
  });

  it('the rookie’s tutorial videos live where the page says', () => {
    const [, dir] = grab(doc, /`<runs>\/(\w+)\/<title id>\/`/);
    expect(dir).toBe(TUTORIALS_DIR);
    expect(tutorialFolder('2048')).toBe('2048');
    expect(tutorialFolder('baba-is-you')).toBe('baba-is-you');
  });

  it('the reflector’s frame budget and video cap are the defaults the page gives', () => {
    const [, context, text] = grab(doc, /default ([\d ]+) tokens, ([\d ]+) of them kept for text/);
    expect(num(context!)).toBe(DEFAULT_CONTEXT_TOKENS);
    expect(num(text!)).toBe(REFLECTION_TEXT_TOKENS);
    const [, perFrame, side, frames] = grab(reflectionDoc, /(\d+) tokens at (\d+) px,\s+so (\d+) frames/);
    expect(Number(side)).toBe(DEFAULT_REFLECTION_SAMPLING.maxSide);
    expect(frameTokens(Number(side))).toBe(Number(perFrame));
    expect(reflectionSample(DEFAULT_REFLECTION_SAMPLING).maxFrames).toBe(Number(frames));
    const [, mib] = grab(doc, /at most (\d+) MiB/);
    expect(Number(mib) * 2 ** 20).toBe(MAX_VIDEO_BYTES);
  });

  it('ING-VP asks for the answer only, from the prompt file the page names', () => {
    const [, file] = grab(doc, /_Answer only_[\s\S]*?\(`(prompts\/ingvp\/[\w-]+\.md)`\)/);
    expect(existsSync(path.join(ROOT, file!))).toBe(true);
    const turn = sokobanTurn();
    const answerOnly = readFileSync(path.join(ROOT, file!), 'utf8').trim();
    expect(promptText(turn).system.endsWith(answerOnly)).toBe(true);
    expect(promptText(turn, true).system).not.toContain(answerOnly);
  });

  it('Tic-Tac-Toe names cells as the paper’s example does: B3 is the right middle cell', () => {
    grab(doc, /"B3, the right middle cell of the board"/);
    grab(doc, /rows A–C top to bottom, columns 1–3 left to right/);
    const middleRowRightColumn = 1 * 3 + 2;
    expect(cellName(middleRowRightColumn)).toBe('B3');
    expect(cellName(0)).toBe('A1');
    expect(cellName(8)).toBe('C3');
  });
});
