/**
 * Semantic actions on a real third-party window: sgt-puzzles' Pattern (a nonogram), with a
 * user-written profile declaring a 5×5 grid over the board (measured off the window, as a
 * person would in the profile editor) and `fill(row, column)`. A scripted model's calls go
 * through the built CLI: they become clicks in the right cells (read back from the game's own
 * drawing), a system hotkey inside an expansion is refused by the key policy, and an
 * out-of-range call is refused with nothing sent (the pointer never moves, no cell changes).
 */
import { writeFileSync, mkdtempSync } from 'node:fs';
import { execFileSync, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { json, runCli, testModelArgs } from '../helpers/cli.ts';
import { startWindow, stop } from '../helpers/windows.ts';
import { readRun } from '../../electron/store/run-store.ts';
import { createCapturer } from '../../electron/capture/index.ts';
import type { RawFrame } from '../../electron/capture/capturer.ts';
import { createWindowManager, type WindowInfo } from '../../native/index.ts';

/** A fixed 5×5 puzzle (sgt-pattern --generate 1 5x5), so the board is the same every run. */
const PUZZLE = '5x5:1.1/1/3/1.1/2.2/1.1/3/3/2/1.1';
let pattern: { child: ChildProcess; window: WindowInfo };
let server: FakeOpenAI;
let script: string[] = [];
const capturer = createCapturer();

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}
let board: Rect;

const grab = () => capturer.grab(pattern.window.bounds);
const rgb = (f: RawFrame, x: number, y: number) => {
  const i = (Math.round(y) * f.width + Math.round(x)) * f.channels;
  const [a, b, c] = [f.data[i]!, f.data[i + 1]!, f.data[i + 2]!];
  return f.order === 'bgra' ? [c, b, a] : [a, b, c];
};

/**
 * Pattern draws the board's border and grid lines in one dark grey (76): the rows holding a long
 * run of it are the border's top and bottom and the lines between rows, and the runs' ends are
 * its left and right. (Short runs of that grey are anti-aliased text.)
 */
function measureBoard(f: RawFrame): Rect {
  let [x0, y0, x1, y1] = [f.width, f.height, -1, -1];
  for (let y = 0; y < f.height; y++) {
    let run = 0;
    for (let x = 0; x <= f.width; x++) {
      const [r, g, b] = x < f.width ? rgb(f, x, y) : [0, 1, 2];
      if (r === 76 && g === 76 && b === 76) {
        run++;
        continue;
      }
      if (run >= 40) {
        x0 = Math.min(x0, x - run);
        x1 = Math.max(x1, x - 1);
        y0 = Math.min(y0, y);
        y1 = Math.max(y1, y);
      }
      run = 0;
    }
  }
  if (x1 < 0) throw new Error('no board found in the Pattern window');
  return { x: x0, y: y0, width: x1 + 1 - x0, height: y1 + 1 - y0 };
}

const centreOf = (row: number, column: number) => ({
  x: board.x + ((column - 0.5) * board.width) / 5,
  y: board.y + ((row - 0.5) * board.height) / 5,
});

/** Each cell as the game draws it: filled (black), empty (grey, unknown) or marked white. */
function cells(f: RawFrame): string[] {
  const out: string[] = [];
  for (let r = 1; r <= 5; r++) {
    let line = '';
    for (let c = 1; c <= 5; c++) {
      const p = centreOf(r, c);
      const v = rgb(f, p.x, p.y)[0]!;
      line += v < 40 ? '#' : v > 200 ? '.' : '?';
    }
    out.push(line);
  }
  return out;
}

const pointer = () => {
  const out = execFileSync('xdotool', ['getmouselocation'], { encoding: 'utf8' });
  const m = /x:(\d+) y:(\d+)/.exec(out)!;
  return { x: Number(m[1]), y: Number(m[2]) };
};

const round4 = (n: number) => Math.round(n * 10000) / 10000;

