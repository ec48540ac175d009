/**
 * A person's recording started over the contract, as the activity slot holds it: the target
 * window, the recorder, and its progress relayed as events.
 */
import type { WindowManager } from '../../native/types.ts';
import type { CoreEvent, ParamsOut, RecordingResult, RecordingState } from './contract.ts';
import type { Activity } from './activity.ts';
import { profileChoice } from './profiles.ts';
import { tutorialSourcePath } from '../store/tutorials.ts';
import { openTarget, resolveProfile } from '../session/compose.ts';
import { Recorder, DEFAULT_RECORDER } from '../recording/recorder.ts';
import type { Target, ViewLauncher } from '../session/targets.ts';
import type { ScreenCapturer } from '../capture/capturer.ts';

export interface RecordingContext {
  wm: WindowManager;
  capturer: ScreenCapturer;
  runsDir: string;
  /** The config folder: the user's profiles. */
  configDir?: string;
  launchView?: ViewLauncher;
  emit(e: CoreEvent): void;
}

export class RecordingActivity implements Activity {
  readonly kind = 'recording' as const;
  readonly state: RecordingState;
  /** The recording's summary once it stopped; null when it failed. */
  readonly result: Promise<RecordingResult | null>;
  readonly finished: Promise<string | null>;

  private constructor(
    private readonly recorder: Recorder,
    private readonly target: Target,
    p: ParamsOut<'startRecording'>,
    ctx: RecordingContext,
  ) {
    this.state = {
      id: recorder.id,
      target: target.label,
      role: p.role,
      stage: recorder.stage,
      trial: p.trial,
      frames: 0,
      dropped: 0,
      events: 0,
      seconds: 0,
      fps: 0,
    };
    recorder.on('progress', (pr) => {
      Object.assign(this.state, pr);
      ctx.emit({ type: 'recording', state: { ...this.state } });
    });
    let problem: string | null = null;
    this.result = recorder.start().then(
      (result) => {
        ctx.emit({ type: 'recorded', result });
        return result;
      },
      (err: Error) => {
        problem = `recording failed: ${err.message}`;
        return null;
      },
    );
    this.finished = this.result.then(() => problem);
  }

  static async open(p: ParamsOut<'startRecording'>, ctx: RecordingContext): Promise<RecordingActivity> {
    const target = await openTarget(p.target, ctx.wm, ctx.launchView);
    try {
      const profile = resolveProfile(profileChoice(p.profile, ctx.configDir), target);
      const recorder = new Recorder(
        { target, wm: ctx.wm, capturer: ctx.capturer, profile },
        {
          participant: p.participant,
          role: p.role,
          trial: p.trial,
          ...(p.stage ? { stage: p.stage } : {}),
          ...(p.tutorial ? { tutorial: tutorialSourcePath(ctx.runsDir, p.tutorial) } : {}),
          consent: p.consent,
        },
        { ...DEFAULT_RECORDER, fps: p.fps, ...(p.durationS ? { durationS: p.durationS } : {}) },
        ctx.runsDir,
      );
      return new RecordingActivity(recorder, target, p, ctx);
    } catch (err) {
      await target.close();
      throw err;
    }
  }

  stop() {
    this.recorder.stop();
  }

  async close() {
    await this.target.close();
  }
}
