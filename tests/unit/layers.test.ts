/**
 * Layers only look down (electron/README.md): the imports of every source file in the
 * checkout, parsed with the TypeScript compiler, against the layout's rules — and the rules
 * themselves, on imports that break them (several of them were in the tree before). Also:
 * only the model factory constructs an OpenAI client, and no shape calls a run setting by another
 * name than the spec's.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RUN_SPEC_FIELDS } from '../../electron/run-spec.ts';
import { ROOT } from '../helpers/cli.ts';
import {
  CORE_TIERS,
  checkImport,
  checkModelFactory,
  checkSpecNames,
  checkTree,
  electronSources,
  importsOf,
  MODEL_FACTORY,
  ORDERED_TIERS,
  openAIConstructions,
  repeatedNames,
  specRedeclarations,
} from '../helpers/layers.ts';

const SPEC_FIELDS = Object.keys(RUN_SPEC_FIELDS);

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

  it('constructs OpenAI clients only in the model factory', () => {
    const found = checkModelFactory(ROOT);
    expect(found.map((c) => `${c.file}:${c.line}: ${c.rule}`)).toEqual([]);
  });

  it("calls every run setting by the spec's name in every interface and zod schema", () => {
    expect(SPEC_FIELDS).toEqual(expect.arrayContaining(['actionSpace', 'baseUrl', 'imageSize', 'paceMs', 'maxErrors']));
    const found = checkSpecNames(ROOT, SPEC_FIELDS);
    expect(found.map((r) => `${r.file}:${r.line}: ${r.name} is the spec's ${r.field}`)).toEqual([]);
  });

  it('keeps every source file under electron/ within 800 lines, and the loop within 600 (session.ts had 1,610)', () => {
    const lines = (file: string) => readFileSync(`${ROOT}/${file}`, 'utf8').split('\n').length;
    const files = electronSources(ROOT);
    expect(files.length).toBeGreaterThan(100);
    expect(files.filter((f) => lines(f) > 800).map((f) => `${f}: ${lines(f)} lines`)).toEqual([]);
    expect(lines('electron/session/session.ts')).toBeLessThanOrEqual(600);
  });

  it('gives every file under electron/ its own name (there were three settings.ts)', () => {
    const files = electronSources(ROOT);
    expect(files.length).toBeGreaterThan(100);
    expect(repeatedNames(files)).toEqual([]);
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
    expect(checkImport('electron/api/core.ts', '../web/web-shell.ts')).toMatch(/electron\/web\//);
    expect(checkImport('electron/session/session.ts', '../app/main.ts')).toMatch(/electron\/app\//);
    expect(checkImport('electron/cli/main.ts', '../session/compose.ts')).toBeUndefined();
    expect(checkImport('electron/cli/main.ts', '../web/web-shell.ts')).toBeUndefined(); // `gamepilot web`
    expect(checkImport('electron/web/web-shell.ts', '../cli/main.ts')).toMatch(
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

  it('tier 3 is a DAG in a declared order: a room imports only the rooms before it (it was a knot)', () => {
    expect(ORDERED_TIERS.has(3)).toBe(true);
    expect(CORE_TIERS[3]).toEqual([
      'scoring',
      'session',
      'recording',
      'reflection',
      'ingvp',
      'arena',
      'report',
      'dataset',
      'sweep',
    ]);
    // The old knot's edges (scoring → session, scoring → reflection, session → reflection), and others against the order.
    expect(checkImport('electron/scoring/live-judge.ts', '../session/session.ts')).toBe(
      'electron/scoring/ does not import electron/session/, which comes after it in tier 3 ' +
        '(scoring → session → recording → reflection → ingvp → arena → report → dataset → sweep: a room imports only the rooms before it)',
    );
    expect(checkImport('electron/scoring/extract.ts', '../reflection/trajectory.ts')).toMatch(
      /electron\/scoring\/ does not import electron\/reflection\/, which comes after it in tier 3/,
    );
    expect(checkImport('electron/session/session.ts', '../reflection/records.ts')).toMatch(
      /electron\/session\/ does not import electron\/reflection\//,
    );
    expect(checkImport('electron/session/compose.ts', '../recording/recorder.ts')).toMatch(
      /electron\/session\/ does not import electron\/recording\//,
    );
    expect(checkImport('electron/recording/video.ts', '../reflection/video-part.ts')).toMatch(/electron\/reflection\//);
    expect(checkImport('electron/ingvp/suite.ts', '../report/build.ts')).toMatch(
      /electron\/report\/, which comes after/,
    );
    expect(checkImport('electron/report/build.ts', '../sweep/spec.ts')).toMatch(/electron\/sweep\//);
    // Every form of import counts: a type-only import parses to the same specifier.
    expect(importsOf('electron/scoring/x.ts', "import type { Session } from '../session/session.ts';")).toEqual([
      '../session/session.ts',
    ]);
    // Downward edges, and a room's own files, are fine.
    expect(checkImport('electron/session/compose.ts', '../scoring/screen-reader.ts')).toBeUndefined();
    expect(checkImport('electron/recording/recorder.ts', '../session/targets.ts')).toBeUndefined();
    expect(checkImport('electron/reflection/idc.ts', '../session/compose.ts')).toBeUndefined();
    expect(checkImport('electron/reflection/setup.ts', '../scoring/trajectory.ts')).toBeUndefined();
    expect(checkImport('electron/report/build.ts', '../ingvp/table.ts')).toBeUndefined();
    expect(checkImport('electron/report/build.ts', '../reflection/idc-files.ts')).toBeUndefined();
    expect(checkImport('electron/sweep/job-run.ts', '../session/compose.ts')).toBeUndefined();
    expect(checkImport('electron/scoring/extract.ts', './trajectory.ts')).toBeUndefined();
    expect(checkImport('electron/scoring/extract.ts', '../store/session-files.ts')).toBeUndefined();
    // Other tiers keep their rule (own tier and below, in any order); tier 3 still looks only down.
    expect(checkImport('electron/store/run-store.ts', '../capture/encode.ts')).toBeUndefined();
    expect(checkImport('electron/capture/encode.ts', '../store/run-store.ts')).toBeUndefined();
    expect(checkImport('electron/scoring/normalise.ts', '../api/contract.ts')).toMatch(/upper room electron\/api\//);
  });

  it('finds `new OpenAI(` in code, not in comments or strings, and anywhere but the factory is a violation', () => {
    const text = [
      "import OpenAI from 'openai';",
      "import * as sdk from 'openai';",
      '// new OpenAI() in a comment does not count',
      "const s = 'new OpenAI(';",
      'const a = new OpenAI({ apiKey: "k" });',
      'function f() {',
      '  return new sdk.OpenAI();',
      '}',
      'const b = new OpenAIish();',
      'const c = OpenAI;',
    ].join('\n');
    expect(openAIConstructions('electron/agents/vlm.ts', text)).toEqual([5, 7]);
    expect(openAIConstructions('electron/x.ts', 'const client = new Other();')).toEqual([]);
    expect(MODEL_FACTORY).toBe('electron/agents/model-endpoint.ts');
  });

  it('find a spec field declared under another name in interfaces, type literals and zod schemas, not in values', () => {
    const text = [
      '// space: a comment does not count',
      'export interface Options {',
      '  baseURL?: string;',
      '  actionSpace: string;',
      '  spaceBar: boolean;',
      '}',
      'type Row = { space: string; "paceMS": number };',
      "const Schema = z.object({ maxsteps: z.number(), seed: z.number(), 'longSide': z.number() });",
      'const More = Schema.extend({ minStepMs: z.number() });',
      "const value = { space: 'gui', baseURL: 'x' };",
      'send(row.space, { maxConsecutiveErrors: 3 });',
      'const other = z.array(z.object({ keepframes: z.string() }));',
    ].join('\n');
    const found = specRedeclarations('electron/x.ts', text, SPEC_FIELDS);
    expect(found.map((r) => `${r.line}: ${r.name} → ${r.field}`)).toEqual([
      '3: baseURL → baseUrl',
      '7: space → actionSpace',
      '7: paceMS → paceMs',
      '8: maxsteps → maxSteps',
      '8: longSide → imageSize',
      '9: minStepMs → paceMs',
      '12: keepframes → keepFrames',
    ]);
    expect(specRedeclarations('electron/y.ts', 'interface A { game: string; agent: string }', SPEC_FIELDS)).toEqual([]);
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
      /the contract imports only zod, domain\.ts and run-spec\.ts/,
    );
    expect(checkImport('electron/api/contract.ts', '../store/run-library.ts')).toMatch(/the contract imports only/);
    // What the core sends back lives beside the requests, under the same rule.
    expect(checkImport('electron/api/contract.ts', './wire-shapes.ts')).toBeUndefined();
    expect(checkImport('electron/api/wire-shapes.ts', './contract.ts')).toBeUndefined();
    expect(checkImport('electron/api/wire-shapes.ts', 'node:fs')).toMatch(/the contract imports only/);
    expect(checkImport('renderer/src/App.tsx', '../../electron/api/wire-shapes.ts')).toMatch(/only through/);
    expect(checkImport('electron/domain.ts', 'zod')).toMatch(/domain\.ts imports nothing/);
    // The run's one spec: the contract derives its start-run request from it, so it is as plain as the contract.
    expect(checkImport('electron/api/contract.ts', '../run-spec.ts')).toBeUndefined();
    expect(checkImport('electron/run-spec.ts', 'zod')).toBeUndefined();
    expect(checkImport('electron/run-spec.ts', './domain.ts')).toBeUndefined();
    expect(checkImport('electron/run-spec.ts', 'node:fs')).toMatch(/run-spec\.ts imports only zod and domain\.ts/);
    expect(checkImport('electron/run-spec.ts', './agents/vlm.ts')).toMatch(/run-spec\.ts imports only/);
    expect(checkImport('electron/run-spec.ts', '../games/index.ts')).toMatch(/run-spec\.ts imports only/);
    expect(checkImport('electron/session/front-door.ts', '../run-spec.ts')).toBeUndefined();
  });

  it("finds a name two files share, but not the shells' own main.ts", () => {
    expect(
      repeatedNames([
        'electron/api/settings.ts',
        'electron/cli/settings.ts',
        'electron/cli/main.ts',
        'electron/app/main.ts',
      ]),
    ).toEqual(['electron/api/settings.ts and electron/cli/settings.ts']);
  });

  it('only electron/app imports electron', () => {
    expect(checkImport('electron/session/session.ts', 'electron')).toMatch(/only electron\/app imports electron/);
    expect(checkImport('renderer/src/main.tsx', 'electron')).toMatch(/only electron\/app/);
    expect(checkImport('native/x11.ts', 'electron/main')).toMatch(/only electron\/app/);
    expect(checkImport('electron/app/main.ts', 'electron')).toBeUndefined();
    expect(checkImport('electron/app/preload.cts', 'electron')).toBeUndefined();
  });
});
