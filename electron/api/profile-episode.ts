/**
 * The profile editor's episode section over the contract: a profile's end detectors and reset as
 * the form edits them, and trying them on a real window — every detector on the window's current
 * frame, a template cut from that frame beside the user's profile, and the reset's steps sent
 * once and checked as a run checks them between episodes (session/episode-ends.ts resetGame).
 */
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { EncodedFrame } from '../capture/encode.ts';
import { DEFAULT_ENCODE, encodeFrame } from '../capture/encode.ts';
import type { RoleEndpoint } from '../agents/model-endpoint.ts';
import type { ScreenCapturer } from '../capture/capturer.ts';
import { windowsOver } from '../capture/occlusion.ts';
import { visiblePart } from '../input/coordinates.ts';
import { type Detector, DetectorSchema } from '../profiles/episode-end-schema.ts';
import { MAX_TEMPLATE_SIDE, templatesOf } from '../profiles/end-templates.ts';
import { resetActions } from '../profiles/episode-reset.ts';
import { ProfileSchema, RegionSchema, type Profile } from '../profiles/profile-schema.ts';
import { loadCatalog, userProfilesDir, type ProfileEntry } from '../profiles/registry.ts';
import { cutTemplate, Detectors, type WindowNow } from '../scoring/end-detectors.ts';
import { resetGame } from '../session/episode-ends.ts';
import { writeFileAtomic } from '../util/atomic-file.ts';
import { loadSharp } from '../util/sharp.ts';
import { CodedError } from '../domain.ts';
import type { DetectorEdit, EpisodeEndEdit, Handlers } from './contract.ts';
import { openWindowInput, type WindowInputDeps } from './window-input.ts';

/** The profile's episode end and reset as the form edits them. */
export function episodeEndEditOf(p: Profile): EpisodeEndEdit {
  const reset = p.episode.reset;
  // Plain data: the profile's parsed values are JSON already (the steps' points are names or objects).
  return JSON.parse(
    JSON.stringify({
      end: p.episode.end ?? [],
      reset: reset ? { do: reset.do, ...(reset.ready ? { ready: reset.ready } : {}), timeout: reset.timeout } : null,
      startWithReset: p.episode.startWithReset,
    }),
  ) as EpisodeEndEdit;
}

/** The profile's episode section with the form's end and reset in place of its own (checked with the rest). */
export function applyEpisodeEndEdit(episode: Profile['episode'], edit: EpisodeEndEdit): Profile['episode'] {
  const { end: _end, reset: _reset, ...rest } = episode;
  return {
    ...rest,
    ...(edit.end.length ? { end: edit.end as Detector[] } : {}),
    ...(edit.reset ? { reset: edit.reset as NonNullable<Profile['episode']['reset']> } : {}),
    startWithReset: edit.startWithReset,
  };
}

/**
 * Templates an edit of a profile from another folder (a shipped one) keeps are copied beside the
 * user's copy, so the names it keeps still point at them; one already there (cut in the editor) stays.
 */
export function copyKeptTemplates(from: ProfileEntry, toFile: string, profile: Profile) {
  const [src, dest] = [path.dirname(from.file), path.dirname(toFile)];
  if (src === dest) return;
  for (const rel of templatesOf(profile)) {
    const [a, b] = [path.join(src, rel), path.join(dest, rel)];
    if (existsSync(b) || !existsSync(a)) continue;
    mkdirSync(path.dirname(b), { recursive: true });
    copyFileSync(a, b);
  }
}

/** Where a template is read from while editing: beside the user's profile (cut there), else beside the profile. */
function templateDir(entry: ProfileEntry, configDir: string, templates: string[]): string {
  const user = userProfilesDir(configDir);
  return templates.every((t) => existsSync(path.join(user, t))) ? user : path.dirname(entry.file);
}

export interface EpisodeEditDeps extends WindowInputDeps {
  configDir: string;
  capturer: ScreenCapturer;
  /** The model a `judge` detector asks (Settings' model); undefined: none configured, and a judge detector says so. */
  judgeModel?: () => RoleEndpoint | undefined;
}

/** The window as a detector sees it now, without raising it; `seen` says why its frame is missing. */
async function lookAt(deps: EpisodeEditDeps, windowId: string): Promise<{ now: WindowNow; seen: string | null }> {
  const w = await deps.wm.get(windowId);
  if (!w) return { now: { frame: undefined, title: undefined, gone: true }, seen: `window ${windowId} is gone` };
  const unseen = (why: string) => ({ now: { frame: undefined, title: w.title, gone: false }, seen: why });
  if (w.minimized) return unseen('the window is minimized');
  const visible = visiblePart(w.bounds, await deps.capturer.screenBounds());
  if (!visible || visible.width !== w.bounds.width || visible.height !== w.bounds.height)
    return unseen('the window is not wholly on the screen');
  const over = await windowsOver(deps.wm, w, visible);
  if (over?.length) return unseen(`another window covers it (${over.map((o) => o.title).join(', ')})`);
  // Encoded as a run's frames are by default: a try looks at the picture a run's detectors see.
  const frame = await encodeFrame(
    await deps.capturer.grab(w.bounds, { maxLongSide: DEFAULT_ENCODE.imageSize }),
    DEFAULT_ENCODE,
  );
  return { now: { frame, title: w.title, gone: false }, seen: null };
}

/** A frame for the form to show (a JPEG data URL, at most 640 pixels a side). */
async function shown(frame: EncodedFrame | undefined): Promise<string | null> {
  if (!frame) return null;
  const sharp = await loadSharp();
  const jpeg = await sharp(frame.data)
    .resize({ width: 640, height: 640, fit: 'inside', withoutEnlargement: true })
    .jpeg({ quality: 75 })
    .toBuffer();
  return `data:image/jpeg;base64,${jpeg.toString('base64')}`;
}

