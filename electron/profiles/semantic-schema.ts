/**
 * A profile's `semantic` section: the title's own moves ("shoot(angle, power)", "plant(slot,
 * row, column)") with typed parameters, and the GUI actions each becomes, laid out on the window
 * in fractions (0–1 from the left and the top) so that a resized window still works. Shapes
 * only; what refers to what (names, parameters, keys) is checked in semantic-api.ts.
 */
import { z } from 'zod';

const fraction = z.number().min(0).max(1);
const name = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,39}$/, 'must be lower-case letters, digits and _ (e.g. end_turn), starting with a letter');
const words = (max = 2000) => z.string().trim().min(1).max(max);

/** A number, or an expression over the action's parameters (semantic-expr.ts), e.g. "power * 0.12". */
export const NumberOrExprSchema = z.union([z.number().finite(), z.string().trim().min(1).max(300)]);

export const PointDefSchema = z.strictObject({ x: fraction, y: fraction });

export const RegionDefSchema = z
  .strictObject({ x: fraction, y: fraction, width: fraction.positive(), height: fraction.positive() })
  .refine((r) => r.x + r.width <= 1.0001 && r.y + r.height <= 1.0001, {
    message: 'must lie inside the window: x + width and y + height at most 1',
  });

export const GridDefSchema = z.strictObject({
  /** The rectangle the cells divide (a region's name, or the rectangle itself). */
  region: z.union([name, RegionDefSchema]),
  rows: z.number().int().min(1).max(100),
  columns: z.number().int().min(1).max(100),
});

export interface PointRef {
  x?: z.input<typeof NumberOrExprSchema> | undefined;
  y?: z.input<typeof NumberOrExprSchema> | undefined;
  /** x and y are fractions of this region instead of the window. */
  in?: string | undefined;
  grid?: string | undefined;
  row?: z.input<typeof NumberOrExprSchema> | undefined;
  column?: z.input<typeof NumberOrExprSchema> | undefined;
  from?: PointInput | undefined;
  angle?: z.input<typeof NumberOrExprSchema> | undefined;
  distance?: z.input<typeof NumberOrExprSchema> | undefined;
  dx?: z.input<typeof NumberOrExprSchema> | undefined;
  dy?: z.input<typeof NumberOrExprSchema> | undefined;
}
export type PointInput = string | PointRef;

const FORMS = [
  ['x', 'y', 'in'],
  ['grid', 'row', 'column'],
  ['from', 'angle', 'distance'],
  ['from', 'dx', 'dy'],
] as const;

/**
 * Where an action lands, one of:
 * - a name: a point, or the centre of a region or grid;
 * - {x, y}: fractions of the window, or of region `in`;
 * - {grid, row, column}: the centre of a cell, counted from 1 at the top left;
 * - {from, angle, distance}: from a point, at an angle in degrees (0 = right, 90 = up), a distance in window widths;
 * - {from, dx, dy}: from a point, offset by fractions of the window.
 */
export const PointSchema: z.ZodType<PointInput> = z.lazy(() =>
  z.union([
    z.string().trim().min(1).max(40),
    z
      .strictObject({
        x: NumberOrExprSchema.optional(),
        y: NumberOrExprSchema.optional(),
        in: name.optional(),
        grid: name.optional(),
        row: NumberOrExprSchema.optional(),
        column: NumberOrExprSchema.optional(),
        from: PointSchema.optional(),
        angle: NumberOrExprSchema.optional(),
        distance: NumberOrExprSchema.optional(),
        dx: NumberOrExprSchema.optional(),
        dy: NumberOrExprSchema.optional(),
      })
      .superRefine((p, ctx) => {
        const given = Object.keys(p).filter((k) => p[k as keyof typeof p] !== undefined);
        const fits = FORMS.some(
          (f) =>
            given.every((k) => (f as readonly string[]).includes(k)) && f.every((k) => k === 'in' || given.includes(k)),
        );
        if (!fits)
          ctx.addIssue({
            code: 'custom',
            message: `a point is a name, {x, y} (optionally in a region), {grid, row, column}, {from, angle, distance} or {from, dx, dy}; got {${given.join(', ')}}`,
          });
      }),
  ]),
);

const button = z.enum(['left', 'right', 'middle']);
/** A key name, or "$param" for a choice parameter whose values are key names. */
const keyOrParam = z.string().trim().min(1).max(40);

