/** Sweep files: axes with the CLI's names, refusals with file:line, deterministic job ids. */
import { describe, expect, it } from 'vitest';
import { cellUsesModel, matrixSize, parseSweep, runArgs, SweepFileError } from '../../electron/sweep/spec.ts';
import { checkJobData, jobRefusal } from '../../electron/sweep/queue.ts';
import { arenaMatches } from '../../electron/arena/tables.ts';

function refusal(src: string): SweepFileError {
  try {
    parseSweep(src, 'm.yaml');
  } catch (err) {
    if (err instanceof SweepFileError) return err;
    throw err;
  }
  throw new Error('accepted');
}

describe('sweep files', () => {
  it('expands games × agents × trials into jobs, each with its own seed', () => {
    const s = parseSweep('games: [2048, tictactoe]\nagents: [random, solver]\ntrials: 3\nmax_steps: 30\n', 'pair.yaml');
    expect(s.name).toBe('pair');
    expect(s.jobs).toHaveLength(12);
    expect(new Set(s.jobs.map((j) => j.id)).size).toBe(12);
    const seeds = s.jobs
      .filter((j) => j.cell.game === '2048' && j.cell.agent === 'random')
      .map((j) => runArgs(j.cell, s.spec));
    expect(seeds.map((a) => a[a.indexOf('--seed') + 1])).toEqual(['0', '1', '2']);
    expect(seeds[0]).toContain('--max-steps');
  });

  it('gives the same ids however the file is written, and new ones when a cell changes', () => {
    const a = parseSweep('games: [2048, tictactoe]\nagents: [random]\ntrials: 2\n', 'a.yaml').jobs.map((j) => j.id);
    const b = parseSweep('trials: 2\nagents: random\ngames:\n  - tictactoe\n  - 2048\n', 'a.yaml').jobs.map(
      (j) => j.id,
    );
    expect([...b].sort()).toEqual([...a].sort());
    const c = parseSweep('games: [2048, tictactoe]\nagents: [random]\ntrials: 2\nmax_steps: 9\n', 'a.yaml').jobs;
    expect(c.some((j) => a.includes(j.id))).toBe(false);
  });

  it('takes a job timeout that leaves the job ids as they were', () => {
    const src = 'games: [2048, tictactoe]\nagents: [random]\ntrials: 2\n';
    const plain = parseSweep(src, 'a.yaml');
    const timed = parseSweep(`${src}job_timeout_s: 600\n`, 'a.yaml');
    expect(timed.spec.job_timeout_s).toBe(600);
    expect(plain.spec.job_timeout_s).toBeUndefined(); // no timeout unless the file sets one
    expect(timed.jobs.map((j) => j.id)).toEqual(plain.jobs.map((j) => j.id));
    expect(runArgs(timed.jobs[0]!.cell, timed.spec)).toEqual(runArgs(plain.jobs[0]!.cell, plain.spec));
    for (const bad of ['0', '-5', '1.5', '86401', '"soon"'])
      expect(refusal(`games: [2048]\njob_timeout_s: ${bad}\n`).field).toBe('job_timeout_s');
  });

  it('collapses axes that do not apply: no model or reflection for baselines', () => {
    const s = parseSweep(
      'games: 2048\nagents: [random, vlm]\nmodels: [m1, m2]\nreflection: [none, self-f]\n',
      'r.yaml',
    );
    expect(s.jobs.filter((j) => j.cell.agent === 'random')).toHaveLength(1);
    expect(s.jobs.filter((j) => j.cell.agent === 'vlm')).toHaveLength(4);
  });

  it('refuses an unknown axis, value or game with its line and field', () => {
    const axis = refusal('games: [2048]\ntrials: 2\nflavour: 3\n');
    expect([axis.line, axis.field]).toEqual([3, 'flavour']);
    expect(axis.message).toContain('m.yaml:3');
    const value = refusal('games: [2048]\nagents:\n  - random\n  - wizard\n');
    expect([value.line, value.field]).toEqual([4, 'agents.1']);
    const game = refusal('games:\n  - 2048\n  - chess\n');
    expect([game.line, game.field]).toEqual([3, 'games.1']);
    expect(refusal('games: [2048]\nagents: [vlm]\n').field).toBe('agents');
    expect(refusal('games: [2048]\ntrials: 0\n').line).toBe(2);
    expect(refusal('games: [2048\n').message).toContain('not valid YAML');
    const space = refusal('games: [2048, sgt-fifteen]\naction_space: [gui, semantic]\n');
    expect([space.line, space.field]).toEqual([2, 'action_space']);
    expect(space.message).toContain('"sgt-fifteen": the semantic action space needs moves');
  });
});

