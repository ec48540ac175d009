/**
 * The arithmetic a profile's semantic actions may use in coordinates, waits and repeats
 * ("angle + 180", "0.5 + (card - (cards + 1) / 2) * 0.085", "target > 0 ? 0.7 : 0.5").
 * jsep parses; this module evaluates only numbers, the action's parameters, a few operators
 * and a few pure functions, so a profile cannot reach anything else.
 */
import jsep from 'jsep';

const FUNCTIONS: Record<string, (...a: number[]) => number> = {
  min: Math.min,
  max: Math.max,
  round: Math.round,
  floor: Math.floor,
  ceil: Math.ceil,
  abs: Math.abs,
  clamp: (v, lo, hi) => Math.min(Math.max(v, lo), hi),
};
const BINARY: Record<string, (a: number, b: number) => number> = {
  '+': (a, b) => a + b,
  '-': (a, b) => a - b,
  '*': (a, b) => a * b,
  '/': (a, b) => a / b,
  '%': (a, b) => a % b,
  '<': (a, b) => Number(a < b),
  '<=': (a, b) => Number(a <= b),
  '>': (a, b) => Number(a > b),
  '>=': (a, b) => Number(a >= b),
  '==': (a, b) => Number(a === b),
  '!=': (a, b) => Number(a !== b),
  '&&': (a, b) => Number(Boolean(a) && Boolean(b)),
  '||': (a, b) => Number(Boolean(a) || Boolean(b)),
};

/** A checked expression: the parameters it reads, and its value for given parameters. */
export interface NumberExpr {
  readonly text: string;
  readonly params: ReadonlySet<string>;
  evaluate(scope: Readonly<Record<string, number>>): number;
}

type Node = jsep.Expression;

/** Parses and checks an expression; throws an Error whose message says what is wrong, for the profile's error. */
export function compileExpr(text: string | number): NumberExpr {
  if (typeof text === 'number') return { text: String(text), params: new Set(), evaluate: () => text };
  if (text.length > 300) throw new Error('is longer than 300 characters');
  let ast: Node;
  try {
    ast = jsep(text);
  } catch (err) {
    throw new Error(`is not an expression: ${(err as Error).message}`);
  }
  const params = new Set<string>();
  check(ast, params);
  return { text, params, evaluate: (scope) => evaluate(ast, scope) };
}

function check(n: Node, params: Set<string>): void {
  switch (n.type) {
    case 'Literal':
      if (typeof n.value !== 'number') throw new Error(`uses ${JSON.stringify(n.value)}: only numbers are allowed`);
      return;
    case 'Identifier':
      params.add(n.name as string);
      return;
    case 'UnaryExpression':
      if (n.operator !== '-' && n.operator !== '+' && n.operator !== '!')
        throw new Error(`uses the operator ${String(n.operator)}`);
      check(n.argument as Node, params);
      return;
    case 'BinaryExpression':
    case 'LogicalExpression':
      if (!Object.hasOwn(BINARY, n.operator as string)) throw new Error(`uses the operator ${String(n.operator)}`);
      check(n.left as Node, params);
      check(n.right as Node, params);
      return;
    case 'ConditionalExpression':
      check(n.test as Node, params);
      check(n.consequent as Node, params);
      check(n.alternate as Node, params);
      return;
    case 'CallExpression': {
      const callee = n.callee as Node;
      const name = callee.type === 'Identifier' ? (callee.name as string) : '';
      if (!Object.hasOwn(FUNCTIONS, name))
        throw new Error(`calls ${name || 'something'}: the functions are ${Object.keys(FUNCTIONS).join(', ')}`);
      for (const a of n.arguments as Node[]) check(a, params);
      return;
    }
    default:
      throw new Error(`uses a ${n.type}: only numbers, parameter names, + - * / %, comparisons, ?: and functions`);
  }
}

function evaluate(n: Node, scope: Readonly<Record<string, number>>): number {
  switch (n.type) {
    case 'Literal':
      return n.value as number;
    case 'Identifier': {
      const v = Object.hasOwn(scope, n.name as string) ? scope[n.name as string] : undefined;
      if (v === undefined) throw new Error(`${String(n.name)} has no value`);
      return v;
    }
    case 'UnaryExpression': {
      const v = evaluate(n.argument as Node, scope);
      return n.operator === '-' ? -v : n.operator === '!' ? Number(!v) : v;
    }
    case 'BinaryExpression':
    case 'LogicalExpression':
      return BINARY[n.operator as string]!(evaluate(n.left as Node, scope), evaluate(n.right as Node, scope));
    case 'ConditionalExpression':
      return evaluate(n.test as Node, scope)
        ? evaluate(n.consequent as Node, scope)
        : evaluate(n.alternate as Node, scope);
    case 'CallExpression':
      return FUNCTIONS[(n.callee as Node).name as string]!(...(n.arguments as Node[]).map((a) => evaluate(a, scope)));
    default:
      throw new Error(`cannot evaluate a ${n.type}`);
  }
}
