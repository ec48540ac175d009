/**
 * The suspend guard on a Windows-shaped listing (image names with .exe, parents as a Toolhelp32
 * snapshot gives them, including a parent that has exited): system processes, shells and our
 * own ancestors are never suspended. The real snapshot is exercised under Wine
 * (tests/windows/, `npm run test:windows`).
 */
import { describe, expect, it } from 'vitest';
import { listProcesses, processTree, refusal, type ProcInfo } from '../../native/process.ts';

// pids above Linux's pid_max, so no /proc entry on this machine can answer for them.
const SNAPSHOT: ProcInfo[] = [
  { pid: 0, ppid: 0, name: '[System Process]' },
  { pid: 4, ppid: 0, name: 'System' },
  { pid: 148, ppid: 4, name: 'Registry' },
  { pid: 816, ppid: 700, name: 'csrss.exe' },
  { pid: 1124, ppid: 900, name: 'svchost.exe' },
  { pid: 6780, ppid: 6700, name: 'explorer.exe' },
  { pid: 7010, ppid: 6780, name: 'cmd.exe' },
  { pid: 11820, ppid: 7010, name: 'node.exe' },
  { pid: 4200001, ppid: 6780, name: 'Big, Game.exe' },
  { pid: 4200004, ppid: 4200001, name: 'GameHelper.exe' },
  { pid: 4200002, ppid: 4199999, name: 'winemine.exe' }, // its launcher has exited
];

describe('the suspend guard on a Windows listing', () => {
  it('refuses system processes, shells and Node by image name', () => {
    for (const [pid, name] of [
      [816, 'csrss.exe'],
      [1124, 'svchost.exe'],
      [6780, 'explorer.exe'],
      [7010, 'cmd.exe'],
      [11820, 'node.exe'],
      [148, 'Registry'],
    ] as const) {
      expect(refusal(pid, SNAPSHOT)).toBe(`pid ${pid} (${name}) is a system or shell process`);
    }
  });

  it('lets a game be suspended, also one whose parent has exited', () => {
    expect(refusal(4200001, SNAPSHOT)).toBeNull();
    expect(refusal(4200002, SNAPSHOT)).toBeNull();
  });

  it("takes a game's children along", () => {
    expect(processTree(4200001, SNAPSHOT)).toEqual([4200001, 4200004]);
  });

  it('refuses our own process, the one that started us and its parent, whatever the listing calls them', () => {
    const grandparent = 4200100;
    const disguised = [
      ...SNAPSHOT,
      { pid: process.pid, ppid: process.ppid, name: 'game.exe' },
      { pid: process.ppid, ppid: grandparent, name: 'launcher.exe' },
      { pid: grandparent, ppid: 6780, name: 'shell.exe' },
    ];
    expect(refusal(process.pid, disguised)).toMatch(/belongs to Gamepilot itself/);
    expect(refusal(process.ppid, disguised)).toMatch(/belongs to Gamepilot itself/);
    expect(refusal(grandparent, disguised)).toMatch(/belongs to Gamepilot itself/);
  });
});

describe('the listing on this machine', () => {
  it('still finds our ancestors beyond the parent where parents are listed', () => {
    const procs = listProcesses();
    const parent = procs.find((p) => p.pid === process.ppid);
    expect(parent).toBeDefined();
    expect(parent!.ppid).toBeGreaterThan(1); // vitest's worker → vitest → its launcher
    expect(refusal(parent!.ppid, procs)).toBe(`pid ${parent!.ppid} belongs to Gamepilot itself`);
  });
});
