/**
 * A plain X window that fills itself with another colour every `intervalMs`, for tests of the
 * damage watch: one process making one X request per tick, so it keeps drawing on a loaded
 * machine, where a Chromium page's timer → compositor → GPU process → X pipeline stalls for
 * hundreds of milliseconds at a time.
 *
 * Even it stalls now and then on a loaded machine (a pause of 150 ms and more, beside eight busy
 * loops, in 1 of 120 windows of 600 ms), so with LOG it appends the time of each drawing (epoch
 * ms) to that file, and a test can tell a pause of its own from a watch that missed drawings.
 *
 * Run as: node x-drawer.ts TITLE X Y WIDTH HEIGHT INTERVAL_MS [LOG] (windows.ts `drawerWindow`).
 */
import { appendFileSync } from 'node:fs';
import koffi from 'koffi';

const [title = 'gp-drawer', ...rest] = process.argv.slice(2);
const log = rest[5];
const [x = 0, y = 0, width = 200, height = 150, intervalMs = 10] = rest.slice(0, 5).map(Number);

const x11 = koffi.load('libX11.so.6');
const D = 'void *';
const ul = 'unsigned long';
const XOpenDisplay = x11.func('XOpenDisplay', D, ['const char *']);
const XDefaultRootWindow = x11.func('XDefaultRootWindow', ul, [D]);
const XDefaultScreen = x11.func('XDefaultScreen', 'int', [D]);
const XDefaultGC = x11.func('XDefaultGC', 'void *', [D, 'int']);
const XCreateSimpleWindow = x11.func('XCreateSimpleWindow', ul, [D, ul, 'int', 'int', 'uint', 'uint', 'uint', ul, ul]);
const XStoreName = x11.func('XStoreName', 'int', [D, ul, 'const char *']);
const XMapWindow = x11.func('XMapWindow', 'int', [D, ul]);
const XSetForeground = x11.func('XSetForeground', 'int', [D, 'void *', ul]);
const XFillRectangle = x11.func('XFillRectangle', 'int', [D, ul, 'void *', 'int', 'int', 'uint', 'uint']);
const XFlush = x11.func('XFlush', 'int', [D]);

const display = XOpenDisplay(null);
if (!display) {
  console.error(`x-drawer: cannot open display ${process.env.DISPLAY}`);
  process.exit(1);
}
const screen = XDefaultScreen(display);
const gc = XDefaultGC(display, screen);
const window = XCreateSimpleWindow(display, XDefaultRootWindow(display), x, y, width, height, 0, 0, 0);
XStoreName(display, window, title);
XMapWindow(display, window);
XFlush(display);

let n = 0;
setInterval(() => {
  n++;
  XSetForeground(display, gc, n % 2 ? 0xff0000 : 0x0000ff);
  XFillRectangle(display, window, gc, 0, 0, width, height);
  XFlush(display);
  if (log) appendFileSync(log, `${(performance.timeOrigin + performance.now()).toFixed(1)}\n`);
}, intervalMs);
process.on('SIGTERM', () => process.exit(0));
