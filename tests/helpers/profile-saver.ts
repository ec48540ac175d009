/**
 * A shell-like process saving profile edits (electron/api/profiles.ts saveProfile) into one
 * config folder: prints `ready`, waits for a line on stdin, then saves the shared profile
 * `rounds` times with rules naming this writer and the round, and once its own profile; prints
 * JSON and exits. GAMEPILOT_GAMES_DIR points at the shipped profiles to edit.
 */
import { profileHandlers } from '../../electron/api/profiles.ts';
import type { WindowManager } from '../../native/types.ts';

const [configDir, label, shared, own, rounds] = process.argv.slice(2) as [string, string, string, string, string];
const h = profileHandlers({ configDir, wm: {} as WindowManager });
const edits = Object.fromEntries((await h.listProfiles({})).profiles.map((p) => [p.id, p.edit]));
process.stdout.write('ready\n');
process.stdin.once('data', async () => {
  for (let i = 0; i < Number(rounds); i++)
    await h.saveProfile({ id: shared, edit: { ...edits[shared]!, rules: `${label} round ${i}: ${'x'.repeat(4000)}` } });
  await h.saveProfile({ id: own, edit: { ...edits[own]!, rules: `${label} own` } });
  process.stdout.write(`${JSON.stringify({ label })}\n`);
  process.exit(0);
});
