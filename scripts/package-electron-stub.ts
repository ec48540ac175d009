/**
 * A stand-in for Electron's Linux release zip (`electron-v<version>-linux-x64.zip`), for
 * packaging where the real one cannot be downloaded (scripts/test-package.mjs). It has what
 * @electron/packager uses of a Linux build — the `electron` executable it renames to the app's
 * executableName and the `resources/` folder whose default_app.asar it deletes and where it
 * writes app.asar — plus `version` and `LICENSE` as in the real zip. The executable is a shell
 * script that says it is a stand-in: the package it ends up in cannot run the app, and its
 * fuses cannot be flipped (there is no binary to flip them in).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';

interface Entry {
  name: string;
  mode: number;
  data: Buffer;
}

/** A zip of `entries`, stored uncompressed, with Unix modes (extract-zip applies them: the executable stays executable). */
function zip(entries: Entry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  const DOS_DATE = (0 << 9) | (1 << 5) | 1; // 1980-01-01, the format's epoch
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const crc = crc32(e.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(0, 8); // stored
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(e.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix: the high 16 bits of the external attributes are st_mode
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(0, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(DOS_DATE, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(e.data.length, 20);
    central.writeUInt32LE(e.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt16LE(0, 30); // extra
    central.writeUInt16LE(0, 32); // comment
    central.writeUInt16LE(0, 34); // disk
    central.writeUInt16LE(0, 36); // internal attributes
    central.writeUInt32LE((e.mode << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, e.data);
    centrals.push(central, name);
    offset += local.length + name.length + e.data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const FILE = 0o100644;
const EXECUTABLE = 0o100755;
const DIR = 0o040755;

/** Writes the stand-in zip for Electron `version` into `dir` (the packager's electronZipDir); returns its path. */
export function writeElectronStubZip(dir: string, version: string): string {
  const stub = [
    '#!/bin/sh',
    `echo "a stand-in for Electron ${version} (scripts/package-electron-stub.ts): it cannot run the app" >&2`,
    'exit 1',
    '',
  ].join('\n');
  const file = path.join(dir, `electron-v${version}-linux-x64.zip`);
  writeFileSync(
    file,
    zip([
      { name: 'electron', mode: EXECUTABLE, data: Buffer.from(stub) },
      { name: 'version', mode: FILE, data: Buffer.from(version) },
      { name: 'LICENSE', mode: FILE, data: Buffer.from('A stand-in for the Electron release: no Electron code.\n') },
      { name: 'resources/', mode: DIR, data: Buffer.alloc(0) },
      { name: 'resources/default_app.asar', mode: FILE, data: Buffer.from('stand-in default app\n') },
    ]),
  );
  return file;
}
