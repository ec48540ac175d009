/** Ctrl+C and SIGTERM as an AbortSignal for a command that ends its own work when told. */
import { io } from './io.ts';

/** Aborts on the first SIGINT or SIGTERM (saying `notice` once, when given); `dispose` takes the handlers back. */
export function stopOnSignal(notice?: string): { signal: AbortSignal; dispose: () => void } {
  const ctl = new AbortController();
  const onSignal = () => {
    if (notice && !ctl.signal.aborted) io.log(notice);
    ctl.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: ctl.signal,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