describe('arenas in a sweep file', () => {
  const arenaFile = 'arena:\n  game: tictactoe-pvp\n  agents: [solver, random, vlm:m1]\n  trials: 2\n';

  it("expands an arena entry into one job per match, in `gamepilot arena`'s order, each a run with --seats", () => {
    const s = parseSweep(arenaFile, 'duel.yaml');
    expect(s.jobs.map((j) => j.cell.seats!.join(' vs '))).toEqual(
      arenaMatches('pvp', ['solver', 'random', 'vlm:m1'], false).map((m) => `${m.p1} vs ${m.p2}`),
    );
    expect(s.jobs).toHaveLength(6);
    expect(new Set(s.jobs.map((j) => j.id)).size).toBe(6);
    expect(s.jobs[0]!.id).toMatch(/^tictactoepvp-solver-random-t0-[0-9a-f]{12}$/);
    const cell = s.jobs[0]!.cell;
    expect(cell).toMatchObject({ game: 'tictactoe-pvp', agent: 'arena', episodes: 2, latency: 'normal', seed: 0 });
    const args = runArgs(cell, s.spec);
    expect(args).toEqual(
      expect.arrayContaining(['--seats', 'solver,random', '--episodes', '2', '--latency', 'normal']),
    );
    expect(args).not.toContain('--agent');
    // A model seat asks for the key and the rate limits; two baselines do not.
    expect(s.jobs.map((j) => cellUsesModel(j.cell))).toEqual([false, true, false, true, true, true]);
    // The same file, the same ids; ordinary games beside an arena keep theirs.
    expect(parseSweep(arenaFile, 'duel.yaml').jobs.map((j) => j.id)).toEqual(s.jobs.map((j) => j.id));
    const both = parseSweep(`games: [2048]\n${arenaFile}`, 'both.yaml');
    expect(both.jobs.find((j) => j.cell.game === '2048')!.id).toBe(
      parseSweep('games: [2048]\n', 'both.yaml').jobs[0]!.id,
    );
    expect(matrixSize(both.spec)).toBe(7);
  });

  it('co-op: each agent with a copy of itself, mixed pairs when asked; trials default to half the game’s', () => {
    const coop = parseSweep('arena:\n  - game: switches\n    agents: [solver, random]\n    mixed: true\n', 'c.yaml');
    expect(coop.jobs.map((j) => j.cell.seats!.join('+'))).toEqual(['solver+solver', 'solver+random', 'random+random']);
    expect(coop.jobs[0]!.cell.episodes).toBe(2); // switches: 5 trials
  });

  it('refuses a hostile arena entry with its line and field', () => {
    const at = (src: string) => {
      const e = refusal(src);
      return [e.line, e.field, e.message];
    };
    expect(at('arena:\n  game: 2048\n  agents: [solver, random]\n')).toEqual([
      2,
      'arena.game',
      expect.stringMatching(/m\.yaml:2: arena\.game: "2048" is not a two-seat game/),
    ]);
    expect(at('arena:\n  - game: light-cycles\n    agents:\n      - solver\n      - "--window-id x"\n')).toEqual([
      5,
      'arena.0.agents.1',
      expect.stringMatching(/is not an agent/),
    ]);
    expect(at('arena:\n  game: light-cycles\n  agents: [solver, memory:m]\n')[2]).toMatch(/memory agent does not play/);
    expect(at('arena:\n  game: light-cycles\n  agents: [solver, solver]\n')[2]).toMatch(
      /at least two different agents/,
    );
    expect(at('arena:\n  game: light-cycles\n  agents: [solver, random]\n  mixed: true\n')[1]).toBe('arena.mixed');
    expect(at('arena:\n  game: light-cycles\n  agents: [solver, random]\n  rounds: 3\n')[1]).toBe('arena.rounds');
    expect(at('arena:\n  game: light-cycles\n  agents: [solver, random]\n  trials: 0\n')[1]).toBe('arena.trials');
    expect(at('name: x\n')[2]).toMatch(/give games: \[ID, …\], or an arena: entry/);
    expect(at('arena:\n  game: switches\n  agents:\n    - solver\n    - human\n')).toEqual([
      5,
      'arena.agents.1',
      expect.stringMatching(/a person plays at a keyboard, not in a sweep/),
    ]);
  });
});

