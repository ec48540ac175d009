/**
 * The import rules of the layout (electron/README.md), checked over real source files with
 * the TypeScript compiler's parser: every static import and re-export, `import()`, `require()`
 * and `import('…')` type. Layers only look down. Beside them, two rules on what code does
 * rather than imports: only the model factory constructs an OpenAI client, and no shape outside
 * run-spec.ts calls a run setting by another name.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import ts from 'typescript';

/** Where a file lives, for the rules: a shell, a core tier, the renderer, or below the core. */
export type Place =
  | { kind: 'shell'; name: 'cli' | 'web' | 'app' | 'mcp' }
  | { kind: 'core'; tier: number; room: string }
  | { kind: 'renderer' }
  | { kind: 'native' }
  | { kind: 'games' }
  | { kind: 'other' };

/**
 * Core rooms from the bottom up; a room may import its own tier and the ones below. domain.ts
 * is the vocabulary every layer may use (native/ and games/ too); actions/ is the bottom room.
 * In an ordered tier (ORDERED_TIERS) the list is also the order inside it: a room imports only
 * the rooms listed before it, so its rooms form a DAG instead of a knot.
 */
export const CORE_TIERS: string[][] = [
  ['domain.ts', 'run-spec.ts', 'util'],
  ['actions'],
  ['input', 'capture', 'store', 'safety', 'latency', 'agents', 'games', 'profiles'],
  // scoring reads scores and judges frames; the session runs the loop with them (compose.ts wires
  // the reader and the live judge); a recording is a person playing a session's target; reflection
  // plays whole sessions (IDC); the ING-VP suite, then the report of runs, IDC and ING-VP; sweeps.
  ['scoring', 'session', 'recording', 'reflection', 'ingvp', 'arena', 'report', 'dataset', 'sweep'],
  ['api'],
];
/** Tiers whose list in CORE_TIERS is an import order: each room imports only the rooms before it. */
export const ORDERED_TIERS: ReadonlySet<number> = new Set([3]);
const SHELLS = ['cli', 'web', 'app', 'mcp'] as const;
/** Shells a shell may use: `gamepilot web` starts the web shell from the CLI. */
const SHELL_MAY_USE: Record<(typeof SHELLS)[number], string[]> = { cli: ['web', 'mcp'], web: [], app: [], mcp: [] };
const CONTRACT = 'electron/api/contract.ts';
/** The contract's files: its requests (contract.ts, the one the renderer imports) and what the core sends back. */
const CONTRACT_FILES: ReadonlySet<string> = new Set([CONTRACT, 'electron/api/wire-shapes.ts']);
const DOMAIN = 'electron/domain.ts';
/** The one declaration of a run's settings: the contract derives its start-run request from it. */
const RUN_SPEC = 'electron/run-spec.ts';
const NODE_BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

export function placeOf(rel: string): Place {
  const parts = rel.split('/');
  if (parts[0] === 'renderer') return { kind: 'renderer' };
  if (parts[0] === 'native') return { kind: 'native' };
  if (parts[0] === 'games') return { kind: 'games' };
  if (parts[0] !== 'electron' || parts.length < 2) return { kind: 'other' };
  const room = parts[1]!;
  if ((SHELLS as readonly string[]).includes(room)) return { kind: 'shell', name: room as (typeof SHELLS)[number] };
  const tier = CORE_TIERS.findIndex((t) => t.includes(room));
  return tier < 0 ? { kind: 'other' } : { kind: 'core', tier, room };
}

function parse(fileName: string, text: string): ts.SourceFile {
  const kind = /\.(tsx|jsx)$/.test(fileName)
    ? ts.ScriptKind.TSX
    : /\.[cm]?js$/.test(fileName)
      ? ts.ScriptKind.JS
      : ts.ScriptKind.TS;
  return ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
}

