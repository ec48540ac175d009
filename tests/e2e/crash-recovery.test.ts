/**
 * The crash registries with real processes, real signals and the real X keyboard: two
 * processes writing one registry file keep each other's entries; recovery at start resumes and
 * releases only what dead owners left, never what a live owner lists, never a recycled pid.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { hostname } from 'node:os';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, runCli, spawnCli } from '../helpers/cli.ts';
import { heldInput, keycodeOf, releaseKeysyms } from '../helpers/xinput.ts';
import { processState } from '../../native/process.ts';
import { processStartMs, type Owner } from '../../electron/util/owner.ts';
import { HeldInputTracker, heldInputRegistry } from '../../electron/safety/held-input.ts';
import { ActionExecutor } from '../../electron/input/executor.ts';
import { suspendedRegistry } from '../../electron/safety/suspended.ts';
import { recoverCrashLeftovers, type CrashRecovery } from '../../electron/safety/recovery.ts';
import { fullSizeGeometry } from '../../electron/input/coordinates.ts';

const tmp = () => mkdtempSync(path.join(tmpdir(), 'gp-recover-'));
const children: ChildProcess[] = [];

afterEach(() => {
  for (const c of children.splice(0)) {
    try {
      process.kill(c.pid!, 'SIGCONT');
      c.kill('SIGKILL');
    } catch {
      /* gone */
    }
  }
});

/** A real process to stand for a game (or an owner): `sleep`, with its owner record. */
async function sleeper(): Promise<{ child: ChildProcess; owner: Owner }> {
  const child = spawn('sleep', ['120'], { stdio: 'ignore' });
  children.push(child);
  await new Promise((r) => child.once('spawn', r));
  return { child, owner: { pid: child.pid!, started: processStartMs(child.pid!)!, host: hostname() } };
}

/** An owner record of a process that has ended. */
async function deadOwner(): Promise<Owner> {
  const { child, owner } = await sleeper();
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  return owner;
}

