/**
 * A user's profile made from the shipped sgt-fifteen one, as the e2e tests on that real window
 * need it: another id, and its own scoring block (and taxonomy, when asked).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './cli.ts';

export function writeFifteenProfile(
  file: string,
  o: { id: string; scoring: string[]; category?: string; tier?: string },
): void {
  let text = readFileSync(path.join(ROOT, 'games', 'sgt-fifteen', 'profile.yaml'), 'utf8').replace(
    'id: sgt-fifteen',
    `id: ${o.id}`,
  );
  if (o.category) text = text.replace('category: markov-grid', `category: ${o.category}`);
  if (o.tier) text = text.replace('tier: medium', `tier: ${o.tier}`);
  const scoring = ['scoring:', ...o.scoring.map((l) => `  ${l}`), ''].join('\n');
  writeFileSync(file, text.replace(/scoring:\n( {2}.*\n)+/, scoring));
}