/** Every module a source names: static and dynamic imports, re-exports, require() and import types. */
export function importsOf(fileName: string, text: string): string[] {
  const source = parse(fileName, text);
  const found: string[] = [];
  const literal = (n: ts.Node | undefined) => (n && ts.isStringLiteralLike(n) ? found.push(n.text) : undefined);
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) literal(node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      literal(node.moduleReference.expression);
    else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require'))
    )
      literal(node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) literal(node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

export interface Violation {
  file: string;
  imports: string;
  rule: string;
}

const isElectron = (spec: string) => spec === 'electron' || spec.startsWith('electron/');

/** What `file` (relative to the checkout, with forward slashes) may not import, and why. */
export function checkImport(file: string, spec: string): string | undefined {
  const from = placeOf(file);
  if (isElectron(spec) && !file.startsWith('electron/app/')) return 'only electron/app imports electron';
  const relative = spec.startsWith('.');
  const target = relative ? path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)) : undefined;

  if (file === DOMAIN) return 'domain.ts imports nothing: every layer imports it';
  if (file === RUN_SPEC && spec !== 'zod' && target !== DOMAIN)
    return 'run-spec.ts imports only zod and domain.ts (the contract and the renderer share it; no Node)';
  if (
    CONTRACT_FILES.has(file) &&
    spec !== 'zod' &&
    target !== DOMAIN &&
    target !== RUN_SPEC &&
    !(target && CONTRACT_FILES.has(target))
  )
    return 'the contract imports only zod, domain.ts and run-spec.ts (the renderer shares it; no Node)';

  if (from.kind === 'renderer') {
    if (NODE_BUILTINS.has(spec)) return 'the renderer uses no Node APIs';
    if (target && !target.startsWith('renderer/') && target !== CONTRACT)
      return 'the renderer reaches the core only through electron/api/contract.ts';
    return undefined;
  }
  if (!target) return undefined; // packages and Node built-ins: the rules are about our own layers
  const to = placeOf(target);

  if (from.kind === 'native')
    return to.kind === 'native' || target === DOMAIN
      ? undefined
      : 'native/ is the lowest layer: it imports only native/ (and domain.ts)';
  if (from.kind === 'games')
    return to.kind === 'games' || target === DOMAIN ? undefined : 'games/ imports only games/ (and domain.ts)';
  if (to.kind === 'shell') {
    if (from.kind === 'core') return `nothing below the shells imports electron/${to.name}/`;
    if (from.kind === 'shell' && from.name !== to.name && !SHELL_MAY_USE[from.name].includes(to.name))
      return `the ${from.name} shell does not import the ${to.name} shell`;
    return undefined; // launchers (bin/, scripts/) start the shells
  }
  if (from.kind === 'core' && to.kind === 'core' && to.tier > from.tier) {
    return `electron/${from.room}/ (tier ${from.tier}) does not import the upper room electron/${to.room}/ (tier ${to.tier})`;
  }
  if (from.kind === 'core' && to.kind === 'core' && to.tier === from.tier && ORDERED_TIERS.has(from.tier)) {
    const order = CORE_TIERS[from.tier]!;
    if (order.indexOf(to.room) > order.indexOf(from.room))
      return `electron/${from.room}/ does not import electron/${to.room}/, which comes after it in tier ${from.tier} (${order.join(' → ')}: a room imports only the rooms before it)`;
  }
  if (from.kind === 'core' && to.kind === 'renderer') return 'the core does not import the renderer';
  return undefined;
}

const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;

function walk(root: string, dir: string): string[] {
  return readdirSync(path.join(root, dir)).flatMap((n) => {
    if (n === 'node_modules' || n.startsWith('.')) return [];
    const rel = `${dir}/${n}`;
    return statSync(path.join(root, rel)).isDirectory()
      ? walk(root, rel)
      : SOURCE.test(n) && !n.endsWith('.d.ts')
        ? [rel]
        : [];
  });
}

/** Every violation in the checkout's source folders (tests aside: they may import anything). */
export function checkTree(
  root: string,
  dirs = ['electron', 'renderer', 'native', 'games', 'prompts', 'scripts', 'bin'],
): Violation[] {
  return dirs
    .flatMap((d) => walk(root, d))
    .flatMap((file) =>
      importsOf(file, readFileSync(path.join(root, file), 'utf8')).flatMap((spec) => {
        const rule = checkImport(file, spec);
        return rule ? [{ file, imports: spec, rule }] : [];
      }),
    );
}

/** The one file that constructs OpenAI clients; every model call gets its client from there. */
export const MODEL_FACTORY = 'electron/agents/model-endpoint.ts';

/**
 * The 1-based lines of each `new OpenAI(…)` in a source: a `new` whose callee is the identifier
 * OpenAI or a property named OpenAI (`new sdk.OpenAI()`). Parsed, so comments and strings that
 * mention it do not count. An import renamed (`import { OpenAI as Client }`) escapes it.
 */
