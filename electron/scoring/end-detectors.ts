/**
 * A profile's episode-end detectors run on the window as it is after a step (episode-end-schema.ts
 * declares them): OCR of a region against a pattern, a template picture against a region, a
 * colour filling a region, the window title, the window or process gone, or a model's yes/no on
 * the frame. Each answers fired or not with what it saw (the record's evidence), or an error; a
 * detector that throws never ends an episode. Costly ones (OCR, judge) run every `checkEvery` steps.
 */
import path from 'node:path';
import { z } from 'zod';
import type { EncodedFrame } from '../capture/encode.ts';
import { describeCallError } from '../agents/model-call-error.ts';
import { callerFor, type ModelCaller, type RoleEndpoint } from '../agents/model-endpoint.ts';
import { render } from '../agents/prompts.ts';
import { fractionInPixels } from '../input/coordinates.ts';
import { type Detector, type DetectorKind, detectorKind } from '../profiles/episode-end-schema.ts';
import type { Region } from '../profiles/schema-parts.ts';
import { loadSharp } from '../util/sharp.ts';
import { textPattern } from '../util/text-pattern.ts';
import { readJson } from './json-ask.ts';
import { RegionOcr } from './ocr.ts';

/** The window as a detector sees it after a step. */
export interface WindowNow {
  /** The frame (as the model's frames are encoded); undefined when the window cannot be seen. */
  frame: EncodedFrame | undefined;
  /** Its title now; undefined when it is gone. */
  title: string | undefined;
  /** The window closed or its process ended. */
  gone: boolean;
}

/** One detector's answer. `label` names it in records: `end[0] ocr`, `ready[1] pixels`. */
export interface DetectorResult {
  label: string;
  kind: DetectorKind;
  fired: boolean;
  /** What it saw: the OCR text, the similarity, the share of matching pixels, the title, the model's reason. */
  detail: string;
  error?: string;
}

export interface DetectorOptions {
  /** The profile's folder: templates are read from beside it. */
  profileDir: string;
  /** The title's name for the judge's prompt. */
  gameTitle: string;
  /** The model a `judge` detector asks (the screen-reader role); without one a judge detector errs. */
  judge?: RoleEndpoint | undefined;
  /** `end` or `ready`: how results are labelled. */
  list?: string;
}

const JudgeAnswer = z.object({ yes: z.boolean(), why: z.string().max(2000).optional() });

/** A picture's pixels, three bytes (RGB) each, with its size. */
interface Pixels {
  data: Buffer;
  width: number;
  height: number;
}

export class Detectors {
  private ocr: RegionOcr | undefined;
  private caller: ModelCaller | undefined;
  private readonly templates = new Map<string, Promise<Pixels>>();
  private readonly list: string;

  constructor(
    readonly defs: readonly Detector[],
    private readonly o: DetectorOptions,
  ) {
    this.list = o.list ?? 'end';
  }

  /** Whether any detector is due after step `step` (0-based): then the window is looked at. */
  due(step: number): boolean {
    return this.defs.some((d) => this.dueAt(d, step));
  }

  private dueAt(d: Detector, step: number) {
    return d.checkEvery === undefined || (step + 1) % d.checkEvery === 0;
  }

  /**
   * The first due detector that fires, in the profile's order (later ones are not run), and the
   * errors of those before it that could not look; `hit` undefined: none fired.
   */
  async first(
    now: WindowNow,
    step: number | undefined,
    signal?: AbortSignal,
  ): Promise<{ hit?: DetectorResult; errors: DetectorResult[] }> {
    const errors: DetectorResult[] = [];
    for (const [i, d] of this.defs.entries()) {
      if (step !== undefined && !this.dueAt(d, step)) continue;
      const r = await this.run(i, d, now, signal);
      if (r.fired) return { hit: r, errors };
      if (r.error) errors.push(r);
    }
    return { errors };
  }

  /** Every detector's answer on this window (`profile check`, the editor's "try it"). */
  async all(now: WindowNow, signal?: AbortSignal): Promise<DetectorResult[]> {
    const out: DetectorResult[] = [];
    for (const [i, d] of this.defs.entries()) out.push(await this.run(i, d, now, signal));
    return out;
  }

  async close() {
    await this.ocr?.close();
    this.ocr = undefined;
  }

  private async run(i: number, d: Detector, now: WindowNow, signal?: AbortSignal): Promise<DetectorResult> {
    const kind = detectorKind(d);
    const label = `${this.list}[${i}] ${kind}`;
    try {
      signal?.throwIfAborted();
      const { fired, detail } = await this.look(d, now, signal);
      return { label, kind, fired, detail };
    } catch (err) {
      if (signal?.aborted) throw err;
      return { label, kind, fired: false, detail: '', error: (err as Error).message };
    }
  }

