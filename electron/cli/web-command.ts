/** `gamepilot web`: the UI over loopback HTTP/WebSocket until Ctrl+C. */
import { runWebShell } from '../web/web-shell.ts';
import { openUiInBrowser } from '../web/open-ui.ts';
import { log } from '../util/log.ts';
import { io } from './io.ts';
import type { WebFlags } from './command-flags.ts';

export async function webCommand(o: WebFlags): Promise<number> {
  const { shell, close } = await runWebShell({
    ...(o.port !== undefined ? { port: o.port } : {}),
    runsDir: o.runsDir,
    configDir: o.configDir,
    demo: o.demo,
    log: io.log,
  });
  io.out(shell.url);
  io.progress(`Gamepilot web shell on ${shell.url} (loopback only; the token is required). Ctrl+C stops.`);
  log().info(
    { port: shell.port, runsDir: o.runsDir, configDir: o.configDir, demo: o.demo },
    'web shell listening on 127.0.0.1',
  ); // never the token
  const ui = o.open ? openUiInBrowser(shell, { width: 1360, height: 860, x: 0, y: 0 }, io.log) : undefined;
  await new Promise<void>((resolve) => {
    const quit = () => resolve();
    process.once('SIGINT', quit);
    process.once('SIGTERM', quit);
  });
  io.log('stopping…');
  await close();
  await ui?.close();
  return 0;
}
