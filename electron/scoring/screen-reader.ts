/**
 * Scores a window no engine drives by reading a number off its frames (the profile's
 * `scoring.kind: screen`), combined over the episode and normalised to 0–100. Two readers:
 * a VLM, one call per reading answered as strict JSON ({"value": n|null, "level": s|null}); or,
 * with `reader: ocr`, OCR of the profile's region (scoring/ocr.ts) — no model, free, the same
 * number for the same pixels. Each reading is logged with its step, whose frame it read.
 */
import { describeCallError } from '../agents/model-call-error.ts';
import { callerFor, type ModelCaller, type RoleEndpoint } from '../agents/model-endpoint.ts';
import { z } from 'zod';
import { render } from '../agents/prompts.ts';
import type { EncodedFrame } from '../capture/encode.ts';
import type { Profile, ScreenScoring } from '../profiles/profile-schema.ts';
import { combineReadings, normalise, type ScreenReading } from './normalise.ts';
import { round2 } from '../domain.ts';
import { RegionOcr } from './ocr.ts';

/** The screen reader's endpoint. */
export type ReaderModel = RoleEndpoint;

const AnswerSchema = z.strictObject({
  value: z.number().finite().nullable(),
  level: z
    .union([z.string().max(200), z.number()])
    .nullable()
    .optional(),
});

/** The reader's answer as strict JSON: one object, optionally inside a ```json fence, nothing else. */
export function parseReading(text: string): { ok: true; reading: ScreenReading | null } | { ok: false; error: string } {
  const body = text
    .trim()
    .replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/i, '$1')
    .trim();
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch {
    return { ok: false, error: `not one JSON object: ${JSON.stringify(text.slice(0, 120))}` };
  }
  const r = AnswerSchema.safeParse(data);
  if (!r.success)
    return {
      ok: false,
      error: `unexpected answer ${JSON.stringify(data)?.slice(0, 120)}: ${r.error.issues[0]?.message}`,
    };
  if (r.data.value === null) return { ok: true, reading: null };
  return {
    ok: true,
    reading: { value: r.data.value, ...(r.data.level != null ? { level: String(r.data.level) } : {}) },
  };
}

/** One reading as run.json keeps it: the step whose frame was read, what was read, and by whom. */
export interface ReadingLog {
  step: number;
  reading: ScreenReading | null;
  reader: 'model' | 'ocr';
  /** OCR: the text it saw in the region and its confidence. */
  text?: string;
  confidence?: number;
  error?: string;
}

export class ScreenScoreReader {
  private readonly caller: ModelCaller | undefined;
  private readonly ocr: RegionOcr | undefined;
  private readings: ScreenReading[] = [];
  /** Every reading of this episode, for the run's record. */
  readonly log: ReadingLog[] = [];

  /** `model` is needed unless the profile reads by OCR. */
  constructor(
    private readonly profile: Profile,
    private readonly spec: ScreenScoring,
    model?: ReaderModel,
  ) {
    if (spec.reader === 'ocr') {
      this.ocr = new RegionOcr();
      return;
    }
    if (!model) throw new Error(`the profile "${profile.id}" reads its score with a model, and none was given`);
    this.caller = callerFor(model, 'screen-reader');
  }

  get reader(): 'model' | 'ocr' {
    return this.ocr ? 'ocr' : 'model';
  }

  /** Ends the OCR worker (a model reader holds nothing). */
  async close() {
    await this.ocr?.close();
  }

  resetEpisode() {
    this.readings = [];
    this.log.length = 0;
  }

  /** Whether a reading is due after this step (everySteps), besides the one at the episode's end. */
  dueAfter(step: number): boolean {
    return this.spec.everySteps !== undefined && (step + 1) % this.spec.everySteps === 0;
  }

  /** Reads the frame once; an unreadable answer or a failed call is logged and counts as no reading. */
  async read(frame: EncodedFrame, step: number, signal?: AbortSignal): Promise<ScreenReading | null> {
    if (this.ocr) return this.readByOcr(this.ocr, frame, step, signal);
    try {
      const res = await this.caller!.chat(
        {
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: render('screen-read', { game_title: this.profile.title, read: this.spec.read }) },
                {
                  type: 'image_url',
                  image_url: { url: `data:${frame.mime};base64,${frame.data.toString('base64')}` },
                },
              ],
            },
          ],
          temperature: 0,
          stream: false,
        },
        signal ? { signal } : {},
      );
      const parsed = parseReading(res.text);
      if (!parsed.ok) {
        this.log.push({ step, reading: null, reader: 'model', error: parsed.error });
        return null;
      }
      this.log.push({ step, reading: parsed.reading, reader: 'model' });
      if (parsed.reading) this.readings.push(parsed.reading);
      return parsed.reading;
    } catch (err) {
      this.log.push({
        step,
        reading: null,
        reader: 'model',
        error: `screen reading failed: ${describeCallError(err)}`,
      });
      return null;
    }
  }

  private async readByOcr(ocr: RegionOcr, frame: EncodedFrame, step: number, signal?: AbortSignal) {
    try {
      const r = await ocr.read(frame, this.spec.region!, signal);
      const reading = r.value === null ? null : { value: r.value };
      this.log.push({
        step,
        reading,
        reader: 'ocr',
        text: r.text,
        confidence: r.confidence,
        ...(reading ? {} : { error: `no number in the region (OCR read ${JSON.stringify(r.text.slice(0, 80))})` }),
      });
      if (reading) this.readings.push(reading);
      return reading;
    } catch (err) {
      this.log.push({ step, reading: null, reader: 'ocr', error: `OCR failed: ${(err as Error).message}` });
      return null;
    }
  }

  /** The episode's raw value (readings combined) and its 0–100 score; null when nothing could be read. */
  result(): { value: number | null; score: number | null } {
    const value = combineReadings(this.readings, this.spec.combine);
    return { value, score: value === null ? null : round2(normalise(value, this.spec.normaliser)) };
  }
}
