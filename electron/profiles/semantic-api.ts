/**
 * A profile's semantic actions made usable: checked against the rest of the section (every
 * name, parameter and key it refers to), parsed from a model's answer into one canonical call
 * ("shoot(angle=35, power=0.9)"), and expanded into GUI actions in window pixels. A call that
 * names an unknown action, misses or exceeds a parameter, or lands outside the window is an
 * error with a reason; nothing of it is sent.
 */
import { guiActionSchemas, type GuiAction } from '../actions/schema.ts';
import { resolveKeyName } from '../actions/keys.ts';
import { compileExpr, type NumberExpr } from './semantic-expr.ts';
import {
  STEP_VERBS,
  type ParamDef,
  type PointInput,
  type SemanticActionDef,
  type SemanticSection,
  type StepVerb,
} from './semantic-schema.ts';

type Path = (string | number)[];
export interface SemanticIssue {
  path: Path;
  message: string;
}
type Value = number | string;
type Args = Record<string, Value>;

/** A rectangle in window fractions. */
interface Frac {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A point in window fractions. */
interface FracPoint {
  x: number;
  y: number;
}

/** The most GUI actions one call may become (repeats included). */
export const MAX_EXPANSION = 100;

export interface SemanticParam {
  name: string;
  def: ParamDef;
}

export interface SemanticMove {
  name: string;
  description: string;
  params: SemanticParam[];
  example: Args;
}

export type CallResult = { ok: true; move: string; name: string; args: Args } | { ok: false; error: string };
export type ExpansionResult = { ok: true; actions: GuiAction[] } | { ok: false; error: string };

/** The one canonical text of a call: `wait`, `shoot(angle=35, power=0.9)`. */
export function callText(name: string, args: Args, order: readonly string[]): string {
  const parts = order.filter((k) => args[k] !== undefined).map((k) => `${k}=${formatValue(args[k]!)}`);
  return parts.length ? `${name}(${parts.join(', ')})` : name;
}

function formatValue(v: Value): string {
  return typeof v === 'number' ? String(Math.round(v * 1e6) / 1e6) : /^[\w.+-]+$/.test(v) ? v : JSON.stringify(v);
}

function describeParam(d: ParamDef): string {
  if (d.type === 'choice') return `one of ${d.values.join(', ')}`;
  return `${d.type === 'integer' ? 'a whole number' : 'a number'} from ${d.min} to ${d.max}`;
}

export class SemanticApi {
  readonly moves: SemanticMove[];
  private readonly byName: Map<string, { move: SemanticMove; def: SemanticActionDef }>;

  constructor(
    private readonly section: SemanticSection,
    private readonly exprs: Map<string, NumberExpr>,
  ) {
    this.byName = new Map();
    this.moves = Object.entries(section.actions).map(([name, def]) => {
      const params = Object.entries(def.params ?? {}).map(([n, d]) => ({ name: n, def: d }));
      const move: SemanticMove = { name, description: def.description, params, example: exampleArgs(def, params) };
      this.byName.set(name, { move, def });
      return move;
    });
  }

  /** The action list the model reads: each call with its parameters and one example. */
  describe(): string {
    return this.moves
      .map((m) => {
        const sig = m.params.length ? `${m.name}(${m.params.map((p) => p.name).join(', ')})` : m.name;
        const lines = [`- ${sig}: ${m.description}`];
        for (const p of m.params)
          lines.push(
            `  - ${p.name}: ${describeParam(p.def)}${p.def.description ? ` — ${p.def.description}` : ''}${p.def.default !== undefined ? ` (default ${p.def.default})` : ''}`,
          );
        lines.push(`  Example: ${JSON.stringify(this.wire(m.name, m.example))}`);
        return lines.join('\n');
      })
      .join('\n');
  }

  /** The answer-format example: the first move's example call. */
  exampleWire(): string {
    const m = this.moves[0]!;
    return JSON.stringify(this.wire(m.name, m.example));
  }

  private wire(name: string, args: Args): Record<string, Value> {
    return { action: name, ...args };
  }

