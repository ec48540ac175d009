/**
 * Layers only look down (electron/README.md): the imports of every source file in the
 * checkout, parsed with the TypeScript compiler, against the layout's rules — and the rules
 * themselves, on imports that break them (several of them were in the tree before).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.ts';
import { checkImport, checkTree, importsOf } from '../helpers/layers.ts';

describe('the checkout', () => {
  it('keeps every import on the right side of the layers', () => {
    const violations = checkTree(ROOT);
    expect(violations.map((v) => `${v.file} imports ${v.imports}: ${v.rule}`)).toEqual([]);
  });

  it('reads the imports of real files (a scan that found nothing would pass anything)', () => {
    const core = importsOf('electron/api/core.ts', readFileSync(`${ROOT}/electron/api/core.ts`, 'utf8'));
    expect(core).toEqual(
      expect.arrayContaining(['node:events', './contract.ts', '../domain.ts', '../session/targets.ts']),
    );
    const preload = importsOf('electron/app/preload.cts', readFileSync(`${ROOT}/electron/app/preload.cts`, 'utf8'));
    expect(preload).toContain('electron');
  });
});

describe('the rules', () => {
  it('read every form of import: static, type-only, re-export, import(), require(), import types', () => {
    const text = [
      "import a from './a.ts';",
      "import type { B } from './b.ts';",
      "export * from './c.ts';",
      "export { d } from './d.ts';",
      "const e = await import('./e.ts');",
      "const f = require('./f.cjs');",
      "type G = typeof import('./g.ts');",
      "import h = require('./h.ts');",
    ].join('\n');
    expect(importsOf('x.ts', text)).toEqual([
      './a.ts',
      './b.ts',
      './c.ts',
      './d.ts',
      './e.ts',
      './f.cjs',
      './g.ts',
      './h.ts',
    ]);
  });

  it('nothing below the shells imports cli/, web/ or app/ (the composition root used to live in cli/)', () => {
    expect(checkImport('electron/reflection/idc.ts', '../cli/compose.ts')).toMatch(
      /nothing below the shells imports electron\/cli\//,
    );
    expect(checkImport('electron/api/core.ts', '../web/shell.ts')).toMatch(/electron\/web\//);
    expect(checkImport('electron/session/session.ts', '../app/main.ts')).toMatch(/electron\/app\//);
    expect(checkImport('electron/cli/main.ts', '../session/compose.ts')).toBeUndefined();
    expect(checkImport('electron/cli/main.ts', '../web/shell.ts')).toBeUndefined(); // `gamepilot web`
    expect(checkImport('electron/web/shell.ts', '../cli/main.ts')).toMatch(
      /the web shell does not import the cli shell/,
    );
    expect(checkImport('bin/gamepilot.mjs', '../electron/cli/main.ts')).toBeUndefined(); // the launcher
  });

  it('core rooms import only their own tier and those below (the store used to import the API contract)', () => {
    expect(checkImport('electron/store/run-library.ts', '../api/contract.ts')).toMatch(
      /electron\/store\/ \(tier 2\) does not import the upper room electron\/api\//,
    );
    expect(checkImport('electron/recording/recorder.ts', '../api/contract.ts')).toMatch(/upper room electron\/api\//);
    expect(checkImport('electron/actions/parse.ts', '../input/keys.ts')).toMatch(/electron\/actions\/ \(tier 1\)/);
    expect(checkImport('electron/api/core.ts', '../session/session.ts')).toBeUndefined();
    expect(checkImport('electron/reflection/idc.ts', '../session/compose.ts')).toBeUndefined();
    expect(checkImport('electron/actions/parse.ts', '../domain.ts')).toBeUndefined();
  });

  it('native/ and games/ import nothing of the core but domain.ts', () => {
    expect(checkImport('native/x11.ts', '../electron/session/session.ts')).toMatch(/native\/ is the lowest layer/);
    expect(checkImport('native/process.ts', '../games/index.ts')).toMatch(/native\//);
    expect(checkImport('games/snake/index.ts', '../../electron/input/nut.ts')).toMatch(/games\/ imports only games\//);
    expect(checkImport('games/index.ts', '../electron/domain.ts')).toBeUndefined();
    expect(checkImport('native/index.ts', './x11.ts')).toBeUndefined();
  });

  it('the renderer imports no Node and nothing of the core but the contract; the contract stays free of Node', () => {
    expect(checkImport('renderer/src/App.tsx', 'node:fs')).toMatch(/no Node APIs/);
    expect(checkImport('renderer/src/App.tsx', 'path')).toMatch(/no Node APIs/);
    expect(checkImport('renderer/src/App.tsx', '../../electron/api/core.ts')).toMatch(
      /only through electron\/api\/contract\.ts/,
    );
    expect(checkImport('renderer/src/App.tsx', '../../electron/domain.ts')).toMatch(
      /only through electron\/api\/contract\.ts/,
    );
    expect(checkImport('renderer/src/App.tsx', '../../electron/api/contract.ts')).toBeUndefined();
    expect(checkImport('renderer/src/App.tsx', 'react')).toBeUndefined();
    expect(checkImport('electron/api/contract.ts', 'node:path')).toMatch(
      /the contract imports only zod and domain\.ts/,
    );
    expect(checkImport('electron/api/contract.ts', '../store/run-library.ts')).toMatch(/the contract imports only/);
    expect(checkImport('electron/domain.ts', 'zod')).toMatch(/domain\.ts imports nothing/);
  });

  it('only electron/app imports electron', () => {
    expect(checkImport('electron/session/session.ts', 'electron')).toMatch(/only electron\/app imports electron/);
    expect(checkImport('renderer/src/main.tsx', 'electron')).toMatch(/only electron\/app/);
    expect(checkImport('native/x11.ts', 'electron/main')).toMatch(/only electron\/app/);
    expect(checkImport('electron/app/main.ts', 'electron')).toBeUndefined();
    expect(checkImport('electron/app/preload.cts', 'electron')).toBeUndefined();
  });
});
