/**
 * A profile's semantic actions: the section checked with file, line and field; calls parsed in
 * every form a model writes them and refused with a reason; expansions (grids, regions, polar
 * drags, offsets, repeats, keys from parameters) pinned in pixels; the expression sandbox; and
 * the prompt that lists the moves.
 */
import { profileRefusal } from '../helpers/profile-refusal.ts';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.ts';
import { parseProfile } from '../../electron/profiles/load.ts';
import { semanticApiOf, type Profile } from '../../electron/profiles/profile-schema.ts';
import { compileExpr } from '../../electron/profiles/semantic-expr.ts';
import { parseModelOutput } from '../../electron/actions/parse.ts';
import { semanticMoves } from '../../electron/agents/semantic-moves.ts';
import { VlmAgent } from '../../electron/agents/vlm.ts';
import { RandomAgent } from '../../electron/agents/baselines.ts';
import type { Observation } from '../../electron/agents/agent-types.ts';
import { fullSizeGeometry } from '../../electron/input/coordinates.ts';
import { expandOnFrame } from '../../electron/session/semantic-calls.ts';

const base = readFileSync(path.join(ROOT, 'games', 'sgt-fifteen', 'profile.yaml'), 'utf8');

/** The shipped Fifteen profile with a semantic section appended (and offered). */
const SECTION = `semantic:
  resolution: 1000x500
  points:
    sling: {x: 0.2, y: 0.6}
  regions:
    tray: {x: 0.1, y: 0.2, width: 0.8, height: 0.6}
  grids:
    board: {region: tray, rows: 4, columns: 4}
  actions:
    slide:
      description: Slide the tile at a cell into the gap.
      params:
        row: {type: integer, min: 1, max: 4, description: from the top}
        column: {type: integer, min: 1, max: 4}
      example: {row: 2, column: 3}
      do:
        - click: {grid: board, row: row, column: column}
    shoot:
      description: Pull back and let go.
      params:
        angle: {type: number, min: 0, max: 90}
        power: {type: number, min: 0, max: 1}
      do:
        - move: sling
        - dragTo: {from: sling, angle: angle + 180, distance: power * 0.1}
          seconds: 0.5
        - wait: 1 + power
    nudge:
      description: Move the gap.
      params:
        direction: {type: choice, values: [up, down, left, right]}
        steps: {type: integer, min: 1, max: 5, default: 1}
      do:
        - press: $direction
          repeat: steps
    corner:
      description: Click inside the tray, offset from its centre.
      do:
        - click: {x: 0.5, y: 0.5, in: tray}
        - click: {from: tray, dx: 0.1, dy: -0.05}
`;

const textWith = (section: string, edit: (t: string) => string = (t) => t) =>
  edit(base.replace('actions:\n  gui: true\n', 'actions:\n  gui: true\n  semantic: true\n')) + section;

function profileWith(section: string, edit?: (t: string) => string): Profile {
  return parseProfile(textWith(section, edit), 'p.yaml');
}

const refusal = (section: string, edit?: (t: string) => string) => profileRefusal(textWith(section, edit), 'p.yaml');

const profile = profileWith(SECTION);
const api = semanticApiOf(profile)!;
const W = { width: 1000, height: 500 };

describe('calls', () => {
  it('parses every form a model writes, into one canonical call', () => {
    for (const text of [
      'slide(row=2, column=3)',
      'slide(2, 3)',
      'SLIDE(row: 2, column: "3")',
      ' slide ( column=3,row=2 ) ',
    ])
      expect(api.parse(text)).toMatchObject({ ok: true, move: 'slide(row=2, column=3)' });
    expect(api.parse('nudge(left)')).toMatchObject({ ok: true, move: 'nudge(direction=left, steps=1)' });
    expect(api.parse('corner')).toMatchObject({ ok: true, move: 'corner' });
    expect(api.parse('corner()')).toMatchObject({ ok: true, move: 'corner' });
  });

  it('refuses with a reason that names the action or parameter', () => {
    const error = (t: string) => {
      const r = api.parse(t);
      if (r.ok) throw new Error(`accepted ${t}`);
      return r.error;
    };
    expect(error('jump')).toBe('unknown action "jump"; the actions are slide, shoot, nudge, corner');
    expect(error('slide(row=5, column=1)')).toBe('slide: row is 5; it must be a whole number from 1 to 4');
    expect(error('slide(row=1.5, column=1)')).toMatch(/row is 1.5; it must be a whole number/);
    expect(error('slide(row=1)')).toBe('slide needs column (a whole number from 1 to 4)');
    expect(error('slide(1, 2, 3)')).toBe('slide takes 2 argument(s), got more');
    expect(error('slide(row=1, col=1)')).toBe('slide has no parameter "col" (its parameters: row, column)');
    expect(error('shoot(angle=-1, power=1)')).toBe('shoot: angle is -1; it must be a number from 0 to 90');
    expect(error('nudge(sideways)')).toBe('nudge: direction is "sideways"; it must be one of up, down, left, right');
    expect(error('slide(row=(1, column=2)')).toMatch(/not balanced/);
  });
});

