/** Bounded parallelism for I/O: a cap on calls in flight, and waiting for all before failing. */

/** At most `n` of the functions given to it run at once. */
export function semaphore(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (fn) => {
    if (running >= n) await new Promise<void>((r) => waiting.push(r));
    running++;
    try {
      return await fn();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

/** Waits for every promise (none left running), then throws the first failure if any. */
export async function allOrFirstError(promises: Promise<unknown>[]): Promise<void> {
  const failed = (await Promise.allSettled(promises)).find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
}
