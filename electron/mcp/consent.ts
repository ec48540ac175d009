/**
 * Which windows an MCP client may touch. Built-in games, and windows a profile fits, are what
 * Gamepilot is for: a client lists and starts them freely. Any other window is the person's —
 * mail, a browser, a document — and a client gets neither its title nor its keys unless the
 * person allows it: once, in the Live view's prompt, or by a pattern given to `gamepilot mcp
 * --windows REGEX`. Some windows are refused even then, naming the rule: a terminal or shell
 * (what is typed there runs as commands), a password manager, and Gamepilot's own windows.
 */
import { textPattern, type TextPattern } from '../util/text-pattern.ts';
import { CodedError, OWN_TITLE } from '../domain.ts';
import type { ConsentQuestionWire } from '../api/contract.ts';

/** Process names (without .exe, any case) an MCP client is never given, whatever the person allows. */
const NEVER: { rule: string; names: RegExp }[] = [
  {
    rule: 'a terminal: whatever is typed there runs as commands',
    names:
      /^(x-terminal-emulator|xterm|uxterm|lxterm|gnome-terminal(-server)?|konsole|xfce4-terminal|lxterminal|mate-terminal|terminator|tilix|alacritty|kitty|wezterm(-gui)?|foot|st|urxvt|rxvt|sakura|terminology|qterminal|guake|yakuake|eterm|cool-retro-term|terminal|iterm2?|windowsterminal|openconsole|conhost|mintty|wt)$/i,
  },
  {
    rule: 'a shell: whatever is typed there runs as commands',
    names: /^(bash|sh|dash|zsh|fish|ksh|tcsh|csh|nu|cmd|powershell|pwsh|powershell_ise)$/i,
  },
  {
    rule: 'a password manager',
    names:
      /^(keepassxc|keepass2?|keepassx|1password|bitwarden|seahorse|kwalletmanager5?|enpass|dashlane|lastpass|passwordsafe|gnome-passwords)$/i,
  },
];

/** A window as the rule judges it. */
export interface WindowFacts {
  id: string;
  title: string;
  /** The window's process name or executable (undefined: unknown). */
  process: string | undefined;
  /** The window belongs to this Gamepilot process or app. */
  own: boolean;
}

/** Why no MCP client may ever drive this window, or undefined. */
export function neverRule(w: WindowFacts): string | undefined {
  if (w.own || OWN_TITLE.test(w.title)) return "Gamepilot's own window: a built-in game is started by its game id";
  const name = w.process?.replace(/\.exe$/i, '');
  if (!name) return undefined;
  const hit = NEVER.find((n) => n.names.test(name));
  return hit ? `${w.process} is ${hit.rule}` : undefined;
}

/** What the person is asked: which client wants which window. */
export type ConsentQuestion = ConsentQuestionWire;

export interface ConsentOptions {
  /** `--windows REGEX`: windows whose title matches are allowed without asking (RE2, any case). */
  windows?: string;
  /** Asks the person (the Live view); resolves true for "allow once". Absent: nobody to ask. */
  ask?: (q: ConsentQuestion, signal?: AbortSignal) => Promise<boolean>;
}

export class WindowConsent {
  private readonly pattern: TextPattern | undefined;

  /** Throws `bad-input` when --windows is no pattern. */
  constructor(private readonly opts: ConsentOptions = {}) {
    try {
      this.pattern = opts.windows ? textPattern(opts.windows) : undefined;
    } catch (err) {
      throw new CodedError('bad-input', `--windows "${opts.windows}" is not a pattern: ${(err as Error).message}`);
    }
  }

  /** Whether a client may see this window's title and start it without asking (a profile fits, or --windows). */
  listed(w: WindowFacts, profiles: readonly string[]): boolean {
    if (neverRule(w)) return false;
    return profiles.length > 0 || !!this.pattern?.test(w.title);
  }

  /**
   * Resolves when the client may play the window; throws `forbidden`, naming the rule or the
   * person's answer, when it may not. Windows a profile fits and --windows matches pass; any
   * other is asked about (the person allows it once, for this start).
   */
  async check(w: WindowFacts, profiles: readonly string[], client: string, signal?: AbortSignal): Promise<void> {
    const never = neverRule(w);
    if (never) throw new CodedError('forbidden', `window ${w.id} is refused to MCP clients: ${never}`);
    if (this.listed(w, profiles)) return;
    if (!this.opts.ask)
      throw new CodedError(
        'forbidden',
        `window ${w.id} fits no profile and nobody can allow it here: start gamepilot mcp with --windows REGEX matching its title, or add a profile for it`,
      );
    const question = { client, window: { id: w.id, title: w.title, process: w.process ?? null } };
    const allowed = await this.opts.ask(question, signal);
    if (!allowed)
      throw new CodedError(
        'forbidden',
        `the person did not allow ${client} to play window ${w.id} (denied, not answered within 2 min, or you went away); nothing was sent to it`,
      );
  }
}
