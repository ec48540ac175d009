/**
 * The shipped profiles that declare a semantic section (Angry Birds, Slay the Spire, Plants vs.
 * Zombies, Baba Is You): each file loads (schema and compiler accept it), the model's list names
 * every move with its parameters, every move expands into the exact GUI actions the section's
 * geometry gives in a 1920x1080 window (worked by hand in the comments), and a call out of range
 * is refused with the parameter named.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.ts';
import { loadProfileFile } from '../../electron/profiles/load.ts';
import { semanticApiOf, type Profile } from '../../electron/profiles/profile-schema.ts';
import { compileSemanticSection, type SemanticApi } from '../../electron/profiles/semantic-api.ts';
import type { GuiAction } from '../../electron/actions/schema.ts';

const WINDOW = { width: 1920, height: 1080 };

const load = (id: string): { profile: Profile; api: SemanticApi } => {
  const { profile } = loadProfileFile(path.join(ROOT, 'games', id, 'profile.yaml'));
  const api = semanticApiOf(profile);
  if (!api) throw new Error(`${id} declares no semantic actions`);
  return { profile, api };
};

/** The GUI actions of a call, or the test fails with the refusal. */
const expand = (api: SemanticApi, call: string): GuiAction[] => {
  const r = api.expand(call, WINDOW);
  if (!r.ok) throw new Error(`${call}: ${r.error}`);
  return r.actions;
};

/** The refusal of a call that must not expand. */
const refusal = (api: SemanticApi, call: string): string => {
  const r = api.expand(call, WINDOW);
  if (r.ok) throw new Error(`${call} was accepted: ${JSON.stringify(r.actions)}`);
  return r.error;
};

const gui = (type: GuiAction['type'], params: Record<string, unknown>) => ({ kind: 'gui', type, params });
const moveTo = (x: number, y: number, duration: number) => gui('MOVE_TO', { x, y, duration });
const dragTo = (x: number, y: number, duration: number) => gui('DRAG_TO', { x, y, duration });
const click = (x: number, y: number) => gui('CLICK', { x, y });
const rightClick = (x: number, y: number) => gui('RIGHT_CLICK', { x, y });
const wait = (duration: number) => gui('WAIT', { duration });
const press = (key: string, duration: number) => gui('PRESS', { key, duration });

/** Every move of the list, each with its signature and one line per parameter. */
function expectListed(api: SemanticApi, moves: Record<string, string[]>) {
  const text = api.describe();
  expect(api.moves.map((m) => m.name)).toEqual(Object.keys(moves));
  for (const [name, params] of Object.entries(moves)) {
    const sig = params.length ? `${name}(${params.join(', ')})` : name;
    expect(text).toContain(`- ${sig}: `);
    for (const p of params) expect(text).toMatch(new RegExp(`\\n {2}- ${p}: (a whole number|a number|one of) `));
    expect(text).toContain(`Example: {"action":"${name}"`);
  }
}

