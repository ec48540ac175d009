/** Which `gamepilot` commands play each built-in game (`gamepilot games` lists them). */
import type { Command } from 'commander';
import { BUILTIN_GAMES, TWO_SEAT_GAMES } from '../../games/index.ts';
import { INGVP_GAME_IDS } from '../../games/ingvp/games.ts';

/**
 * The commands that play each built-in game, read from the declaration: those whose --game offers
 * it, and the two that take games another way (`suite ingvp` its six, `sweep` any built-in).
 */
export function commandsPlaying(program: Command): Map<string, string[]> {
  const by = new Map<string, string[]>();
  const add = (id: string, command: string) => by.set(id, [...(by.get(id) ?? []), command]);
  for (const cmd of program.commands)
    for (const leaf of cmd.commands.length ? cmd.commands : [cmd])
      for (const id of leaf.options.find((o) => o.long === '--game')?.argChoices ?? [])
        add(id, cmd === leaf ? leaf.name() : `${cmd.name()} ${leaf.name()}`);
  for (const id of INGVP_GAME_IDS) add(id, 'suite ingvp');
  for (const id of [...Object.keys(BUILTIN_GAMES), ...Object.keys(TWO_SEAT_GAMES)]) add(id, 'sweep');
  return by;
}
