/**
 * Profiles over the contract: the list, the ones that fit a target, saving an edited profile as
 * the user's own (the New run tab's form) — validated whole before it is written — and trying
 * one of a profile's semantic actions on a window (its episode section's tries: profile-episode.ts).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import type { Handlers, ProfileEdit, ProfileSummary, SemanticLayoutView } from './contract.ts';
import {
  loadCatalog,
  matchWindow,
  profileById,
  profileIdentity,
  userProfilesDir,
  type ProfileEntry,
} from '../profiles/registry.ts';
import type { ProfileChoice } from '../session/compose.ts';
import { executableOf } from '../profiles/executable.ts';
import { ProfileSchema, semanticApiOf, type Profile } from '../profiles/profile-schema.ts';
import { callText } from '../profiles/semantic-api.ts';
import type { RoleEndpoint } from '../agents/model-endpoint.ts';
import type { ScreenCapturer } from '../capture/capturer.ts';
import { createCapturer } from '../capture/index.ts';
import { toWire } from '../actions/schema.ts';
import { parseProfileSource } from '../profiles/load.ts';
import { applyMilestonesEdit, milestonesEditOf } from '../scoring/milestone-edit.ts';
import { readEvidence, resolveEvidence } from '../profiles/evidence.ts';
import { writeFileAtomic } from '../util/atomic-file.ts';
import { withFileLock } from '../util/file-lock.ts';
import { CodedError } from '../domain.ts';
import { applyEpisodeEndEdit, copyKeptTemplates, episodeEditHandlers, episodeEndEditOf } from './profile-episode.ts';
import { openWindowInput, type WindowInputDeps } from './window-input.ts';

/** A profile id, null (none) or absent (the one that fits the target), as the composition root takes it. */
export function profileChoice(id: string | null | undefined, configDir: string | undefined): ProfileChoice {
  if (id === null) return { kind: 'none' };
  const catalog = loadCatalog(configDir ? { configDir } : {});
  return id === undefined
    ? { kind: 'match', entries: catalog.entries }
    : { kind: 'chosen', entry: profileById(catalog, id) };
}

export function profileSummary(e: ProfileEntry): ProfileSummary {
  const p = e.profile;
  return {
    ...profileIdentity(e),
    scoring: p.scoring.kind,
    agent: p.episode.agent,
    builtin: p.builtin ?? null,
    setup: p.setup ? { ...p.setup } : null,
    task: p.prompt.task ?? null,
    semantic: semanticView(p),
    edit: {
      rules: p.prompt.rules,
      screen: p.prompt.screen ?? '',
      controls: p.prompt.controls,
      allowedKeys: p.actions.allowedKeys ?? [],
      maxSteps: p.episode.maxSteps,
      trials: p.episode.trials,
      latency: p.latency.mode,
      freeze: p.latency.freeze,
      pauseKey: p.latency.pauseKey ?? '',
      episodeEnd: episodeEndEditOf(p),
      ...(p.scoring.kind === 'milestones' ? { milestones: milestonesEditOf(p)! } : {}),
      ...(p.scoring.kind === 'screen'
        ? {
            screenScore: { reader: p.scoring.reader, ...(p.scoring.region ? { region: { ...p.scoring.region } } : {}) },
          }
        : {}),
    },
  };
}

/** The profile's semantic section as the editor draws it; null when it declares none. */
export function semanticView(p: Profile): SemanticLayoutView | null {
  const s = p.semantic;
  const api = semanticApiOf(p);
  if (!s || !api) return null;
  const rect = (r: { x: number; y: number; width: number; height: number }) => ({
    x: r.x,
    y: r.y,
    width: r.width,
    height: r.height,
  });
  return {
    resolution: s.resolution ?? null,
    points: Object.entries(s.points ?? {}).map(([name, pt]) => ({ name, x: pt.x, y: pt.y })),
    regions: Object.entries(s.regions ?? {}).map(([name, r]) => ({ name, ...rect(r) })),
    grids: Object.entries(s.grids ?? {}).map(([name, g]) => ({
      name,
      region: typeof g.region === 'string' ? g.region : null,
      // A named region exists: the profile schema checked it.
      ...rect(typeof g.region === 'string' ? s.regions![g.region]! : g.region),
      rows: g.rows,
      columns: g.columns,
    })),
    actions: api.moves.map((m) => ({
      name: m.name,
      description: m.description,
      params: m.params.map(({ name, def }) => ({ name, ...def })),
      example: callText(
        m.name,
        m.example,
        m.params.map((q) => q.name),
      ),
    })),
  };
}