describe('expansions in window pixels (1000×500)', () => {
  const gui = (call: string) => {
    const r = api.expand(call, W);
    if (!r.ok) throw new Error(r.error);
    return r.actions.map((a) => [a.type, a.params]);
  };

  it('a grid cell is its centre, counted from 1 at the top left', () => {
    // tray: x 100–900, y 100–400; cells 200 × 75. Row 1 col 1: (100 + 100, 100 + 37.5).
    expect(gui('slide(1, 1)')).toEqual([['CLICK', { x: 200, y: 138 }]]);
    // Row 4 col 4: (100 + 700, 100 + 262.5).
    expect(gui('slide(4, 4)')).toEqual([['CLICK', { x: 800, y: 363 }]]);
  });

  it('an angle and a power give a drag from an anchor, the angle true on a wide window', () => {
    // sling (200, 300). angle 0 → pull straight left by power × 0.1 × 1000 px.
    expect(gui('shoot(angle=0, power=1)')).toEqual([
      ['MOVE_TO', { x: 200, y: 300 }],
      ['DRAG_TO', { x: 100, y: 300, duration: 0.5 }],
      ['WAIT', { duration: 2 }],
    ]);
    // angle 90 → pull straight down by 0.5 × 100 px = 50 px.
    expect(gui('shoot(angle=90, power=0.5)')[1]).toEqual(['DRAG_TO', { x: 200, y: 350, duration: 0.5 }]);
    // 45° → 100 × cos 45 ≈ 70.7 px left and as many down.
    expect(gui('shoot(angle=45, power=1)')[1]).toEqual(['DRAG_TO', { x: 129, y: 371, duration: 0.5 }]);
  });

  it('keys from a choice parameter, repeated; points inside a region and offsets from one', () => {
    expect(gui('nudge(up, 3)')).toEqual([
      ['PRESS', { key: 'up' }],
      ['PRESS', { key: 'up' }],
      ['PRESS', { key: 'up' }],
    ]);
    expect(gui('corner')).toEqual([
      ['CLICK', { x: 500, y: 250 }],
      ['CLICK', { x: 600, y: 225 }],
    ]);
  });

  it('on the frame the model saw: window pixels become image pixels', () => {
    const g = {
      ...fullSizeGeometry({ x: 50, y: 60, width: 1000, height: 500 }),
      imageScale: 0.5,
      imageWidth: 500,
      imageHeight: 250,
    };
    const r = expandOnFrame(api, 'slide(4, 4)', g);
    expect(r.ok && r.actions[0]!.params).toEqual({ x: 400, y: 182 });
  });

  it('a point an expression drives outside the window is refused, nothing expanded', () => {
    const p = profileWith(SECTION.replace('distance: power * 0.1', 'distance: power * 0.5'));
    const r = semanticApiOf(p)!.expand('shoot(angle=0, power=1)', W);
    expect(r).toEqual({ ok: false, error: 'shoot, step 2: the point (-0.3, 0.6) lies outside the window (0–1)' });
  });
});

describe('the section is checked with file, line and field', () => {
  const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

  it('a name that points nowhere, an unknown parameter in an expression, a bad key', () => {
    let e = refusal(SECTION.replace('{grid: board, row', '{grid: bord, row'));
    expect([e.field, e.reason]).toEqual(['semantic.actions.slide.do.0.click.grid', 'names no grid "bord"']);
    e = refusal(SECTION.replace('power * 0.1', 'powr * 0.1'));
    expect(e.field).toBe('semantic.actions.shoot.do.1.dragTo.distance');
    expect(e.reason).toBe('"powr * 0.1" uses powr, which is not a number parameter of shoot (angle, power)');
    e = refusal(SECTION.replace('values: [up, down, left, right]', 'values: [up, down, left, warp]'));
    expect([e.field, e.reason]).toEqual([
      'semantic.actions.nudge.do.0.press',
      '"warp" is not a key name (e.g. up, w, space, enter, f5)',
    ]);
    e = refusal(SECTION.replace('      example: {row: 2, column: 3}', '      example: {row: 9, column: 3}'));
    expect(e.field).toBe('semantic.actions.slide.example.row');
  });

  it("the profile's allowedKeys bind what an expansion may press", () => {
    const e = refusal(SECTION.replace('values: [up, down, left, right]', 'values: [up, down, left, space]'));
    expect(e.reason).toBe('"space" is not among the profile\'s actions.allowedKeys');
  });

  it('the shape of a step and of a point', () => {
    let e = refusal(SECTION.replace('        - wait: 1 + power', '        - wait: 1\n          press: up'));
    expect(e.reason).toMatch(/a step does exactly one thing: give one of click, .* \(got press, wait\)/);
    e = refusal(SECTION.replace('{x: 0.5, y: 0.5, in: tray}', '{x: 0.5, row: 1}'));
    expect(e.reason).toMatch(/a point is a name, \{x, y\}.*got \{x, row\}/);
    const text = SECTION.replace('rows: 4, columns: 4', 'rows: 0, columns: 4');
    e = refusal(text);
    expect(e.field).toBe('semantic.grids.board.rows');
    expect(e.message).toMatch(/^profile p\.yaml:\d+: semantic\.grids\.board\.rows/);
    expect(e.line).toBeGreaterThan(lineOf(base, 'scoring:'));
  });

  it('offered and declared go together', () => {
    expect(() => parseProfile(base + SECTION, 'p.yaml')).toThrow(/does not offer them: set actions.semantic: true/);
    const noMoves = base.replace('actions:\n  gui: true\n', 'actions:\n  gui: true\n  semantic: true\n');
    expect(() => parseProfile(noMoves, 'p.yaml')).toThrow(
      /semantic action space needs moves: the profile "[^"]+" declares none/,
    );
  });
});

