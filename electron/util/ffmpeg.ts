/**
 * ffmpeg is an external program (videos of runs, tutorial videos, a reflector's video part):
 * when it is missing, each caller says how to install it on this platform.
 */
export function ffmpegMissingHint(): string {
  return process.platform === 'win32'
    ? 'install ffmpeg (winget install ffmpeg) and make sure ffmpeg.exe is on PATH'
    : process.platform === 'darwin'
      ? 'install ffmpeg (brew install ffmpeg)'
      : 'install ffmpeg (sudo apt-get install ffmpeg)';
}
