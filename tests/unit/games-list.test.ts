/**
 * `gamepilot games` from the built CLI: every built-in, the two-seat arena games included, with
 * its seats and the commands that play it; `--json` is an array of objects.
 */
import { describe, expect, it } from 'vitest';
import { BUILTIN_GAMES, TWO_SEAT_GAMES } from '../../games/index.ts';
import { INGVP_GAME_IDS } from '../../games/ingvp/games.ts';
import { json, runCli } from '../helpers/cli.ts';

interface Listed {
  id: string;
  seats: number;
  mode?: string;
  commands: string[];
}

describe('gamepilot games', () => {
  it('lists every built-in with its seats and the commands that play it', async () => {
    const games = json<Listed[]>(await runCli(['games', '--json']));
    const ids = [...Object.keys(BUILTIN_GAMES), ...Object.keys(TWO_SEAT_GAMES)];
    expect(games.map((g) => g.id)).toEqual(ids);
    for (const g of games) {
      const two = g.id in TWO_SEAT_GAMES;
      expect(g.seats, g.id).toBe(two ? 2 : 1);
      expect(g.mode, g.id).toBe(two ? TWO_SEAT_GAMES[g.id]!.seats!.mode : undefined);
      // run --seats and arena play two seats; idc, record and bench --soak play one.
      for (const c of ['run', 'sweep']) expect(g.commands, g.id).toContain(c);
      for (const c of ['arena']) expect(g.commands.includes(c), `${g.id} ${c}`).toBe(two);
      for (const c of ['idc', 'record', 'bench']) expect(g.commands.includes(c), `${g.id} ${c}`).toBe(!two);
      expect(g.commands.includes('suite ingvp'), g.id).toBe(INGVP_GAME_IDS.includes(g.id));
    }

    const text = await runCli(['games']);
    expect(text.code).toBe(0);
    const lines = text.stdout.trim().split('\n');
    expect(lines).toHaveLength(ids.length);
    expect(lines.find((l) => l.startsWith('tictactoe-pvp '))).toMatch(/2 seats, PvP.*played by run, arena, sweep$/);
    expect(lines.find((l) => l.startsWith('switches '))).toMatch(/2 seats, co-op/);
    expect(lines.find((l) => l.startsWith('2048 '))).toMatch(/1 seat,/);
  });
});
