/**
 * Windows' process listing (`tasklist /FO CSV /NH`, parsed here from its real output format),
 * and the suspend guard on such a listing: no parents are listed there, yet system processes,
 * shells and our own parent are never suspended.
 */
import { describe, expect, it } from 'vitest';
import { parseTasklistCsv, refusal, listProcesses } from '../../native/process.ts';

// As tasklist prints it: CRLF, every field quoted, memory with the locale's grouping (here
// English and German), an image name with a comma, and the INFO line a filter with no match prints.
const TASKLIST = [
  '"System Idle Process","0","Services","0","8 K"',
  '"System","4","Services","0","2,396 K"',
  '"Registry","148","Services","0","71,924 K"',
  '"csrss.exe","816","Services","0","5.696 K"',
  '"svchost.exe","1124","Services","0","30,060 K"',
  '"explorer.exe","6780","Console","1","165,432 K"',
  '"cmd.exe","7010","Console","1","4,100 K"',
  '"node.exe","11820","Console","1","48,708 K"',
  '"Big, Game.exe","4200001","Console","1","512,000 K"',
  '"winemine.exe","4200002","Console","1","3,020 K"',
  '"say ""hi"".exe","4200003","Console","1","1,000 K"',
  '',
  'INFO: No tasks are running which match the specified criteria.',
  '',
].join('\r\n');

describe('tasklist CSV', () => {
  it('gives each process its pid and image name, commas and quotes inside names included', () => {
    const procs = parseTasklistCsv(TASKLIST);
    expect(procs.map((p) => [p.pid, p.name])).toEqual([
      [0, 'System Idle Process'],
      [4, 'System'],
      [148, 'Registry'],
      [816, 'csrss.exe'],
      [1124, 'svchost.exe'],
      [6780, 'explorer.exe'],
      [7010, 'cmd.exe'],
      [11820, 'node.exe'],
      [4200001, 'Big, Game.exe'],
      [4200002, 'winemine.exe'],
      [4200003, 'say "hi".exe'],
    ]);
    expect(procs.every((p) => p.ppid === 0)).toBe(true); // tasklist lists no parents
  });
});

describe('the suspend guard on a listing without parents', () => {
  const procs = parseTasklistCsv(TASKLIST);

  it('refuses system processes, shells and Node by image name', () => {
    for (const [pid, name] of [
      [816, 'csrss.exe'],
      [1124, 'svchost.exe'],
      [6780, 'explorer.exe'],
      [7010, 'cmd.exe'],
      [11820, 'node.exe'],
      [148, 'Registry'],
    ] as const) {
      expect(refusal(pid, procs)).toBe(`pid ${pid} (${name}) is a system or shell process`);
    }
  });

  it('lets a game be suspended', () => {
    // pids above Linux's pid_max: no /proc entry of another user's process can answer for them here.
    expect(refusal(4200001, procs)).toBeNull();
    expect(refusal(4200002, procs)).toBeNull();
  });

  it('refuses our own process and the one that started us, whatever the listing calls them', () => {
    const disguised = [
      ...procs,
      { pid: process.pid, ppid: 0, name: 'game.exe' },
      { pid: process.ppid, ppid: 0, name: 'launcher.exe' },
    ];
    expect(refusal(process.pid, disguised)).toMatch(/belongs to Gamepilot itself/);
    expect(refusal(process.ppid, disguised)).toMatch(/belongs to Gamepilot itself/);
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
