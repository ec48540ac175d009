/**
 * The profile editor's Try button sends a semantic move to a window: the person's click, but
 * the same guards as a run's input hold. A title whose profile names an anti-cheat system, or
 * a machine where one runs, gets nothing (a try cannot accept that risk; a run can), and a move
 * spelling one of the person's own hotkeys from Settings is refused, not pressed.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { profileHandlers } from '../../electron/api/profiles.ts';
import { userProfilesDir } from '../../electron/profiles/registry.ts';
import type { InputBackend, WindowInfo, WindowManager } from '../../native/types.ts';
import { ROOT } from '../helpers/cli.ts';

const WINDOW: WindowInfo = {
  id: '0x00000042',
  title: 'Fifteen',
  pid: 1,
  bounds: { x: 0, y: 0, width: 1000, height: 500 },
  scaleFactor: 1,
  minimized: false,
};

/** Fifteen's profile as a user profile `id`, with two moves: `up()` and `halt()` (ctrl+alt+h). */
function profileDir(id: string, extra = ''): string {
  const configDir = mkdtempSync(path.join(tmpdir(), 'gp-try-'));
  const text = `${readFileSync(path.join(ROOT, 'games', 'sgt-fifteen', 'profile.yaml'), 'utf8')
    .replace('id: sgt-fifteen\n', `id: ${id}\n${extra}`)
    .replace('actions:\n  gui: true\n', 'actions:\n  gui: true\n  semantic: true\n')
    .replace('  allowedKeys: [up, down, left, right]\n', '')}semantic:
  resolution: 1000x500
  actions:
    up:
      description: Slide a tile up.
      do:
        - press: up
    halt:
      description: Press the keys.
      do:
        - hotkey: [ctrl, alt, h]
`;
  mkdirSync(userProfilesDir(configDir), { recursive: true });
  writeFileSync(path.join(userProfilesDir(configDir), `${id}.yaml`), text);
  return configDir;
}

function desktop() {
  const sent: string[] = [];
  const focused: string[] = [];
  const wm = {
    get: async (id: string) => (id === WINDOW.id ? WINDOW : undefined),
    focus: async (id: string) => void focused.push(id),
  } as unknown as WindowManager;
  const input: InputBackend = {
    name: 'recording',
    keyDown: async (k) => void sent.push(`down ${k}`),
    keyUp: async (k) => void sent.push(`up ${k}`),
    type: async (t) => void sent.push(`type ${t}`),
    move: async () => {},
    position: async () => ({ x: 0, y: 0 }),
    button: async (state, which) => void sent.push(`${state} mouse:${which}`),
    scroll: async () => void sent.push('scroll'),
  };
  return { wm, input, sent, focused };
}

describe("Try: a profile's move on a window", () => {
  it('is refused, untouched, where the profile names an anti-cheat system or one runs', async () => {
    const named = desktop();
    const shipsOne = profileHandlers({
      configDir: profileDir('protected-title', 'antiCheat: BattlEye\n'),
      wm: named.wm,
      input: named.input,
      procs: () => [],
    });
    await expect(
      shipsOne.trySemanticAction({ id: 'protected-title', windowId: WINDOW.id, call: 'up()' }),
    ).rejects.toThrow(/ships BattlEye.*ban.*A tried action is never sent there; nothing was sent/s);
    expect(named.sent).toEqual([]);
    expect(named.focused).toEqual([]); // not even raised

    const running = desktop();
    const runs = profileHandlers({
      configDir: profileDir('plain-title'),
      wm: running.wm,
      input: running.input,
      procs: () => [{ pid: 4242, ppid: 1, name: 'BEService.exe' }],
    });
    await expect(runs.trySemanticAction({ id: 'plain-title', windowId: WINDOW.id, call: 'up()' })).rejects.toThrow(
      /BattlEye runs here \(process BEService\.exe\)/,
    );
    expect(running.sent).toEqual([]);
    expect(running.focused).toEqual([]);
  });

  it("never presses the person's own hotkey from Settings; other moves reach the window", async () => {
    const d = desktop();
    const handlers = profileHandlers({
      configDir: profileDir('plain-title'),
      wm: d.wm,
      input: d.input,
      procs: () => [],
      hotkeys: () => ({ stop: 'Control+Alt+H', takeover: 'Control+Shift+F11' }),
    });
    const halt = await handlers.trySemanticAction({ id: 'plain-title', windowId: WINDOW.id, call: 'halt()' });
    expect(halt.ok).toBe(false);
    expect(halt.outcomes).toEqual([{ action: 'HOTKEY', ok: false, error: expect.stringMatching(/stop hotkey/) }]);
    expect(d.sent).toEqual([]);

    const up = await handlers.trySemanticAction({ id: 'plain-title', windowId: WINDOW.id, call: 'up()' });
    expect(up.ok).toBe(true);
    expect(d.sent).toEqual(['down Up', 'up Up']);
  });
});