function writeProfile(file: string, w: WindowInfo) {
  const W = w.bounds.width;
  const H = w.bounds.height;
  writeFileSync(
    file,
    `id: my-pattern
title: Pattern (sgt-puzzles)
match:
  title: ^Pattern$
category: markov-grid
tier: easy
prompt:
  rules: Fill the cells so that each row and column shows the runs its clues give.
  controls: CLICK a cell to fill it.
  semanticControls: Fill cells by row and column.
actions:
  gui: true
  semantic: true
episode:
  maxSteps: 3
  trials: 1
scoring:
  kind: none
semantic:
  resolution: ${W}x${H}
  grids:
    board: {region: {x: ${round4(board.x / W)}, y: ${round4(board.y / H)}, width: ${round4(board.width / W)}, height: ${round4(board.height / H)}}, rows: 5, columns: 5}
  actions:
    fill:
      description: Fill one cell black.
      params:
        row: {type: integer, min: 1, max: 5, description: counted from the top}
        column: {type: integer, min: 1, max: 5, description: counted from the left}
      example: {row: 1, column: 1}
      do:
        - click: {grid: board, row: row, column: column}
    close:
      description: Close the game (a system hotkey; the key policy refuses it).
      do:
        - hotkey: [alt, f4]
`,
  );
}

/** `gamepilot run` on the Pattern window with the profile, in the semantic space, the test model playing. */
function playPattern(profile: string, out: string, extra: string[]) {
  return runCli([
    'run',
    '--window',
    '^Pattern$',
    '--profile',
    profile,
    '--action-space',
    'semantic',
    ...testModelArgs(server.baseURL),
    ...extra,
    '--runs-dir',
    out,
    '--json',
  ]);
}

beforeAll(async () => {
  server = await new FakeOpenAI(() => ({ text: script.shift() ?? script.at(-1) ?? '' })).start();
  pattern = await startWindow('/usr/games/sgt-pattern', [PUZZLE], /^Pattern$/);
  await new Promise((r) => setTimeout(r, 800)); // let GTK draw
  board = measureBoard(await grab());
});

afterAll(async () => {
  await stop(pattern.child);
  await server.close();
});

