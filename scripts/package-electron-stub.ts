/**
 * A stand-in for Electron's Linux release zip (`electron-v<version>-linux-x64.zip`), for
 * packaging where the real one cannot be downloaded (scripts/test-package.mjs). It has what
 * @electron/packager uses of a Linux build — the `electron` executable it renames to the app's
 * executableName and the `resources/` folder whose default_app.asar it deletes and where it
 * writes app.asar — plus `version` and `LICENSE` as in the real zip. The executable is a shell
 * script that says it is a stand-in: the package it ends up in cannot run the app, and its
 * fuses cannot be flipped (there is no binary to flip them in). Zipped by Info-ZIP's `zip`
 * (Debian package zip), which keeps the executable's mode for extract-zip to apply.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Writes the stand-in zip for Electron `version` into `dir` (the packager's electronZipDir); returns its path. */
export function writeElectronStubZip(dir: string, version: string): string {
  const tree = mkdtempSync(path.join(tmpdir(), 'gp-electron-stub-'));
  try {
    const stub = [
      '#!/bin/sh',
      `echo "a stand-in for Electron ${version} (scripts/package-electron-stub.ts): it cannot run the app" >&2`,
      'exit 1',
      '',
    ].join('\n');
    writeFileSync(path.join(tree, 'electron'), stub);
    chmodSync(path.join(tree, 'electron'), 0o755);
    writeFileSync(path.join(tree, 'version'), version);
    writeFileSync(path.join(tree, 'LICENSE'), 'A stand-in for the Electron release: no Electron code.\n');
    mkdirSync(path.join(tree, 'resources'));
    writeFileSync(path.join(tree, 'resources', 'default_app.asar'), 'stand-in default app\n');
    const file = path.join(dir, `electron-v${version}-linux-x64.zip`);
    // From inside the folder, so the entries are `electron`, `resources/…` as in Electron's own zip.
    execFileSync('zip', ['-q', '-r', '-y', file, '.'], { cwd: tree });
    return file;
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
}
