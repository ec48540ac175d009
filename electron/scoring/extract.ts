/**
 * Milestones from an expert's walkthrough (GameVerse §3.3, App. A.4): the video (or a recorded
 * session) is sampled as for reflection, shown to a model in chunks of frames labelled with
 * their times, and each chunk's milestones — name, a description a judge can check on one
 * frame, and the time it happens — are merged in order. Each milestone keeps the sampled frame
 * nearest its time as evidence, and the list is saved into the user's copy of the profile.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { ChatCompletionContentPart } from 'openai/resources/chat/completions';
import { loadSharp } from '../util/sharp.ts';
import { stringify } from 'yaml';
import { z } from 'zod';
import { render } from '../agents/prompts.ts';
import { CodedError } from '../domain.ts';
import { parseProfile } from '../profiles/load.ts';
import { userProfilesDir, type ProfileEntry } from '../profiles/registry.ts';
import { ProfileSchema, type Profile } from '../profiles/profile-schema.ts';
import { frameBytes, loadTutorial, type SampledFrame } from './trajectory.ts';
import { writeFileAtomic } from '../util/atomic-file.ts';
import { JsonAsker, type AskRecord, type JudgeModel } from './json-ask.ts';

export interface ExtractOptions {
  /** Frames sampled per second of video. */
  fps: number;
  /** Frames per model call. */
  chunkFrames: number;
  /** Frames sampled in all (thinned evenly). */
  maxFrames: number;
  maxSide: number;
}

export const DEFAULT_EXTRACT: ExtractOptions = { fps: 1, chunkFrames: 16, maxFrames: 160, maxSide: 768 };

export interface ExtractedMilestone {
  name: string;
  description: string;
  /** Seconds into the walkthrough. */
  t: number;
  /** The evidence frame, as the model was shown it (a video's decoded frames are gone once read). */
  frame: Buffer;
}

export interface Extraction {
  source: string;
  milestones: ExtractedMilestone[];
  /** Frames sampled, and the chunks they went to the model in. */
  frames: number;
  chunks: number;
  /** Milestones left out: a time outside their chunk, a name given twice. */
  refused: { name: string; t: number; why: string }[];
  /** Chunks whose answer could not be used (asked again once). */
  skipped: { from: number; to: number; why: string }[];
  calls: number;
  tokens: { input: number; output: number };
  cost_usd: number | null;
  requests: AskRecord[];
}

const AnswerSchema = z.object({
  milestones: z
    .array(
      z.object({
        name: z.string().trim().min(1).max(300),
        description: z.string().trim().max(2000).default(''),
        t: z.coerce.number().finite().nonnegative(),
      }),
    )
    .max(200),
});

export async function extractMilestones(
  input: { video?: string | undefined; session?: string | undefined },
  profile: Profile,
  model: JudgeModel,
  opts: ExtractOptions = DEFAULT_EXTRACT,
  onChunk: (done: number, of: number, found: number) => void = () => {},
): Promise<Extraction> {
  if ((input.video === undefined) === (input.session === undefined))
    throw new CodedError('bad-input', 'give the walkthrough: a video file or a session folder, one of them');
  const source = (input.video ?? input.session)!;
  let trajectory: Awaited<ReturnType<typeof loadTutorial>>;
  try {
    trajectory = await loadTutorial(source, { fps: opts.fps, maxFrames: opts.maxFrames, maxSide: opts.maxSide });
  } catch (err) {
    throw new CodedError('bad-input', (err as Error).message);
  }
  const frames = trajectory.frames;
  const chunks: SampledFrame[][] = [];
  for (let i = 0; i < frames.length; i += opts.chunkFrames) chunks.push(frames.slice(i, i + opts.chunkFrames));
  const asker = new JsonAsker(model, 'milestone-extract');
  const out: Extraction = {
    source: path.resolve(source),
    milestones: [],
    frames: frames.length,
    chunks: chunks.length,
    refused: [],
    skipped: [],
    calls: 0,
    tokens: { input: 0, output: 0 },
    cost_usd: null,
    requests: asker.log,
  };
  const gap = 1 / opts.fps;
  for (const [k, chunk] of chunks.entries()) {
    const from = chunk[0]!.at;
    const to = chunk.at(-1)!.at;
    const answer = await asker.ask(chunkContent(profile, chunk, out.milestones), AnswerSchema, () => true);
    if (!answer.ok) out.skipped.push({ from, to, why: answer.error });
    else {
      for (const m of [...answer.value.milestones].sort((a, b) => a.t - b.t)) {
        if (m.t < from - gap || m.t > to + gap) {
          out.refused.push({ name: m.name, t: m.t, why: `its time is outside the frames shown (${from}–${to} s)` });
          continue;
        }
        if (out.milestones.some((x) => x.name.toLowerCase() === m.name.toLowerCase())) {
          out.refused.push({ name: m.name, t: m.t, why: 'a milestone of that name was found before' });
          continue;
        }
        const nearest = chunk.reduce((a, b) => (Math.abs(b.at - m.t) < Math.abs(a.at - m.t) ? b : a));
        out.milestones.push({ name: m.name, description: m.description, t: m.t, frame: frameBytes(nearest) });
      }
    }
    onChunk(k + 1, chunks.length, out.milestones.length);
  }
  Object.assign(out, { calls: asker.totals.calls, tokens: asker.totals.tokens, cost_usd: asker.totals.cost_usd });
  return out;
}

