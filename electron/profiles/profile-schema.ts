/**
 * A game profile: everything Gamepilot knows about one title, in one file (YAML or JSON). The
 * schema is the single definition; `docs/profile.schema.json` is generated from it for editors
 * (scripts/profile-schema.ts) and a test keeps the two in step.
 */
import { z } from 'zod';
import type { ActionSpace } from '../domain.ts';
import { RUN_SPEC_FIELDS } from '../run-spec.ts';
import { resolveKeyName } from '../actions/keys.ts';
import { KeyPolicy } from '../input/key-policy.ts';
import { besideFile, RegionSchema, regexText, text } from './schema-parts.ts';
import { EPISODE_END_FIELDS } from './episode-end-schema.ts';
import { episodeEndIssues } from './episode-reset.ts';
import { SemanticSectionSchema } from './semantic-schema.ts';
import { compileSemanticSection, type SemanticApi } from './semantic-api.ts';

/** GameVerse's five cognitive categories (§3.1). */
export const CATEGORIES = [
  'markov-grid',
  'nonrealtime-linear',
  'nonrealtime-nonlinear',
  'realtime-linear',
  'realtime-nonlinear',
] as const;
export const TIERS = ['easy', 'medium', 'hard'] as const;
/** The agent a title is played with by default: zero-shot (the VLM agent) or the memory agent. */
export const PROFILE_AGENTS = ['zero-shot', 'memory'] as const;
/** How the world is frozen while the model thinks: a built-in's engine clock, the process, the game's pause key, or not at all. */
export const FREEZE_METHODS = ['engine', 'process', 'pause-key', 'none'] as const;
export const SCORING_KINDS = ['intrinsic', 'screen', 'milestones', 'none'] as const;

const keyName = z
  .string()
  .min(1)
  .max(40)
  .refine((k) => resolveKeyName(k) !== undefined, { message: 'is not a key name (e.g. up, w, space, enter, f5)' });

const hotkey = z
  .string()
  .min(1)
  .max(60)
  .superRefine((v, ctx) => {
    try {
      new KeyPolicy([v]);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
    }
  });

export const MatchSchema = z
  .strictObject({
    /** Window title, a regular expression matched case-insensitively. */
    title: regexText.optional(),
    /** Executable name(s) of the window's process (e.g. sgt-fifteen, RDR2.exe; matched without .exe, case-insensitively). */
    executable: z.union([text(200), z.array(text(200)).min(1)]).optional(),
  })
  .refine((m) => m.title !== undefined || m.executable !== undefined, {
    message: 'needs a title pattern, an executable name, or both',
  });

export const PromptSchema = z.strictObject({
  /** The target task in a sentence or two (each step's "Target task"). */
  task: text(2000).optional(),
  /** Goal, how it is won or lost, in the title's own terms. */
  rules: text(),
  /** Where things are on the screen: health bar, minimap, score. */
  screen: text().optional(),
  /** Keys and mouse use (GUI action space). */
  controls: text(),
  /** How to act in the semantic action space, beside the list of moves the profile's `semantic` section declares. */
  semanticControls: text().optional(),
  /** Worked examples: situations and a good answer, in words. */
  examples: z.array(text(2000)).max(20).optional(),
});

export { RegionSchema, type Region } from './schema-parts.ts';

export const ActionsSchema = z
  .strictObject({
    /** GUI (keys and pointer) and/or semantic (a built-in's own moves, or the moves of the profile's `semantic` section). */
    gui: z.boolean().default(true),
    semantic: z.boolean().default(false),
    /** The only keys the model may press at all (unset: any key). Pointer actions are not affected. */
    allowedKeys: z.array(keyName).min(1).max(200).optional(),
    /** System combinations the title needs (e.g. esc with ctrl, alt+enter): the key policy's allow-list. */
    allowedHotkeys: z.array(hotkey).max(50).optional(),
    /** Moves one step may make; inputs past it are dropped, not executed. */
    maxActionsPerStep: z.number().int().min(1).max(100).optional(),
    /**
     * Where pointer actions may land (default: anywhere in the window): leave out a menu bar or a
     * header bar, whose items (Quit, New game) are no part of play. Outside it they are refused.
     */
    pointerArea: RegionSchema.optional(),
  })
  .refine((a) => a.gui || a.semantic, { message: 'allows no action space: set gui or semantic' });

