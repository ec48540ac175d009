import { execFileSync } from 'node:child_process';

/**
 * An H.264 MP4 made by ffmpeg from one of its test sources (`testsrc`, `smptebars`, …): a
 * tutorial video for tests, `seconds` long at `fps`, `size` as WxH.
 */
export function testVideo(
  file: string,
  o: { source?: string; seconds: number; size?: string; fps?: number } = { seconds: 3 },
): string {
  const src = `${o.source ?? 'testsrc'}=duration=${o.seconds}:size=${o.size ?? '320x240'}:rate=${o.fps ?? 25}`;
  execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', src, '-c:v', 'libx264', '-pix_fmt', 'yuv420p', file]);
  return file;
}