describe('expressions run in a sandbox', () => {
  it('numbers, parameters, arithmetic, comparisons, ?: and a few functions', () => {
    expect(compileExpr('0.5 + (card - (cards + 1) / 2) * 0.1').evaluate({ card: 1, cards: 3 })).toBeCloseTo(0.4);
    expect(compileExpr('target > 0 ? min(target, 3) : -1').evaluate({ target: 5 })).toBe(3);
    expect(compileExpr('clamp(x, 0, 1)').evaluate({ x: 7 })).toBe(1);
    expect([...compileExpr('a * b + a').params].sort()).toEqual(['a', 'b']);
  });

  it('nothing else: members, strings, calls to anything, assignment', () => {
    for (const [text, why] of [
      ['constructor.constructor', /MemberExpression/],
      ['"x" + 1', /only numbers/],
      ['process(1)', /calls process: the functions are min, max/],
      ['a = 1', /is not an expression/],
      ['[1, 2]', /ArrayExpression/],
      ['this', /ThisExpression/],
    ] as const)
      expect(() => compileExpr(text), text).toThrow(why);
  });
});

describe('answers and prompts', () => {
  const moves = semanticMoves({ profile })!;

  it('the answer parser reads calls as objects, call strings and bare lines', () => {
    const parse = (answer: string) => parseModelOutput(answer, { actionSpace: 'semantic', parseMove: moves.parse });
    const json =
      '### Reasoning\nx\n### Actions\n[{"action": "slide", "row": 2, "column": 3}, {"action": "nudge", "parameters": {"direction": "up"}}]';
    expect(parse(json)).toMatchObject({
      ok: true,
      actions: [
        { kind: 'semantic', move: 'slide(row=2, column=3)' },
        { kind: 'semantic', move: 'nudge(direction=up, steps=1)' },
      ],
    });
    expect(parse('### Actions\nshoot(angle=30, power=0.5), corner\nslide(1, 4)')).toMatchObject({
      ok: true,
      actions: [{ move: 'shoot(angle=30, power=0.5)' }, { move: 'corner' }, { move: 'slide(row=1, column=4)' }],
    });
    // One bad call and nothing of the answer is taken: the model is told why.
    expect(
      parse('### Actions\n[{"action": "slide", "row": 1, "column": 1}, {"action": "slide", "row": 7, "column": 1}]'),
    ).toEqual({
      ok: false,
      reasoning: '',
      error: 'action 2: slide: row is 7; it must be a whole number from 1 to 4',
    });
  });

  it('the system prompt lists every move with its parameters and an example', () => {
    const obs: Observation = {
      step: 0,
      episode: 0,
      frame: { data: Buffer.from([1]), mime: 'image/jpeg', width: 1000, height: 500, scale: 1 },
      geometry: fullSizeGeometry({ x: 0, y: 0, width: 1000, height: 500 }),
      tCapture: 0,
    };
    const system = new VlmAgent({ model: 'm', baseUrl: 'http://127.0.0.1:9/v1' }).systemPrompt(
      obs,
      'semantic',
      undefined,
      profile,
    );
    expect(system).toContain('- slide(row, column): Slide the tile at a cell into the gap.');
    expect(system).toContain('  - row: a whole number from 1 to 4 — from the top');
    expect(system).toContain('  Example: {"action":"slide","row":2,"column":3}');
    expect(system).toContain('  - steps: a whole number from 1 to 5 (default 1)');
    expect(system).toContain('- corner: Click inside the tray');
    expect(system).toContain('[{"action":"slide","row":2,"column":3}]');
    expect(system).not.toContain('PRESS an arrow key'); // the GUI controls stay out of the semantic prompt
  });

  it('the random baseline draws well-formed calls', async () => {
    const agent = new RandomAgent(7);
    const ctx = { actionSpace: 'semantic' as const, profile, signal: new AbortController().signal };
    const obs = { step: 0, episode: 0 } as Observation;
    for (let i = 0; i < 50; i++) {
      const d = await agent.decide(obs, ctx);
      const a = d.actions[0]!;
      expect(a.kind).toBe('semantic');
      if (a.kind === 'semantic') expect(api.expand(a.move, W).ok, a.move).toBe(true);
    }
  });
});