  /**
   * Parses one call: `shoot(angle=35, power=0.9)`, `shoot(35, 0.9)` (in declared order),
   * `wait` or `wait()`. The answer parser turns `{"action": "shoot", "angle": 35}` into this form.
   */
  parse(text: string): CallResult {
    const m = /^\s*([A-Za-z_][\w]*)\s*(?:\(([\s\S]*)\))?\s*$/.exec(text);
    if (!m) return { ok: false, error: `"${text.slice(0, 80)}" is not a call like name(param=value, …)` };
    const name = m[1]!.toLowerCase();
    const entry = this.byName.get(name);
    if (!entry)
      return {
        ok: false,
        error: `unknown action "${m[1]}"; the actions are ${this.moves.map((x) => x.name).join(', ')}`,
      };
    const { move } = entry;
    const raw = splitArgs(m[2] ?? '');
    if (raw === undefined) return { ok: false, error: `${name}: the arguments are not balanced` };
    const given: Record<string, string> = {};
    let positional = 0;
    for (const part of raw) {
      const kv = /^\s*([A-Za-z_]\w*)\s*[=:]\s*([\s\S]+)$/.exec(part);
      if (kv) {
        const key = kv[1]!.toLowerCase();
        if (!move.params.some((p) => p.name === key))
          return { ok: false, error: `${name} has no parameter "${kv[1]}"${paramList(move)}` };
        given[key] = kv[2]!.trim();
      } else {
        const p = move.params[positional++];
        if (!p) return { ok: false, error: `${name} takes ${move.params.length} argument(s), got more` };
        given[p.name] = part.trim();
      }
    }
    const args: Args = {};
    for (const p of move.params) {
      const text = given[p.name];
      if (text === undefined) {
        if (p.def.default !== undefined) {
          args[p.name] = p.def.default;
          continue;
        }
        return { ok: false, error: `${name} needs ${p.name} (${describeParam(p.def)})` };
      }
      const v = readValue(text, p.def);
      if (!v.ok) return { ok: false, error: `${name}: ${p.name} ${v.error}` };
      args[p.name] = v.value;
    }
    return {
      ok: true,
      name,
      args,
      move: callText(
        name,
        args,
        move.params.map((p) => p.name),
      ),
    };
  }

  /** The GUI actions a call becomes in a window of this size (pixels from its client area's top left). */
  expand(call: string, window: { width: number; height: number }): ExpansionResult {
    const parsed = this.parse(call);
    if (!parsed.ok) return parsed;
    const { def, move } = this.byName.get(parsed.name)!;
    const scope: Record<string, number> = {};
    for (const p of move.params)
      if (typeof parsed.args[p.name] === 'number') scope[p.name] = parsed.args[p.name] as number;
    const out: GuiAction[] = [];
    try {
      def.do.forEach((step, i) => {
        const at = `${parsed.name}, step ${i + 1}`;
        const times = step.repeat === undefined ? 1 : this.num(step.repeat, scope);
        if (!Number.isInteger(times) || times < 1 || times > 50)
          throw new Error(`${at}: repeat is ${times}; it must be a whole number from 1 to 50`);
        const action = this.stepAction(step, scope, parsed.args, window, at);
        for (let k = 0; k < times; k++) out.push(action);
        if (out.length > MAX_EXPANSION) throw new Error(`${parsed.name} becomes more than ${MAX_EXPANSION} actions`);
      });
    } catch (err) {
      return { ok: false, error: (err as Error).message };
    }
    return { ok: true, actions: out };
  }

  /** A uniformly random well-formed call (the random baseline in the semantic space). */
  randomCall(rng: () => number): string {
    const m = this.moves[Math.floor(rng() * this.moves.length)]!;
    const args: Args = {};
    for (const p of m.params) {
      const d = p.def;
      if (d.type === 'choice') args[p.name] = d.values[Math.floor(rng() * d.values.length)]!;
      else if (d.type === 'integer') args[p.name] = d.min + Math.floor(rng() * (d.max - d.min + 1));
      else args[p.name] = Math.round((d.min + rng() * (d.max - d.min)) * 100) / 100;
    }
    return callText(
      m.name,
      args,
      m.params.map((p) => p.name),
    );
  }

  /** A literal, or the value of a compiled expression (every one was compiled at load). */
  private num(v: number | string, scope: Record<string, number>): number {
    return typeof v === 'number' ? v : (this.exprs.get(v)?.evaluate(scope) ?? Number.NaN);
  }

