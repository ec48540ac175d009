/**
 * The anti-cheat guard on the real Windows process listing (Toolhelp32 under Wine): a stand-in
 * process with a BattlEye service's image name (a copy of node.exe named BEService.exe) is seen,
 * the guard refuses input naming BattlEye and the stake, the person's acceptance lets it through,
 * and once the process ends nothing is refused.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { guardAntiCheat, runningAntiCheats } from '../../electron/safety/anticheat.ts';
import { exited, nextLine, waitFor } from './helpers.ts';

let standIn: ChildProcess | undefined;
after(async () => {
  if (standIn && standIn.exitCode === null) {
    standIn.kill();
    await exited(standIn);
  }
});

describe('the anti-cheat guard (Windows)', () => {
  it('sees a BattlEye service process, refuses unless the risk is accepted, and lets go once it ends', async () => {
    assert.deepEqual(runningAntiCheats(), [], 'no anti-cheat runs in a fresh Wine prefix');
    assert.deepEqual(guardAntiCheat({ accepted: false }), { systems: [], accepted: false });

    const exe = path.join(mkdtempSync(path.join(os.tmpdir(), 'gp-anticheat-')), 'BEService.exe');
    copyFileSync(process.execPath, exe);
    standIn = spawn(exe, ['-e', "console.log('up'); setInterval(() => {}, 60000)"], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    standIn.once('error', () => {});
    assert.equal(await nextLine(standIn), 'up');

    const seen = await waitFor('the stand-in in the process listing', () =>
      runningAntiCheats().find((r) => r.system === 'BattlEye'),
    );
    assert.equal(seen.process.toLowerCase(), 'beservice.exe');
    assert.throws(
      () => guardAntiCheat({ accepted: false }),
      (err: Error) =>
        /^refusing to send input: BattlEye runs here \(process BEService\.exe\)\. Anti-cheat systems .* may ban the account .*--accept-anticheat-risk/i.test(
          err.message,
        ),
    );
    assert.deepEqual(guardAntiCheat({ accepted: true }), { systems: ['BattlEye'], accepted: true });

    standIn.kill();
    await exited(standIn);
    await waitFor('the stand-in gone from the listing', () => (runningAntiCheats().length === 0 ? true : undefined));
    assert.deepEqual(guardAntiCheat({ accepted: false }), { systems: [], accepted: false });
  });

  it('refuses a title whose profile names its anti-cheat, though none runs yet', () => {
    assert.throws(
      () => guardAntiCheat({ accepted: false, profileAntiCheat: 'Easy Anti-Cheat' }),
      // a RegExp alone is matched against String(error), "Error: …"; match the message itself
      { message: /^refusing to send input: the title's profile says it ships Easy Anti-Cheat\. / },
    );
  });
});
