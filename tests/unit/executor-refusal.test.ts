/**
 * A refusal never leaves input held: the executor stops the plan at a refused action and
 * releases what it holds (the plan's own trailing KEY_UP / MOUSE_UP never run), listing what it
 * released. Recorded against a fake OS input, so the order of what reached it is checked.
 */
import { describe, expect, it } from 'vitest';
import { ActionExecutor } from '../../electron/input/executor.ts';
import { fractionOfWindow, fullSizeGeometry } from '../../electron/input/coordinates.ts';
import { HeldInputTracker, heldInputRegistry } from '../../electron/safety/held-input.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { GuiAction } from '../../electron/actions/schema.ts';
import type { InputBackend } from '../../native/types.ts';
import { readFileSync } from 'node:fs';
import { parseProfile } from '../../electron/profiles/load.ts';
import { semanticApiOf } from '../../electron/profiles/profile-schema.ts';
import { ROOT } from '../helpers/cli.ts';

function recordingInput(): InputBackend & { sent: string[] } {
  const sent: string[] = [];
  let at = { x: 50, y: 50 };
  return {
    name: 'recording',
    sent,
    keyDown: async (k) => void sent.push(`down ${k}`),
    keyUp: async (k) => void sent.push(`up ${k}`),
    type: async (t) => void sent.push(`type ${t}`),
    move: async (x, y) => {
      at = { x, y };
    },
    position: async () => at,
    button: async (state, which) => void sent.push(`${state} mouse:${which}`),
    scroll: async () => void sent.push('scroll'),
  };
}

const inMemory = () => new HeldInputTracker(heldInputRegistry(mkdtempSync(path.join(tmpdir(), 'gp-held-'))));
const geometry = fullSizeGeometry({ x: 0, y: 0, width: 400, height: 300 });
const gui = (type: string, params: Record<string, unknown> = {}) => ({ kind: 'gui', type, params }) as GuiAction;

describe('ActionExecutor: a refusal releases what is held', () => {
  it('KEY_DOWN alt, a refused PRESS f4, KEY_UP alt: alt is released, and said', async () => {
    const input = recordingInput();
    const ex = new ActionExecutor({ input, heldInput: inMemory() });
    const out = await ex.execute(
      [gui('KEY_DOWN', { key: 'alt' }), gui('PRESS', { key: 'f4' }), gui('KEY_UP', { key: 'alt' })],
      geometry,
    );
    expect(out).toEqual([
      { action: 'KEY_DOWN', ok: true },
      {
        action: 'PRESS',
        ok: false,
        error: expect.stringMatching(/^alt\+F4 is a system combination/),
        released: ['LeftAlt'],
      },
    ]);
    expect(input.sent).toEqual(['down LeftAlt', 'up LeftAlt']);
    expect(ex.held()).toEqual([]);
  });

  it('keys and buttons held from earlier steps are released too', async () => {
    const input = recordingInput();
    const ex = new ActionExecutor({ input, heldInput: inMemory() });
    await ex.execute([gui('KEY_DOWN', { key: 'w' }), gui('MOUSE_DOWN')], geometry);
    expect(ex.held()).toEqual(['W', 'mouse:left']);
    const out = await ex.execute([gui('CLICK', { x: 5000, y: 10 })], geometry);
    expect(out[0]).toMatchObject({ action: 'CLICK', ok: false, released: ['W', 'mouse:left'] });
    expect(input.sent.slice(-2)).toEqual(['up W', 'up mouse:left']);
    expect(ex.held()).toEqual([]);
  });

  it('a refusal with nothing held lists nothing', async () => {
    const ex = new ActionExecutor({ input: recordingInput(), heldInput: inMemory() });
    const out = await ex.execute([gui('HOTKEY', { keys: ['ctrl', 'shift', 'f12'] })], geometry);
    expect(out).toEqual([{ action: 'HOTKEY', ok: false, error: expect.stringMatching(/stop hotkey/) }]);
  });
});

describe("ActionExecutor: a semantic move cannot press Gamepilot's hotkeys", () => {
  it('a move a profile spells as the stop hotkey expands, and is refused when played: nothing sent', async () => {
    // Fifteen's profile without its arrow-key list (which would refuse the keys first), with a
    // move whose one step is ctrl+shift+F12.
    const text = `${readFileSync(path.join(ROOT, 'games', 'sgt-fifteen', 'profile.yaml'), 'utf8')
      .replace('actions:\n  gui: true\n', 'actions:\n  gui: true\n  semantic: true\n')
      .replace('  allowedKeys: [up, down, left, right]\n', '')}semantic:
  resolution: 1000x500
  actions:
    halt:
      description: Press the keys.
      do:
        - hotkey: [ctrl, shift, f12]
`;
    const expanded = semanticApiOf(parseProfile(text, 'p.yaml'))!.expand('halt()', { width: 1000, height: 500 });
    if (!expanded.ok) throw new Error(expanded.error);
    const input = recordingInput();
    const out = await new ActionExecutor({ input, heldInput: inMemory() }).execute(expanded.actions, geometry);
    expect(out).toEqual([{ action: 'HOTKEY', ok: false, error: expect.stringMatching(/stop hotkey/) }]);
    expect(input.sent).toEqual([]);
  });
});

describe("ActionExecutor: the profile's pointer area", () => {
  it('a click outside it (a menu bar) is refused and nothing is sent; inside it, it clicks', async () => {
    const input = recordingInput();
    const ex = new ActionExecutor({ input, heldInput: inMemory() });
    // The window at (100, 50), 240×300; the area leaves out its top tenth (the menu bar).
    const window = { x: 100, y: 50, width: 240, height: 300 };
    const g = {
      ...fullSizeGeometry(window),
      pointerArea: fractionOfWindow(window, { x: 0, y: 0.1, width: 1, height: 0.9 }),
    };
    expect(g.pointerArea).toEqual({ x: 100, y: 80, width: 240, height: 270 });
    const [menu] = await ex.execute([gui('CLICK', { x: 20, y: 10 })], g);
    expect(menu).toMatchObject({ action: 'CLICK', ok: false, error: expect.stringMatching(/actions\.pointerArea/) });
    expect(input.sent).toEqual([]);
    // Scrolling or pressing a button where the pointer rests in the menu bar is refused too.
    await input.move(120, 60);
    const [scroll] = await ex.execute([gui('SCROLL', { dx: 0, dy: 1 })], g);
    expect(scroll).toMatchObject({ ok: false });
    expect(input.sent).toEqual([]);
    const [board] = await ex.execute([gui('CLICK', { x: 120, y: 150 })], g);
    expect(board).toMatchObject({ action: 'CLICK', ok: true, at: { x: 220, y: 200 } });
    expect(input.sent).toEqual(['down mouse:left', 'up mouse:left']);
  });
});