  private stepAction(
    step: SemanticActionDef['do'][number],
    scope: Record<string, number>,
    args: Args,
    window: { width: number; height: number },
    at: string,
  ): GuiAction {
    const verb = STEP_VERBS.find((v) => step[v] !== undefined)!;
    const px = (p: PointInput) => {
      const f = this.point(p, scope, window, at);
      if (!(f.x >= -1e-9 && f.x <= 1 + 1e-9 && f.y >= -1e-9 && f.y <= 1 + 1e-9))
        throw new Error(`${at}: the point (${round3(f.x)}, ${round3(f.y)}) lies outside the window (0–1)`);
      return {
        x: Math.min(window.width - 1, Math.round(f.x * window.width)),
        y: Math.min(window.height - 1, Math.round(f.y * window.height)),
      };
    };
    const seconds = (v: number | string | undefined, what: string) => {
      if (v === undefined) return undefined;
      const s = this.num(v, scope);
      if (!(s >= 0 && s <= 60)) throw new Error(`${at}: ${what} is ${round3(s)} s; it must be 0–60 s`);
      return Math.round(s * 1000) / 1000;
    };
    const key = (k: string) => {
      const name = k.startsWith('$') ? String(args[k.slice(1)]) : k;
      if (!resolveKeyName(name)) throw new Error(`${at}: "${name}" is not a key name`);
      return name;
    };
    const dur = seconds(step.seconds, 'seconds');
    const withDur = dur !== undefined ? { duration: dur } : {};
    const a = ((): { type: GuiAction['type']; params: Record<string, unknown> } => {
      switch (verb as StepVerb) {
        case 'click':
          return { type: 'CLICK', params: { ...px(step.click!), ...(step.button ? { button: step.button } : {}) } };
        case 'doubleClick':
          return { type: 'DOUBLE_CLICK', params: px(step.doubleClick!) };
        case 'rightClick':
          return { type: 'RIGHT_CLICK', params: px(step.rightClick!) };
        case 'move':
          return { type: 'MOVE_TO', params: { ...px(step.move!), ...withDur } };
        case 'dragTo':
          return { type: 'DRAG_TO', params: { ...px(step.dragTo!), ...withDur } };
        case 'mouseDown':
          return { type: 'MOUSE_DOWN', params: { button: step.mouseDown } };
        case 'mouseUp':
          return { type: 'MOUSE_UP', params: { button: step.mouseUp } };
        case 'press':
          return { type: 'PRESS', params: { key: key(step.press!), ...withDur } };
        case 'keyDown':
          return { type: 'KEY_DOWN', params: { key: key(step.keyDown!) } };
        case 'keyUp':
          return { type: 'KEY_UP', params: { key: key(step.keyUp!) } };
        case 'hotkey':
          return { type: 'HOTKEY', params: { keys: step.hotkey!.map(key) } };
        case 'type': {
          const t = step.type!;
          return { type: 'TYPING', params: { text: t.startsWith('$') ? String(args[t.slice(1)]) : t } };
        }
        case 'scroll': {
          const dx = this.num(step.scroll!.dx, scope);
          const dy = this.num(step.scroll!.dy, scope);
          for (const [n, v] of [
            ['dx', dx],
            ['dy', dy],
          ] as const)
            if (!Number.isInteger(v) || Math.abs(v) > 50)
              throw new Error(`${at}: scroll ${n} is ${round3(v)}; it must be a whole number from -50 to 50`);
          return { type: 'SCROLL', params: { dx, dy } };
        }
        case 'wait':
          return { type: 'WAIT', params: { duration: seconds(step.wait!, 'wait')! } };
      }
    })();
    const checked = guiActionSchemas[a.type].safeParse(a.params);
    if (!checked.success) throw new Error(`${at}: ${a.type} ${checked.error.issues[0]!.message}`);
    return { kind: 'gui', type: a.type, params: checked.data } as GuiAction;
  }

  /** A point in window fractions. */
  private point(
    p: PointInput,
    scope: Record<string, number>,
    window: { width: number; height: number },
    at: string,
  ): FracPoint {
    const s = this.section;
    if (typeof p === 'string') {
      const pt = s.points?.[p];
      if (pt) return pt;
      const r = this.region(p);
      return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
    }
    if (p.grid !== undefined) {
      const g = s.grids![p.grid]!;
      const r = typeof g.region === 'string' ? s.regions![g.region]! : g.region;
      const row = this.num(p.row!, scope);
      const column = this.num(p.column!, scope);
      if (!Number.isInteger(row) || row < 1 || row > g.rows)
        throw new Error(`${at}: row ${round3(row)} is outside the grid "${p.grid}" (rows 1–${g.rows})`);
      if (!Number.isInteger(column) || column < 1 || column > g.columns)
        throw new Error(`${at}: column ${round3(column)} is outside the grid "${p.grid}" (columns 1–${g.columns})`);
      return {
        x: r.x + ((column - 0.5) * r.width) / g.columns,
        y: r.y + ((row - 0.5) * r.height) / g.rows,
      };
    }
    if (p.from !== undefined) {
      const o = this.point(p.from, scope, window, at);
      if (p.angle !== undefined) {
        const rad = (this.num(p.angle, scope) * Math.PI) / 180;
        const d = this.num(p.distance!, scope);
        // distance is in window widths; y is scaled so the angle holds on a non-square window.
        return { x: o.x + d * Math.cos(rad), y: o.y - (d * Math.sin(rad) * window.width) / window.height };
      }
      return { x: o.x + this.num(p.dx!, scope), y: o.y + this.num(p.dy!, scope) };
    }
    const x = this.num(p.x!, scope);
    const y = this.num(p.y!, scope);
    if (p.in === undefined) return { x, y };
    const r = this.region(p.in);
    return { x: r.x + x * r.width, y: r.y + y * r.height };
  }

