/**
 * How a profiled window's episode ends and how the next game starts (a profile's `episode.end`,
 * `episode.reset`, `episode.startWithReset`). A detector looks at the window after a step has
 * settled: OCR of a region, a template picture, a colour filling a region, the window title, the
 * process ending, or a model's judgement. Reset steps use the semantic moves' step vocabulary
 * (press, hotkey, click, wait, …). Shapes only; scoring/end-detectors.ts
 * runs them, and load.ts checks the template files beside the profile.
 */
import { z } from 'zod';
import { besideFile, fraction, RegionSchema, regexText } from './schema-parts.ts';
import { StepSchema } from './semantic-schema.ts';

/** A template: a PNG file beside the profile. */
const templateFile = besideFile.refine((v) => /\.png$/i.test(v), {
  message: 'must be a PNG file (cut from a frame in the profile editor)',
});

export const DETECTOR_KINDS = ['ocr', 'image', 'pixels', 'title', 'exit', 'judge'] as const;
export type DetectorKind = (typeof DETECTOR_KINDS)[number];

export const DetectorSchema = z
  .strictObject({
    /** OCR of the region matches `text` (a regular expression, case-insensitive: "game over|you win"). */
    ocr: z.strictObject({ region: RegionSchema, text: regexText }).optional(),
    /**
     * The region looks like the template: a picture of the same region cut from a frame where it
     * fired (the editor's "use this frame"). Similarity 0–1 (1 − the mean colour difference), at least `threshold`.
     */
    image: z
      .strictObject({ region: RegionSchema, template: templateFile, threshold: fraction.default(0.9) })
      .optional(),
    /** At least `share` of the region's pixels are within `tolerance` (per channel, 0–255) of `colour` (#rrggbb). */
    pixels: z
      .strictObject({
        region: RegionSchema,
        colour: z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour written #rrggbb'),
        tolerance: z.number().int().min(0).max(255).default(24),
        share: fraction.positive().default(0.9),
      })
      .optional(),
    /** The window title matches (a regular expression, case-insensitive). */
    title: regexText.optional(),
    /** The game's process ended or its window closed. */
    exit: z.literal(true).optional(),
    /** A model looks at the frame and says whether this is so ("the game-over screen is shown"); costs a call. */
    judge: z.string().trim().min(1).max(2000).optional(),
    /** Check every N steps (the costly ones: OCR, judge); unset: every step. */
    checkEvery: z.number().int().min(1).max(10000).optional(),
  })
  .superRefine((d, ctx) => {
    const kinds = DETECTOR_KINDS.filter((k) => d[k] !== undefined);
    if (kinds.length !== 1)
      ctx.addIssue({
        code: 'custom',
        message: `a detector is exactly one of ${DETECTOR_KINDS.join(', ')}${kinds.length ? ` (got ${kinds.join(', ')})` : ''}`,
      });
  });
export type Detector = z.output<typeof DetectorSchema>;

/** The kind of a (valid) detector. */
export function detectorKind(d: Detector): DetectorKind {
  return DETECTOR_KINDS.find((k) => d[k] !== undefined)!;
}

export const ResetSchema = z.strictObject({
  /** The steps that start the next game, in the semantic moves' vocabulary (press, hotkey, click, wait…). */
  do: z.array(StepSchema).min(1).max(50),
  /** What shows the next game is ready (default: no end detector fires and the frame differs from the end frame). */
  ready: z.array(DetectorSchema).min(1).max(20).optional(),
  /** How long the new game may take to be ready (seconds). */
  timeout: z.number().positive().max(600).default(20),
});
export type ResetSpec = z.output<typeof ResetSchema>;

/** The fields `episode` gains; profile-schema.ts spreads them into its EpisodeSchema. */
export const EPISODE_END_FIELDS = {
  /** What ends an episode before its step or time limit; the first that fires ends it. */
  end: z.array(DetectorSchema).min(1).max(20).optional(),
  /** How the next episode's game starts (and is checked to have started). */
  reset: ResetSchema.optional(),
  /** Run the reset before the first episode too, so every episode starts from a known state. */
  startWithReset: z.boolean().default(false),
};
