/**
 * The milestone calls of the contract over both transports (the web shell's WebSocket and the
 * Electron IPC adapter) against one real core with real files: a profile's milestone list as
 * listProfiles gives it, its evidence frames (profileEvidence, confined to `<id>.evidence/`),
 * saving an edited list (saveProfile, checked whole: a bad entry saves nothing), and a judged
 * run's human labels and the judge-vs-people agreement.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { GamepilotCore } from '../../electron/api/core.ts';
import type { WebShell } from '../../electron/web/loopback-server.ts';
import type { WsClient } from '../../renderer/src/api/clients.ts';
import type { ApiClient, MilestonesEdit, ProfileSummary } from '../../electron/api/contract.ts';
import { RunStore, readRun } from '../../electron/store/run-store.ts';
import { loadProfileFile } from '../../electron/profiles/load.ts';
import { coreIn, idleStep, serveBothTransports } from '../helpers/contract-setup.ts';
import { ROOT } from '../helpers/cli.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'gp-ms-contract-'));
const runsDir = path.join(tmp, 'runs');
const configDir = path.join(tmp, 'config');
const profilesDir = path.join(configDir, 'profiles');
const questFile = path.join(profilesDir, 'quest.yaml');
const outside = path.join(tmp, 'outside');
let questText = '';
let plainText = '';
let red: Buffer;
let core: GamepilotCore;
let shell: WebShell;
let ws: WsClient;
let ipc: ApiClient;
let judgedRun = '';

const profileYaml = (id: string, scoring: string[]) =>
  [
    `id: ${id}`,
    `title: ${id} title`,
    `match: { title: ^${id}$ }`,
    'category: nonrealtime-linear',
    'tier: easy',
    'prompt: { rules: Reach the end., controls: Arrow keys. }',
    'episode: { maxSteps: 10, trials: 1 }',
    'scoring:',
    ...scoring.map((l) => `  ${l}`),
    '',
  ].join('\n');

beforeAll(async () => {
  mkdirSync(path.join(profilesDir, 'quest.evidence'), { recursive: true });
  mkdirSync(outside, { recursive: true });
  const jpeg = (r: number, g: number, b: number) =>
    sharp({ create: { width: 32, height: 24, channels: 3, background: { r, g, b } } })
      .jpeg()
      .toBuffer();
  red = await jpeg(255, 0, 0);
  writeFileSync(path.join(profilesDir, 'quest.evidence', 'red.jpg'), red);
  writeFileSync(path.join(profilesDir, 'quest.evidence', 'green.jpg'), await jpeg(0, 255, 0));
  writeFileSync(path.join(profilesDir, 'quest.evidence', 'notes.txt'), 'not a frame');
  writeFileSync(path.join(outside, 'secret.jpg'), await jpeg(9, 9, 9));
  symlinkSync(path.join(outside, 'secret.jpg'), path.join(profilesDir, 'quest.evidence', 'link.jpg'));
  questText = profileYaml('quest', [
    'kind: milestones',
    'linear: true',
    'milestones:',
    '  - { title: Red gate, description: the screen is red, t: 0, evidence: quest.evidence/red.jpg }',
    '  - { title: Green field, description: the screen is green, t: 4, evidence: quest.evidence/green.jpg }',
    '  - Castle',
  ]);
  writeFileSync(questFile, questText);
  // A profile whose evidence folder is a symbolic link to a folder elsewhere.
  writeFileSync(
    path.join(profilesDir, 'linked.yaml'),
    profileYaml('linked', [
      'kind: milestones',
      'linear: true',
      'milestones: [{ title: Secret, evidence: linked.evidence/secret.jpg }]',
    ]),
  );
  symlinkSync(outside, path.join(profilesDir, 'linked.evidence'));
  plainText = profileYaml('plain', ['kind: none']);

  // A judged run: two milestones, the first reached at step 0.
  const store = RunStore.create(runsDir, {
    kind: 'agent',
    game: null,
    target: { kind: 'window', label: 'quest' },
    agent: 'vlm',
    model: 'test-vlm',
    action_space: 'gui',
    config: {},
  });
  const frame = store.writeFrame(0, 0, red, 'jpg');
  store.appendStep(idleStep(frame));
  store.update({
    profile: { id: 'quest' },
    milestones: {
      judge_model: 'judge',
      calls: 1,
      episodes: [
        {
          episode: 0,
          items: [
            { name: 'Red gate', reached: true, step: 0, frame, reason: 'red' },
            { name: 'Green field', reached: false },
          ],
          reached: 1,
          total: 2,
          score: 50,
        },
      ],
    },
    episodes: [{ episode: 0, seed: 0, score: 50, steps: 1, end: 'max_steps' }],
    mean: 50,
    std: 0,
  });
  store.close('completed');
  judgedRun = store.meta.id;

  core = coreIn(tmp);
  const staticDir = path.join(tmp, 'static');
  mkdirSync(staticDir);
  writeFileSync(path.join(staticDir, 'index.html'), '<title>Gamepilot</title>');
  ({ shell, ws, ipc } = await serveBothTransports(core, staticDir));
});

afterAll(async () => {
  ws?.close();
  await shell?.close();
});

for (const transport of ['websocket', 'ipc'] as const) {
  const client = () => (transport === 'websocket' ? ws : ipc);
  const summary = async (id: string) =>
    (await client().request('listProfiles')).profiles.find((p) => p.id === id) as ProfileSummary;
  const save = (id: string, edit: ProfileSummary['edit']) => client().request('saveProfile', { id, edit });

  describe(`milestones over ${transport}`, () => {
    // Each transport starts from the same files.
    beforeEach(() => {
      writeFileSync(questFile, questText);
      writeFileSync(path.join(profilesDir, 'plain.yaml'), plainText);
      rmSync(path.join(profilesDir, 'baba-is-you.yaml'), { force: true });
    });

    it('lists a profile’s milestones in order, with their descriptions, times and evidence', async () => {
      const quest = await summary('quest');
      expect(quest.scoring).toBe('milestones');
      expect(quest.edit.milestones).toEqual({
        linear: true,
        items: [
          { name: 'Red gate', description: 'the screen is red', t: 0, evidence: 'quest.evidence/red.jpg' },
          { name: 'Green field', description: 'the screen is green', t: 4, evidence: 'quest.evidence/green.jpg' },
          { name: 'Castle', description: '' },
        ],
      });
      const baba = await summary('baba-is-you');
      expect(baba.edit.milestones!.items[0]).toEqual({
        name: 'Initiate Movement and Object Interaction',
        description: '',
        level: 'Level 0',
      });
      expect((await summary('sgt-mines')).edit.milestones).toBeUndefined();
    });

    it('reads an evidence frame, and only a plain image file inside the profile’s evidence folder', async () => {
      const r = await client().request('profileEvidence', { id: 'quest', evidence: 'quest.evidence/red.jpg' });
      expect(Buffer.from(r.dataUrl.replace(/^data:image\/jpeg;base64,/, ''), 'base64').equals(red)).toBe(true);
      const refused = async (evidence: string, code: string, message: RegExp, id = 'quest') =>
        expect(client().request('profileEvidence', { id, evidence })).rejects.toMatchObject({ code, message });
      await refused('quest.evidence/../quest.yaml', 'bad-input', /outside its profile folder/);
      await refused('quest.evidence/../../settings.json', 'bad-input', /outside its profile folder/);
      await refused(path.join(outside, 'secret.jpg'), 'bad-input', /not in the profile's evidence folder/);
      await refused('plain.evidence/x.jpg', 'bad-input', /not in the profile's evidence folder quest\.evidence/);
      await refused('quest.evidence/link.jpg', 'bad-input', /symbolic link/);
      await refused('linked.evidence/secret.jpg', 'bad-input', /symbolic link/, 'linked');
      await refused('quest.evidence/notes.txt', 'bad-input', /not an image/);
      await refused('quest.evidence/missing.jpg', 'not-found', /missing\.jpg is missing/);
      await refused('quest.evidence/red.jpg', 'not-found', /no profile with id "nobody"/, 'nobody');
      await expect(
        client().request('profileEvidence', { id: '../quest', evidence: 'quest.evidence/red.jpg' }),
      ).rejects.toMatchObject({ code: 'bad-input', message: /profileEvidence: id must be a profile id/ });
    });

    it('saves a renamed, reordered, shortened and extended list as the user’s profile, evidence kept', async () => {
      const quest = await summary('quest');
      const [redGate, green, castle] = quest.edit.milestones!.items;
      const milestones: MilestonesEdit = {
        linear: false,
        items: [
          { ...castle!, name: 'Castle reached' },
          { ...redGate!, name: 'Through the red gate' },
          { name: 'Dragon', description: 'a dragon fills the screen' },
        ],
      };
      expect(green).toBeDefined(); // deleted below
      const r = await save('quest', { ...quest.edit, milestones });
      expect(r.profile.edit.milestones).toEqual(milestones);
      const { profile } = loadProfileFile(questFile);
      expect(profile.scoring).toMatchObject({
        kind: 'milestones',
        linear: false,
        milestones: [
          'Castle reached',
          { title: 'Through the red gate', description: 'the screen is red', t: 0, evidence: 'quest.evidence/red.jpg' },
          { title: 'Dragon', description: 'a dragon fills the screen' },
        ],
      });
      // The evidence still reads under the kept name.
      expect((await summary('quest')).edit.milestones!.items[1]!.evidence).toBe('quest.evidence/red.jpg');
    });

    it('refuses a bad entry whole and saves nothing', async () => {
      const quest = await summary('quest');
      const items = quest.edit.milestones!.items;
      const refused = async (milestones: unknown, message: RegExp, id = 'quest', edit = quest.edit) => {
        await expect(save(id, { ...edit, milestones } as never)).rejects.toMatchObject({ code: 'bad-input', message });
        expect(readFileSync(questFile, 'utf8')).toBe(questText);
      };
      await refused({ linear: true, items: [...items, { name: 'red GATE', description: '' }] }, /named twice/);
      await refused({ linear: true, items: [{ name: '  ', description: '' }] }, /items\.0\.name needs a name/);
      await refused({ linear: true, items: [] }, /milestones\.items needs a milestone/);
      await refused(
        { linear: true, items: [{ ...items[0]!, evidence: 'quest.evidence/link.jpg' }] },
        /not one of the profile's evidence frames/,
      );
      await refused(
        { linear: true, items: [{ ...items[0]!, evidence: '../settings.json' }] },
        /not one of the profile's evidence frames/,
      );
      await refused({ linear: true, items: [{ ...items[0]!, level: 'One' }, items[1]] }, /every milestone has a level/);
      await refused(
        { linear: true, items: [{ name: 'Open a square', description: '' }] },
        /scores by screen, not by milestones/,
        'sgt-mines',
        (await summary('sgt-mines')).edit,
      );
      expect(existsSync(path.join(profilesDir, 'sgt-mines.yaml'))).toBe(false);
    });

    it('edits a shipped list into the user’s copy (levels kept), and gives a profile scored none its first milestones', async () => {
      const shippedFile = path.join(ROOT, 'games', 'baba-is-you', 'profile.yaml');
      const shipped = readFileSync(shippedFile, 'utf8');
      const baba = await summary('baba-is-you');
      const items = baba.edit.milestones!.items;
      const moved = [items[1]!, items[0]!, ...items.slice(2), { name: 'Bonus', description: '', level: 'Level 1' }];
      const r = await save('baba-is-you', { ...baba.edit, milestones: { linear: true, items: moved } });
      expect(r.profile.source).toBe('user');
      expect(readFileSync(shippedFile, 'utf8')).toBe(shipped);
      const { profile } = loadProfileFile(path.join(profilesDir, 'baba-is-you.yaml'));
      const levels = profile.scoring.kind === 'milestones' ? profile.scoring.levels! : [];
      expect(levels.map((l) => [l.name, l.milestones.length])).toEqual([
        ['Level 0', 4],
        ['Level 1', 6],
      ]);
      expect(levels[0]!.milestones.slice(0, 2)).toEqual([
        'Clear Obstacles',
        'Initiate Movement and Object Interaction',
      ]);
      expect(levels[1]!.milestones.at(-1)).toBe('Bonus');

      const plain = await summary('plain');
      const made = await save('plain', {
        ...plain.edit,
        milestones: { linear: true, items: [{ name: 'Start', description: 'the title screen' }] },
      });
      expect(made.profile.scoring).toBe('milestones');
    });

    it('keeps a person’s label apart from the judge’s, and the agreement follows it', async () => {
      const meta = readFileSync(path.join(runsDir, judgedRun, 'run.json'), 'utf8');
      expect(await client().request('milestoneLabels', { id: judgedRun })).toEqual({ labels: [] });
      expect((await client().request('milestoneAgreement')).games).toEqual([]);
      const set = await client().request('labelMilestone', {
        id: judgedRun,
        episode: 0,
        milestone: 'green field',
        reached: true,
      });
      expect(set.labels).toMatchObject([{ episode: 0, milestone: 'Green field', reached: true }]);
      expect((await client().request('milestoneLabels', { id: judgedRun })).labels).toEqual(set.labels);
      expect((await client().request('milestoneAgreement')).games).toEqual([
        { game: 'quest', runs: 1, episodes: 1, judged: 50, human: 100, pct_diff: 50 },
      ]);
      expect(readFileSync(path.join(runsDir, judgedRun, 'run.json'), 'utf8')).toBe(meta); // the judge's verdict stays
      await expect(
        client().request('labelMilestone', { id: judgedRun, episode: 0, milestone: 'Dragon', reached: true }),
      ).rejects.toMatchObject({ code: 'bad-input', message: /no milestone "Dragon" in episode 0/ });
      await expect(
        client().request('labelMilestone', { id: '../x', episode: 0, milestone: 'Red gate', reached: true }),
      ).rejects.toMatchObject({ code: 'bad-input', message: /labelMilestone: id/ });
      await client().request('labelMilestone', { id: judgedRun, episode: 0, milestone: 'Green field', reached: null });
      expect((await client().request('milestoneLabels', { id: judgedRun })).labels).toEqual([]);
      expect((readRun(path.join(runsDir, judgedRun)).meta.milestones as { calls: number }).calls).toBe(1);
    });
  });
}
