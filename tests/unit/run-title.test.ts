/**
 * Every title counts: runs and sessions on windows are keyed by the profile they followed (or
 * listed apart under their window title when they followed none), old run folders read the same,
 * and the report lays GameVerse's and ING-VP's tables out in the papers' shapes.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunStore, type RunMeta } from '../../electron/store/run-store.ts';
import { formatLeaderboard, leaderboard } from '../../electron/store/leaderboard.ts';
import { titleOf } from '../../electron/store/run-title.ts';
import { buildReport } from '../../electron/report/build.ts';
import { reportTables } from '../../electron/report/view.ts';
import { averageRanks, GAMEVERSE_TITLES } from '../../electron/report/gameverse.ts';
import { loadCatalog, profileById, profileHash } from '../../electron/profiles/registry.ts';
import { profileRecord } from '../../electron/session/profile-record.ts';
import { INGVP_SETTINGS } from '../../electron/domain.ts';
import { loadProfileFile } from '../../electron/profiles/load.ts';

const tmp = () => mkdtempSync(path.join(tmpdir(), 'gp-title-'));
const catalog = loadCatalog({ configDir: tmp() });
const shipped = (id: string) => profileRecord(profileById(catalog, id));

type Init = Parameters<typeof RunStore.create>[1];
function run(root: string, init: Partial<Init>, scores: number[], episodesExtra: object = {}) {
  const s = RunStore.create(root, {
    kind: 'agent',
    game: null,
    target: { kind: 'window', label: 'Some Window' },
    agent: 'vlm',
    model: 'm',
    action_space: 'gui',
    config: { latency: 'normal' },
    ...init,
  });
  s.update({
    episodes: scores.map((score, episode) => ({
      episode,
      seed: 0,
      score,
      steps: 3,
      end: 'max_steps',
      ...episodesExtra,
    })),
  });
  s.close('completed');
  return s.dir;
}

describe('run titles', () => {
  it('keys a built-in by its game, a window by its profile, and a window with no profile by its title, apart', () => {
    const root = tmp();
    const a = run(root, { game: 'tictactoe', target: { kind: 'builtin', label: 'Tic-Tac-Toe' } }, [50]);
    const b = run(root, { target: { kind: 'window', label: 'Baba Is You' }, profile: shipped('baba-is-you') }, [44.4]);
    const c = run(root, { target: { kind: 'window', label: 'Baba Is You' } }, [11]);
    const title = (dir: string) =>
      JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')).title as ReturnType<typeof titleOf>;
    expect(title(a)).toMatchObject({ id: 'tictactoe', name: 'Tic-Tac-Toe', kind: 'builtin' });
    expect(title(b)).toEqual({
      id: 'baba-is-you',
      name: 'Baba Is You',
      kind: 'profile',
      category: 'markov-grid',
      tier: 'medium',
      scoring: 'milestones',
      profile_hash: profileHash(profileById(catalog, 'baba-is-you').profile),
    });
    expect(title(c)).toMatchObject({ id: 'window:Baba Is You', kind: 'unprofiled', category: null });

    const { rows } = leaderboard(root);
    expect(rows.map((r) => [r.game, r.kind, r.mean])).toEqual([
      ['baba-is-you', 'profile', 44.4],
      ['tictactoe', 'builtin', 50],
      ['window:Baba Is You', 'unprofiled', 11],
    ]);
    expect(formatLeaderboard(rows)).toMatch(/Baba Is You \(unprofiled window\)/);
    expect(leaderboard(root, { game: 'baba-is-you' }).rows).toHaveLength(1);
  });

  it('reads a run folder from before titles were recorded (game null, a profile record) under its profile', () => {
    const root = tmp();
    const dir = run(root, { profile: shipped('slay-the-spire') }, [30]);
    const file = path.join(dir, 'run.json');
    const meta = JSON.parse(readFileSync(file, 'utf8')) as RunMeta;
    delete meta.title;
    delete (meta.profile as Record<string, unknown>).hash;
    writeFileSync(file, JSON.stringify(meta));
    expect(titleOf(meta)).toMatchObject({ id: 'slay-the-spire', category: 'nonrealtime-linear', tier: 'hard' });
    expect(leaderboard(root).rows[0]).toMatchObject({ game: 'slay-the-spire', title: 'Slay the Spire', mean: 30 });
    const report = buildReport(root, { catalog });
    expect(report.gameverse.rows[0]!.cells['slay-the-spire']).toMatchObject({ mean: 30, n: 1 });
  });

  it('hashes a profile by content: the same in YAML and JSON, another after an edit; the report flags two versions', () => {
    const dir = tmp();
    const entry = profileById(catalog, 'angry-birds');
    const json = path.join(dir, 'angry-birds.json');
    writeFileSync(json, JSON.stringify(entry.profile));
    expect(profileHash(loadProfileFile(json).profile)).toBe(profileHash(entry.profile));
    const edited = { ...entry.profile, prompt: { ...entry.profile.prompt, task: 'Clear 1-2 only.' } };
    expect(profileHash(edited)).not.toBe(profileHash(entry.profile));

    const root = tmp();
    run(root, { profile: profileRecord(entry) }, [40]);
    run(root, { profile: profileRecord({ ...entry, profile: edited }) }, [60]);
    const { rows } = leaderboard(root);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ game: 'angry-birds', runs: 2, profile_versions: 2 });
    expect(buildReport(root, { catalog }).warnings).toEqual([
      expect.stringMatching(/Angry Birds \(angry-birds\): its runs followed 2 versions of the profile/),
    ]);
    // run.json keeps the prompt parts the run was given.
    const meta = JSON.parse(readFileSync(path.join(root, readdirSync(root)[0]!, 'run.json'), 'utf8')) as RunMeta;
    expect((meta.profile as { prompt: { rules: string } }).prompt.rules).toBe(entry.profile.prompt.rules);
  });
});

describe("the papers' table shapes", () => {
  it('ranks rows per title with shared places for ties, leaving out titles a row did not play', () => {
    const s = (mean: number) => ({ mean, std: 0, n: 1, runs: 1 });
    const rows: { cells: Record<string, ReturnType<typeof s>> }[] = [
      { cells: { a: s(90), b: s(10) } },
      { cells: { a: s(50), b: s(10) } },
      { cells: { a: s(50) } },
      { cells: { b: s(0) } },
      { cells: {} },
    ];
    // a: 90 → 1, 50 and 50 share places 2–3 → 2.5; b: 10 and 10 share 1–2 → 1.5, 0 → 3.
    expect(averageRanks(rows, ['a', 'b'])).toEqual([1.25, 2, 2.5, 3, null]);
  });

  it("lays out Table 3 (all fifteen titles in the paper's order, then others, Avg Rank), Tables 4 and 5, latency and ING-VP's Table 1", () => {
    const root = tmp();
    const builtin = (game: string, label: string) => ({ game, target: { kind: 'builtin' as const, label } });
    run(root, { ...builtin('tictactoe', 'Tic-Tac-Toe'), agent: 'random', model: null }, [20, 30]);
    run(root, { ...builtin('tictactoe', 'Tic-Tac-Toe') }, [60]);
    run(root, { ...builtin('tictactoe', 'Tic-Tac-Toe'), action_space: 'semantic' }, [80]);
    run(root, { ...builtin('tictactoe', 'Tic-Tac-Toe'), action_space: 'semantic', config: { latency: 'stop' } }, [70]);
    run(root, { target: { kind: 'window', label: 'Baba Is You' }, profile: shipped('baba-is-you') }, [44.4]);
    run(root, { target: { kind: 'window', label: 'Fifteen' }, profile: shipped('sgt-fifteen') }, [100]);
    run(
      root,
      {
        ...builtin('tictactoe', 'Tic-Tac-Toe'),
        action_space: 'semantic',
        reflection: { mode: 'self-f', reflector_model: 'm', lessons: [{ episode: 0, source: 'self-f' }] },
      },
      [90],
    );
    const levels = path.join(root, 'ingvp', 'runs');
    mkdirSync(levels, { recursive: true });
    writeFileSync(path.join(root, 'ingvp', 'suite.json'), '{}');
    for (const [i, setting] of INGVP_SETTINGS.entries()) {
      const s = RunStore.create(levels, {
        kind: 'agent',
        game: 'sokoban',
        target: { kind: 'builtin', label: 'Sokoban' },
        agent: 'vlm',
        model: 'm',
        action_space: `ingvp:${setting}`,
        config: { suite: 'ingvp', setting, level: 1, step_limit: 50 },
      });
      s.update({
        episodes: [{ episode: 0, seed: 0, score: 0, steps: 1, end: 'solved' }],
        ingvp: {
          game: 'sokoban',
          setting,
          level: 1,
          solved: i === 0,
          completion: 10 * i,
          efficiency: 50,
          actions: 2,
          changed: 1,
        },
      } as never);
      s.close('completed');
    }

    const data = buildReport(root, { catalog });
    const ids = data.gameverse.games.map((g) => g.id);
    expect(ids.slice(0, 15)).toEqual([...GAMEVERSE_TITLES]);
    expect(ids.slice(15)).toEqual(['sgt-fifteen']);
    expect(data.gameverse.games.find((g) => g.id === 'baba-is-you')).toMatchObject({
      category: 'markov-grid',
      tier: 'medium',
      paper: true,
    });

    const tables = new Map(reportTables(data).map((t) => [t.id, t]));
    const t3 = tables.get('gameverse')!;
    expect(t3.columns.map((c) => c.key)).toEqual([
      'player',
      'vr',
      'space',
      'latency',
      'protocol',
      ...GAMEVERSE_TITLES,
      'sgt-fifteen',
      'avg_rank',
      'not_ranked',
    ]);
    expect(t3.groups!.map((g) => g.label)).toEqual([
      '',
      'Markov Grid',
      'Non-Real-time Linear',
      'Non-Real-time Non-linear',
      'Real-time Linear',
      'Real-time Non-linear',
      'Markov Grid',
      '',
    ]);
    // GUI rows only; Random first. In Tic-Tac-Toe the model (60) ranks 1, Random (25) 2; Baba and Fifteen: the model alone.
    expect(t3.rows.map((r) => [r.player, r.tictactoe, r['baba-is-you'], r.avg_rank])).toEqual([
      ['Random', '25.0 ± 7.1 (2)', null, '2.0'],
      ['m', '60.0 ± 0.0 (1)', '44.4 ± 0.0 (1)', '1.0'],
    ]);

    const t4 = tables.get('paired')!;
    expect(t4.rows.map((r) => [r.player, r.vr, r.latency, r['tictactoe:gui'], r['tictactoe:semantic']])).toEqual([
      ['Random', 'No', 'normal', '25.0 ± 7.1 (2)', null],
      ['m', 'No', 'normal', '60.0 ± 0.0 (1)', '80.0 ± 0.0 (1)'],
      ['m', 'Yes (self-f)', 'normal', null, '90.0 ± 0.0 (1)'],
      ['m', 'No', 'stop 2000 ms, freeze engine', null, '70.0 ± 0.0 (1)'],
    ]);
    const t5 = tables.get('reflection')!;
    expect(t5.rows.map((r) => [r.player, r.mode, r.latency, r.tictactoe, r.avg])).toEqual([
      ['m', 'No', 'normal', '80.0 ± 0.0 (1)', '80.0'],
      ['m', 'Self-F', 'normal', '90.0 ± 0.0 (1)', '90.0'],
      ['m', 'No', 'stop 2000 ms, freeze engine', '70.0 ± 0.0 (1)', '70.0'],
    ]);
    const latency = tables.get('latency')!;
    expect(latency.rows).toEqual([
      expect.objectContaining({
        game: 'tictactoe',
        reference: 'stop 2000 ms, freeze engine',
        'stop 2000 ms, freeze engine': '70.0 ± 0.0 (1)',
        normal: '80.0 ± 0.0 (1)',
        'normal:change': '+10.0',
      }),
    ]);

    const t1 = tables.get('ingvp-main')!;
    expect(t1.columns.map((c) => c.key)).toEqual([
      'player',
      'metric',
      'multi-step-image',
      'multi-step-image-history',
      'one-step-image',
      'multi-step-text',
      'multi-step-text-history',
      'one-step-text',
      'overall',
    ]);
    // Accuracy: one level solved of one (one-step-image) → 100, others 0; Overall = 100 / 6.
    expect(t1.rows.map((r) => [r.metric, r['one-step-image'], r['multi-step-text'], r.overall])).toEqual([
      ['Acc.', '100.00', '0.00', '16.67'],
      ['Comp.', '0.00', '30.00', '25.00'],
      ['Eff.', '50.00', '50.00', '50.00'],
    ]);
  });
});

describe('a title that follows its run', () => {
  it('re-keys a run when a profile is attached after it started', () => {
    const root = tmp();
    const s = RunStore.create(root, {
      kind: 'agent',
      game: null,
      target: { kind: 'window', label: 'quest' },
      agent: 'vlm',
      model: 'm',
      action_space: 'gui',
      config: {},
    });
    expect(s.meta.title).toMatchObject({ id: 'window:quest', kind: 'unprofiled' });
    s.update({ profile: { id: 'quest', title: 'Quest' } });
    expect(s.meta.title).toMatchObject({ id: 'quest', name: 'Quest', kind: 'profile' });
    s.close('completed');
  });
});
