/**
 * What a run may spend before its next step: disk (its max run size and the free space it
 * leaves: store/frame-budget.ts) and money (its cost meter: agents/cost-meter.ts). The cost cap
 * itself is kept at every model call; a refused call marks the meter, and the run stops here,
 * before the step after it, as it stops for the disk: `stopped`, with the reason in run.json.
 */
import type { CostMeter } from '../agents/cost-meter.ts';
import { DiskBudget, type DiskBudgetOptions } from '../store/frame-budget.ts';

/** Why a run stops for a budget: the episode's end and the words run.json and the CLI say. */
export interface BudgetStop {
  end: 'disk_budget' | 'budget';
  reason: string;
}

export class RunBudgets {
  private readonly disk: DiskBudget;
  /** The first budget that stopped the run, if one did. */
  stop: BudgetStop | undefined;

  constructor(
    dir: string,
    disk: Pick<DiskBudgetOptions, 'maxRunMb' | 'minFreeMb'>,
    private readonly meter: CostMeter | undefined,
  ) {
    this.disk = new DiskBudget(dir, { maxRunMb: disk.maxRunMb, minFreeMb: disk.minFreeMb });
  }

  /** The cost cap refused a call, or would refuse the next player call as big as the last: the run stops before its next step. */
  spent(): BudgetStop | undefined {
    if (!this.meter?.foresees('player')) return undefined;
    this.stop ??= { end: 'budget', reason: this.meter.refusal! };
    return this.stop;
  }

  /** Why the run must stop before its next step (`written`: bytes so far; `stepBytes`: the most one step wrote). */
  check(written: number, stepBytes: number): BudgetStop | undefined {
    const disk = this.disk.check(written, stepBytes);
    if (!disk) return this.spent();
    this.stop ??= { end: 'disk_budget', reason: disk };
    return this.stop;
  }
}
