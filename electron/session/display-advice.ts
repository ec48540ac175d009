/**
 * What to say when the X display cannot be opened (Linux). A person at a terminal sets DISPLAY;
 * an MCP server is started by its client, and clients start servers with a whitelisted
 * environment (the SDK passes HOME, LOGNAME, PATH, SHELL, TERM and USER), so DISPLAY never
 * reaches it: the fix is an `env` entry in the client's configuration, and the advice names it
 * with the displays this machine serves.
 */
import { readdirSync } from 'node:fs';

/** Where X servers put their sockets: `X0` serves display `:0`. */
export const X11_SOCKET_DIR = '/tmp/.X11-unix';

/** The X displays served on this machine, as DISPLAY names them (`:0`, `:1`, …), lowest first. */
export function localXDisplays(socketDir = X11_SOCKET_DIR): string[] {
  let names: string[];
  try {
    names = readdirSync(socketDir);
  } catch {
    return [];
  }
  return names
    .map((n) => /^X(\d+)$/.exec(n)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => a - b)
    .map((n) => `:${n}`);
}

/** The display failures Gamepilot reports: the X library's (native/x11/xlib.ts) and the pre-flight's. */
export const DISPLAY_FAILURE =
  /no X display: DISPLAY is not set|cannot open the X display|the X display \S+ cannot be opened/;

/**
 * The `env` entry an MCP client's configuration needs, and what to do with it; `displays` are the
 * ones served here (the first one is proposed).
 */
export function mcpDisplayAdvice(displays: string[]): string {
  const proposed = displays[0] ?? ':0';
  const which =
    displays.length > 1
      ? ` (this machine serves ${displays.join(', ')}: use the one your desktop is on, \`echo $DISPLAY\` in its terminal)`
      : displays.length === 0
        ? ' (no X server runs here now: log in to your desktop, or start one with `Xvfb :99 &` and use ":99")'
        : '';
  return (
    `an MCP client starts \`gamepilot mcp\` without your desktop's environment: add "env": {"DISPLAY": "${proposed}"}` +
    `${which} to the gamepilot server in the client's configuration (and "XAUTHORITY" if \`echo $XAUTHORITY\` prints a path), ` +
    'then restart the client; `gamepilot mcp --print-config`, run in a terminal of your desktop, prints a configuration with them'
  );
}

/** The fix of a failed display check for a person at a terminal. */
export const TERMINAL_DISPLAY_ADVICE = 'start an X server (e.g. `Xvfb :99 &`) and set DISPLAY to it';

/**
 * A display failure as an MCP server reports it: the terminal's fix (if the message has one)
 * becomes the client configuration's. Other errors are returned as they are.
 */
export function withMcpDisplayAdvice<E>(err: E, displays: string[]): E {
  if (!(err instanceof Error) || !DISPLAY_FAILURE.test(err.message) || err.message.includes('"env"')) return err;
  const advice = mcpDisplayAdvice(displays);
  err.message = err.message.includes(TERMINAL_DISPLAY_ADVICE)
    ? err.message.replace(TERMINAL_DISPLAY_ADVICE, advice)
    : `${err.message}: ${advice}`;
  return err;
}
