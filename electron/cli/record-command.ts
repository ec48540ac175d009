/** `gamepilot record`: a person plays; frames and input are recorded as a human session. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createWindowManager } from '../../native/index.ts';
import { UsageError } from './options.ts';
import { createCapturer } from '../capture/index.ts';
import { Recorder, DEFAULT_RECORDER } from '../recording/recorder.ts';
import { startStopHotkey } from '../input/hook-stop-hotkey.ts';
import { openTarget, resolveProfile } from '../session/compose.ts';
import { io } from './io.ts';
import type { RecordFlags } from './command-flags.ts';
import { describeProfile, targetFrom } from './run-command.ts';
import { profileChoiceFrom } from './profile-command.ts';
import { configuredHotkeys } from './configured-hotkeys.ts';
import { declaredTutorialFile, TITLE_TUTORIAL } from '../store/tutorials.ts';
import { derivedTitle } from '../store/run-title.ts';
import { profileRecord } from '../session/profile-record.ts';
import type { Target } from '../session/targets.ts';
import type { ProfileEntry } from '../profiles/registry.ts';

/**
 * `--tutorial`: the same sources `run --tutorial` takes (a video, a frames folder, a run or
 * session folder, or "title": the title's declared tutorial), checked to exist.
 */
function tutorialSource(ref: string, runsDir: string, titleId: string): string {
  if (ref === TITLE_TUTORIAL) {
    try {
      return declaredTutorialFile(runsDir, titleId);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
  const file = path.resolve(ref);
  if (!existsSync(file))
    throw new UsageError(
      `--tutorial: ${file} does not exist (a video, a folder of frames, or a run or session folder)`,
    );
  return file;
}

/** The title the session will count under (the recorder's run.json records the same). */
const titleOfTarget = (target: Target, profile: ProfileEntry | undefined) =>
  derivedTitle({
    game: target.game?.def.id ?? null,
    target: { label: target.label },
    ...(profile ? { profile: profileRecord(profile) } : {}),
  });

export async function recordCommand(o: RecordFlags): Promise<number> {
  const wm = createWindowManager();
  const target = await openTarget(targetFrom(o), wm, undefined, o.windowSize);
  try {
    const profile = resolveProfile(profileChoiceFrom(o.profile), target);
    if (!o.quiet) io.progress(describeProfile(profile, o.profile === false));
    const recorder = new Recorder(
      { target, wm, capturer: createCapturer(), profile },
      {
        participant: o.participant,
        role: o.role,
        trial: o.trial,
        seed: o.seed,
        ...(o.stage ? { stage: o.stage } : {}),
        ...(o.tutorial ? { tutorial: tutorialSource(o.tutorial, o.runsDir, titleOfTarget(target, profile).id) } : {}),
        consent: o.consent,
      },
      { ...DEFAULT_RECORDER, fps: o.fps, ...(o.duration !== undefined ? { durationS: o.duration } : {}) },
      o.runsDir, // beside agent runs: the Runs tab, the leaderboard and `video` read it
    );
    const stop = () => recorder.stop();
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    const hotkey = configuredHotkeys().stop;
    const unhook = await startStopHotkey(hotkey, stop).catch(() => undefined);
    // Said once input is heard and frames are taken, not before: a person who starts at the
    // word loses nothing (the game window opening and the capture starting take a moment).
    recorder.once('started', () =>
      io.log(`● recording ${target.label} → ${recorder.store.dir} (stop: Ctrl+C or ${hotkey})`),
    );
    if (!o.quiet)
      recorder.on('progress', (p) =>
        io.progress(`● REC ${p.seconds}s  frames ${p.frames} (${p.fps} fps)  dropped ${p.dropped}  events ${p.events}`),
      );
    try {
      const summary = await recorder.start();
      if (o.json) io.out(JSON.stringify(summary));
      else
        io.progress(
          `recorded ${summary.frames} frames (${summary.fps} fps, ${summary.dropped} dropped) and ${summary.events} input events in ${summary.duration_s}s; score ${summary.score ?? 'n/a'}`,
        );
      if (summary.drop_note && !o.quiet) io.log(`dropped frames: ${summary.drop_note}`);
      return 0;
    } finally {
      unhook?.();
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    }
  } finally {
    await target.close();
  }
}
