/** `gamepilot web`: the UI over loopback HTTP/WebSocket until Ctrl+C. */
import { createWindowManager } from '../../native/index.ts';
import { DEMO_GAME } from '../api/core.ts';
import { createCapturer } from '../capture/index.ts';
import { getGame } from '../../games/index.ts';
import { runWebShell } from '../web/web-shell.ts';
import { openUiInBrowser } from '../web/open-ui.ts';
import { uiLayout, type UiLayout } from '../web/ui-layout.ts';
import { CONTROL_WINDOW_SIZE } from '../util/placement.ts';
import { log } from '../util/log.ts';
import { io } from './io.ts';
import type { WebFlags } from './command-flags.ts';

/** `--open`'s layout on this screen: room beside the UI for the demo's game; undefined where the screen cannot be read. */
async function openLayout(): Promise<UiLayout | undefined> {
  try {
    const screen = await createCapturer().screenBounds();
    return uiLayout(createWindowManager(), screen, getGame(DEMO_GAME).viewSize);
  } catch (err) {
    io.log(`cannot read the screen's size (${(err as Error).message}); the windows open where the browser puts them`);
    return undefined;
  }
}

export async function webCommand(o: WebFlags): Promise<number> {
  const layout = o.open ? await openLayout() : undefined;
  const { shell, close } = await runWebShell({
    ...(o.port !== undefined ? { port: o.port } : {}),
    runsDir: o.runsDir,
    configDir: o.configDir,
    demo: o.demo,
    log: io.log,
    ...(layout ? { launchView: layout.launchView } : {}),
  });
  // The URL (with its token) once, on stdout; the progress line on stderr does not repeat it.
  io.out(shell.url);
  io.progress(
    `Gamepilot web shell on 127.0.0.1:${shell.port}: open the URL above (loopback only; the token is required). Ctrl+C stops.`,
  );
  log().info(
    { port: shell.port, runsDir: o.runsDir, configDir: o.configDir, demo: o.demo },
    'web shell listening on 127.0.0.1',
  ); // never the token
  let ui: ReturnType<typeof openUiInBrowser> | undefined;
  try {
    ui = o.open ? openUiInBrowser(shell, layout?.ui ?? { ...CONTROL_WINDOW_SIZE, x: 0, y: 0 }, io.log) : undefined;
  } finally {
    layout?.uiOpened(ui);
  }
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
