/**
 * GameVerse's random baseline says only "selects valid actions uniformly at random". This plays
 * the candidate readings of that sentence on the built-in engines, many episodes each, so the
 * reading Gamepilot uses (marked *) can be set beside the others and beside the paper's Table 3/4.
 * Tic-Tac-Toe's GUI reading needs the real view geometry: with a DISPLAY, the built-in window is
 * opened once and its cells' rectangles and client area are measured.
 *
 *   node --import tsx scripts/random-readings.ts [--episodes N] [--json]
 */
import { parseArgs } from 'node:util';
import { tictactoe } from '../games/tictactoe/index.ts';
import { g2048 } from '../games/g2048/index.ts';
import { snake } from '../games/snake/index.ts';
import { GAMEVERSE_MAZE, maze, MazeGame } from '../games/maze/index.ts';
import { generateMaze, moveFrom } from '../games/maze/engine.ts';
import { pick, seededRng, type Rng } from '../games/shared/rng.ts';
import type { GameDefinition, GameInstance, HitRect } from '../games/types.ts';
import { slide, type Direction } from '../games/g2048/rules.ts';
import { GUI_ACTION_TYPES } from '../electron/actions/schema.ts';

interface Reading {
  game: string;
  space: 'gui' | 'semantic';
  name: string;
  chosen: boolean;
  paper: string;
  /** Plays this variant of the game instead of the built-in one (e.g. another maze size). */
  variant?: GameDefinition;
  /** One decision: a semantic move, a click at window pixel (x, y), or nothing that moves. */
  decide(g: GameInstance, rng: Rng): string | { x: number; y: number } | null;
}

interface Geometry {
  width: number;
  height: number;
  cells: HitRect[];
}

const DIRECTIONS = ['up', 'down', 'left', 'right'];

function playEpisode(def: GameDefinition, episode: number, reading: Reading, rng: Rng, geometry?: Geometry): number {
  const g = (reading.variant ?? def).create({ seed: 0, episode, rng: seededRng(1000003 * 7 + episode) });
  for (let step = 0; step < def.defaultMaxSteps && !g.isOver(); step++) {
    const d = reading.decide(g, rng);
    if (d === null) continue;
    if (typeof d === 'string') g.applyMove(d);
    else {
      const hit = geometry!.cells.find((c) => d.x >= c.x && d.x < c.x + c.width && d.y >= c.y && d.y < c.y + c.height);
      g.handleInput({ type: 'click', hit: hit?.id ?? null });
    }
  }
  return g.score();
}

/** Gamepilot's GUI Tic-Tac-Toe view as it really is: its client area and the cells in it. */
async function measureTicTacToe(): Promise<Geometry | undefined> {
  if (!process.env.DISPLAY) return undefined;
  const { createWindowManager } = await import('../native/index.ts');
  const { BuiltinTarget } = await import('../electron/session/targets.ts');
  const target = await BuiltinTarget.open(tictactoe, createWindowManager());
  try {
    const win = await target.locate();
    const cells = target.hits().filter((h) => /^[ABC][123]$/.test(h.id));
    return { width: win.bounds.width, height: win.bounds.height, cells };
  } finally {
    await target.close();
  }
}

