/** The profile format as JSON Schema, for editors (docs/profile.schema.json is this, written by scripts/profile-schema.ts). */
import { z } from 'zod';
import { ProfileSchema } from './profile-schema.ts';

export function profileJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(ProfileSchema, { io: 'input', unrepresentable: 'any' }),
    $id: 'https://gamepilot.local/profile.schema.json',
    title: 'Gamepilot game profile',
    description:
      'What Gamepilot knows about one title: window match, taxonomy, prompt parts, action limits, episode, latency and scoring. Checked by electron/profiles/profile-schema.ts; this file is generated from it.',
  };
}

/** The file's text: stable key order and a final newline, so a test can compare it byte for byte. */
export function profileJsonSchemaText(): string {
  return `${JSON.stringify(profileJsonSchema(), null, 2)}\n`;
}
