/**
 * How a sweep's cost budget reaches its jobs. Each run keeps a hard cap of its own (`--budget-usd`:
 * it stops before a call that could pass it), so the sweep hands each job, as it starts, a share
 * of what is left: the budget, less what finished attempts spent, less the shares running jobs
 * hold (they may still spend all of them), divided among the workers that could start a job now.
 * The sweep's spend therefore never passes its budget; a job stops (stopped, budget) within one
 * call of its share; and once one does, or nothing is left, no new job starts. A share cannot
 * grow while its job runs, so with several workers a job may stop at its share while another
 * leaves part of its own unspent: one worker spends the budget to within one call.
 */
export class BudgetShares {
  private held = 0;

  /** `capUsd` undefined: no budget (every share undefined). */
  constructor(readonly capUsd: number | undefined) {}

  /**
   * The share of a job starting now, taken from what is left (`spentUsd`: what the sweep's
   * attempts have spent so far), split among `idleWorkers` (this one included); undefined
   * without a budget. The caller gives it back with `release` when the job ends.
   */
  take(spentUsd: number, idleWorkers: number): number | undefined {
    if (this.capUsd === undefined) return undefined;
    const left = Math.max(0, this.capUsd - spentUsd - this.held);
    const share = floorMicro(left / Math.max(1, idleWorkers));
    this.held += share;
    return share;
  }

  /** A job ended: its share is no longer held (what it spent is counted in the sweep's spend). */
  release(share: number | undefined) {
    if (share !== undefined) this.held = Math.max(0, this.held - share);
  }
}

/** Down to a millionth of a dollar, so rounding never hands out more than is left. */
function floorMicro(usd: number): number {
  return Math.floor(usd * 1e6) / 1e6;
}