function readings(geometry?: Geometry): Reading[] {
  const centre = (g: GameInstance, r: Rng) => {
    const move = pick(r, g.validMoves());
    const cell = geometry!.cells.find((c) => c.id === move)!;
    return { x: cell.x + cell.width / 2, y: cell.y + cell.height / 2 };
  };
  const list: Reading[] = [
    {
      game: 'tictactoe',
      space: 'semantic',
      name: 'any of the nine cells A1…C3 (a taken one loses)',
      chosen: true,
      paper: '30.4 ± 24.1',
      decide: (_g, r) => pick(r, tictactoe.actionSpace.semantic),
    },
    {
      game: 'tictactoe',
      space: 'semantic',
      name: 'an empty cell only',
      chosen: false,
      paper: '30.4 ± 24.1',
      decide: (g, r) => pick(r, g.validMoves()),
    },
  ];
  if (geometry) {
    list.push(
      {
        game: 'tictactoe',
        space: 'gui',
        name: `a click anywhere in the ${geometry.width}×${geometry.height} window (off the board or on a taken cell loses)`,
        chosen: true,
        paper: '26.3 ± 19.3',
        decide: (_g, r) => ({ x: Math.floor(r() * geometry.width), y: Math.floor(r() * geometry.height) }),
      },
      {
        game: 'tictactoe',
        space: 'gui',
        name: 'a click on the centre of an empty cell',
        chosen: false,
        paper: '26.3 ± 19.3',
        decide: (g, r) => centre(g, r),
      },
    );
  }
  const anyGuiType = (r: Rng) => (pick(r, GUI_ACTION_TYPES) === 'PRESS' ? pick(r, DIRECTIONS) : null);
  list.push(
    {
      game: '2048',
      space: 'gui',
      name: 'PRESS of one of the four arrow keys',
      chosen: true,
      paper: '1.2 ± 0.9',
      decide: (_g, r) => pick(r, DIRECTIONS),
    },
    {
      game: '2048',
      space: 'gui',
      name: 'only a direction that changes the board',
      chosen: false,
      paper: '1.2 ± 0.9',
      decide: (g, r) =>
        pick(
          r,
          DIRECTIONS.filter((d) => changes(g, d)),
        ),
    },
    {
      game: '2048',
      space: 'gui',
      name: `any of the ${GUI_ACTION_TYPES.length} GUI action types (PRESS: an arrow key; the rest change nothing)`,
      chosen: false,
      paper: '1.2 ± 0.9',
      decide: (_g, r) => anyGuiType(r),
    },
    {
      game: 'snake',
      space: 'gui',
      name: 'PRESS of one of the four arrow keys (a reversal goes straight on)',
      chosen: true,
      paper: '7.0 ± 9.1',
      decide: (_g, r) => pick(r, DIRECTIONS),
    },
    {
      game: 'snake',
      space: 'gui',
      name: 'one of the three directions that are not a reversal',
      chosen: false,
      paper: '7.0 ± 9.1',
      decide: (g, r) => pick(r, g.validMoves()),
    },
    {
      game: 'maze',
      space: 'gui',
      name: 'PRESS of one of the four arrow keys (into a wall: the ball stays)',
      chosen: true,
      paper: '21.3 ± 2.7',
      decide: (_g, r) => pick(r, DIRECTIONS),
    },
    {
      game: 'maze',
      space: 'gui',
      name: 'only a direction that moves the ball',
      chosen: false,
      paper: '21.3 ± 2.7',
      decide: (g, r) =>
        pick(
          r,
          DIRECTIONS.filter((d) => moves(g, d)),
        ),
    },
    {
      game: 'maze',
      space: 'gui',
      name: `any of the ${GUI_ACTION_TYPES.length} GUI action types (PRESS: an arrow key; the rest change nothing)`,
      chosen: false,
      paper: '21.3 ± 2.7',
      decide: (_g, r) => anyGuiType(r),
    },
    {
      game: 'maze',
      space: 'gui',
      name: 'four arrow keys on a 5×5 maze (size 5, start and target more than 7 moves apart)',
      chosen: false,
      paper: '21.3 ± 2.7',
      variant: {
        ...maze,
        create: ({ rng }) => new MazeGame(generateMaze({ ...GAMEVERSE_MAZE, size: 5, minDistance: 8 }, rng)),
      },
      decide: (_g, r) => pick(r, DIRECTIONS),
    },
  );
  return list;
}

/** Whether moving `dir` moves the maze's ball (not into a wall or off the maze). */
const moves = (g: GameInstance, dir: string) =>
  moveFrom((g as MazeGame).maze, (g.snapshot() as { ball: { row: number; col: number } }).ball, dir as Direction) !==
  null;

/** Whether moving `dir` changes the 2048 board. */
const changes = (g: GameInstance, dir: string) =>
  slide((g.snapshot() as { grid: number[] }).grid, dir as Direction).moved;

const GAMES: Record<string, GameDefinition> = { tictactoe, '2048': g2048, snake, maze };

async function main() {
  const { values } = parseArgs({ options: { episodes: { type: 'string' }, json: { type: 'boolean' } } });
  const episodes = Number(values.episodes ?? 20000);
  const geometry = await measureTicTacToe();
  const rows = readings(geometry).map((r) => {
    const rng = seededRng(42);
    const n = r.game === '2048' ? Math.min(episodes, 4000) : episodes;
    const scores = Array.from({ length: n }, (_, e) => playEpisode(GAMES[r.game]!, e, r, rng, geometry));
    const mean = scores.reduce((a, b) => a + b, 0) / n;
    const std = Math.sqrt(scores.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
    return {
      game: r.game,
      space: r.space,
      reading: r.name,
      chosen: r.chosen,
      episodes: n,
      mean: round1(mean),
      std: round1(std),
      paper: r.paper,
    };
  });
  if (values.json)
    return console.log(
      JSON.stringify({
        geometry: geometry && { width: geometry.width, height: geometry.height, board_share: boardShare(geometry) },
        rows,
      }),
    );
  if (geometry)
    console.log(
      `Tic-Tac-Toe window ${geometry.width}×${geometry.height}, cells ${(boardShare(geometry) * 100).toFixed(1)} % of it`,
    );
  else console.log('(no DISPLAY: the GUI Tic-Tac-Toe readings need the real window and are left out)');
  for (const r of rows)
    console.log(
      `${r.chosen ? '*' : ' '} ${r.game.padEnd(9)} ${r.space.padEnd(8)} ${`${r.mean} ± ${r.std}`.padEnd(13)} paper ${r.paper.padEnd(12)} ${r.reading} (${r.episodes} episodes)`,
    );
}

const round1 = (n: number) => Math.round(n * 10) / 10;
const boardShare = (g: Geometry) => g.cells.reduce((a, c) => a + c.width * c.height, 0) / (g.width * g.height);

await main();