function chunkContent(
  profile: Profile,
  chunk: SampledFrame[],
  before: ExtractedMilestone[],
): ChatCompletionContentPart[] {
  const text = render('milestone-extract', {
    game_title: profile.title,
    task: profile.prompt.task ?? '',
    from: chunk[0]!.at,
    to: chunk.at(-1)!.at,
    before: before.length
      ? `Milestones found earlier in the video (do not list them again): ${before.map((m) => m.name).join('; ')}.`
      : '',
  });
  const parts: ChatCompletionContentPart[] = [{ type: 'text', text }];
  for (const f of chunk)
    parts.push(
      { type: 'text', text: `t = ${f.at} s` },
      { type: 'image_url', image_url: { url: f.dataUrl, detail: 'low' } },
    );
  return parts;
}

/**
 * Saves the list into the user's copy of the profile (<config>/profiles/<id>.yaml; a shipped
 * profile is never changed), with each evidence frame beside it in <id>.evidence/. The profile
 * becomes milestone-scored; it is checked whole before anything is written.
 */
export async function saveExtraction(entry: ProfileEntry, configDir: string, ex: Extraction): Promise<string> {
  if (!ex.milestones.length)
    throw new CodedError('bad-input', `no milestones were found in ${ex.source}; the profile was not changed`);
  const dir = userProfilesDir(configDir);
  const id = entry.profile.id;
  const evidenceDir = `${id}.evidence`;
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '');
  const milestones = ex.milestones.map((m, i) => ({
    title: m.name,
    ...(m.description ? { description: m.description } : {}),
    t: m.t,
    evidence: `${evidenceDir}/${stamp}-${String(i + 1).padStart(2, '0')}.jpg`,
  }));
  const linear = entry.profile.scoring.kind === 'milestones' ? entry.profile.scoring.linear : true;
  const file = path.join(dir, `${id}.yaml`);
  const profile = checkedProfile(
    {
      ...entry.profile,
      scoring: {
        kind: 'milestones',
        linear,
        milestones,
        formula: `milestones reached / ${milestones.length} × 100 (extracted from ${path.basename(ex.source)})`,
      },
    },
    file,
  );
  mkdirSync(path.join(dir, evidenceDir), { recursive: true });
  for (const [i, m] of ex.milestones.entries())
    writeFileAtomic(
      path.join(dir, milestones[i]!.evidence),
      await (await loadSharp())(m.frame).jpeg({ quality: 85 }).toBuffer(),
    );
  writeProfile(
    file,
    profile,
    `Milestones extracted by \`gamepilot milestones extract\` from ${ex.source} (based on ${entry.file}).`,
  );
  return file;
}

/** The profile as the schema reads it, or a clear refusal naming the field. */
export function checkedProfile(p: unknown, file: string): Profile {
  const r = ProfileSchema.safeParse(JSON.parse(JSON.stringify(p)));
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new CodedError('bad-input', `the profile was not saved (${file}): ${i.path.join('.')}: ${i.message}`);
  }
  return r.data;
}

/** Writes a profile as YAML (atomically) after checking that what is written loads. */
export function writeProfile(file: string, profile: Profile, header: string) {
  const text = `# ${header}\n${stringify(profile, { lineWidth: 110 })}`;
  parseProfile(text, file);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileAtomic(file, text);
}
