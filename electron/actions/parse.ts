/**
 * Parses a model answer in the house format (`### Reasoning` then `### Actions` with JSON)
 * into validated actions. Tolerant of prose, code fences, casing and JSON syntax slips
 * (json-extract.ts); strict about what an action is. A failure carries a reason meant to be shown to people and to the model.
 */
import { guiActionSchemas, isGuiActionType, type Action, type GuiAction } from './schema.ts';
import { findJsonSpan, parseJsonLenient } from './json-extract.ts';
import { resolveKeyName } from './keys.ts';
import type { ActionSpace } from '../domain.ts';

/** A game's semantic move checker: canonical move, or a reason it is not a move. */
export type SemanticMoveParser = (move: string) => { ok: true; move: string } | { ok: false; error: string };

export interface ParseOptions {
  actionSpace: ActionSpace;
  parseMove?: SemanticMoveParser;
  maxActions?: number;
}

export type ParsedDecision =
  | { ok: true; reasoning: string; actions: Action[] }
  | { ok: false; reasoning: string; error: string };

const SECTION = /^\s*(?:#{1,6}\s*|\*\*)?\s*(reasoning|actions?)\s*(?:\*\*)?\s*:?\s*(?:\*\*)?\s*$/gim;

function splitSections(raw: string): { reasoning?: string; actions?: string } {
  const marks: { name: string; start: number; bodyStart: number }[] = [];
  for (const m of raw.matchAll(SECTION)) {
    marks.push({
      name: m[1]!.toLowerCase().startsWith('action') ? 'actions' : 'reasoning',
      start: m.index!,
      bodyStart: m.index! + m[0].length,
    });
  }
  const out: { reasoning?: string; actions?: string } = {};
  marks.forEach((m, i) => {
    const end = i + 1 < marks.length ? marks[i + 1]!.start : raw.length;
    const body = raw.slice(m.bodyStart, end).trim();
    if (m.name === 'reasoning' && out.reasoning === undefined) out.reasoning = body;
    if (m.name === 'actions' && out.actions === undefined) out.actions = body;
  });
  // Inline form: "Actions: [ ... ]" on one line.
  if (out.actions === undefined) {
    const inline = /(?:^|\n)\s*(?:#{1,6}\s*)?actions?\s*:\s*(?=[[{])/i.exec(raw);
    if (inline) out.actions = raw.slice(inline.index + inline[0].length);
  }
  return out;
}

function listOf(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (value && typeof value === 'object' && Array.isArray((value as { actions?: unknown }).actions)) {
    return (value as { actions: unknown[] }).actions;
  }
  return [value];
}

function parseGuiItem(item: unknown, index: number): { ok: true; action: GuiAction } | { ok: false; error: string } {
  const where = `action ${index + 1}`;
  if (!item || typeof item !== 'object' || Array.isArray(item))
    return { ok: false, error: `${where}: expected an object with "action_type"` };
  const obj = item as Record<string, unknown>;
  const typeRaw = obj.action_type ?? obj.type ?? obj.action;
  if (typeof typeRaw !== 'string') return { ok: false, error: `${where}: missing "action_type"` };
  const type = typeRaw.trim().toUpperCase();
  if (!isGuiActionType(type)) return { ok: false, error: `${where}: unknown action type "${typeRaw}"` };
  let params: unknown = obj.parameters ?? obj.params;
  if (params === undefined) {
    const { action_type: _a, type: _t, action: _b, ...rest } = obj;
    params = rest;
  }
  if (params === null) params = {};
  const result = guiActionSchemas[type].safeParse(params);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    return { ok: false, error: `${where} ${type}: ${issue.path.join('.') || 'parameters'} ${issue.message}` };
  }
  const p = result.data as Record<string, unknown>;
  const keys: string[] = [];
  if (typeof p.key === 'string') keys.push(p.key);
  if (Array.isArray(p.keys)) keys.push(...(p.keys as string[]));
  for (const k of keys) {
    if (!resolveKeyName(k)) return { ok: false, error: `${where} ${type}: unknown key name "${k}"` };
  }
  if ((p.x === undefined) !== (p.y === undefined))
    return { ok: false, error: `${where} ${type}: give both x and y, or neither` };
  return { ok: true, action: { kind: 'gui', type, params: p } as GuiAction };
}

function parseSemanticItem(
  item: unknown,
  index: number,
  parseMove: SemanticMoveParser,
): { ok: true; action: Action } | { ok: false; error: string } {
  const where = `action ${index + 1}`;
  const move =
    item && typeof item === 'object' && !Array.isArray(item) ? callOf(item as Record<string, unknown>) : item;
  if (typeof move !== 'string' || !move.trim()) return { ok: false, error: `${where}: expected a move string` };
  const upper = move.trim().toUpperCase();
  if (upper === 'DONE' || upper === 'FAIL') return { ok: true, action: { kind: 'gui', type: upper, params: {} } };
  const r = parseMove(move.trim());
  return r.ok ? { ok: true, action: { kind: 'semantic', move: r.move } } : { ok: false, error: `${where}: ${r.error}` };
}

/**
 * A move written as an object: `{"action": "B2"}`, or a call with its arguments beside the name
 * (`{"action": "shoot", "angle": 35}`) or under `parameters` — as the call text `shoot(angle=35)`.
 */
function callOf(obj: Record<string, unknown>): unknown {
  const name = obj.action ?? obj.move ?? obj.action_type;
  if (typeof name !== 'string') return name;
  const { action: _a, move: _m, action_type: _t, parameters, params, ...rest } = obj;
  const args = (parameters ?? params ?? rest) as unknown;
  if (!args || typeof args !== 'object' || Array.isArray(args) || !Object.keys(args).length) return name;
  const list = Object.entries(args as Record<string, unknown>).map(
    ([k, v]) => `${k}=${typeof v === 'string' ? JSON.stringify(v) : String(v)}`,
  );
  return `${name.trim()}(${list.join(', ')})`;
}

/** Bare moves, one a line or separated by `;` or `,` — commas inside a call's brackets stay. */
function splitBare(body: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of body) {
    if (ch === '(') depth++;
    if (ch === ')') depth = Math.max(0, depth - 1);
    if ((ch === '\n' || ch === ';' || ch === ',') && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out.map((m) => m.trim()).filter(Boolean);
}

export function parseModelOutput(raw: string, opts: ParseOptions): ParsedDecision {
  const maxActions = opts.maxActions ?? 20;
  if (!raw?.trim()) return { ok: false, reasoning: '', error: 'empty answer' };
  const sections = splitSections(raw);
  const reasoning = sections.reasoning ?? '';
  const fail = (error: string): ParsedDecision => ({ ok: false, reasoning, error });
  if (sections.actions === undefined) return fail('no "### Actions" section found');
  const body = sections.actions.replace(/```[a-z]*\s*/gi, '').replace(/```/g, '');
  const span = findJsonSpan(body);
  if (!span) {
    // Semantic moves may be written bare: "### Actions\nB2".
    const bare = splitBare(body);
    if (opts.actionSpace === 'semantic' && opts.parseMove && bare.length > 0 && bare.length <= maxActions) {
      return collect(bare, opts, reasoning, maxActions);
    }
    return fail('the Actions section has no JSON array or object');
  }
  const json = parseJsonLenient(span);
  if (!json.ok) return fail(`Actions: ${json.error}`);
  return collect(listOf(json.value), opts, reasoning, maxActions);
}

/** Actions given as a list already (a tool call's arguments): checked as strictly as a model's. */
export function parseActionItems(items: unknown[], opts: ParseOptions): ParsedDecision {
  return collect(items, opts, '', opts.maxActions ?? 20);
}

function collect(items: unknown[], opts: ParseOptions, reasoning: string, maxActions: number): ParsedDecision {
  if (items.length === 0) return { ok: false, reasoning, error: 'the Actions list is empty' };
  if (items.length > maxActions)
    return { ok: false, reasoning, error: `too many actions (${items.length} > ${maxActions})` };
  const actions: Action[] = [];
  for (const [i, item] of items.entries()) {
    const r =
      opts.actionSpace === 'gui'
        ? parseGuiItem(item, i)
        : parseSemanticItem(
            item,
            i,
            opts.parseMove ?? (() => ({ ok: false, error: 'this game has no semantic moves' })),
          );
    if (!r.ok) return { ok: false, reasoning, error: r.error };
    actions.push(r.action);
  }
  return { ok: true, reasoning, actions };
}
