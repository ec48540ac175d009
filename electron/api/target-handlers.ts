/**
 * What there is to play or record: the built-in games and the desktop's windows (without
 * Gamepilot's own), a window's thumbnail as it is on screen now, a game's prompt, and opening
 * the target a request names.
 */
import type { WindowManager } from '../../native/types.ts';
import { BUILTIN_GAMES, getGame, TWO_SEAT_GAMES } from '../../games/index.ts';
import type { Handlers, WindowSummary } from './contract.ts';
import { TargetGoneError, type ViewLauncher } from '../session/targets.ts';
import type { ScreenCapturer } from '../capture/capturer.ts';
import { encodeFrame } from '../capture/encode.ts';
import { windowsOver } from '../capture/occlusion.ts';
import { fullSizeGeometry, visiblePart } from '../input/coordinates.ts';
import { VlmAgent } from '../agents/vlm.ts';
import { OWN_TITLE } from '../domain.ts';

export interface TargetDeps {
  wm: WindowManager;
  capturer: ScreenCapturer;
  launchView?: ViewLauncher;
  /** Windows of this app: never offered as targets. */
  isOwnWindow?: (w: WindowSummary) => boolean;
}

export function targetHandlers(deps: TargetDeps): Pick<Handlers, 'listTargets' | 'thumbnail' | 'gamePrompt'> {
  return {
    listTargets: async () => {
      const own = deps.isOwnWindow ?? (() => false);
      const windows = (await deps.wm.list()).filter((w) => !OWN_TITLE.test(w.title) && !own(w));
      const games = [...Object.values(BUILTIN_GAMES), ...Object.values(TWO_SEAT_GAMES)].map((g) => ({
        id: g.id,
        title: g.title,
        maxSteps: g.defaultMaxSteps,
        viewSize: g.viewSize,
        ...(g.seats ? { seats: { mode: g.seats.mode, names: [...g.seats.names] as [string, string] } } : {}),
      }));
      return { windows, games };
    },

    /**
     * A small picture of a window as it is on screen now (without raising it): its on-screen
     * part, and only when nothing covers it; otherwise no picture and the reason.
     */
    thumbnail: async ({ windowId, maxSide }) => {
      const w = await deps.wm.get(windowId);
      if (!w) throw new TargetGoneError(`window ${windowId} is gone`);
      const none = {
        dataUrl: null,
        width: 0,
        height: 0,
        covered: false,
        minimized: false,
        offScreen: false,
        clipped: false,
      };
      if (w.minimized) return { ...none, minimized: true };
      const visible = visiblePart(w.bounds, await deps.capturer.screenBounds());
      if (!visible) return { ...none, offScreen: true };
      const clipped = visible.width !== w.bounds.width || visible.height !== w.bounds.height;
      const over = await windowsOver(deps.wm, w, visible);
      if (over?.length) return { ...none, clipped, covered: true, coveredBy: over.map((o) => o.title) };
      const frame = await encodeFrame(await deps.capturer.grab(visible), {
        imageSize: maxSide,
        format: 'jpeg',
        quality: 60,
      });
      return {
        ...none,
        clipped,
        dataUrl: `data:image/jpeg;base64,${frame.data.toString('base64')}`,
        width: frame.width,
        height: frame.height,
      };
    },

    /** The system prompt a model gets for this game, shown to people before they play. */
    gamePrompt: async ({ game }) => {
      const def = getGame(game);
      const agent = new VlmAgent({ model: 'none', apiKey: 'none' });
      const { width, height } = def.viewSize;
      const obs = {
        step: 0,
        episode: 0,
        tCapture: 0,
        frame: { data: Buffer.alloc(0), mime: 'image/jpeg' as const, width, height, scale: 1 },
        geometry: fullSizeGeometry({ x: 0, y: 0, width, height }),
      };
      return { title: def.title, prompt: agent.systemPrompt(obs, 'gui', def), trials: def.trials };
    },
  };
}
