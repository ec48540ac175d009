#!/usr/bin/env node
// The Node.js floor is package.json's `engines.node` (">=MAJOR.MINOR"), declared once there.
// Imported by bin/gamepilot.mjs and scripts/test.mjs; run as a script (package.json's
// preinstall, .ci/run with --quiet) it exits 0 when this Node is new enough, and otherwise
// prints the commands that get a supported one on this machine and exits 1. Plain JavaScript
// that any old Node can run.
import { readFileSync } from 'node:fs';

/** The Node major to install where the machine's is too old: `.nvmrc`, read by nvm, `.ci/run` and the commands below. */
export const NODE_MAJOR = Number(readFileSync(new URL('../.nvmrc', import.meta.url), 'utf8').trim());

/** The floor as [major, minor], and whether this Node meets it. */
export function nodeFloor() {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const m = /^>=\s*(\d+)\.(\d+)/.exec(pkg.engines?.node ?? '');
  if (!m) throw new Error(`package.json engines.node should read ">=MAJOR.MINOR", not "${pkg.engines?.node}"`);
  const floor = [Number(m[1]), Number(m[2])];
  const [major, minor] = process.versions.node.split('.').map(Number);
  return { floor: floor.join('.'), ok: major > floor[0] || (major === floor[0] && minor >= floor[1]) };
}

/**
 * Shell commands that put a supported Node first on PATH, for a platform and CPU. Where the npm
 * registry has the official binary as a package (node-<platform>-<arch>, used without internet
 * beyond the registry), it is installed into a cache folder: the package holds `node` alone, and
 * the npm already on the machine runs under it once its folder comes first on PATH. Elsewhere
 * (no such package: macOS on Apple silicon) nvm, which reads `.nvmrc`.
 */
export function nodeCommands(platform = process.platform, arch = process.arch) {
  const pkg = `node-${platform === 'win32' ? 'win' : platform}-${arch}`;
  if (platform === 'win32' && arch === 'x64') {
    const dir = `$env:LOCALAPPDATA\\gamepilot-node\\${NODE_MAJOR}`;
    return [
      `# PowerShell`,
      `npm install --prefix "${dir}" --no-save ${pkg}@${NODE_MAJOR}`,
      `$env:Path = "${dir}\\node_modules\\${pkg}\\bin;" + $env:Path`,
    ];
  }
  if ((platform === 'linux' && (arch === 'x64' || arch === 'arm64')) || (platform === 'darwin' && arch === 'x64')) {
    const dir = `$HOME/.cache/gamepilot-node/${NODE_MAJOR}`;
    return [
      `npm install --prefix ${dir} --no-save ${pkg}@${NODE_MAJOR}`,
      `export PATH=${dir}/node_modules/${pkg}/bin:$PATH`,
    ];
  }
  return [`nvm install    # reads .nvmrc (Node ${NODE_MAJOR}); https://github.com/nvm-sh/nvm`, 'nvm use'];
}

/** What to tell a person whose Node is too old: the floor, this version, and the commands. */
export function nodeHelp() {
  const { floor } = nodeFloor();
  return [
    `Gamepilot needs Node.js ${floor} or newer; this is ${process.version} (${process.execPath}).`,
    `Get Node ${NODE_MAJOR} for this shell, then run the command again:`,
    ...nodeCommands().map((c) => `  ${c}`),
  ].join('\n');
}

if (import.meta.url === new URL(process.argv[1] ?? '', 'file:').href) {
  if (nodeFloor().ok) process.exit(0);
  if (!process.argv.includes('--quiet')) process.stderr.write(`${nodeHelp()}\n`);
  process.exit(1);
}
