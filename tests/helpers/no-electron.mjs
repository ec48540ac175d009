// `node --import ./tests/helpers/no-electron.mjs …`: a Node where the `electron` package cannot be imported.
import { register } from 'node:module';

register('./no-electron-hook.mjs', import.meta.url);