export function openAIConstructions(fileName: string, text: string): number[] {
  const source = parse(fileName, text);
  const lines: number[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isNewExpression(node)) {
      const callee = node.expression;
      if (
        (ts.isIdentifier(callee) && callee.text === 'OpenAI') ||
        (ts.isPropertyAccessExpression(callee) && callee.name.text === 'OpenAI')
      )
        lines.push(source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lines;
}

export interface Construction {
  file: string;
  line: number;
  rule: string;
}

/** Every `new OpenAI(` under electron/ outside the model factory. */
export function checkModelFactory(root: string): Construction[] {
  return walk(root, 'electron')
    .filter((file) => file !== MODEL_FACTORY)
    .flatMap((file) =>
      openAIConstructions(file, readFileSync(path.join(root, file), 'utf8')).map((line) => ({
        file,
        line,
        rule: `only ${MODEL_FACTORY} constructs an OpenAI client`,
      })),
    );
}

/** A shell's entry point: each shell may keep its own `main.ts`. */
const SHARED_NAMES = new Set(['main.ts']);

/** Names two or more files under electron/ share (a reader should never ask "which settings.ts?"). */
export function repeatedNames(files: string[]): string[] {
  const byName = new Map<string, string[]>();
  for (const f of files) {
    const name = path.basename(f);
    if (!SHARED_NAMES.has(name)) byName.set(name, [...(byName.get(name) ?? []), f]);
  }
  return [...byName.values()].filter((fs) => fs.length > 1).map((fs) => fs.join(' and '));
}

/** The source files under electron/, for repeatedNames. */
export function electronSources(root: string): string[] {
  return walk(root, 'electron');
}

/**
 * Names a run setting has gone by at the seams between shapes (RunOptions → SessionConfig →
 * run.json); each is now only a spec field's former name. Case twins (`baseURL` for `baseUrl`)
 * are found without a list.
 */
export const FORMER_NAMES: Readonly<Record<string, string>> = {
  space: 'actionSpace',
  longSide: 'imageSize',
  minStepMs: 'paceMs',
  maxConsecutiveErrors: 'maxErrors',
};

export interface Redeclaration {
  file: string;
  line: number;
  name: string;
  field: string;
}

/** The spec field a declared name is another name for: a case twin or a former name. */
function otherNameOf(name: string, fields: readonly string[]): string | undefined {
  const twin = fields.find((f) => f !== name && f.toLowerCase() === name.toLowerCase());
  return twin ?? (Object.hasOwn(FORMER_NAMES, name) ? FORMER_NAMES[name] : undefined);
}

/** `z.object({…})`, `z.strictObject({…})` or `schema.extend({…})`: a zod schema's field literal. */
function zodFields(node: ts.CallExpression): ts.ObjectLiteralExpression | undefined {
  const callee = node.expression;
  const arg = node.arguments[0];
  if (!arg || !ts.isObjectLiteralExpression(arg) || !ts.isPropertyAccessExpression(callee)) return undefined;
  const method = callee.name.text;
  const onZ = ts.isIdentifier(callee.expression) && callee.expression.text === 'z';
  return (onZ && (method === 'object' || method === 'strictObject')) || method === 'extend' ? arg : undefined;
}

const propertyName = (name: ts.PropertyName | undefined): string | undefined =>
  name && (ts.isIdentifier(name) || ts.isStringLiteral(name)) ? name.text : undefined;

/**
 * Each field an interface, a type literal or a zod schema in this source declares under another
 * name for a run setting (fields: the spec's field names). Parsed, so comments and values do not
 * count; a property merely read or passed (`x.space`, `{ space }` in a call) is not a declaration.
 */
export function specRedeclarations(fileName: string, text: string, fields: readonly string[]): Redeclaration[] {
  const source = parse(fileName, text);
  const found: Redeclaration[] = [];
  const check = (node: ts.Node, name: string | undefined) => {
    const field = name === undefined ? undefined : otherNameOf(name, fields);
    if (field && name)
      found.push({
        file: fileName,
        line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
        name,
        field,
      });
  };
  const visit = (node: ts.Node) => {
    if (ts.isPropertySignature(node)) check(node, propertyName(node.name));
    if (ts.isCallExpression(node))
      for (const p of zodFields(node)?.properties ?? [])
        if (ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) check(p, propertyName(p.name));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every re-declaration of a spec field under another name in electron/ and renderer/. */
export function checkSpecNames(root: string, fields: readonly string[]): Redeclaration[] {
  return ['electron', 'renderer']
    .flatMap((d) => walk(root, d))
    .filter((file) => file !== RUN_SPEC)
    .flatMap((file) => specRedeclarations(file, readFileSync(path.join(root, file), 'utf8'), fields));
}