describe('queue job data', () => {
  it('is checked before it becomes a command line', () => {
    const s = parseSweep('games: [2048]\nagents: [random]\n', 'q.yaml');
    const good = { job: s.jobs[0], settings: {} };
    expect(checkJobData(good).job.id).toBe(s.jobs[0]!.id);
    const evil = { job: { ...s.jobs[0], cell: { ...s.jobs[0]!.cell, game: '--window-id' } }, settings: {} };
    expect(() => checkJobData(evil)).toThrow(/cell.game/);
    expect(() => checkJobData({ job: s.jobs[0], settings: { base_url: 'not a url' } })).toThrow(/base_url/);
    expect(() => checkJobData({ job: s.jobs[0], settings: {}, extra: 1 })).toThrow(/not a sweep job/);
    expect(checkJobData({ job: s.jobs[0], settings: { job_timeout_s: 30 } }).settings.job_timeout_s).toBe(30);
    expect(() => checkJobData({ job: s.jobs[0], settings: { job_timeout_s: 0 } })).toThrow(/job_timeout_s/);
  });

  it("carries an arena match's seats through the queue unchanged, and refuses seats that are not agents", () => {
    const s = parseSweep('arena:\n  game: light-cycles\n  agents: [solver, vlm:m1]\n', 'q.yaml');
    const data = JSON.parse(JSON.stringify({ job: s.jobs[1], settings: { base_url: 'http://127.0.0.1:9/v1' } }));
    const back = checkJobData(data);
    expect(back.job).toEqual(s.jobs[1]);
    expect(runArgs(back.job.cell, back.settings)).toEqual(runArgs(s.jobs[1]!.cell, back.settings));
    expect(runArgs(back.job.cell, back.settings)).toEqual(expect.arrayContaining(['--seats', 'vlm:m1,solver']));
    const seats = (v: unknown) => ({ job: { ...s.jobs[0], cell: { ...s.jobs[0]!.cell, seats: v } }, settings: {} });
    for (const bad of [
      ['solver'],
      ['solver', '--out=/etc'],
      ['solver', 'a,b'],
      ['solver', 'memory:m'],
      ['solver', 'human'],
    ])
      expect(() => checkJobData(seats(bad)), JSON.stringify(bad)).toThrow(/cell.seats/);
    // Its model seat is a model job: a key goes only to an allowed endpoint.
    expect(jobRefusal(back.job, back.settings, [])).toMatch(/base_url/);
  });

  it('runs a queued job whose tutorial is "solver" or "title", and refuses one naming a file', () => {
    const s = parseSweep('games: [2048]\nagents: [solver]\n', 'q.yaml');
    const job = s.jobs[0]!;
    expect(jobRefusal(job, { tutorial: 'solver' }, [])).toBeUndefined();
    expect(jobRefusal(job, { tutorial: 'title' }, [])).toBeUndefined(); // the worker's own runs folder
    expect(jobRefusal(job, { tutorial: '/home/user/walkthrough.mp4' }, [])).toMatch(
      /names a file on this worker \(tutorial "\/home\/user\/walkthrough.mp4"\): queued jobs take only "solver" or "title"/,
    );
  });
});
