/**
 * A second Gamepilot-like process for registry tests: rewrites its own entry of a shared
 * registry file `rounds` times as fast as it can, counting the times its latest write was
 * gone when read straight back (a lost update), then writes `<label>:final`, prints its
 * counts as JSON and waits for stdin to close.
 */
import { heldInputRegistry } from '../../electron/safety/held-input.ts';
import { currentOwner } from '../../electron/util/owner.ts';
import { sameOwner } from '../../electron/safety/owned-registry.ts';

const [configDir, label, rounds] = process.argv.slice(2) as [string, string, string];
const registry = heldInputRegistry(configDir);
const mine = () => registry.read().find((e) => sameOwner(e.owner, currentOwner()))?.items;
let lost = 0;
for (let i = 0; i < Number(rounds); i++) {
  registry.setMine([`${label}:${i}`]);
  if (mine()?.[0] !== `${label}:${i}`) lost++;
}
registry.setMine([`${label}:final`]);
process.stdout.write(`${JSON.stringify({ label, lost, owner: currentOwner() })}\n`);
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
