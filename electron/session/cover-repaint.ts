/**
 * While a person plays, another window may cover the game, and its frames are then not taken.
 * When that window goes, an X server without a compositor leaves its pixels in the part it
 * uncovered until the game repaints that part (a GTK window paints no background of its own), so
 * a frame taken at once can still show the other window: on a loaded machine the game's repaint
 * came hundreds of milliseconds later. This follows what the game draws from the last frame time
 * it was covered, and on uncovering waits until it has drawn and held still. The agent's raise
 * before a capture (session.ts `raise`) waits the same way when something covered the game.
 */
import type { ChangeWatch, WindowManager } from '../../native/types.ts';

/** How long a game may take to start repainting what was uncovered; drawing nothing by then, it had nothing to repaint. */
export const REPAINT_FIRST_MS = 1000;
/** At most this long in all (a game that animates by itself never holds still). */
export const REPAINT_MAX_MS = 3000;

export class CoverRepaint {
  private watch: { id: string; changes: ChangeWatch } | undefined;
  private readonly wm: WindowManager;

  constructor(wm: WindowManager) {
    this.wm = wm;
  }

  /** A frame time found window `id` covered: what it draws from now on may be its repaint. */
  covered(id: string) {
    try {
      if (this.watch?.id === id) {
        this.watch.changes.reset(0);
        return;
      }
      this.close();
      const changes = this.wm.watchChanges?.(id);
      if (changes) this.watch = { id, changes };
    } catch {
      this.watch = undefined; // drawing cannot be followed: nothing to wait for
    }
  }

  /**
   * The window is no longer covered: resolves once it has drawn since the last covered frame time
   * and then held still for `quietMs`, or drew nothing within REPAINT_FIRST_MS, or after
   * REPAINT_MAX_MS, or on `signal`. At once where drawing cannot be followed (composited
   * desktops, where no other window's pixels are left behind).
   */
  async uncovered(quietMs: number, signal: AbortSignal): Promise<void> {
    const w = this.watch;
    this.watch = undefined;
    if (!w) return;
    try {
      await w.changes.settled({ quietMs, firstMs: REPAINT_FIRST_MS, maxMs: REPAINT_MAX_MS, signal });
    } catch {
      /* the window went away: nothing to wait for */
    } finally {
      w.changes.close();
    }
  }

  close() {
    this.watch?.changes.close();
    this.watch = undefined;
  }
}
