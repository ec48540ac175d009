/** Field shapes more than one profile section uses: regions, patterns, files beside the profile. */
import { z } from 'zod';
import { textPattern } from '../util/text-pattern.ts';

export const text = (max = 8000) => z.string().trim().min(1).max(max);

/** A title or text pattern: compiled by the linear-time engine, so no profile can make matching hang. */
export const regexText = text(500).superRefine((v, ctx) => {
  try {
    textPattern(v);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: `is not a usable regular expression: ${(err as Error).message}` });
  }
});

export const fraction = z.number().min(0).max(1);
/** A rectangle in fractions of the window (0–1 from the left and the top), so a resized window still fits. */
export const RegionSchema = z
  .strictObject({ x: fraction, y: fraction, width: fraction.positive(), height: fraction.positive() })
  .refine((r) => r.x + r.width <= 1.0001 && r.y + r.height <= 1.0001, {
    message: 'the region must lie inside the window: x + width and y + height at most 1',
  });
export type Region = z.output<typeof RegionSchema>;

/** A file beside the profile (an evidence frame, a template): a plain relative path, never absolute or through `..`. */
export const besideFile = text(300).refine((v) => !/^([\\/]|[a-zA-Z]:)/.test(v) && !v.split(/[\\/]/).includes('..'), {
  message: 'must be a path relative to the profile file, without ..',
});
