/**
 * A profile's reset steps as GUI actions, and what the profile's episode section may not say:
 * reset steps are compiled as one semantic move (so they may use the semantic section's named
 * points, regions and grids), then every action they become is held to the key policy — the
 * system combinations and Gamepilot's own hotkeys — at load, not when the run first resets.
 * The profile's `allowedKeys` bind the model, not the reset the person wrote.
 */
import type { GuiAction } from '../actions/schema.ts';
import { resolveKeyName } from '../actions/keys.ts';
import { KeyPolicy } from '../input/key-policy.ts';
import type { ResetSpec } from './episode-end-schema.ts';
import type { SemanticSection } from './semantic-schema.ts';
import { compileSemanticSection } from './semantic-api.ts';

/** The parts of a profile the reset needs (no import of profile-schema.ts: it imports this). */
interface ResetProfile {
  semantic?: SemanticSection | undefined;
  actions: { allowedHotkeys?: string[] | undefined };
  episode: { reset?: ResetSpec | undefined; startWithReset: boolean };
}

const MOVE = 'reset_game';
/** The window size the load-time check expands the steps at: fractions make any size the same. */
const CHECK_WINDOW = { width: 1000, height: 1000 };

type Issue = { path: (string | number)[]; message: string };

function compileReset(p: ResetProfile) {
  const steps = p.episode.reset?.do;
  if (!steps) return undefined;
  const section: SemanticSection = {
    ...(p.semantic?.points ? { points: p.semantic.points } : {}),
    ...(p.semantic?.regions ? { regions: p.semantic.regions } : {}),
    ...(p.semantic?.grids ? { grids: p.semantic.grids } : {}),
    actions: { [MOVE]: { description: 'starts the next game', do: steps } },
  };
  return compileSemanticSection(section);
}

/** The reset's GUI actions in a window of this size (pixels from its client area's top left). */
export function resetActions(
  p: ResetProfile,
  window: { width: number; height: number },
): { ok: true; actions: GuiAction[] } | { ok: false; error: string } {
  const compiled = compileReset(p);
  if (!compiled?.api) return { ok: false, error: 'the profile declares no reset steps' };
  return compiled.api.expand(MOVE, window);
}

/** Why the profile's episode section cannot be used, each with its path in the profile. */
export function episodeEndIssues(p: ResetProfile): Issue[] {
  const issues: Issue[] = [];
  const reset = p.episode.reset;
  if (p.episode.startWithReset && !reset)
    issues.push({ path: ['episode', 'startWithReset'], message: 'needs episode.reset: the steps that start a game' });
  const compiled = compileReset(p);
  if (!compiled) return issues;
  for (const issue of compiled.issues) {
    // The step's path inside the one move is its path inside reset.do.
    const at = issue.path.slice(2);
    issues.push({ path: ['episode', 'reset', ...at], message: issue.message });
  }
  if (!compiled.api) return issues;
  const expanded = compiled.api.expand(MOVE, CHECK_WINDOW);
  if (!expanded.ok) {
    issues.push({ path: ['episode', 'reset', 'do'], message: expanded.error });
    return issues;
  }
  let policy: KeyPolicy;
  try {
    policy = new KeyPolicy(p.actions.allowedHotkeys ?? []);
  } catch {
    return issues; // the allowedHotkeys field reports its own problem
  }
  const held: string[] = [];
  for (const a of expanded.actions) {
    const why = policy.refusalFor(a, held);
    if (why) {
      issues.push({ path: ['episode', 'reset', 'do'], message: `a reset step would be refused: ${why}` });
      break;
    }
    if (a.type === 'KEY_DOWN') held.push(resolveKeyName(a.params.key) ?? a.params.key);
  }
  return issues;
}