/** The form's detectors checked as the profile's own; a bad one is refused naming its field. */
function checkedDetectors(edits: DetectorEdit[], field: string): Detector[] {
  return edits.map((d, i) => {
    const r = DetectorSchema.safeParse(d);
    if (r.success) return r.data;
    const issue = r.error.issues[0]!;
    throw new CodedError('bad-input', `${[field, i, ...issue.path].join('.')}: ${issue.message}`);
  });
}

export function episodeEditHandlers(
  deps: EpisodeEditDeps,
  withInput: <T>(send: (signal: AbortSignal) => Promise<T>) => Promise<T>,
): Pick<Handlers, 'checkEndDetectors' | 'cutEndTemplate' | 'tryReset'> {
  const entryOf = (id: string) => {
    const entry = loadCatalog({ configDir: deps.configDir }).entries.find((e) => e.profile.id === id);
    if (!entry) throw new CodedError('not-found', `no profile with id "${id}"`);
    return entry;
  };
  const detectorsFor = (entry: ProfileEntry, defs: Detector[], list: string) =>
    new Detectors(defs, {
      profileDir: templateDir(entry, deps.configDir, templatesOf({ episode: { end: defs } })),
      gameTitle: entry.profile.title,
      judge: deps.judgeModel?.(),
      list,
    });

  return {
    checkEndDetectors: async ({ id, windowId, detectors }) => {
      const entry = entryOf(id);
      const defs = detectors ? checkedDetectors(detectors, 'detectors') : entry.profile.episode.end;
      if (!defs?.length)
        throw new CodedError('bad-input', `the profile "${id}" declares no episode end detectors: add one to try it`);
      const { now, seen } = await lookAt(deps, windowId);
      // Each detector reads its template from where it is now (cut beside the user's profile, or the profile's own).
      const results = [];
      for (const [i, d] of defs.entries()) {
        const one = detectorsFor(entry, [d], 'end');
        try {
          const [r] = await one.all(now);
          results.push({ ...r!, label: `end[${i}] ${r!.kind}` });
        } finally {
          await one.close();
        }
      }
      return { results, frame: await shown(now.frame), seen };
    },

    cutEndTemplate: async ({ id, windowId, region, name }) => {
      entryOf(id);
      const { now, seen } = await lookAt(deps, windowId);
      if (!now.frame) throw new CodedError('bad-input', `no template was cut: ${seen}`);
      const fits = RegionSchema.safeParse(region);
      if (!fits.success) throw new CodedError('bad-input', `region: ${fits.error.issues[0]!.message}`);
      const png = await cutTemplate(now.frame, region);
      const size = await (await loadSharp())(png).metadata();
      const [width, height] = [size.width ?? 0, size.height ?? 0];
      if (width < 4 || height < 4 || width > MAX_TEMPLATE_SIDE || height > MAX_TEMPLATE_SIDE)
        throw new CodedError(
          'bad-input',
          `region: it is ${width}×${height} pixels of this window; a template is 4 to ${MAX_TEMPLATE_SIDE} pixels a side`,
        );
      const template = `${id}.templates/${name}.png`;
      const dir = userProfilesDir(deps.configDir);
      const file = path.resolve(dir, template);
      if (path.relative(dir, file).startsWith('..'))
        throw new CodedError('bad-input', 'name: must stay beside the profile');
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileAtomic(file, png);
      return { template, width, height, dataUrl: `data:image/png;base64,${png.toString('base64')}` };
    },

    tryReset: ({ id, windowId, reset, end }) =>
      withInput(async (signal) => {
        const entry = entryOf(id);
        const checked = ProfileSchema.safeParse(
          JSON.parse(
            JSON.stringify({
              ...entry.profile,
              episode: applyEpisodeEndEdit(entry.profile.episode, { end, reset, startWithReset: false }),
            }),
          ),
        );
        if (!checked.success) {
          const i = checked.error.issues[0]!;
          throw new CodedError('bad-input', `nothing was sent: ${i.path.join('.')}: ${i.message}`);
        }
        const profile = checked.data;
        const input = await openWindowInput(deps, profile, windowId, {
          check: (size) => {
            const r = resetActions(profile, size);
            if (!r.ok) throw new CodedError('bad-input', `${r.error}; nothing was sent`);
          },
        });
        // Ready means the window no longer shows this (as between episodes it no longer shows the end frame).
        const before = await lookAt(deps, windowId);
        if (!before.now.frame) throw new CodedError('bad-input', `${before.seen}; nothing was sent`);
        const ep = profile.episode;
        const detectors = {
          end: ep.end ? detectorsFor(entry, ep.end, 'end') : undefined,
          ready: ep.reset?.ready ? detectorsFor(entry, ep.reset.ready, 'ready') : undefined,
        };
        try {
          const d = {
            profile,
            look: async () => (await lookAt(deps, windowId)).now,
            send: input.send,
            windowSize: async () => {
              const w = await deps.wm.get(windowId);
              if (!w) throw new CodedError('not-found', `window ${windowId} is gone`);
              return { width: w.bounds.width, height: w.bounds.height };
            },
          };
          const out = await resetGame(d, detectors, before.now.frame, signal);
          const pictures = { before: await shown(before.now.frame), frame: await shown(out.frame) };
          return out.ok
            ? { ok: true as const, ms: out.ms, detail: out.detail, ...pictures }
            : { ok: false as const, error: out.error, ...pictures };
        } finally {
          await Promise.all([detectors.end?.close(), detectors.ready?.close()]);
        }
      }),
  };
}