  private async look(d: Detector, now: WindowNow, signal?: AbortSignal): Promise<{ fired: boolean; detail: string }> {
    if (d.exit)
      return { fired: now.gone, detail: now.gone ? 'the window or its process is gone' : 'the window is there' };
    if (d.title !== undefined) {
      const title = now.title ?? '';
      return { fired: now.title !== undefined && textPattern(d.title).test(title), detail: `title "${title}"` };
    }
    const frame = now.frame;
    if (!frame) throw new Error('the window cannot be seen, so its frame cannot be looked at');
    if (d.ocr) {
      this.ocr ??= new RegionOcr();
      const r = await this.ocr.read(frame, d.ocr.region, signal);
      const text = r.text.trim().replace(/\s+/g, ' ');
      return { fired: textPattern(d.ocr.text).test(text), detail: `OCR read "${text.slice(0, 120)}"` };
    }
    if (d.pixels) {
      const share = await colourShare(frame, d.pixels.region, d.pixels.colour, d.pixels.tolerance);
      return {
        fired: share >= d.pixels.share,
        detail: `${(share * 100).toFixed(1)} % of the region within ${d.pixels.tolerance} of ${d.pixels.colour}`,
      };
    }
    if (d.image) {
      const template = await this.template(d.image.template);
      const similarity = await regionSimilarity(frame, d.image.region, template);
      return {
        fired: similarity >= d.image.threshold,
        detail: `similarity ${similarity.toFixed(3)} to ${d.image.template} (fires at ${d.image.threshold})`,
      };
    }
    return this.judge(d.judge!, frame, signal);
  }

  private async judge(question: string, frame: EncodedFrame, signal?: AbortSignal) {
    if (!this.o.judge) throw new Error('a judge detector needs a model (the screen reader), and none was given');
    this.caller ??= callerFor(this.o.judge, 'screen-reader');
    let text: string;
    try {
      const res = await this.caller.chat(
        {
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: render('end-judge', { game_title: this.o.gameTitle, question }) },
                { type: 'image_url', image_url: { url: `data:${frame.mime};base64,${frame.data.toString('base64')}` } },
              ],
            },
          ],
          temperature: 0,
          stream: false,
        },
        signal ? { signal } : {},
      );
      text = res.text;
    } catch (err) {
      throw new Error(`the judge's call failed: ${describeCallError(err)}`);
    }
    const a = readJson(text, JudgeAnswer);
    if (!a.ok) throw new Error(`the judge's answer could not be read: ${a.error}`);
    return {
      fired: a.value.yes,
      detail: `the judge said ${a.value.yes ? 'yes' : 'no'}${a.value.why ? `: ${a.value.why.slice(0, 300)}` : ''}`,
    };
  }

  private template(file: string): Promise<Pixels> {
    let t = this.templates.get(file);
    if (!t) {
      t = (async () => {
        const sharp = await loadSharp();
        const { data, info } = await sharp(path.join(this.o.profileDir, file))
          .removeAlpha()
          .toColourspace('srgb') // a grey PNG too: three channels, as the region is compared
          .raw()
          .toBuffer({ resolveWithObject: true });
        return { data, width: info.width, height: info.height };
      })();
      t.catch(() => this.templates.delete(file));
      this.templates.set(file, t);
    }
    return t;
  }
}

/** The region of the frame, in the frame's pixels: its rectangle and the picture cut to it, alpha dropped. */
async function crop(frame: EncodedFrame, region: Region) {
  const sharp = await loadSharp();
  const r = fractionInPixels(frame, region);
  return {
    r,
    image: sharp(frame.data).extract({ left: r.x, top: r.y, width: r.width, height: r.height }).removeAlpha(),
  };
}

/** The region of the frame in its own pixels, decoded to raw channels. */
async function regionPixels(frame: EncodedFrame, region: Region) {
  const { data, info } = await (await crop(frame, region)).image.raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

/** The share (0–1) of the region's pixels within `tolerance` of `colour` in every channel. */
export async function colourShare(frame: EncodedFrame, region: Region, colour: string, tolerance: number) {
  const want = [1, 3, 5].map((i) => Number.parseInt(colour.slice(i, i + 2), 16));
  const px = await regionPixels(frame, region);
  let hits = 0;
  const n = px.width * px.height;
  for (let p = 0; p < n; p++) {
    const o = p * px.channels;
    if (
      Math.abs(px.data[o]! - want[0]!) <= tolerance &&
      Math.abs(px.data[o + 1]! - want[1]!) <= tolerance &&
      Math.abs(px.data[o + 2]! - want[2]!) <= tolerance
    )
      hits++;
  }
  return n ? hits / n : 0;
}

/** The region's shape may differ from the template's by this much (width/height ratio) before it is an error. */
const ASPECT_SLACK = 0.15;

/**
 * How alike the region is to the template (0–1): the region, scaled to the template's size, against
 * it in colour, 1 − the mean difference of every channel (grey alone takes a blue gone black for
 * alike). The template is the same region cut from another frame, so any window size compares; a
 * template of another shape is an error, not a miss.
 */
export async function regionSimilarity(frame: EncodedFrame, region: Region, t: Pixels): Promise<number> {
  const { r, image } = await crop(frame, region);
  const aspect = r.width / r.height;
  const tAspect = t.width / t.height;
  if (Math.abs(aspect / tAspect - 1) > ASPECT_SLACK)
    throw new Error(
      `the template is ${t.width}×${t.height} and the region ${r.width}×${r.height} in this frame: not the same shape; cut the template from this region`,
    );
  const data = await image.toColourspace('srgb').resize(t.width, t.height, { fit: 'fill' }).raw().toBuffer();
  let diff = 0;
  for (let i = 0; i < t.data.length; i++) diff += Math.abs(data[i]! - t.data[i]!);
  return 1 - diff / (t.data.length * 255);
}

/** The template a detector would use, cut from this frame at the region (the editor's "use this frame"). */
export async function cutTemplate(frame: EncodedFrame, region: Region): Promise<Buffer> {
  return (await crop(frame, region)).image.png().toBuffer();
}
