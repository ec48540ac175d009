/**
 * The Electron bundle (esbuild: main, preload and the recorder's worker threads, built by the
 * suites' global setup, tests/helpers/build-setup.ts): the bundled preload exposes only the
 * contract's two calls, and the bundled worker threads run under plain Node: the capture
 * thread starts its own writer threads from the bundle and records real frames of the test
 * display. The app's entry itself runs in tests/unit/electron-app-bundle.test.ts.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.ts';

describe('Electron shell bundle', () => {
  it('the bundled preload exposes the contract’s two calls, and the bundled threads run under plain Node', {
    timeout: 60_000,
  }, async () => {
    // The bundled preload, run as Electron would run it: it asks for `electron` and nothing else,
    // and exposes exactly request() and onEvent() over the two contract channels.
    const required: string[] = [];
    const exposed: Record<string, Record<string, (...a: any[]) => any>> = {};
    const sent: unknown[][] = [];
    const listeners = new Map<string, Set<(...a: unknown[]) => void>>();
    const electron = {
      contextBridge: {
        exposeInMainWorld: (key: string, api: Record<string, (...a: any[]) => any>) => (exposed[key] = api),
      },
      ipcRenderer: {
        invoke: (...a: unknown[]) => {
          sent.push(a);
          return Promise.resolve('answer');
        },
        on: (ch: string, l: (...a: unknown[]) => void) => listeners.set(ch, (listeners.get(ch) ?? new Set()).add(l)),
        removeListener: (ch: string, l: (...a: unknown[]) => void) => listeners.get(ch)?.delete(l),
      },
    };
    const preload = readFileSync(path.join(ROOT, 'dist-electron', 'preload.cjs'), 'utf8');
    const module = { exports: {} };
    vm.runInNewContext(preload, {
      module,
      exports: module.exports,
      require: (id: string) => {
        required.push(id);
        return id === 'electron' ? electron : {};
      },
    });
    expect(required).toEqual(['electron']);
    expect(Object.keys(exposed)).toEqual(['gamepilot']);
    expect(Object.keys(exposed.gamepilot!).sort()).toEqual(['onEvent', 'request']);
    await expect(exposed.gamepilot!.request!('state', { a: 1 })).resolves.toBe('answer');
    expect(sent).toEqual([['gamepilot:request', { method: 'state', params: { a: 1 } }]]);
    const got: unknown[] = [];
    const off = exposed.gamepilot!.onEvent!((e: unknown) => got.push(e));
    for (const l of listeners.get('gamepilot:event') ?? []) l({ sender: 'main' }, { type: 'state' });
    expect(got).toEqual([{ type: 'state' }]); // the payload only, never the IPC event with its sender
    off();
    expect(listeners.get('gamepilot:event')?.size).toBe(0);
    // The capture thread from the bundle starts its own writer threads (also from the bundle) and
    // records, with the in-process X11 capture (koffi, the default here) and with nut-js.
    for (const backend of ['x11', 'nut']) {
      const dir = mkdtempSync(path.join(tmpdir(), 'gp-bundle-'));
      const worker = new Worker(path.join(ROOT, 'dist-electron', 'capture-worker.mjs'), {
        workerData: {
          backend,
          settings: { fps: 10, durationS: 1, dir },
          bounds: { x: 0, y: 0, width: 160, height: 120 },
          quality: 70,
        },
      });
      const messages: { kind: string; stats?: { error?: string } }[] = [];
      await new Promise<void>((resolve, reject) => {
        worker.on('message', (m) => {
          messages.push(m);
          if (m.kind === 'ended' || m.kind === 'error') resolve();
        });
        worker.on('error', reject);
      });
      expect(messages.at(-1), backend).toMatchObject({ kind: 'ended' });
      expect(messages.at(-1)!.stats!.error, backend).toBeUndefined();
      const written = messages.filter((m) => m.kind === 'written').length;
      expect(written, backend).toBeGreaterThanOrEqual(5);
      expect(readdirSync(path.join(dir, 'frames'))).toHaveLength(written);
    }
  });
});