export const EpisodeSchema = z.strictObject({
  /** Steps per episode (a step = one decision of the agent). */
  maxSteps: RUN_SPEC_FIELDS.maxSteps.unwrap(),
  /** A time limit per episode instead of (or beside) a step limit, in seconds (Forza: 3 minutes). */
  maxSeconds: z.number().positive().max(86400).optional(),
  /** Episodes of one evaluation. */
  trials: RUN_SPEC_FIELDS.episodes.unwrap(),
  /** An episode scoring below this failed (reflect-and-retry). */
  successScore: z.number().min(0).max(100).default(100),
  agent: z.enum(PROFILE_AGENTS).default('zero-shot'),
  /** Frames per request: 2 = the current frame plus the previous step's (zero-shot); the memory agent uses 5 pairs. */
  history: z.number().int().min(1).max(16).default(2),
  ...EPISODE_END_FIELDS,
});

export const LatencySchema = z
  .strictObject({
    /** The latency mode a run starts in unless one is given. */
    mode: RUN_SPEC_FIELDS.latency.unwrap().default('normal'),
    freeze: z.enum(FREEZE_METHODS).default('process'),
    /** The title's own pause key (freeze: pause-key). */
    pauseKey: keyName.optional(),
    /** stop: how long the world runs after acting (ms). */
    stopIntervalMs: z.number().min(0).max(600000).optional(),
    /** slow: how long the world pauses after each capture (ms). */
    slowBufferMs: z.number().min(0).max(600000).optional(),
  })
  .refine((l) => l.freeze !== 'pause-key' || l.pauseKey !== undefined, {
    message: 'freeze: pause-key needs pauseKey',
    path: ['pauseKey'],
  });

export const NormaliserSchema = z.strictObject({
  /** score = (value − offset) / divisor × multiplier, clipped to 0–100. */
  divisor: z.number().positive(),
  multiplier: z.number().positive().default(100),
  offset: z.number().default(0),
  clip: z.boolean().default(true),
});

const MilestoneSchema = z.union([
  text(300),
  z.strictObject({
    title: text(300),
    /** What a judge can check on a frame. */
    description: text(2000).optional(),
    /** Seconds into the walkthrough video where it happens (an extracted milestone). */
    t: z.number().min(0).max(1_000_000).optional(),
    /** The walkthrough's frame at `t`, beside the profile. */
    evidence: besideFile.optional(),
  }),
]);

const scoringCommon = {
  /** The paper's formula in words, for people (e.g. "Σ3 levels / 133000 × 100"). */
  formula: text(500).optional(),
};

export const ScoringSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('intrinsic'),
    /** The built-in game whose engine scores (its id). */
    engine: text(64),
    ...scoringCommon,
  }),
  z
    .strictObject({
      kind: z.literal('screen'),
      /** What number to read, and where on the screen it shows. */
      read: text(2000),
      /** Who reads it: a model looking at the frame (default), or OCR of `region` (no model: free, deterministic). */
      reader: z.enum(['model', 'ocr']).default('model'),
      /** The part of the window holding the number, in fractions of the window (0–1); OCR reads only this. */
      region: RegionSchema.optional(),
      normaliser: NormaliserSchema,
      /** How readings combine over an episode: the last one, the highest, or the sum of each level's highest. */
      combine: z.enum(['last', 'max', 'sum-levels']).default('last'),
      /** Read every N steps as well as at the end of the episode (unset: only at the end). */
      everySteps: z.number().int().min(1).max(100000).optional(),
      ...scoringCommon,
    })
    .refine((s) => s.reader !== 'ocr' || s.region !== undefined, {
      message: 'OCR reads a region: give region {x, y, width, height} in fractions of the window',
      path: ['region'],
    })
    .refine((s) => s.reader !== 'ocr' || s.combine !== 'sum-levels', {
      message: 'OCR reads a number, not a level name: use combine last or max, or reader model',
      path: ['combine'],
    }),
  z
    .strictObject({
      kind: z.literal('milestones'),
      /** Whether the milestones come in a fixed order (a linear story) or in any order. */
      linear: z.boolean(),
      milestones: z.array(MilestoneSchema).min(1).max(200).optional(),
      /** The same, grouped by level or chapter; the score pools every level's milestones. */
      levels: z
        .array(z.strictObject({ name: text(200), milestones: z.array(MilestoneSchema).min(1).max(200) }))
        .min(1)
        .max(50)
        .optional(),
      ...scoringCommon,
    })
    .refine((m) => (m.milestones === undefined) !== (m.levels === undefined), {
      message: 'give either milestones (one list) or levels (lists per level), not both and not neither',
    }),
  z.strictObject({ kind: z.literal('none'), ...scoringCommon }),
]);

export const SetupSchema = z.strictObject({
  /** Where a run starts: the level, chapter or save to load. */
  start: text(2000),
  /** Display mode (windowed, borderless…). */
  display: text(500).optional(),
  resolution: text(200).optional(),
  /** Anything else to do before a run. */
  other: text(2000).optional(),
});