describe('the registry file shared by several processes', () => {
  it("keeps every writer's entry: two processes rewriting their own entries 300 times lose nothing", async () => {
    const config = tmp();
    const writers = ['a', 'b'].map((label) =>
      spawn(
        process.execPath,
        ['--import', 'tsx', path.join(ROOT, 'tests', 'helpers', 'registry-writer.ts'), config, label, '300'],
        { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
      ),
    );
    const reports = await Promise.all(
      writers.map(
        (w) =>
          new Promise<{ label: string; lost: number; owner: Owner }>((resolve, reject) => {
            let text = '';
            w.stdout!.on('data', (d) => {
              text += d;
              if (text.includes('\n')) resolve(JSON.parse(text));
            });
            w.once('exit', (code) => reject(new Error(`writer ended (${code}) before reporting`)));
          }),
      ),
    );
    const entries = heldInputRegistry(config).read();
    for (const w of writers) w.stdin!.end();
    console.log(`lost updates with the lock: ${reports.map((r) => `${r.label} ${r.lost}`).join(', ')}`);
    expect(reports.map((r) => r.lost)).toEqual([0, 0]);
    expect(entries).toHaveLength(2);
    for (const r of reports) expect(entries).toContainEqual({ owner: r.owner, items: [`${r.label}:final`] });
  });

  it('moves an unreadable file aside instead of losing it, and carries on', () => {
    const config = tmp();
    const registry = suspendedRegistry(config);
    writeFileSync(registry.file, '{"entries": [ torn');
    registry.setMine([{ pid: 424242 }]);
    expect(readFileSync(`${registry.file}.corrupt`, 'utf8')).toBe('{"entries": [ torn');
    expect(registry.read()).toHaveLength(1);
  });
});

describe('recovery at start', () => {
  it('resumes what a dead owner suspended, but not what a live owner also froze, nor a recycled pid', async () => {
    const config = tmp();
    const [orphan, shared, recycled, liveOwner] = await Promise.all([sleeper(), sleeper(), sleeper(), sleeper()]);
    const dead = await deadOwner();
    for (const g of [orphan, shared, recycled]) process.kill(g.child.pid!, 'SIGSTOP');
    const pidOf = (g: { child: ChildProcess }) => g.child.pid!;
    writeFileSync(
      suspendedRegistry(config).file,
      JSON.stringify({
        entries: [
          {
            owner: dead,
            items: [
              { pid: pidOf(orphan), started: orphan.owner.started },
              { pid: pidOf(shared), started: shared.owner.started },
              { pid: pidOf(recycled), started: recycled.owner.started - 60_000 },
            ],
          },
          { owner: liveOwner.owner, items: [{ pid: pidOf(shared), started: shared.owner.started }] },
        ],
      }),
    );
    await expect.poll(() => processState(pidOf(recycled))).toBe('T');
    const lines: string[] = [];
    const r = recoverCrashLeftovers(config, (l) => lines.push(l));
    expect(r.resumed).toEqual([pidOf(orphan)]);
    expect(lines).toEqual([
      `resumed process(es) ${pidOf(orphan)} that a crashed run (pid ${dead.pid}) had left suspended`,
    ]);
    await expect.poll(() => processState(pidOf(orphan))).not.toBe('T');
    expect(processState(pidOf(shared))).toBe('T'); // the live owner's to resume
    expect(processState(pidOf(recycled))).toBe('T'); // not the process the dead owner stopped
    expect(suspendedRegistry(config).read()).toEqual([
      { owner: liveOwner.owner, items: [{ pid: pidOf(shared), started: shared.owner.started }] },
    ]);
  });

  it('resumes the pids of the older, ownerless file layout (as before owners were recorded)', async () => {
    const config = tmp();
    const game = await sleeper();
    process.kill(game.child.pid!, 'SIGSTOP');
    writeFileSync(suspendedRegistry(config).file, JSON.stringify({ pids: [game.child.pid] }));
    await expect.poll(() => processState(game.child.pid!)).toBe('T');
    const lines: string[] = [];
    expect(recoverCrashLeftovers(config, (l) => lines.push(l)).resumed).toEqual([game.child.pid]);
    expect(lines[0]).toMatch(/that an earlier, crashed run had left suspended/);
    await expect.poll(() => processState(game.child.pid!)).not.toBe('T');
    expect(suspendedRegistry(config).read()).toEqual([]);
  });

  it("releases the keys a dead owner held on the real X keyboard and leaves a live owner's down", async () => {
    const config = tmp();
    const live = await sleeper();
    const dead = await deadOwner();
    const [ctrl, shift] = [keycodeOf('Control_L'), keycodeOf('Shift_L')];
    try {
      releaseKeysyms(['Control_L', 'Shift_L']);
      execFileSync('xdotool', ['keydown', 'Control_L', 'Shift_L']);
      expect(heldInput().keys).toEqual(expect.arrayContaining([ctrl, shift]));
      writeFileSync(
        heldInputRegistry(config).file,
        JSON.stringify({
          entries: [
            { owner: dead, items: ['LeftControl', 'LeftShift', 'NotAKey'] },
            { owner: live.owner, items: ['LeftControl'] },
          ],
        }),
      );
      const lines: string[] = [];
      const r = recoverCrashLeftovers(config, (l) => lines.push(l));
      expect(r.released).toEqual(['LeftShift']);
      expect(r.problems).toEqual([]);
      expect(lines).toEqual([`released LeftShift that a crashed run (pid ${dead.pid}) had left held`]);
      expect(heldInput().keys).toEqual([ctrl]);
      expect(heldInputRegistry(config).read()).toEqual([{ owner: live.owner, items: ['LeftControl'] }]);
    } finally {
      releaseKeysyms(['Control_L', 'Shift_L']);
    }
  });

  it('keeps what it cannot release for the next start, and says why', async () => {
    const config = tmp();
    const dead = await deadOwner();
    writeFileSync(heldInputRegistry(config).file, JSON.stringify({ entries: [{ owner: dead, items: ['LeftShift'] }] }));
    const saved = process.env.DISPLAY;
    process.env.DISPLAY = ':4242'; // no such display: the release helper cannot reach it
    const lines: string[] = [];
    let r: CrashRecovery;
    try {
      r = recoverCrashLeftovers(config, (l) => lines.push(l));
    } finally {
      process.env.DISPLAY = saved;
    }
    expect(r.released).toEqual([]);
    expect(lines).toEqual([
      expect.stringMatching(/^warning: could not release LeftShift left held by a crashed run \(pid \d+\): \S/),
    ]);
    expect(heldInputRegistry(config).read()).toEqual([{ owner: dead, items: ['LeftShift'] }]);
    // With the display back, the next start finishes the job.
    expect(recoverCrashLeftovers(config, () => {}).released).toEqual(['LeftShift']);
    expect(existsSync(heldInputRegistry(config).file)).toBe(true);
    expect(heldInputRegistry(config).read()).toEqual([]);
  });
});

describe('a hold that cannot be written down', () => {
  it('is refused with a clear error and no key goes down; a momentary press still works', async () => {
    const notADir = path.join(tmp(), 'file');
    writeFileSync(notADir, 'a file where the config folder should be');
    const executor = new ActionExecutor({
      heldInput: new HeldInputTracker(heldInputRegistry(path.join(notADir, 'gamepilot'))),
    });
    const g = fullSizeGeometry({ x: 0, y: 0, width: 200, height: 200 });
    const [down] = await executor.execute([{ kind: 'gui', type: 'KEY_DOWN', params: { key: 'shift' } }], g);
    expect(down).toEqual({
      action: 'KEY_DOWN',
      ok: false,
      error: expect.stringMatching(/^input failed: cannot write .*held-input\.json: /),
    });
    expect(heldInput().keys).toEqual([]);
    expect(executor.held()).toEqual([]);
    const [tap] = await executor.execute([{ kind: 'gui', type: 'PRESS', params: { key: 'shift' } }], g);
    expect(tap).toEqual({ action: 'PRESS', ok: true });
    expect(heldInput().keys).toEqual([]);
  });
});

describe('every command that can freeze or press recovers at start', () => {
  /** A dead owner's Shift, really down on the X server, and its registry entry. */
  async function crashedShift(config: string) {
    const dead = await deadOwner();
    releaseKeysyms(['Shift_L']);
    execFileSync('xdotool', ['keydown', 'Shift_L']);
    writeFileSync(heldInputRegistry(config).file, JSON.stringify({ entries: [{ owner: dead, items: ['LeftShift'] }] }));
    expect(heldInput().keys).toContain(keycodeOf('Shift_L'));
    return dead;
  }

  it.each([['idc'], ['record']])('gamepilot %s (even one that then fails on its arguments)', async (command) => {
    const config = tmp();
    try {
      const dead = await crashedShift(config);
      const r = await runCli([command], { env: { GAMEPILOT_CONFIG_DIR: config } });
      expect(r.code).toBe(2); // a usage error: the required options are missing
      expect(r.stderr).toContain(`released LeftShift that a crashed run (pid ${dead.pid}) had left held`);
      expect(heldInput().keys).toEqual([]);
    } finally {
      releaseKeysyms(['Shift_L']);
    }
  });

  it('gamepilot web', async () => {
    const config = tmp();
    const dead = await crashedShift(config);
    const child = spawnCli(['web', '--no-demo', '--port', '0', '--runs-dir', tmp(), '--config-dir', config], {
      GAMEPILOT_CONFIG_DIR: config,
    });
    try {
      let stderr = '';
      child.stderr!.on('data', (d) => (stderr += d));
      await new Promise<void>((resolve, reject) => {
        child.stdout!.once('data', () => resolve()); // the URL: the shell is up
        child.once('exit', (code) => reject(new Error(`gamepilot web ended (${code}): ${stderr}`)));
      });
      expect(stderr).toContain(`released LeftShift that a crashed run (pid ${dead.pid}) had left held`);
      expect(heldInput().keys).toEqual([]);
    } finally {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      releaseKeysyms(['Shift_L']);
    }
  });
});