describe('Angry Birds: shoot(angle, power), wait, click(x, y)', () => {
  const { profile, api } = load('angry-birds');

  it('loads with both spaces offered, and lists every move', () => {
    expect(profile.actions).toMatchObject({ gui: true, semantic: true });
    expect(profile.semantic?.resolution).toBe('1920x1080');
    expectListed(api, { shoot: ['angle', 'power'], wait: [], click: ['x', 'y'] });
  });

  it('shoot grabs the bird and pulls it back the opposite way of the launch, by power × the full pull', () => {
    // The bird: (0.16, 0.6) of 1920x1080 = (307.2, 648) → (307, 648). The full pull is 0.06 window widths
    // = 115.2 px, in the direction angle + 180°; y is scaled by width/height so the angle holds in pixels.
    const grab = moveTo(307, 648, 0.2);
    // angle 0, power 1: pulled straight left, 307.2 − 115.2 = 192.
    expect(expand(api, 'shoot(angle=0, power=1)')).toEqual([grab, dragTo(192, 648, 0.5), wait(5)]);
    // angle 45, power 1: 115.2 × cos 45° = 81.46 px left and down: x 307.2 − 81.46 = 225.74 → 226,
    // y 648 + 81.46 = 729.46 → 729.
    expect(expand(api, 'shoot(angle=45, power=1)')).toEqual([grab, dragTo(226, 729, 0.5), wait(5)]);
    // angle 90, power 1: pulled straight down, 648 + 115.2 = 763.2 → 763.
    expect(expand(api, 'shoot(angle=90, power=1)')).toEqual([grab, dragTo(307, 763, 0.5), wait(5)]);
    // angle 45, power 0.5: 57.6 × cos 45° = 40.73: x 307.2 − 40.73 = 266.47 → 266, y 648 + 40.73 = 688.73 → 689.
    expect(expand(api, 'shoot(45, 0.5)')).toEqual([grab, dragTo(266, 689, 0.5), wait(5)]);
  });

  it('wait watches; click is a plain click in percent of the window', () => {
    expect(expand(api, 'wait')).toEqual([wait(3)]);
    // 50 % of 1920 = 960; 12.5 % of 1080 = 135.
    expect(expand(api, 'click(x=50, y=12.5)')).toEqual([click(960, 135)]);
  });

  it('refuses a call out of range, naming the parameter', () => {
    expect(refusal(api, 'shoot(angle=120, power=1)')).toMatch(/angle is 120; it must be a number from 0 to 90/);
    expect(refusal(api, 'shoot(angle=-5, power=1)')).toMatch(/angle is -5/);
    expect(refusal(api, 'shoot(angle=45, power=1.5)')).toMatch(/power is 1\.5; it must be a number from 0 to 1/);
    expect(refusal(api, 'shoot(angle=45)')).toMatch(/shoot needs power/);
    expect(refusal(api, 'click(x=101, y=5)')).toMatch(/x is 101/);
  });
});

describe('Slay the Spire: play, end_turn, pick_reward, click', () => {
  const { profile, api } = load('slay-the-spire');

  it('loads with both spaces offered, and lists every move', () => {
    expect(profile.actions).toMatchObject({ gui: true, semantic: true });
    expect(profile.semantic?.resolution).toBe('1920x1080');
    expectListed(api, {
      play: ['card', 'cards', 'target', 'enemies'],
      end_turn: [],
      pick_reward: ['card'],
      click: ['x', 'y'],
    });
  });

  it('play rests on the card, then drags it to the enemy (or the middle for target 0)', () => {
    // Card k of n: x = 0.5 + (k − (n + 1) / 2) × (0.116 − 0.0043 × n), y = 0.87 → 939.6 → 940.
    // n = 5: spacing 0.116 − 0.0215 = 0.0945. Card 1: 0.5 − 2 × 0.0945 = 0.311 → 597.12 → 597;
    // card 5: 0.689 → 1322.88 → 1323; card 3: 0.5 → 960.
    // Enemy t of m: x = 0.52 + (t − 0.5) × 0.46 / m, y = 0.58 → 626.4 → 626. 1 of 1: 0.75 → 1440.
    const play = (cardX: number, to: [number, number]) => [
      moveTo(cardX, 940, 0.15),
      wait(0.2),
      dragTo(to[0], to[1], 0.4),
      wait(0.5),
    ];
    expect(expand(api, 'play(card=1, cards=5, target=1, enemies=1)')).toEqual(play(597, [1440, 626]));
    expect(expand(api, 'play(card=5, cards=5, target=1)')).toEqual(play(1323, [1440, 626]));
    // Target 0 (the default): dragged up to (0.5, 0.45) → (960, 486).
    expect(expand(api, 'play(card=3, cards=5)')).toEqual(play(960, [960, 486]));
    // n = 2: spacing 0.116 − 0.0086 = 0.1074; card 2: 0.5 + 0.5 × 0.1074 = 0.5537 → 1063.1 → 1063.
    // Enemy 2 of 2: 0.52 + 1.5 × 0.23 = 0.865 → 1660.8 → 1661.
    expect(expand(api, 'play(card=2, cards=2, target=2, enemies=2)')).toEqual(play(1063, [1661, 626]));
    // n = 10: spacing 0.116 − 0.043 = 0.073; card 1: 0.5 − 4.5 × 0.073 = 0.1715 → 329.28 → 329.
    // Enemy 1 of 2: 0.52 + 0.5 × 0.23 = 0.635 → 1219.2 → 1219.
    expect(expand(api, 'play(card=1, cards=10, target=1, enemies=2)')).toEqual(play(329, [1219, 626]));
  });

  it('end_turn clicks End Turn; pick_reward clicks one of three reward cards; click is in percent', () => {
    // End Turn at (0.854167, 0.805556) = (1640.0, 870.0).
    expect(expand(api, 'end_turn')).toEqual([click(1640, 870), wait(1)]);
    // Reward card k: x = 0.5 + (k − 2) × 0.177083 (340 px apart), y = 0.55 → 594.
    // 1: 0.322917 → 620.0; 2: 960; 3: 0.677083 → 1300.0.
    expect(expand(api, 'pick_reward(card=1)')).toEqual([click(620, 594), wait(0.5)]);
    expect(expand(api, 'pick_reward(2)')).toEqual([click(960, 594), wait(0.5)]);
    expect(expand(api, 'pick_reward(card=3)')).toEqual([click(1300, 594), wait(0.5)]);
    // 25 % of 1920 = 480, 75 % of 1080 = 810.
    expect(expand(api, 'click(x=25, y=75)')).toEqual([click(480, 810)]);
  });

  it('refuses a call out of range, naming the parameter; a card or enemy beyond the count falls outside', () => {
    expect(refusal(api, 'play(card=11, cards=5)')).toMatch(/card is 11; it must be a whole number from 1 to 10/);
    expect(refusal(api, 'play(card=1, cards=5, target=6, enemies=5)')).toMatch(/target is 6/);
    expect(refusal(api, 'play(card=1, cards=5, target=1, enemies=0)')).toMatch(/enemies is 0/);
    expect(refusal(api, 'play(card=1)')).toMatch(/play needs cards/);
    expect(refusal(api, 'pick_reward(card=4)')).toMatch(/card is 4; it must be a whole number from 1 to 3/);
    // Cross-parameter limits have no parameter check: the expression sends the point outside the window.
    expect(refusal(api, 'play(card=6, cards=5)')).toMatch(/play, step 1: .*outside the window/);
    expect(refusal(api, 'play(card=1, cards=5, target=2, enemies=1)')).toMatch(/play, step 3: .*outside the window/);
  });
});

