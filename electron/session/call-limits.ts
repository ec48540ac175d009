/**
 * The limits every model call of a run works under, role by role, as the run would apply them:
 * the run's model flags for the client's roles (player, memory review, embeddings), each other
 * role's own defaults, GAMEPILOT_MODEL_LIMITS over both. `gamepilot run --dry-run` prints them,
 * so a person can see the longest any call may hold the run.
 */
import { CLIENT_ROLES, clientLimits } from '../agents/model-client.ts';
import { roleLimits, worstCaseMs, type CallLimits, type ModelRole } from '../agents/model-endpoint.ts';
import type { RunSpec } from '../run-spec.ts';
import { vlmSettingsOf } from './compose.ts';

/** The roles a `gamepilot run` may call (IDC's and milestone extraction's are other commands'). */
const RUN_ROLES = [
  'player',
  'memory-review',
  'embeddings',
  'reflector',
  'screen-reader',
  'milestone-judge',
] as const satisfies readonly ModelRole[];

export interface RoleLimitsRow {
  role: ModelRole;
  limits: CallLimits;
  /** Every attempt to its time limit, every wait before a retry to its longest. */
  worstCaseMs: number;
  /** Where the limits come from besides GAMEPILOT_MODEL_LIMITS. */
  from: 'run flags' | 'role defaults';
}

export function runCallLimits(spec: RunSpec): RoleLimitsRow[] {
  const client = vlmSettingsOf(spec);
  return RUN_ROLES.map((role) => {
    const flags = (CLIENT_ROLES as readonly ModelRole[]).includes(role);
    const limits = roleLimits(role, flags ? clientLimits(client, role) : {});
    return { role, limits, worstCaseMs: worstCaseMs(limits), from: flags ? 'run flags' : 'role defaults' };
  });
}