/** The verbs of an expansion step, one per step; each is one of GameVerse's GUI actions. */
export const STEP_VERBS = [
  'click',
  'doubleClick',
  'rightClick',
  'move',
  'mouseDown',
  'dragTo',
  'mouseUp',
  'press',
  'keyDown',
  'keyUp',
  'hotkey',
  'type',
  'scroll',
  'wait',
] as const;
export type StepVerb = (typeof STEP_VERBS)[number];

export const StepSchema = z
  .strictObject({
    click: PointSchema.optional(),
    doubleClick: PointSchema.optional(),
    rightClick: PointSchema.optional(),
    move: PointSchema.optional(),
    /** Press a mouse button where the pointer is (move there first). */
    mouseDown: button.optional(),
    /** Move with the button held (a drag). */
    dragTo: PointSchema.optional(),
    mouseUp: button.optional(),
    press: keyOrParam.optional(),
    keyDown: keyOrParam.optional(),
    keyUp: keyOrParam.optional(),
    hotkey: z.array(keyOrParam).min(1).max(5).optional(),
    /** Text to type; "$param" types a choice parameter's value. */
    type: z.string().min(1).max(200).optional(),
    scroll: z.strictObject({ dx: NumberOrExprSchema.default(0), dy: NumberOrExprSchema.default(0) }).optional(),
    /** Seconds. */
    wait: NumberOrExprSchema.optional(),
    /** click: which button (default left). */
    button: button.optional(),
    /** press: how long the key is held; move, dragTo: how long the pointer takes (seconds). */
    seconds: NumberOrExprSchema.optional(),
    /** Do this step N times (1–50). */
    repeat: NumberOrExprSchema.optional(),
  })
  .superRefine((s, ctx) => {
    const verbs = STEP_VERBS.filter((v) => s[v] !== undefined);
    if (verbs.length !== 1)
      ctx.addIssue({
        code: 'custom',
        message: `a step does exactly one thing: give one of ${STEP_VERBS.join(', ')}${verbs.length ? ` (got ${verbs.join(', ')})` : ''}`,
      });
    if (s.button !== undefined && s.click === undefined)
      ctx.addIssue({ code: 'custom', path: ['button'], message: 'button goes with click' });
    if (s.seconds !== undefined && s.press === undefined && s.move === undefined && s.dragTo === undefined)
      ctx.addIssue({ code: 'custom', path: ['seconds'], message: 'seconds goes with press, move or dragTo' });
  });
export type StepInput = z.input<typeof StepSchema>;

export const ParamSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('integer'),
    min: z.number().int(),
    max: z.number().int(),
    description: words(500).optional(),
    default: z.number().int().optional(),
  }),
  z.strictObject({
    type: z.literal('number'),
    min: z.number().finite(),
    max: z.number().finite(),
    description: words(500).optional(),
    default: z.number().finite().optional(),
  }),
  z.strictObject({
    type: z.literal('choice'),
    values: z.array(z.string().trim().min(1).max(40)).min(1).max(50),
    description: words(500).optional(),
    default: z.string().optional(),
  }),
]);
export type ParamDef = z.output<typeof ParamSchema>;

export const SemanticActionSchema = z.strictObject({
  /** What the move does, in the title's words: the model reads this. */
  description: words(),
  /** The move's parameters in the order a call lists them. */
  params: z.record(name, ParamSchema).optional(),
  /** One call with every parameter, shown to the model as the example. */
  example: z.record(name, z.union([z.number(), z.string()])).optional(),
  /** The GUI actions the move becomes, in order. */
  do: z.array(StepSchema).min(1).max(50),
});
export type SemanticActionDef = z.output<typeof SemanticActionSchema>;

export const SemanticSectionSchema = z.strictObject({
  /** The window size the layout was measured at (e.g. 1920x1080); fractions carry over while the aspect ratio stays. */
  resolution: words(200).optional(),
  /** What to adjust when the title's screen differs (another aspect ratio, UI scale). */
  adjust: words().optional(),
  points: z.record(name, PointDefSchema).optional(),
  regions: z.record(name, RegionDefSchema).optional(),
  grids: z.record(name, GridDefSchema).optional(),
  /** The moves, by name (the model calls them by it). */
  actions: z.record(name, SemanticActionSchema).refine((a) => Object.keys(a).length > 0, {
    message: 'declares no actions',
  }),
});
export type SemanticSection = z.output<typeof SemanticSectionSchema>;
