/**
 * Freezing a Windows game for the latency modes (NtSuspendProcess/NtResumeProcess through the
 * core's ProcessFreezer): its timer stops while suspended and runs again once resumed; the
 * guard refuses our own processes and system ones on the real process listing; what a crashed
 * run left suspended is resumed by the next start's recovery.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ActionExecutor } from '../../electron/input/executor.ts';
import { HeldInputTracker, heldInputRegistry } from '../../electron/safety/held-input.ts';
import { recoverCrashLeftovers } from '../../electron/safety/recovery.ts';
import { ProcessFreezer, suspendedRegistry } from '../../electron/safety/suspended.ts';
import { processStartMs } from '../../electron/util/owner.ts';
import { listProcesses, refusal } from '../../native/process.ts';
import type { WindowInfo } from '../../native/types.ts';
import { Win32WindowManager } from '../../native/win32.ts';
import { Win32GdiCapture } from '../../native/win32-capture.ts';
import { differingPixels, exited, type Game, inputState, launchGame, sleep, startProgram, waitFor } from './helpers.ts';

const wm = new Win32WindowManager();
const capture = new Win32GdiCapture();
const tmp = (prefix: string) => mkdtempSync(path.join(os.tmpdir(), prefix));
let game: Game;
let w: WindowInfo;

/** Whether the window's picture changes within `ms` (the game's timer ticks once a second). */
async function changesWithin(ms: number): Promise<boolean> {
  const first = capture.grab(w.bounds);
  const until = Date.now() + ms;
  while (Date.now() < until) {
    await sleep(100);
    if (differingPixels(first, capture.grab(w.bounds)) > 0) return true;
  }
  return false;
}

before(async () => {
  game = await launchGame(wm);
  await wm.focus(game.window.id);
  w = (await wm.get(game.window.id))!;
  // The first click on the board starts the game's clock.
  const executor = new ActionExecutor({ heldInput: new HeldInputTracker(heldInputRegistry(tmp('gp-win-held-'))) });
  const [click] = await executor.execute(
    [{ kind: 'gui', type: 'CLICK', params: { x: Math.round(w.bounds.width / 2), y: w.bounds.height - 30 } }],
    { window: w.bounds, imageScale: 1, imageWidth: w.bounds.width, imageHeight: w.bounds.height, inputScale: 1 },
  );
  assert.ok(click?.ok);
  await sleep(300); // the opened cells drawn
  if (!(await changesWithin(3000))) {
    const at = { x: w.bounds.x + Math.round(w.bounds.width / 2), y: w.bounds.y + w.bounds.height - 30 };
    assert.fail(`the game clock runs (${await inputState(wm, game, w.bounds, at)})`);
  }
});
after(() => game?.close());

describe('the process listing', () => {
  it('lists the game with its image name, and this process with its parent', () => {
    const procs = listProcesses();
    const mine = procs.find((p) => p.pid === process.pid);
    assert.equal(mine?.name.toLowerCase(), path.basename(process.execPath).toLowerCase());
    assert.ok(procs.some((p) => p.pid === game.pid));
    const started = processStartMs(game.pid);
    assert.ok(started !== undefined && Math.abs(started - Date.now()) < 10 * 60_000, `start time ${started}`);
  });

  it('refuses to suspend this process, its parent, its children and system processes; allows the game', async () => {
    const procs = listProcesses();
    assert.match(refusal(process.pid, procs) ?? '', /belongs to Gamepilot itself/);
    assert.match(refusal(process.ppid, procs) ?? '', /belongs to Gamepilot itself/);
    const system = procs.filter((p) => /^(services|svchost|csrss|winlogon|explorer|lsass)\.exe$/i.test(p.name));
    assert.ok(system.length > 0, `system processes listed: ${procs.map((p) => p.name).join(', ')}`);
    for (const p of system) assert.match(refusal(p.pid, procs) ?? '', /is a system or shell process/);
    assert.equal(refusal(game.pid, procs), null);
    const freezer = new ProcessFreezer(suspendedRegistry(tmp('gp-win-susp-')));
    await assert.rejects(freezer.suspend(process.pid), /will not suspend: pid \d+ belongs to Gamepilot itself/);
  });
});

describe('suspend and resume', () => {
  it("stops the game's clock while suspended and restarts it when resumed, twice-suspended included", async () => {
    const config = tmp('gp-win-susp-');
    const freezer = new ProcessFreezer(suspendedRegistry(config));
    assert.deepEqual(await freezer.suspend(game.pid), [game.pid]);
    assert.deepEqual(
      suspendedRegistry(config)
        .read()
        .flatMap((e) => e.items.map((i) => i.pid)),
      [game.pid],
    );
    assert.equal(await changesWithin(2500), false, 'nothing moves while suspended');
    // A second freeze of a frozen game must not need a second resume (NtSuspendProcess nests).
    await freezer.suspend(game.pid);
    assert.deepEqual(freezer.resumeAll(), [game.pid]);
    assert.ok(await changesWithin(4000), 'the clock runs again after one resume');
    assert.deepEqual(suspendedRegistry(config).read(), []);
  });

  it('what a crashed run left suspended is resumed at the next start', async () => {
    const config = tmp('gp-win-crash-');
    const { child, line } = await startProgram('freeze-and-wait', [String(game.pid), config]);
    assert.equal(line, `frozen [${game.pid}]`);
    assert.equal(await changesWithin(2500), false, 'suspended by the other process');
    child.kill(); // TerminateProcess: no exit handler runs
    await exited(child);
    assert.equal(await changesWithin(2000), false, 'still suspended after its freezer died');
    const lines: string[] = [];
    const r = recoverCrashLeftovers(config, (l) => lines.push(l));
    assert.deepEqual(r.resumed, [game.pid]);
    assert.deepEqual(r.problems, []);
    assert.match(lines.join('\n'), new RegExp(`resumed process\\(es\\) ${game.pid} that a crashed run`));
    assert.ok(await changesWithin(4000), 'the clock runs again');
    assert.ok(existsSync(suspendedRegistry(config).file));
    assert.deepEqual(suspendedRegistry(config).read(), []);
  });
});

describe('resume of a process that is gone', () => {
  it('is no error', async () => {
    const other = await launchGame(wm);
    const freezer = new ProcessFreezer(suspendedRegistry(tmp('gp-win-gone-')));
    await freezer.suspend(other.pid);
    other.close();
    await waitFor('the other game gone', () => !listProcesses().some((p) => p.pid === other.pid));
    assert.deepEqual(freezer.resumeAll(), [other.pid]);
  });
});