describe('Plants vs. Zombies: plant(slot, row, column), collect(x, y), wait', () => {
  const { profile, api } = load('plants-vs-zombies');

  it('loads with both spaces offered, and lists every move', () => {
    expect(profile.actions).toMatchObject({ gui: true, semantic: true });
    expect(profile.semantic?.resolution).toBe('1920x1080');
    expect(profile.semantic?.adjust).toMatch(/800x600/);
    expectListed(api, { plant: ['slot', 'row', 'column'], collect: ['x', 'y'], wait: [] });
  });

  it('plant clicks the packet, then the cell, then right-clicks the cell to drop a packet left in hand', () => {
    // The 4:3 picture is 1440x1080 from x = 240, 1.8 screen px per game px (800x600).
    // Packet s (game): x 95 + 59 (s − 1) .. + 50, y 8 .. 78 → centre (120 + 59 (s − 1), 43);
    // screen: x 240 + 1.8 × 120 = 456 for slot 1, + 106.2 per slot; y 1.8 × 43 = 77.4 → 77.
    // Slot 8: 456 + 7 × 106.2 = 1199.4 → 1199; slot 3: 668.4 → 668.
    // Cell (r, c) (game): 80x100 from (40, 80), centre (40 + 80 (c − 1) + 40, 80 + 100 (r − 1) + 50)
    // = (80 c, 100 r + 30); screen: x 240 + 1.8 × 80 c = 240 + 144 c, y 1.8 × (100 r + 30).
    // (1, 1): (384, 234); (5, 9): (240 + 1296, 954) = (1536, 954); (3, 5): (960, 594).
    const plant = (packet: [number, number], cell: [number, number]) => [
      click(...packet),
      wait(0.1),
      click(...cell),
      rightClick(...cell),
    ];
    expect(expand(api, 'plant(slot=1, row=1, column=1)')).toEqual(plant([456, 77], [384, 234]));
    expect(expand(api, 'plant(slot=8, row=5, column=9)')).toEqual(plant([1199, 77], [1536, 954]));
    expect(expand(api, 'plant(3, 3, 5)')).toEqual(plant([668, 77], [960, 594]));
  });

  it('collect clicks where the model says a sun is; wait passes a second', () => {
    // 50 % of 1920 = 960, 25 % of 1080 = 270.
    expect(expand(api, 'collect(x=50, y=25)')).toEqual([click(960, 270)]);
    expect(expand(api, 'wait')).toEqual([wait(1)]);
  });

  it('refuses a call out of range, naming the parameter', () => {
    expect(refusal(api, 'plant(slot=9, row=1, column=1)')).toMatch(/slot is 9; it must be a whole number from 1 to 8/);
    expect(refusal(api, 'plant(slot=1, row=6, column=1)')).toMatch(/row is 6; it must be a whole number from 1 to 5/);
    expect(refusal(api, 'plant(slot=1, row=1, column=10)')).toMatch(/column is 10/);
    expect(refusal(api, 'plant(slot=1, row=1.5, column=1)')).toMatch(/row is 1\.5/);
    expect(refusal(api, 'collect(x=101, y=5)')).toMatch(/x is 101; it must be a number from 0 to 100/);
  });
});

