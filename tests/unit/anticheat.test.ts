/** The anti-cheat guard's judgement on a process listing (the real listings: tests/windows, tests/e2e). */
import { describe, expect, it } from 'vitest';
import { guardAntiCheat, runningAntiCheats } from '../../electron/safety/anticheat.ts';

const procs = (...names: string[]) => names.map((name, i) => ({ pid: 100 + i, ppid: 1, name }));

describe('runningAntiCheats', () => {
  it('knows the systems by their processes and services, with or without .exe, in any case', () => {
    expect(runningAntiCheats(procs('explorer.exe', 'EasyAntiCheat_EOS.exe', 'vgc.exe', 'FACEITService'))).toEqual([
      { system: 'Easy Anti-Cheat', process: 'EasyAntiCheat_EOS.exe' },
      { system: 'Riot Vanguard', process: 'vgc.exe' },
      { system: 'FACEIT Anti-Cheat', process: 'FACEITService' },
    ]);
    expect(runningAntiCheats(procs('GameMon64.EXE', 'beservice_x64.exe'))).toEqual([
      { system: 'BattlEye', process: 'beservice_x64.exe' },
      { system: 'nProtect GameGuard', process: 'GameMon64.EXE' },
    ]);
  });

  it('reads names /proc cut to 15 characters (Proton runs them under Wine), and nothing that merely starts alike', () => {
    expect(runningAntiCheats(procs('EasyAntiCheat.e'))).toEqual([
      { system: 'Easy Anti-Cheat', process: 'EasyAntiCheat.e' },
    ]);
    expect(runningAntiCheats(procs('vgcx', 'beservice-helper', 'faceitless', 'bash', 'node'))).toEqual([]);
  });
});

describe('guardAntiCheat', () => {
  it('passes where none runs, refuses naming the system and the stake, and lets the person accept', () => {
    expect(guardAntiCheat({ accepted: false, procs: () => procs('bash') })).toEqual({ systems: [], accepted: false });
    expect(() => guardAntiCheat({ accepted: false, procs: () => procs('BEService.exe') })).toThrow(
      /^refusing to send input: BattlEye runs here \(process BEService\.exe\)\. Anti-cheat systems treat injected input .* may ban the account that plays .*pass --accept-anticheat-risk/,
    );
    expect(guardAntiCheat({ accepted: true, procs: () => procs('BEService.exe') })).toEqual({
      systems: ['BattlEye'],
      accepted: true,
    });
  });

  it('takes the profile’s word for a title that ships one, and refuses when it cannot look', () => {
    expect(() => guardAntiCheat({ accepted: false, profileAntiCheat: 'Easy Anti-Cheat', procs: () => [] })).toThrow(
      /^refusing to send input: the title's profile says it ships Easy Anti-Cheat\./,
    );
    expect(() =>
      guardAntiCheat({
        accepted: false,
        procs: () => {
          throw new Error('ps failed');
        },
      }),
    ).toThrow(/^cannot tell whether an anti-cheat system runs here \(ps failed\)\. .*--accept-anticheat-risk$/);
  });
});
