/** Writes docs/profile.schema.json from the zod schema (npm run profile-schema); a unit test keeps it current. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileAtomic } from '../electron/util/atomic-file.ts';
import { profileJsonSchemaText } from '../electron/profiles/json-schema.ts';

const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'profile.schema.json');
writeFileAtomic(file, profileJsonSchemaText());
console.log(file);