/** The profile with the form's fields in place of its own (a milestone list, when given, checked here). */
export function applyEdit(p: Profile, edit: ProfileEdit): Profile {
  const { pauseKey: _old, ...latency } = p.latency;
  return {
    ...p,
    prompt: {
      ...p.prompt,
      rules: edit.rules,
      controls: edit.controls,
      ...(edit.screen ? { screen: edit.screen } : {}),
    },
    actions: {
      ...p.actions,
      ...(edit.allowedKeys.length ? { allowedKeys: edit.allowedKeys } : { allowedKeys: undefined }),
    },
    episode: {
      ...(edit.episodeEnd ? applyEpisodeEndEdit(p.episode, edit.episodeEnd) : p.episode),
      maxSteps: edit.maxSteps,
      trials: edit.trials,
    },
    latency: {
      ...latency,
      mode: edit.latency,
      freeze: edit.freeze,
      ...(edit.pauseKey ? { pauseKey: edit.pauseKey } : {}),
    },
    scoring: edit.milestones ? applyMilestonesEdit(p, edit.milestones) : screenScoring(p.scoring, edit.screenScore),
  };
}

/** A screen scoring with the form's reader and region (no region: none kept); other kinds as they are. */
function screenScoring(s: Profile['scoring'], edit: ProfileEdit['screenScore']): Profile['scoring'] {
  if (s.kind !== 'screen' || !edit) return s;
  const { region: _old, ...rest } = s;
  return { ...rest, reader: edit.reader, ...(edit.region ? { region: edit.region } : {}) };
}

/**
 * Evidence frames kept by an edit of a profile from another folder (a shipped one) are copied
 * beside the user's copy, so the names it keeps still point at them. A frame already missing
 * stays missing: the name is kept, nothing else is lost.
 */
function copyKeptEvidence(from: ProfileEntry, toFile: string, profile: Profile) {
  if (path.dirname(from.file) === path.dirname(toFile) || profile.scoring.kind !== 'milestones') return;
  const kept = milestonesEditOf(profile)!.items.flatMap((m) => (m.evidence ? [m.evidence] : []));
  for (const rel of kept) {
    let src: string;
    try {
      src = resolveEvidence(from.file, profile.id, rel);
    } catch (err) {
      if ((err as CodedError).code === 'not-found') continue;
      throw err;
    }
    const dest = path.join(path.dirname(toFile), rel);
    mkdirSync(path.dirname(dest), { recursive: true });
    writeFileAtomic(dest, readFileSync(src));
  }
}

export interface ProfileDeps extends WindowInputDeps {
  configDir: string;
  /**
   * Runs `send` with the desktop's input to itself; refuses (busy) while a run, recording or
   * anything else holds the activity slot, or another action is being tried (the core's; by
   * default only one tried action at a time).
   */
  withInput?: <T>(send: (signal: AbortSignal) => Promise<T>) => Promise<T>;
  /** What the episode section's tries look at the window with (default: this OS's). */
  capturer?: ScreenCapturer;
  /** The model a tried `judge` end detector asks (Settings'); unset: none. */
  judgeModel?: () => RoleEndpoint | undefined;
}

export function profileHandlers(
  deps: ProfileDeps,
): Pick<
  Handlers,
  | 'listProfiles'
  | 'matchProfile'
  | 'saveProfile'
  | 'profileEvidence'
  | 'trySemanticAction'
  | 'checkEndDetectors'
  | 'cutEndTemplate'
  | 'tryReset'