describe('Baba Is You: move(direction, steps), wait, undo(steps), restart', () => {
  const { profile, api } = load('baba-is-you');

  it('loads with both spaces offered, and lists every move', () => {
    expect(profile.actions).toMatchObject({ gui: true, semantic: true, maxActionsPerStep: 5 });
    expect(profile.semantic?.resolution).toBe('1920x1080');
    expectListed(api, { move: ['direction', 'steps'], wait: [], undo: ['steps'], restart: [] });
  });

  it('needs the game’s wait, undo and restart keys among allowedKeys (the compiler refuses others)', () => {
    expect(profile.actions.allowedKeys).toEqual(['up', 'down', 'left', 'right', 'space', 'z', 'r']);
    const { api: none, issues } = compileSemanticSection(profile.semantic!, ['up', 'down', 'left', 'right']);
    expect(none).toBeUndefined();
    expect(issues.map((i) => i.message)).toEqual([
      '"space" is not among the profile\'s actions.allowedKeys',
      '"z" is not among the profile\'s actions.allowedKeys',
      '"r" is not among the profile\'s actions.allowedKeys',
    ]);
  });

  it('each move is that arrow key, held 0.03 s, once per tile', () => {
    for (const d of ['up', 'down', 'left', 'right'])
      expect(expand(api, `move(direction=${d})`)).toEqual([press(d, 0.03)]);
    expect(expand(api, 'move(left, 3)')).toEqual([press('left', 0.03), press('left', 0.03), press('left', 0.03)]);
    expect(expand(api, 'move(direction=right, steps=10)')).toEqual(Array(10).fill(press('right', 0.03)));
  });

  it('wait is space, undo is z (per turn), restart is r and a second for the level to come back', () => {
    expect(expand(api, 'wait')).toEqual([press('space', 0.03)]);
    expect(expand(api, 'undo')).toEqual([press('z', 0.03)]);
    expect(expand(api, 'undo(steps=2)')).toEqual([press('z', 0.03), press('z', 0.03)]);
    expect(expand(api, 'restart')).toEqual([press('r', 0.03), wait(1)]);
  });

  it('refuses a call out of range, naming the parameter', () => {
    expect(refusal(api, 'move(direction=north)')).toMatch(
      /direction is "north"; it must be one of up, down, left, right/,
    );
    expect(refusal(api, 'move(direction=up, steps=11)')).toMatch(/steps is 11; it must be a whole number from 1 to 10/);
    expect(refusal(api, 'move(direction=up, steps=0)')).toMatch(/steps is 0/);
    expect(refusal(api, 'undo(steps=20)')).toMatch(/steps is 20/);
    expect(refusal(api, 'jump')).toMatch(/unknown action "jump"; the actions are move, wait, undo, restart/);
  });
});
