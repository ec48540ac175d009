/**
 * GameVerse's Fig. 5: per title and action space, the mean of the reasoning models' and of the
 * reactive models' scores under each latency protocol (agents/model-kind.ts says which model is
 * which). A group's figure is the mean of its models' cell means, as the paper averages GPT-4o
 * with Qwen3-VL-8B and Seed-1.8 with Gemini-2.5-Pro. Rows come from the leaderboard's unassisted
 * VR = No rows of model players; a model of no known kind is named apart, never put in a group.
 */
import { z } from 'zod';
import { LATENCY_MODES, round2, type LeaderboardRow } from '../domain.ts';
import { modelKind } from '../agents/model-kind.ts';
import { mean } from '../util/time.ts';

export const LatencyKindRowSchema = z.object({
  game: z.string(),
  actionSpace: z.string(),
  kind: z.enum(['reasoning', 'reactive']),
  /** The models averaged, by name. */
  models: z.array(z.string()),
  /** Per protocol (store/run-protocol.ts): the mean of the models' means, and how many models had a cell there. */
  cells: z.record(z.string(), z.object({ mean: z.number(), models: z.number().int() })),
});
export type LatencyKindRow = z.output<typeof LatencyKindRowSchema>;

export const LatencyKindsSchema = z.object({
  rows: z.array(LatencyKindRowSchema),
  /** Protocols in the order the figure draws them (stop, slow, normal, lcrt; then by name). */
  protocols: z.array(z.string()),
  /** Models played under latency whose kind is not known: left out of both groups. */
  unknown: z.array(z.string()),
});
export type LatencyKinds = z.output<typeof LatencyKindsSchema>;
export const NO_LATENCY_KINDS: LatencyKinds = { rows: [], protocols: [], unknown: [] };

export function latencyKinds(board: LeaderboardRow[]): LatencyKinds {
  const rows = board.filter((r) => r.model !== null && !r.assisted && r.vr === 'No' && r.player !== 'random');
  const unknown = [...new Set(rows.filter((r) => !modelKind(r.model!)).map((r) => r.model!))].sort();
  // Per group and protocol, each model's means (a model played by two agents, vlm and memory, is one model).
  const groups = new Map<
    string,
    { row: Omit<LatencyKindRow, 'cells'>; byProtocol: Map<string, Map<string, number[]>> }
  >();
  for (const r of rows) {
    const kind = modelKind(r.model!);
    if (!kind) continue;
    const key = [r.game, r.actionSpace, kind].join('|');
    const g = groups.get(key) ?? {
      row: { game: r.game, actionSpace: r.actionSpace, kind, models: [] as string[] },
      byProtocol: new Map(),
    };
    if (!g.row.models.includes(r.model!)) g.row.models.push(r.model!);
    const models = g.byProtocol.get(r.protocol) ?? new Map<string, number[]>();
    models.set(r.model!, [...(models.get(r.model!) ?? []), r.mean]);
    g.byProtocol.set(r.protocol, models);
    groups.set(key, g);
  }
  // A figure of latency: only the titles some group played under more than one protocol.
  const compared = new Set([...groups.values()].filter((g) => g.byProtocol.size > 1).map((g) => g.row.game));
  const out = [...groups.values()]
    .filter((g) => compared.has(g.row.game))
    .map(({ row, byProtocol }) => ({
      ...row,
      models: row.models.sort(),
      cells: Object.fromEntries(
        [...byProtocol].map(([p, models]) => {
          const perModel = [...models.values()].map(mean);
          return [p, { mean: round2(mean(perModel)), models: perModel.length }];
        }),
      ),
    }))
    .sort(
      (a, b) =>
        a.game.localeCompare(b.game) || a.actionSpace.localeCompare(b.actionSpace) || a.kind.localeCompare(b.kind),
    );
  // Each protocol's mode, as its rows give it: the figure's order is the modes'.
  const modeOf = new Map(rows.map((r) => [r.protocol, r.latency]));
  const rank = (p: string) => {
    const i = (LATENCY_MODES as readonly string[]).indexOf(modeOf.get(p) ?? '');
    return i < 0 ? LATENCY_MODES.length : i;
  };
  const protocols = [...new Set(out.flatMap((r) => Object.keys(r.cells)))].sort(
    (a, b) => rank(a) - rank(b) || a.localeCompare(b),
  );
  return { rows: out, protocols, unknown };
}