export const ProfileSchema = z
  .strictObject({
    /** Editors: where the JSON Schema lives (ignored by Gamepilot). */
    $schema: z.string().optional(),
    id: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'must be lower-case letters, digits and dashes (e.g. slay-the-spire)'),
    title: text(200),
    /** The built-in game this profile describes (its id); built-ins need no window match. */
    builtin: text(64).optional(),
    match: MatchSchema.optional(),
    /**
     * The anti-cheat system the title ships (e.g. Easy Anti-Cheat, BattlEye): runs on it need
     * --accept-anticheat-risk even before its process is seen, and the profile says why.
     */
    antiCheat: text(100).optional(),
    /** How to start the title (argv), for sweeps. */
    launch: z.array(z.string().min(1).max(2000)).min(1).max(100).optional(),
    category: z.enum(CATEGORIES),
    tier: z.enum(TIERS),
    setup: SetupSchema.optional(),
    prompt: PromptSchema,
    actions: ActionsSchema.default({ gui: true, semantic: false }),
    /** The title's own moves with typed parameters, and the GUI actions each becomes on the window. */
    semantic: SemanticSectionSchema.optional(),
    episode: EpisodeSchema,
    latency: LatencySchema.default({ mode: 'normal', freeze: 'process' }),
    scoring: ScoringSchema,
    /** Where facts came from, what is uncertain, and where a source contradicts itself. */
    notes: z.array(text(4000)).max(50).optional(),
  })
  .refine((p) => p.builtin !== undefined || p.match !== undefined, {
    message: 'needs match (a window title pattern and/or an executable) unless it describes a built-in game',
    path: ['match'],
  })
  .superRefine((p, ctx) => {
    // A broken semantic section is reported by its own issues (below), not as missing moves.
    const problem = p.semantic
      ? undefined
      : semanticMovesProblem(p.actions.semantic ? 'semantic' : 'gui', !!p.builtin, p);
    if (problem) ctx.addIssue({ code: 'custom', path: ['actions', 'semantic'], message: problem });
  })
  .refine((p) => p.semantic === undefined || p.actions.semantic, {
    message: 'declares semantic actions but does not offer them: set actions.semantic: true',
    path: ['actions', 'semantic'],
  })
  .refine((p) => p.semantic === undefined || p.builtin === undefined, {
    message: 'a built-in game has its own moves; a semantic section is for windows',
    path: ['semantic'],
  })
  .superRefine((p, ctx) => {
    if (!p.semantic) return;
    for (const issue of compileSemanticSection(p.semantic, p.actions.allowedKeys).issues)
      ctx.addIssue({ code: 'custom', path: ['semantic', ...issue.path], message: issue.message });
  })
  .superRefine((p, ctx) => {
    for (const issue of episodeEndIssues(p)) ctx.addIssue({ code: 'custom', ...issue });
  })
  .refine((p) => p.scoring.kind !== 'intrinsic' || p.builtin !== undefined, {
    message: 'intrinsic scoring needs a built-in engine: read the score off the screen (kind: screen) instead',
    path: ['scoring', 'kind'],
  });

export type Profile = z.output<typeof ProfileSchema>;

const apis = new WeakMap<object, SemanticApi | null>();
/** The profile's semantic actions, compiled once per profile object; undefined when it declares none. */
export function semanticApiOf(p: Profile | undefined): SemanticApi | undefined {
  if (!p?.semantic) return undefined;
  let api = apis.get(p.semantic);
  if (api === undefined) {
    api = compileSemanticSection(p.semantic, p.actions.allowedKeys).api ?? null;
    apis.set(p.semantic, api);
  }
  return api ?? undefined;
}
export type ProfileInput = z.input<typeof ProfileSchema>;

/**
 * The semantic action space plays named moves: a built-in game's own, or the calls a profile
 * declares in its semantic section. Why a target has none (undefined: it has them) — the one
 * statement of the rule, asked by a sweep file, the composition root and the loop alike.
 */
export function semanticMovesProblem(
  actionSpace: ActionSpace,
  builtin: boolean,
  profile: Profile | undefined,
): string | undefined {
  if (actionSpace !== 'semantic' || builtin || semanticApiOf(profile)) return undefined;
  return profile
    ? `the semantic action space needs moves: the profile "${profile.id}" declares none (add a semantic section to it; a built-in game has its own)`
    : 'the semantic action space needs moves: a built-in game, or a window whose profile declares them in a semantic section';
}
export type ScoringSpec = Profile['scoring'];
export type ScreenScoring = Extract<ScoringSpec, { kind: 'screen' }>;
export type MilestoneScoring = Extract<ScoringSpec, { kind: 'milestones' }>;
export type Category = (typeof CATEGORIES)[number];
