/**
 * OmniGameArena's tool-using reflector: it explores a round's recordings through a small
 * read-only tool surface (list, read text, read image, grep) plus its own notebook, deciding
 * itself what to read, and ends by committing a diagnosis. Paths never leave the round folder.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ChatResult, ModelCaller } from '../agents/model-endpoint.ts';
import { loadSharp } from '../util/sharp.ts';
import { textPattern, type TextPattern } from '../util/text-pattern.ts';

export const NOTEBOOK_CHARS = 2000;

const TOOLS: ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'list_files',
      description: 'List a folder of the round (path relative to the round folder; "." for its top).',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'read_text',
      description: 'Read a text file (run.json, steps.jsonl …) from a character offset.',
      parameters: {
        type: 'object',
        properties: { path: { type: 'string' }, offset: { type: 'integer' }, limit: { type: 'integer' } },
        required: ['path'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'read_image',
      description: 'Look at one frame (a .jpg/.png path).',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'grep',
      description: 'Lines matching a regular expression in the text files of a folder or one file.',
      parameters: {
        type: 'object',
        properties: { pattern: { type: 'string' }, path: { type: 'string' } },
        required: ['pattern'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'write_notebook',
      description: `Replace your private notebook (at most ${NOTEBOOK_CHARS} characters; kept across rounds, never shown to the player).`,
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'commit_diagnosis',
      description: 'Finish exploring and commit your diagnosis.',
      parameters: { type: 'object', properties: { diagnosis: { type: 'string' } }, required: ['diagnosis'] },
    },
  },
];

export interface ExploreResult {
  diagnosis: string;
  notebook: string;
  toolCalls: { name: string; args: unknown }[];
  tokens: { input: number; output: number };
}

export class NoToolCallingError extends Error {}

/** Resolves a model-given path inside `root`, refusing anything outside it. */
function inside(root: string, p: unknown): string {
  const rel = typeof p === 'string' ? p : '.';
  const abs = path.resolve(root, rel);
  if (abs !== root && !abs.startsWith(root + path.sep)) throw new Error(`${rel} is outside the round folder`);
  if (!existsSync(abs)) throw new Error(`${rel} does not exist`);
  return abs;
}

function textFiles(abs: string): string[] {
  if (statSync(abs).isFile()) return [abs];
  return readdirSync(abs, { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(abs, f))
    .filter((f) => /\.(json|jsonl|txt|md)$/.test(f) && statSync(f).isFile());
}

/** Explores `root` with the `idc-explorer` caller; a stop ends the call under way at once. */
export async function explore(
  caller: ModelCaller,
  root: string,
  system: string,
  notebook: string,
  maxTurns = 16,
  signal?: AbortSignal,
): Promise<ExploreResult> {
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: system },
    { role: 'user', content: 'Explore the round and commit your diagnosis.' },
  ];
  const out: ExploreResult = { diagnosis: '', notebook, toolCalls: [], tokens: { input: 0, output: 0 } };
  for (let turn = 0; turn < maxTurns; turn++) {
    let r: ChatResult;
    try {
      r = await caller.chat({ messages, tools: TOOLS }, signal ? { signal } : {});
    } catch (err) {
      const status = (err as { status?: number }).status;
      if (status === 400 || status === 404 || status === 422)
        throw new NoToolCallingError(`the model endpoint refused tool calling (HTTP ${status})`);
      throw err;
    }
    out.tokens.input += r.usage.input;
    out.tokens.output += r.usage.output;
    const msg = r.message;
    const calls = msg?.tool_calls ?? [];
    if (!calls.length) {
      if (turn === 0) throw new NoToolCallingError('the model answered without using any tool');
      out.diagnosis = (msg?.content ?? '').trim();
      return out;
    }
    messages.push({ role: 'assistant', content: msg?.content ?? null, tool_calls: calls });
    const images: string[] = [];
    for (const call of calls) {
      if (call.type !== 'function') continue;
      let args: Record<string, unknown> = {};
      try {
        args = JSON.parse(call.function.arguments || '{}') as Record<string, unknown>;
      } catch {
        /* answered below as an error */
      }
      out.toolCalls.push({ name: call.function.name, args });
      let result: string;
      try {
        switch (call.function.name) {
          case 'list_files': {
            const abs = inside(root, args.path);
            result =
              readdirSync(abs, { withFileTypes: true })
                .slice(0, 200)
                .map((d) => (d.isDirectory() ? `${d.name}/` : d.name))
                .join('\n') || '(empty)';
            break;
          }
          case 'read_text': {
            const text = readFileSync(inside(root, args.path), 'utf8');
            const offset = Math.max(0, Number(args.offset) || 0);
            const limit = Math.min(8000, Math.max(100, Number(args.limit) || 8000));
            result =
              text.slice(offset, offset + limit) +
              (text.length > offset + limit ? `\n… (${text.length - offset - limit} more characters)` : '');
            break;
          }
          case 'read_image': {
            const abs = inside(root, args.path);
            if (!/\.(jpe?g|png)$/i.test(abs)) throw new Error('not an image');
            const sharp = await loadSharp();
            const buf = await sharp(abs)
              .resize({ width: 768, height: 768, fit: 'inside', withoutEnlargement: true })
              .jpeg({ quality: 75 })
              .toBuffer();
            images.push(`data:image/jpeg;base64,${buf.toString('base64')}`);
            result = 'The image follows in the next message.';
            break;
          }
          case 'grep': {
            // The model's pattern: linear time whatever it is; a bad one is the tool's answer, not a crash.
            let re: TextPattern;
            try {
              re = textPattern(String(args.pattern ?? ''));
            } catch (err) {
              result = `grep: the pattern cannot be used: ${(err as Error).message}`;
              break;
            }
            const hits: string[] = [];
            for (const f of textFiles(inside(root, args.path ?? '.'))) {
              for (const line of readFileSync(f, 'utf8').split('\n')) {
                if (re.test(line)) hits.push(`${path.relative(root, f)}: ${line.slice(0, 300)}`);
                if (hits.length >= 50) break;
              }
            }
            result = hits.join('\n') || '(no match)';
            break;
          }
          case 'write_notebook':
            out.notebook = String(args.text ?? '').slice(0, NOTEBOOK_CHARS);
            result = `saved (${out.notebook.length} characters)`;
            break;
          case 'commit_diagnosis':
            out.diagnosis = String(args.diagnosis ?? '').trim();
            return out;
          default:
            result = `unknown tool ${call.function.name}`;
        }
      } catch (err) {
        result = `error: ${(err as Error).message}`;
      }
      messages.push({ role: 'tool', tool_call_id: call.id, content: result });
    }
    if (images.length)
      messages.push({
        role: 'user',
        content: images.map((url) => ({ type: 'image_url' as const, image_url: { url, detail: 'low' as const } })),
      });
  }
  out.diagnosis ||= 'The reflector did not commit a diagnosis within its turn budget.';
  return out;
}
