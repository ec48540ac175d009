/**
 * Editing a profile that lives in another folder (a shipped one) writes the user's copy into
 * the config folder: the evidence frames its list keeps must come along, or their names would
 * point at nothing.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { profileHandlers } from '../../electron/api/profiles.ts';
import type { WindowManager } from '../../native/types.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'gp-evidence-copy-'));
const games = path.join(tmp, 'games');
const configDir = path.join(tmp, 'config');
let before: string | undefined;

beforeEach(() => {
  before = process.env.GAMEPILOT_GAMES_DIR;
  process.env.GAMEPILOT_GAMES_DIR = games;
});
afterEach(() => {
  if (before === undefined) delete process.env.GAMEPILOT_GAMES_DIR;
  else process.env.GAMEPILOT_GAMES_DIR = before;
});

describe('evidence of an edited shipped profile', () => {
  it('is copied beside the user’s copy; the shipped folder is left as it was', async () => {
    const dir = path.join(games, 'quest');
    mkdirSync(path.join(dir, 'quest.evidence'), { recursive: true });
    writeFileSync(path.join(dir, 'quest.evidence', 'gate.jpg'), 'JPEG-BYTES');
    writeFileSync(
      path.join(dir, 'profile.yaml'),
      [
        'id: quest',
        'title: Quest',
        'match: { title: ^Quest$ }',
        'category: nonrealtime-linear',
        'tier: easy',
        'prompt: { rules: Reach the end., controls: Arrow keys. }',
        'episode: { maxSteps: 10, trials: 1 }',
        'scoring:',
        '  kind: milestones',
        '  linear: true',
        '  milestones:',
        '    - { title: Gate, evidence: quest.evidence/gate.jpg }',
        '    - { title: Gone, evidence: quest.evidence/gone.jpg }',
        '',
      ].join('\n'),
    );
    const h = profileHandlers({ configDir, wm: {} as WindowManager });
    const quest = (await h.listProfiles({})).profiles.find((p) => p.id === 'quest')!;
    expect(quest.source).toBe('shipped');
    const items = quest.edit.milestones!.items;
    const r = await h.saveProfile({
      id: 'quest',
      edit: { ...quest.edit, milestones: { linear: true, items: [{ ...items[0]!, name: 'The gate' }, items[1]!] } },
    });
    expect(r.profile.source).toBe('user');
    const copy = path.join(configDir, 'profiles', 'quest.evidence', 'gate.jpg');
    expect(readFileSync(copy, 'utf8')).toBe('JPEG-BYTES');
    // A frame that was already missing stays a name only; nothing else is made up.
    expect(existsSync(path.join(configDir, 'profiles', 'quest.evidence', 'gone.jpg'))).toBe(false);
    const { dataUrl } = await h.profileEvidence({ id: 'quest', evidence: 'quest.evidence/gate.jpg' });
    expect(Buffer.from(dataUrl.split(',')[1]!, 'base64').toString()).toBe('JPEG-BYTES');
    expect(existsSync(path.join(dir, 'quest.evidence', 'gate.jpg'))).toBe(true);
  });
});
