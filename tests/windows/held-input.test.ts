/**
 * The held-input safety net on Windows: a key a run holds is released by the process exit
 * handler (synchronously, by scan code through SendInput), by the global stop hotkey, and one
 * a killed run left down is released by the next start's recovery.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { heldInputRegistry } from '../../electron/safety/held-input.ts';
import { recoverCrashLeftovers } from '../../electron/safety/recovery.ts';
import { releaseHeldInChild, releaseHeldSync } from '../../electron/safety/release-input.ts';
import { win32 } from '../../native/win32-api.ts';
import { win32KeyToggle } from '../../native/win32-input.ts';
import { exited, nextLine, startProgram } from './helpers.ts';

const VK_LSHIFT = 0xa0;
const VK_Z = 0x5a;
const isDown = (vk: number) => (win32().GetAsyncKeyState(vk) & 0x8000) !== 0;
const shiftDown = () => isDown(VK_LSHIFT);
const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'gp-win-held-'));
const held = (config: string) =>
  heldInputRegistry(config)
    .read()
    .flatMap((e) => e.items);

after(() => {
  win32KeyToggle('LeftShift', false);
  win32KeyToggle('Z', false);
});

describe('held keys on Windows', () => {
  it('are released by the exit handler when the run exits', async () => {
    const config = tmp();
    const { child, line } = await startProgram('hold-key', [], { GAMEPILOT_CONFIG_DIR: config });
    assert.deepEqual(JSON.parse(line), [{ action: 'KEY_DOWN', ok: true }]);
    assert.ok(shiftDown(), 'Shift is down while the run holds it');
    assert.deepEqual(held(config), ['LeftShift']);
    child.stdin!.write('exit\n');
    assert.equal(await exited(child), 3);
    assert.equal(shiftDown(), false, 'the exit handler let go of Shift');
    assert.deepEqual(held(config), []);
  });

  it("a killed run's keys are released by the next start's recovery", async () => {
    const config = tmp();
    const { child, line } = await startProgram('hold-key', [], { GAMEPILOT_CONFIG_DIR: config });
    assert.deepEqual(JSON.parse(line), [{ action: 'KEY_DOWN', ok: true }]);
    child.kill(); // TerminateProcess: no exit handler
    await exited(child);
    assert.ok(shiftDown(), 'Shift stays down after the kill');
    const lines: string[] = [];
    const r = recoverCrashLeftovers(config, (l) => lines.push(l));
    assert.deepEqual(r.released, ['LeftShift']);
    assert.deepEqual(r.problems, []);
    assert.match(lines.join('\n'), /released LeftShift that a crashed run \(pid \d+\) had left held/);
    assert.equal(shiftDown(), false);
    assert.deepEqual(held(config), []);
  });

  it('are released when the global stop hotkey stops the run', async () => {
    const config = tmp();
    const { child, line } = await startProgram('hold-key', ['--stop-hotkey'], { GAMEPILOT_CONFIG_DIR: config });
    assert.deepEqual(JSON.parse(line), [{ action: 'KEY_DOWN', ok: true }]);
    assert.ok(isDown(VK_Z), 'Z is down while the run holds it');
    const said = nextLine(child);
    // A person presses Ctrl+Shift+F12.
    for (const k of ['LeftControl', 'LeftShift', 'F12']) win32KeyToggle(k, true);
    for (const k of ['F12', 'LeftShift', 'LeftControl']) win32KeyToggle(k, false);
    assert.equal(await said, 'stopped ["Z"]');
    assert.equal(await exited(child), 0);
    assert.equal(isDown(VK_Z), false, 'the stop released Z');
    assert.deepEqual(held(config), []);
  });

  it('releases what it knows and names what it does not', () => {
    win32KeyToggle('LeftShift', true);
    assert.ok(shiftDown());
    assert.deepEqual(releaseHeldSync(['LeftShift', 'NoSuchKey', 'mouse:fourth']), {
      released: ['LeftShift'],
      unknown: ['NoSuchKey', 'mouse:fourth'],
    });
    assert.equal(shiftDown(), false);
    win32KeyToggle('LeftShift', true);
    assert.deepEqual(releaseHeldInChild(['LeftShift']), { released: ['LeftShift'], unknown: [] });
    assert.equal(shiftDown(), false);
  });
});
