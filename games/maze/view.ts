/**
 * The maze as the paper's prompt describes it: black walls, white paths, no grid lines, a blue
 * ball and a red target circle. The board sits in a grey frame so that white cells on the edge
 * still show where the maze ends.
 */
import { sameCell, type Cell, type Maze } from './engine.ts';

/** Width of the board in CSS pixels, whatever the maze's size. */
const BOARD_PX = 440;

export function mazeHtml(maze: Maze, ball: Cell, text: { info: string; hint: string }): string {
  const cell = Math.floor(BOARD_PX / maze.size);
  const cells: string[] = [];
  for (let row = 0; row < maze.size; row++)
    for (let col = 0; col < maze.size; col++) {
      const here = { row, col };
      const token = sameCell(here, ball)
        ? '<div class="ball"></div>'
        : sameCell(here, maze.target)
          ? '<div class="target"></div>'
          : '';
      cells.push(`<div class="${maze.open[row]![col] ? 'path' : 'wall'}">${token}</div>`);
    }
  return `<style>
      body{margin:0;background:#c9ced6;font-family:'DejaVu Sans',sans-serif;color:#1c2530}
      .wrap{display:flex;flex-direction:column;align-items:center;padding-top:18px}
      h1{margin:0 0 6px;font-size:32px}.info{font-size:18px;margin-bottom:12px}
      .board{display:grid;grid-template-columns:repeat(${maze.size},${cell}px);grid-template-rows:repeat(${maze.size},${cell}px);border:10px solid #7b8794}
      .wall{background:#000}.path{background:#fff;display:flex;align-items:center;justify-content:center}
      .ball,.target{width:66%;height:66%;border-radius:50%}
      .ball{background:#1f5fe0}.target{background:#e02424}
    </style><div class="wrap"><h1>Maze</h1><div class="info">${text.info}</div>
    <div class="board" data-hit="board">${cells.join('')}</div><div class="info" style="margin-top:12px">${text.hint}</div></div>`;
}
