/**
 * sharp (libvips), loaded on first use: loading it costs about 250 ms, and most commands
 * (`gamepilot games`, `profiles`, `report`…) never resize or decode an image.
 */
import os from 'node:os';
import type Sharp from 'sharp';

let loading: Promise<typeof Sharp> | undefined;

export function loadSharp(): Promise<typeof Sharp> {
  loading ??= import('sharp').then(({ default: sharp }) => {
    // libvips may start with one worker thread (seen here: sharp.concurrency() === 1 on 2 cores);
    // using the cores we have cuts a 1280×800 → 1024 JPEG from ~18 ms to ~12 ms.
    sharp.concurrency(Math.max(sharp.concurrency(), Math.min(4, os.availableParallelism())));
    return sharp;
  });
  return loading;
}