  private region(n: string): Frac {
    const s = this.section;
    const r = s.regions?.[n];
    if (r) return r;
    const g = s.grids![n]!;
    return typeof g.region === 'string' ? s.regions![g.region]! : g.region;
  }
}

function round3(n: number) {
  return Math.round(n * 1000) / 1000;
}

function paramList(m: SemanticMove) {
  return m.params.length ? ` (its parameters: ${m.params.map((p) => p.name).join(', ')})` : ' (it takes none)';
}

function exampleArgs(def: SemanticActionDef, params: SemanticParam[]): Args {
  const args: Args = {};
  for (const p of params) {
    const given = def.example?.[p.name];
    if (given !== undefined) args[p.name] = given;
    else if (p.def.default !== undefined) args[p.name] = p.def.default;
    else args[p.name] = p.def.type === 'choice' ? p.def.values[0]! : p.def.min;
  }
  return args;
}

/** Top-level commas split arguments; quotes and brackets keep theirs. */
function splitArgs(text: string): string[] | undefined {
  const out: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let cur = '';
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '(' || ch === '[') depth++;
    else if (ch === ')' || ch === ']') depth--;
    else if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
      continue;
    }
    if (depth < 0) return undefined;
    cur += ch;
  }
  if (depth !== 0 || quote) return undefined;
  if (cur.trim() || out.length) out.push(cur);
  return out.filter((p, i) => p.trim() || i < out.length - 1);
}

