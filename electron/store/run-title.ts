/**
 * The title a run or a human session counts under in every table (leaderboard, report,
 * milestone agreement, the Runs tab): a built-in game by its id, a window by the profile it
 * followed, and a window with no profile by its window title, marked unprofiled so that it is
 * never pooled with a profiled title. run.json records it as `title` when the run starts; run
 * folders from before that (a window run with `game: null` and a `profile` record) are read the
 * same way by `titleOf`.
 */
import { z } from 'zod';
import { TITLE_KINDS, UNPROFILED_PREFIX } from '../domain.ts';

export const RunTitleSchema = z.object({
  /** What tables group by: the built-in game's id, the profile's id, or `window:<title>`. */
  id: z.string().min(1),
  /** The title people read: the profile's title, else the game's id or the window's title. */
  name: z.string(),
  kind: z.enum(TITLE_KINDS),
  /** GameVerse's cognitive category and difficulty tier, from the profile. */
  category: z.string().nullable(),
  tier: z.string().nullable(),
  /** How the title is scored (intrinsic, screen, milestones, none), from the profile. */
  scoring: z.string().nullable(),
  /** The profile's content hash: two runs with different hashes followed different versions of it. */
  profile_hash: z.string().nullable(),
});
export type RunTitle = z.output<typeof RunTitleSchema>;

/** The fields of run.json a title is derived from. */
export interface TitleSource {
  game: string | null;
  target: { label: string };
  profile?: Record<string, unknown>;
  title?: unknown;
}

const str = (v: unknown) => (typeof v === 'string' && v ? v : null);

/** The title a run counts under: the one run.json recorded, else derived from its game, profile and target. */
export function titleOf(meta: TitleSource): RunTitle {
  const recorded = RunTitleSchema.safeParse(meta.title);
  return recorded.success ? recorded.data : derivedTitle(meta);
}

/** The title its game, profile and target make, whatever run.json recorded: what it records. */
export function derivedTitle(meta: Omit<TitleSource, 'title'>): RunTitle {
  const p = meta.profile ?? {};
  const scoring = p.scoring as { kind?: unknown } | undefined;
  const fromProfile = {
    category: str(p.category),
    tier: str(p.tier),
    scoring: str(scoring?.kind),
    profile_hash: str(p.hash),
  };
  if (meta.game)
    return {
      id: meta.game,
      name: str(p.title) ?? str(meta.target.label) ?? meta.game,
      kind: 'builtin',
      ...fromProfile,
    };
  const id = str(p.id);
  if (id) return { id, name: str(p.title) ?? id, kind: 'profile', ...fromProfile };
  const label = meta.target.label || '(untitled window)';
  return {
    id: `${UNPROFILED_PREFIX}${label}`,
    name: label,
    kind: 'unprofiled',
    category: null,
    tier: null,
    scoring: null,
    profile_hash: null,
  };
}