describe('a semantic profile on a real window (sgt-pattern)', () => {
  it('calls become clicks in the right cells; a refused hotkey and an out-of-range call send nothing', async () => {
    expect(cells(await grab())).toEqual(['?????', '?????', '?????', '?????', '?????']);
    const folder = mkdtempSync(path.join(tmpdir(), 'gp-sem-'));
    const file = path.join(folder, 'my-pattern.yaml');
    writeProfile(file, pattern.window);
    const bad = answer('row 6 please', [{ action: 'fill', row: 6, column: 1 }]);
    script = [
      answer('two cells', [
        { action: 'fill', row: 1, column: 1 },
        { action: 'fill', parameters: { row: 3, column: 4 } },
      ]),
      answer('close it', [{ action: 'close' }]),
      bad,
      bad, // the repair request gets the same out-of-range answer
    ];
    const r = await playPattern(file, folder, ['--max-steps', '3']);
    expect(r.code, r.stderr).toBe(0);
    const { meta, steps } = readRun(json(r).run_dir);
    expect(meta.action_space).toBe('semantic');
    expect(steps).toHaveLength(3);

    // The model was told the moves, with their parameters and an example.
    const chats = server.requests.filter((q) => q.body.stream);
    const system = String(chats[0]!.body.messages[0].content);
    expect(system).toContain('- fill(row, column): Fill one cell black.');
    expect(system).toContain('  - row: a whole number from 1 to 5 — counted from the top');
    expect(system).toContain('  Example: {"action":"fill","row":1,"column":1}');

    // Step 1: two calls, two clicks, each at its cell's centre in the frame the model saw.
    const s1 = steps[0]!;
    expect(s1.actions).toEqual([{ action: 'fill(row=1, column=1)' }, { action: 'fill(row=3, column=4)' }]);
    const scale = s1.frame_size!.scale;
    const expected = (row: number, column: number) => {
      const c = centreOf(row, column);
      return { x: Math.round(Math.round(c.x) * scale), y: Math.round(Math.round(c.y) * scale) };
    };
    const o1 = s1.outcomes as {
      action: string;
      ok: boolean;
      expanded: { action_type: string; parameters: { x: number; y: number } }[];
    }[];
    expect(o1.map((o) => [o.action, o.ok])).toEqual([
      ['fill(row=1, column=1)', true],
      ['fill(row=3, column=4)', true],
    ]);
    for (const [i, [row, column]] of [
      [1, 1],
      [3, 4],
    ].entries()) {
      expect(o1[i]!.expanded).toHaveLength(1);
      expect(o1[i]!.expanded[0]!.action_type).toBe('CLICK');
      const p = o1[i]!.expanded[0]!.parameters;
      expect(Math.abs(p.x - expected(row!, column!).x), JSON.stringify(p)).toBeLessThanOrEqual(1);
      expect(Math.abs(p.y - expected(row!, column!).y), JSON.stringify(p)).toBeLessThanOrEqual(1);
    }

    // Step 2: the expansion's alt+f4 is refused by the key policy; the game is still there.
    expect(steps[1]!.outcomes).toEqual([
      {
        action: 'close',
        ok: false,
        error: expect.stringMatching(/^HOTKEY: .*alt\+f4/i),
        expanded: [{ action_type: 'HOTKEY', parameters: { keys: ['alt', 'f4'] } }],
      },
    ]);
    expect(pattern.child.exitCode).toBeNull();
    expect(await createWindowManager().get(pattern.window.id)).toBeDefined();

    // Step 3: row 6 is refused at parsing, the model told why (the repair request), nothing sent.
    expect(steps[2]!.actions).toEqual([]);
    expect(steps[2]!.outcomes).toEqual([]);
    expect(steps[2]!.errors.join('\n')).toContain('fill: row is 6; it must be a whole number from 1 to 5');
    const repair = JSON.stringify(chats[3]!.body.messages.at(-1));
    expect(repair).toContain('row is 6; it must be a whole number from 1 to 5');

    // The game's own drawing: exactly the two cells filled. The pointer still rests on the last
    // click (row 3, column 4), so neither the refused hotkey nor row 6 moved it.
    expect(cells(await grab())).toEqual(['#????', '?????', '???#?', '?????', '?????']);
    const last = centreOf(3, 4);
    const b = pattern.window.bounds;
    const at = pointer();
    expect(Math.abs(at.x - (b.x + Math.round(last.x)))).toBeLessThanOrEqual(1);
    expect(Math.abs(at.y - (b.y + Math.round(last.y)))).toBeLessThanOrEqual(1);
  });

  it('reflect-and-retry plays on in the semantic space: the lessons join the move list', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'gp-sem-refl-'));
    const file = path.join(folder, 'my-pattern.yaml');
    writeProfile(file, pattern.window);
    let played = 0;
    server.setResponder((body: { messages: { content: unknown }[] }) => {
      const system = String(body.messages[0]!.content);
      if (system.startsWith('You review gameplay'))
        return {
          text: '### Diagnosis\nThe runs were not checked.\n### Lessons\nLESSON-77: count each clue before filling.',
        };
      played++;
      return { text: answer('fill', [{ action: 'fill', row: played === 1 ? 2 : 5, column: 2 }]) };
    });
    server.requests.length = 0;
    const r = await playPattern(file, folder, ['--episodes', '2', '--max-steps', '1', '--reflection', 'self-f']);
    expect(r.code, r.stderr).toBe(0);
    const { meta, steps } = readRun(json(r).run_dir);
    expect(meta.reflection).toMatchObject({ mode: 'self-f', lessons: [{ episode: 1 }] });
    expect(steps.map((s) => s.actions)).toEqual([
      [{ action: 'fill(row=2, column=2)' }],
      [{ action: 'fill(row=5, column=2)' }],
    ]);
    expect(steps.map((s) => (s.outcomes as { ok: boolean }[])[0]!.ok)).toEqual([true, true]);
    const players = server.requests
      .map((q) => String(q.body.messages[0].content))
      .filter((t) => t.startsWith('You are playing'));
    expect(players).toHaveLength(2);
    expect(players[0]).not.toContain('LESSON-77');
    expect(players[1]).toContain('LESSON-77');
    expect(players[1]).toContain('- fill(row, column): Fill one cell black.');
    expect(cells(await grab())).toEqual(['#????', '?#???', '???#?', '?????', '?#???']);
  });
});
