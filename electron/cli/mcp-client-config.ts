/**
 * `gamepilot mcp --print-config CLIENT`: the server entry an MCP client needs to start this
 * install's `gamepilot mcp`, in that client's own format. Clients start servers with a
 * whitelisted environment and from a folder of their choosing, so the entry names everything:
 * this Node (process.execPath: a `node` on the client's PATH may be too old), the launcher by
 * absolute path, the runs folder by absolute path, and the environment the server needs (the
 * X display and its cookie on Linux, the config folder).
 *
 * Formats, as each client documents them:
 * - Claude Desktop: `{"mcpServers": {NAME: {command, args, env}}}` in claude_desktop_config.json
 *   (https://modelcontextprotocol.io/docs/develop/connect-local-servers);
 * - Claude Code: the same with `"type": "stdio"` in a project's `.mcp.json`, or the entry alone
 *   through `claude mcp add-json NAME '<json>'` (https://code.claude.com/docs/en/mcp);
 * - Cursor: `{"mcpServers": …}` in `~/.cursor/mcp.json` or a project's `.cursor/mcp.json`
 *   (https://cursor.com/docs/mcp);
 * - VS Code: `{"servers": {NAME: {"type": "stdio", command, args, env}}}` in `.vscode/mcp.json`
 *   or the user profile's mcp.json (https://code.visualstudio.com/docs/copilot/reference/mcp-configuration).
 */
import path from 'node:path';
import { localXDisplays } from '../session/display-advice.ts';

export const MCP_CLIENTS = ['claude-desktop', 'claude-code', 'cursor', 'vscode'] as const;
export type McpClientName = (typeof MCP_CLIENTS)[number];

/** `gamepilot mcp --idle-timeout`'s default, in seconds (a printed configuration leaves it out). */
export const MCP_IDLE_TIMEOUT_S = 300;

/** The name the server goes by in every client's configuration. */
export const SERVER_NAME = 'gamepilot';

/** How a client starts the server: a program, its arguments and the environment it adds. */
export interface ServerLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

export interface LaunchInputs {
  /** This process's Node and launcher (resources.ts cliCommand). */
  node: { command: string; args: string[]; env: Record<string, string> };
  runsDir: string;
  configDir: string;
  /** More `gamepilot mcp` options to pass on, as given. */
  options: string[];
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  /** The X displays served here (display-advice.ts localXDisplays), for when DISPLAY is not set. */
  displays?: string[];
}

/** The launch, and a note for the person when part of it is a guess. */
export function serverLaunch(i: LaunchInputs): { launch: ServerLaunch; notes: string[] } {
  const notes: string[] = [];
  const env: Record<string, string> = { ...i.node.env, GAMEPILOT_CONFIG_DIR: path.resolve(i.configDir) };
  if (i.platform === 'linux') {
    const displays = i.displays ?? localXDisplays();
    if (i.env.DISPLAY) env.DISPLAY = i.env.DISPLAY;
    else {
      env.DISPLAY = displays[0] ?? ':0';
      notes.push(
        `DISPLAY is not set here: the configuration says ${env.DISPLAY} (${displays.length ? `served here: ${displays.join(', ')}` : 'no X server runs now'}); put the display your desktop is on`,
      );
    }
    if (i.env.XAUTHORITY) env.XAUTHORITY = i.env.XAUTHORITY;
  }
  if (i.env.GAMEPILOT_DEV === '1') env.GAMEPILOT_DEV = '1';
  return {
    launch: {
      command: i.node.command,
      args: [...i.node.args, 'mcp', '--runs-dir', path.resolve(i.runsDir), ...i.options],
      env,
    },
    notes,
  };
}

/** A client's configuration holding the server, and where it goes (for stderr). */
export interface ClientConfig {
  /** What goes on stdout: the JSON document in the client's format. */
  document: Record<string, unknown>;
  /** Where to put it, in words, one line each. */
  where: string[];
}

/** Single-quotes a string for a POSIX shell. */
const shellQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

function claudeDesktopFile(platform: NodeJS.Platform): string {
  if (platform === 'darwin') return '~/Library/Application Support/Claude/claude_desktop_config.json';
  if (platform === 'win32') return '%APPDATA%\\Claude\\claude_desktop_config.json';
  return '~/.config/Claude/claude_desktop_config.json';
}

export function clientConfig(client: McpClientName, launch: ServerLaunch, platform: NodeJS.Platform): ClientConfig {
  const entry = { command: launch.command, args: launch.args, env: launch.env };
  const stdio = { type: 'stdio', ...entry };
  switch (client) {
    case 'claude-desktop':
      return {
        document: { mcpServers: { [SERVER_NAME]: entry } },
        where: [
          `Claude Desktop: merge this into ${claudeDesktopFile(platform)} (Settings → Developer → Edit Config opens it), then quit and start Claude Desktop again.`,
        ],
      };
    case 'claude-code':
      return {
        document: { mcpServers: { [SERVER_NAME]: stdio } },
        where: [
          'Claude Code: save this as .mcp.json in your project (shared with it), or add it for yourself from the project folder with:',
          `  claude mcp add-json ${SERVER_NAME} ${shellQuote(JSON.stringify(stdio))}`,
          '(add --scope user for every project; `claude mcp list` checks it).',
        ],
      };
    case 'cursor':
      return {
        document: { mcpServers: { [SERVER_NAME]: entry } },
        where: ['Cursor: merge this into ~/.cursor/mcp.json (every project) or .cursor/mcp.json in a project.'],
      };
    case 'vscode':
      return {
        document: { servers: { [SERVER_NAME]: stdio } },
        where: [
          'VS Code: merge this into .vscode/mcp.json in your workspace, or your user mcp.json (command "MCP: Open User Configuration").',
        ],
      };
  }
}
