/** The queue side of `gamepilot sweep --queue` and `gamepilot worker` (BullMQ on Redis). */
import type { Sweep } from '../sweep/spec.ts';
import type { SweepEvent } from '../sweep/progress.ts';
import type { SweepFlags, WorkerFlags } from './program.ts';

export async function enqueueSweep(_sweep: Sweep, _o: SweepFlags, _emit: (e: SweepEvent) => void): Promise<number> {
  throw new Error('not yet');
}
export async function runQueueWorker(_o: WorkerFlags, _emit: (e: SweepEvent) => void): Promise<number> {
  throw new Error('not yet');
}