> {
  const catalog = () => loadCatalog({ configDir: deps.configDir });
  let trying = false;
  const withInput =
    deps.withInput ??
    (async <T>(send: (signal: AbortSignal) => Promise<T>): Promise<T> => {
      if (trying) throw new CodedError('busy', 'another action is being tried; wait for its outcome');
      trying = true;
      try {
        return await send(new AbortController().signal);
      } finally {
        trying = false;
      }
    });
  return {
    ...episodeEditHandlers({ ...deps, capturer: deps.capturer ?? createCapturer() }, withInput),

    listProfiles: async () => {
      const c = catalog();
      return { profiles: c.entries.map(profileSummary), errors: c.errors.map((e) => e.message) };
    },

    matchProfile: async ({ target }) => {
      const entries = catalog().entries;
      if ('game' in target)
        return { candidates: entries.filter((e) => e.profile.builtin === target.game).map(profileSummary) };
      const w = await deps.wm.get(target.windowId);
      if (!w) throw new CodedError('not-found', `window ${target.windowId} is gone`);
      const found = matchWindow(
        entries.filter((e) => e.profile.builtin === undefined),
        { title: w.title, executable: executableOf(w.pid) },
      );
      return { candidates: found.map(profileSummary) };
    },

    saveProfile: async ({ id, edit }) => {
      if (!catalog().entries.some((e) => e.profile.id === id))
        throw new CodedError('not-found', `no profile with id "${id}"`);
      const file = path.join(userProfilesDir(deps.configDir), `${id}.yaml`);
      mkdirSync(path.dirname(file), { recursive: true });
      // A read-change-write of the user's file under its lock: the edit applies to the profile as
      // it is now (another save's result included), and two saves at once end as one of them, whole.
      return withFileLock(file, () => {
        const base = catalog().entries.find((e) => e.profile.id === id);
        if (!base) throw new CodedError('not-found', `no profile with id "${id}"`);
        const checked = ProfileSchema.safeParse(JSON.parse(JSON.stringify(applyEdit(base.profile, edit))));
        if (!checked.success) {
          const i = checked.error.issues[0]!;
          throw new CodedError('bad-input', `the profile was not saved: ${i.path.join('.')}: ${i.message}`);
        }
        const text = `# Edited in Gamepilot's New run tab (from ${base.file}).\n${stringify(checked.data, { lineWidth: 110 })}`;
        copyKeptTemplates(base, file, checked.data); // before the load below checks they are there
        const loaded = parseProfileSource(text, file); // what is written must load
        copyKeptEvidence(base, file, loaded.profile);
        writeFileAtomic(file, text);
        return { profile: profileSummary({ ...loaded, file, source: 'user' }) };
      });
    },

    profileEvidence: async ({ id, evidence }) => {
      const entry = catalog().entries.find((e) => e.profile.id === id);
      if (!entry) throw new CodedError('not-found', `no profile with id "${id}"`);
      return { dataUrl: readEvidence(entry.file, id, evidence) };
    },

    trySemanticAction: ({ id, windowId, call }) =>
      withInput(async (signal) => {
        const entry = catalog().entries.find((e) => e.profile.id === id);
        if (!entry) throw new CodedError('not-found', `no profile with id "${id}"`);
        const profile = entry.profile;
        const api = semanticApiOf(profile);
        if (!api)
          throw new CodedError(
            'bad-input',
            `the profile "${id}" declares no semantic actions: add a semantic section to ${entry.file}`,
          );
        const parsed = api.parse(call);
        if (!parsed.ok) throw new CodedError('bad-input', `${parsed.error}; nothing was sent`);
        const expand = (size: { width: number; height: number }) => {
          const r = api.expand(call, size);
          if (!r.ok) throw new CodedError('bad-input', `${r.error}; nothing was sent`);
          return r.actions;
        };
        const { window: w, send } = await openWindowInput(deps, profile, windowId, {
          check: expand,
          onlyKeys: profile.actions.allowedKeys,
        });
        const actions = expand(w.bounds);
        const outcomes = await send(actions, signal);
        return {
          call: parsed.move,
          window: { width: w.bounds.width, height: w.bounds.height },
          actions: actions.map((a) => toWire(a) as { action_type: string; parameters: Record<string, unknown> }),
          outcomes,
          ok: outcomes.length === actions.length && outcomes.every((o) => o.ok),
        };
      }),
  };
}
