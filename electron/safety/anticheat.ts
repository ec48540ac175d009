/**
 * Anti-cheat guard. Kernel and user-mode anti-cheat systems watch for injected input and for
 * programs that read a game's screen; an account caught that way may be banned, whatever the
 * program meant. Before Gamepilot injects input into a window it looks for the known systems'
 * services and processes (a service runs as a process of the same image name) and refuses, naming
 * the system and what is at stake, unless the person accepted the risk (--accept-anticheat-risk,
 * or the box in New run). A profile can name the system its title ships (`antiCheat`): the run
 * then needs the same acceptance even when no process of it is seen yet (some start with the game).
 *
 * The list is the processes and services each vendor documents or ships; Proton runs them under
 * Wine on Linux, where /proc shows their image names cut to 15 characters, so names match by
 * their start.
 */
import { CodedError } from '../domain.ts';
import { listProcesses, type ProcInfo } from '../../native/process.ts';

export interface AntiCheatSystem {
  name: string;
  /** Image names of its processes and services, without .exe, lower case. */
  images: string[];
}

export const ANTI_CHEAT_SYSTEMS: readonly AntiCheatSystem[] = [
  { name: 'Easy Anti-Cheat', images: ['easyanticheat', 'easyanticheat_eos', 'easyanticheat_setup', 'eaclauncher'] },
  { name: 'BattlEye', images: ['beservice', 'beservice_x64', 'bedaisy'] },
  { name: 'Riot Vanguard', images: ['vgc', 'vgtray', 'vgk'] },
  { name: 'nProtect GameGuard', images: ['gamemon', 'gamemon64', 'gameguard', 'npggsvc'] },
  { name: 'FACEIT Anti-Cheat', images: ['faceit', 'faceitservice', 'faceitclient'] },
  { name: 'ESEA Client', images: ['eseaclient', 'esea'] },
  { name: 'EA Javelin Anti-Cheat', images: ['eaanticheat.gameservice', 'eaanticheat.installer'] },
  { name: 'PunkBuster', images: ['pnkbstra', 'pnkbstrb'] },
  { name: 'XIGNCODE3', images: ['xigncode', 'xhunter1', 'xxd-0.xem'] },
  { name: 'mhyprot (HoYoverse)', images: ['mhyprot2', 'mhyprot3'] },
];

/** What is at stake, said with every refusal. */
export const ANTI_CHEAT_STAKE =
  'Anti-cheat systems treat injected input and screen reading as cheating, and may ban the account that plays (often for good, and for every game the system protects)';

/** /proc cuts a process name to 15 characters. */
const COMM_LENGTH = 15;

/** Whether a process of this name is that image: the same name with or without .exe, or its start where /proc cut it. */
function isImage(processName: string, image: string): boolean {
  const n = processName.toLowerCase();
  if (n.replace(/\.exe$/, '') === image) return true;
  return processName.length === COMM_LENGTH && `${image}.exe`.startsWith(n);
}

/** The anti-cheat systems with a process running now, each with the process it was seen by. */
export function runningAntiCheats(procs: readonly ProcInfo[] = listProcesses()): { system: string; process: string }[] {
  const found: { system: string; process: string }[] = [];
  for (const s of ANTI_CHEAT_SYSTEMS) {
    const p = procs.find((x) => s.images.some((i) => isImage(x.name, i)));
    if (p) found.push({ system: s.name, process: p.name });
  }
  return found;
}

/** What the guard found, for run.json: the systems, and whether the person accepted the risk. */
export interface AntiCheatCheck {
  systems: string[];
  accepted: boolean;
}

/**
 * Before input goes to a window: refuses (a CodedError naming the systems and the stake) when an
 * anti-cheat system runs or the title's profile names one, unless `accepted`. Returns what was
 * found (nothing found: `systems` empty). A listing that fails refuses too, unless accepted:
 * not knowing is not safe.
 */
export function guardAntiCheat(o: {
  accepted: boolean;
  profileAntiCheat?: string | undefined;
  procs?: () => readonly ProcInfo[];
}): AntiCheatCheck {
  let running: { system: string; process: string }[];
  try {
    running = runningAntiCheats(o.procs ? o.procs() : undefined);
  } catch (err) {
    if (o.accepted) return { systems: [], accepted: true };
    throw new CodedError(
      'bad-input',
      `cannot tell whether an anti-cheat system runs here (${(err as Error).message}). ${ANTI_CHEAT_STAKE}. If you accept that risk for this account, pass --accept-anticheat-risk`,
    );
  }
  const seen = running.map((r) => `${r.system} runs here (process ${r.process})`);
  if (o.profileAntiCheat && !running.some((r) => r.system === o.profileAntiCheat))
    seen.push(`the title's profile says it ships ${o.profileAntiCheat}`);
  const systems = [...new Set([...running.map((r) => r.system), ...(o.profileAntiCheat ? [o.profileAntiCheat] : [])])];
  if (!systems.length || o.accepted) return { systems, accepted: o.accepted };
  throw new CodedError(
    'bad-input',
    `refusing to send input: ${seen.join('; ')}. ${ANTI_CHEAT_STAKE}. If you accept that risk for this account, pass --accept-anticheat-risk (or tick "I accept the anti-cheat risk" in New run)`,
  );
}
