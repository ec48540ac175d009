/**
 * Prompt templates live as text files in `prompts/` with {{named}} placeholders; this module
 * loads and fills them. A placeholder without a value is an error, not an empty string.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { resources } from '../util/resources.ts';

/** Where templates live (util/resources.ts: the app's prompts/, or GAMEPILOT_PROMPTS_DIR). */
export function promptsDir(): string {
  return resources().prompts;
}

const cache = new Map<string, string>();

export function loadTemplate(nameOrPath: string): string {
  const file =
    nameOrPath.includes('/') || nameOrPath.includes('\\') ? nameOrPath : path.join(promptsDir(), `${nameOrPath}.md`);
  let text = cache.get(file);
  if (text === undefined) {
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new Error(`cannot read prompt template ${file}: ${(err as Error).message}`);
    }
    cache.set(file, text);
  }
  return text;
}

export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    if (!(name in values)) throw new Error(`prompt placeholder {{${name}}} has no value`);
    return String(values[name]);
  });
}

export function render(name: string, values: Record<string, string | number> = {}): string {
  return fill(loadTemplate(name), values).trim();
}