function readValue(text: string, d: ParamDef): { ok: true; value: Value } | { ok: false; error: string } {
  let t = text.trim();
  if (/^(["']).*\1$/s.test(t)) t = t.slice(1, -1).trim();
  if (d.type === 'choice') {
    const hit = d.values.find((v) => v.toLowerCase() === t.toLowerCase());
    return hit !== undefined
      ? { ok: true, value: hit }
      : { ok: false, error: `is "${t}"; it must be ${describeParam(d)}` };
  }
  const n = Number(t);
  if (t === '' || !Number.isFinite(n)) return { ok: false, error: `is "${t}"; it must be ${describeParam(d)}` };
  if (d.type === 'integer' && !Number.isInteger(n))
    return { ok: false, error: `is ${n}; it must be ${describeParam(d)}` };
  if (n < d.min || n > d.max) return { ok: false, error: `is ${n}; it must be ${describeParam(d)}` };
  return { ok: true, value: n };
}

/**
 * Checks a section against itself and the profile's keys, and compiles it. Every problem is
 * an issue with its path inside the section, so the profile's error names the field.
 */
export function compileSemanticSection(
  section: SemanticSection,
  allowedKeys?: readonly string[],
): { api?: SemanticApi; issues: SemanticIssue[] } {
  const issues: SemanticIssue[] = [];
  const exprs = new Map<string, NumberExpr>();
  const named = new Set([
    ...Object.keys(section.points ?? {}),
    ...Object.keys(section.regions ?? {}),
    ...Object.keys(section.grids ?? {}),
  ]);
  for (const [g, def] of Object.entries(section.grids ?? {}))
    if (typeof def.region === 'string' && !section.regions?.[def.region])
      issues.push({ path: ['grids', g, 'region'], message: `names no region "${def.region}"` });
  const allowed = allowedKeys ? new Set(allowedKeys.map((k) => resolveKeyName(k) ?? k)) : undefined;

  for (const [name, def] of Object.entries(section.actions)) {
    const base: Path = ['actions', name];
    const params = def.params ?? {};
    const numeric = new Set(
      Object.entries(params)
        .filter(([, p]) => p.type !== 'choice')
        .map(([n]) => n),
    );
    for (const [pn, p] of Object.entries(params)) {
      if (p.type !== 'choice' && p.min > p.max)
        issues.push({ path: [...base, 'params', pn], message: `min ${p.min} is above max ${p.max}` });
      if (p.default !== undefined) {
        const v = readValue(String(p.default), p);
        if (!v.ok) issues.push({ path: [...base, 'params', pn, 'default'], message: v.error });
      }
    }
    for (const [en, ev] of Object.entries(def.example ?? {})) {
      const p = params[en];
      if (!p) issues.push({ path: [...base, 'example', en], message: `${name} has no parameter "${en}"` });
      else {
        const v = readValue(String(ev), p);
        if (!v.ok) issues.push({ path: [...base, 'example', en], message: v.error });
      }
    }
    const expr = (v: number | string | undefined, path: Path) => {
      if (v === undefined || typeof v === 'number' || exprs.has(v)) {
        if (typeof v === 'string') checkParams(exprs.get(v)!, path);
        return;
      }
      try {
        const e = compileExpr(v);
        exprs.set(v, e);
        checkParams(e, path);
      } catch (err) {
        issues.push({ path, message: `"${v}" ${(err as Error).message}` });
      }
    };
    const checkParams = (e: NumberExpr, path: Path) => {
      for (const p of e.params)
        if (!numeric.has(p))
          issues.push({
            path,
            message: `"${e.text}" uses ${p}, which is not a number parameter of ${name}${numeric.size ? ` (${[...numeric].join(', ')})` : ''}`,
          });
    };
    const point = (p: PointInput, path: Path): void => {
      if (typeof p === 'string') {
        if (!named.has(p)) issues.push({ path, message: `names no point, region or grid "${p}"` });
        return;
      }
      if (p.grid !== undefined && !section.grids?.[p.grid])
        issues.push({ path: [...path, 'grid'], message: `names no grid "${p.grid}"` });
      if (p.in !== undefined && !section.regions?.[p.in] && !section.grids?.[p.in])
        issues.push({ path: [...path, 'in'], message: `names no region "${p.in}"` });
      if (p.from !== undefined) point(p.from, [...path, 'from']);
      for (const k of ['x', 'y', 'row', 'column', 'angle', 'distance', 'dx', 'dy'] as const) expr(p[k], [...path, k]);
    };
    const keyRef = (k: string, path: Path) => {
      const names: string[] = [];
      if (k.startsWith('$')) {
        const p = params[k.slice(1)];
        if (!p) {
          issues.push({ path, message: `${k} names no parameter of ${name}` });
          return;
        }
        if (p.type === 'choice') names.push(...p.values);
        else if (p.type === 'integer' && p.max - p.min <= 100)
          for (let i = p.min; i <= p.max; i++) names.push(String(i));
        else {
          issues.push({ path, message: `${k} must be a choice or a small whole-number parameter to name keys` });
          return;
        }
      } else names.push(k);
      for (const n of names) {
        const resolved = resolveKeyName(n);
        if (!resolved) issues.push({ path, message: `"${n}" is not a key name (e.g. up, w, space, enter, f5)` });
        else if (allowed && !allowed.has(resolved))
          issues.push({ path, message: `"${n}" is not among the profile's actions.allowedKeys` });
      }
    };
    def.do.forEach((step, i) => {
      const path: Path = [...base, 'do', i];
      for (const v of ['click', 'doubleClick', 'rightClick', 'move', 'dragTo'] as const) {
        const p = step[v];
        if (p !== undefined) point(p, [...path, v]);
      }
      for (const v of ['press', 'keyDown', 'keyUp'] as const) {
        const k = step[v];
        if (k !== undefined) keyRef(k, [...path, v]);
      }
      for (const [j, k] of (step.hotkey ?? []).entries()) keyRef(k, [...path, 'hotkey', j]);
      if (step.type?.startsWith('$') && !params[step.type.slice(1)])
        issues.push({ path: [...path, 'type'], message: `${step.type} names no parameter of ${name}` });
      expr(step.wait, [...path, 'wait']);
      expr(step.seconds, [...path, 'seconds']);
      expr(step.repeat, [...path, 'repeat']);
      if (step.scroll) {
        expr(step.scroll.dx, [...path, 'scroll', 'dx']);
        expr(step.scroll.dy, [...path, 'scroll', 'dy']);
      }
    });
  }
  if (issues.length) return { issues };
  return { api: new SemanticApi(section, exprs), issues };
}
