/**
 * `gamepilot profile check ID|FILE`: every episode-end and reset-ready detector of a profile run
 * once on a window as it is now (or on a saved frame), each said to fire or not with what it saw —
 * so a person can tell whether the profile would end an episode on this screen before a run
 * relies on it. It only looks: nothing is sent to the window.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createWindowManager } from '../../native/index.ts';
import type { RoleEndpoint } from '../agents/model-endpoint.ts';
import { createCapturer } from '../capture/index.ts';
import { DEFAULT_ENCODE, type EncodedFrame } from '../capture/encode.ts';
import { TargetView } from '../session/target-view.ts';
import { DEFAULT_SESSION } from '../session/session-config.ts';
import { WindowTarget } from '../session/targets.ts';
import { type DetectorResult, Detectors, type WindowNow } from '../scoring/end-detectors.ts';
import { addSecret } from '../util/log.ts';
import { loadSharp } from '../util/sharp.ts';
import { textPattern } from '../util/text-pattern.ts';
import type { ProfileCheckFlags } from './command-flags.ts';
import { io } from './io.ts';
import { UsageError } from './options.ts';
import { profileEntryFrom } from './profile-command.ts';

/** What was looked at: a live window (with its title) or a picture file. */
type Looked = { window: { id: string; title: string }; frame_file?: never } | { frame_file: string; window?: never };

/** Detectors that look at the window itself, not its picture: a saved frame cannot answer them. */
const NEEDS_WINDOW = new Set<DetectorResult['kind']>(['title', 'exit']);

function needsWindow(r: DetectorResult): DetectorResult {
  return { ...r, fired: false, detail: '', error: 'needs a live window (--window or --window-id), not a saved frame' };
}

export async function profileCheckCommand(ref: string, o: ProfileCheckFlags): Promise<number> {
  const given = [o.window, o.windowId, o.frame].filter((v) => v !== undefined).length;
  if (given !== 1)
    throw new UsageError('give what to look at: one of --window <title regex>, --window-id <id> or --frame <file>');
  const entry = profileEntryFrom(ref, '<profile>');
  const ep = entry.profile.episode;
  if (!ep.end && !ep.reset?.ready)
    throw new UsageError(`${entry.file} declares no episode.end or episode.reset.ready detectors to check`);
  const judge = judgeEndpoint(o);
  const { now, looked } = o.frame !== undefined ? await savedFrame(o.frame) : await liveWindow(o);
  const options = { profileDir: path.dirname(entry.file), gameTitle: entry.profile.title, judge };
  const results: { end: DetectorResult[]; ready: DetectorResult[] } = { end: [], ready: [] };
  for (const list of ['end', 'ready'] as const) {
    const defs = list === 'end' ? ep.end : ep.reset?.ready;
    if (!defs) continue;
    const detectors = new Detectors(defs, { ...options, list });
    try {
      results[list] = (await detectors.all(now)).map((r) =>
        looked.frame_file && NEEDS_WINDOW.has(r.kind) ? needsWindow(r) : r,
      );
    } finally {
      await detectors.close();
    }
  }
  const frame = now.frame ? { width: now.frame.width, height: now.frame.height } : null;
  if (o.json)
    io.out(JSON.stringify({ profile: entry.profile.id, profile_file: entry.file, ...looked, frame, ...results }));
  else {
    io.out(`${entry.profile.id} (${entry.file}) on ${describeLooked(looked, frame)}:`);
    for (const r of [...results.end, ...results.ready]) io.out(describeResult(r));
  }
  return 0;
}

/** A judge detector's model: the run's --model/--base-url/--api-key; without --model, none. */
function judgeEndpoint(o: ProfileCheckFlags): RoleEndpoint | undefined {
  if (!o.model) return undefined;
  addSecret(o.apiKey);
  return { model: o.model, ...(o.baseUrl ? { baseUrl: o.baseUrl } : {}), ...(o.apiKey ? { apiKey: o.apiKey } : {}) };
}

/** The window now, its frame encoded as a run's frames are (raised first, as a run raises it). */
async function liveWindow(o: ProfileCheckFlags): Promise<{ now: WindowNow; looked: Looked }> {
  const wm = createWindowManager();
  let target: WindowTarget;
  try {
    target =
      o.windowId !== undefined
        ? await WindowTarget.byId(wm, o.windowId)
        : await WindowTarget.find(wm, textPattern(o.window!));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const win = await target.locate();
  if (win.minimized) throw new UsageError(`the window "${win.title}" is minimized: show it and check again`);
  // Raised and captured as a run's step does it (what covered the window stays on the screen until
  // the game repaints it); each wait there has its own bound, so nothing here needs to stop it.
  const view = new TargetView({ target, wm, capturer: createCapturer() }, new AbortController().signal, (m) =>
    io.log(`warning: ${m}`),
  );
  await view.raise(win.id, DEFAULT_SESSION.settleQuietMs);
  const frame = await view.frameNow(DEFAULT_ENCODE);
  if (!frame) throw new UsageError(`the window "${win.title}" cannot be seen on the screen: show it and check again`);
  return { now: { frame, title: win.title, gone: false }, looked: { window: { id: win.id, title: win.title } } };
}

/** A saved picture (PNG or JPEG, e.g. a run's frames/e000-end.png); a title or exit detector then has no window. */
async function savedFrame(file: string): Promise<{ now: WindowNow; looked: Looked }> {
  let data: Buffer;
  try {
    data = readFileSync(file);
  } catch (err) {
    throw new UsageError(
      `--frame ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`,
    );
  }
  const sharp = await loadSharp();
  const meta = await sharp(data)
    .metadata()
    .catch(() => undefined);
  if (!meta || (meta.format !== 'png' && meta.format !== 'jpeg') || !meta.width || !meta.height)
    throw new UsageError(`--frame ${file}: not a PNG or JPEG picture`);
  const frame: EncodedFrame = {
    data,
    mime: meta.format === 'png' ? 'image/png' : 'image/jpeg',
    width: meta.width,
    height: meta.height,
    scale: 1,
  };
  return { now: { frame, title: undefined, gone: false }, looked: { frame_file: path.resolve(file) } };
}

function describeLooked(l: Looked, frame: { width: number; height: number } | null): string {
  const size = frame ? ` (${frame.width}×${frame.height})` : '';
  return l.window ? `window ${l.window.id} "${l.window.title}"${size}` : `${l.frame_file}${size}`;
}

function describeResult(r: DetectorResult): string {
  const verdict = r.error ? 'error' : r.fired ? 'fires' : 'does not fire';
  return `  ${r.label.padEnd(18)} ${verdict.padEnd(13)} ${r.error ?? r.detail}`;
}
