/** Hostile inputs more than one test plants: a YAML alias bomb, a profile whose launch is no program. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';

/** Nine aliases of nine, five deep: 59 049 strings from 6 lines. */
export const YAML_ALIAS_BOMB = [
  'a: &a ["x","x","x","x","x","x","x","x","x"]',
  'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
  'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
  'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
  'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
].join('\n');

/** A user's profile `<profilesDir>/<id>.yaml` whose window never opens and whose `launch` is `launch`. */
export function writeLaunchProfile(profilesDir: string, id: string, launch: string[]): void {
  writeFileSync(
    path.join(profilesDir, `${id}.yaml`),
    [
      `id: ${id}`,
      `title: ${id}`,
      'match: {title: ^A Window That Never Opens$}',
      `launch: ${JSON.stringify(launch)}`,
      'category: markov-grid',
      'tier: easy',
      'prompt: {rules: r, controls: c}',
      'episode: {maxSteps: 2, trials: 1}',
      'scoring: {kind: none}',
      '',
    ].join('\n'),
  );
}
