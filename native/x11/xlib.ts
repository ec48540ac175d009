/**
 * libX11 and its extensions (XShm from libXext, XTest from libXtst, XDamage) through koffi,
 * over ONE display connection per thread, opened on first use and kept: no helper program,
 * no new connection per call.
 *
 * X errors never end the process. Xlib's default error handler prints and calls exit(); the
 * handler installed here is native and does nothing (see `installQuietErrorHandlers`), and
 * every call that can fail on a window that just closed is one with a reply, whose status
 * says so. Void requests on such a window (raise, an activation message) fail silently.
 */
import koffi, { type LibraryHandle, type TypeObject } from 'koffi';

type TypeSpec = string | TypeObject | ReturnType<typeof koffi.out>;

type Ptr = bigint;

/** Functions of the libraries, loaded once per thread. */
export interface XlibFunctions {
  XOpenDisplay(name: string | null): Ptr | null;
  XCloseDisplay(d: Ptr): number;
  XDefaultRootWindow(d: Ptr): number;
  XDefaultScreen(d: Ptr): number;
  XDefaultVisual(d: Ptr, screen: number): Ptr;
  XDefaultDepth(d: Ptr, screen: number): number;
  XInternAtom(d: Ptr, name: string, onlyIfExists: number): number;
  XGetWindowProperty(
    d: Ptr,
    w: number,
    property: number,
    offset: number,
    length: number,
    del: number,
    reqType: number,
    actualType: number[],
    actualFormat: number[],
    nItems: number[],
    bytesAfter: number[],
    prop: (Ptr | null)[],
  ): number;
  XFree(p: Ptr): number;
  XGetWindowAttributes(d: Ptr, w: number, attrs: WindowAttributes): number;
  XTranslateCoordinates(
    d: Ptr,
    src: number,
    dest: number,
    x: number,
    y: number,
    dx: number[],
    dy: number[],
    child: number[],
  ): number;
  XGetGeometry(
    d: Ptr,
    drawable: number,
    root: number[],
    x: number[],
    y: number[],
    width: number[],
    height: number[],
    border: number[],
    depth: number[],
  ): number;
  XQueryTree(d: Ptr, w: number, root: number[], parent: number[], children: (Ptr | null)[], n: number[]): number;
  XSendEvent(d: Ptr, w: number, propagate: number, mask: number, event: ClientMessage): number;
  XRaiseWindow(d: Ptr, w: number): number;
  XSetInputFocus(d: Ptr, w: number, revertTo: number, time: number): number;
  XGetInputFocus(d: Ptr, focus: number[], revertTo: number[]): number;
  XSelectInput(d: Ptr, w: number, mask: number): number;
  XFlush(d: Ptr): number;
  XSync(d: Ptr, discard: number): number;
  XPending(d: Ptr): number;
  XNextEvent(d: Ptr, event: Buffer): number;
  XRefreshKeyboardMapping(event: Buffer): number;
  XKeysymToKeycode(d: Ptr, keysym: number): number;
  XDisplayKeycodes(d: Ptr, min: number[], max: number[]): number;
  XGetKeyboardMapping(d: Ptr, first: number, count: number, perKeycode: number[]): Ptr | null;
  XChangeKeyboardMapping(d: Ptr, first: number, perKeycode: number, keysyms: number[], count: number): number;
  XQueryPointer(
    d: Ptr,
    w: number,
    root: number[],
    child: number[],
    rx: number[],
    ry: number[],
    wx: number[],
    wy: number[],
    mask: number[],
  ): number;
  XShmQueryExtension(d: Ptr): number;
  XShmCreateImage(
    d: Ptr,
    visual: Ptr,
    depth: number,
    format: number,
    data: null,
    info: Ptr,
    width: number,
    height: number,
  ): Ptr | null;
  XShmAttach(d: Ptr, info: Ptr): number;
  XShmDetach(d: Ptr, info: Ptr): number;
  XShmGetImage(d: Ptr, drawable: number, image: Ptr, x: number, y: number, planes: number): number;
  XGetImage(
    d: Ptr,
    drawable: number,
    x: number,
    y: number,
    width: number,
    height: number,
    planes: number,
    format: number,
  ): Ptr | null;
  XDestroyImage(image: Ptr): number;
  XTestQueryExtension(d: Ptr, ev: number[], err: number[], major: number[], minor: number[]): number;
  XTestFakeKeyEvent(d: Ptr, keycode: number, press: number, delay: number): number;
  XTestFakeButtonEvent(d: Ptr, button: number, press: number, delay: number): number;
  XTestFakeMotionEvent(d: Ptr, screen: number, x: number, y: number, delay: number): number;
  shmget(key: number, size: number, flags: number): number;
  shmat(id: number, addr: null, flags: number): Ptr;
  shmdt(addr: Ptr): number;
  shmctl(id: number, cmd: number, buf: null): number;
  free(p: Ptr): void;
}

/** XDamage, when the server and the machine have it (optional: the settle stage falls back to a fixed wait). */
export interface DamageFunctions {
  XDamageQueryExtension(d: Ptr, eventBase: number[], errorBase: number[]): number;
  XDamageCreate(d: Ptr, drawable: number, level: number): number;
  XDamageDestroy(d: Ptr, damage: number): void;
  XDamageSubtract(d: Ptr, damage: number, repair: number, parts: number): void;
}

export interface WindowAttributes {
  x: number;
  y: number;
  width: number;
  height: number;
  border_width: number;
  depth: number;
  map_state: number;
  override_redirect: number;
  [k: string]: unknown;
}

export interface ClientMessage {
  type: number;
  serial: number;
  send_event: number;
  display: Ptr | null;
  window: number;
  message_type: number;
  format: number;
  l: number[];
  pad: number[];
}

/** The fields of XImage read or written here (the struct goes on with six function pointers). */
export interface XImageHead {
  width: number;
  height: number;
  xoffset: number;
  format: number;
  data: Ptr | null;
  byte_order: number;
  bitmap_unit: number;
  bitmap_bit_order: number;
  bitmap_pad: number;
  depth: number;
  bytes_per_line: number;
  bits_per_pixel: number;
  red_mask: number;
  green_mask: number;
  blue_mask: number;
}

export const X = {
  None: 0,
  False: 0,
  True: 1,
  Success: 0,
  AnyPropertyType: 0,
  IsViewable: 2,
  RevertToParent: 2,
  CurrentTime: 0,
  ZPixmap: 2,
  LSBFirst: 0,
  AllPlanes: 0xffffffff,
  ClientMessage: 33,
  MappingNotify: 34,
  SubstructureRedirectMask: 1 << 20,
  SubstructureNotifyMask: 1 << 19,
  StructureNotifyMask: 1 << 17,
  PropertyChangeMask: 1 << 22,
  XDamageReportNonEmpty: 2,
  IPC_PRIVATE: 0,
  IPC_CREAT: 0o1000,
  IPC_RMID: 0,
  /** sizeof(XEvent) on LP64: a union padded to 24 longs. */
  XEventSize: 192,
} as const;

export interface XlibTypes {
  WindowAttributes: TypeObject;
  ClientMessage: TypeObject;
  XImageHead: TypeObject;
  ShmSegmentInfo: TypeObject;
}

export interface Xlib {
  fn: XlibFunctions;
  damage: DamageFunctions | undefined;
  types: XlibTypes;
}

let loaded: Xlib | undefined;
let loadError: Error | undefined;

/** Loads the libraries once per thread; throws a clear error when one is missing. */
export function loadXlib(): Xlib {
  if (loaded) return loaded;
  if (loadError) throw loadError;
  try {
    loaded = bind();
    return loaded;
  } catch (err) {
    loadError = new Error(`cannot use libX11 in-process: ${(err as Error).message}`);
    throw loadError;
  }
}

function open(names: string[]): LibraryHandle {
  let last: unknown;
  for (const n of names) {
    try {
      return koffi.load(n);
    } catch (err) {
      last = err;
    }
  }
  throw new Error(`${names[0]} did not load (${(last as Error).message})`);
}

function bind(): Xlib {
  const x11 = open(['libX11.so.6', 'libX11.so']);
  const xext = open(['libXext.so.6', 'libXext.so']);
  const xtst = open(['libXtst.so.6', 'libXtst.so']);
  const libc = open(['libc.so.6']);
  // Named koffi types are global to the process's koffi instance: define each once.
  const Display = koffi.opaque();
  const DisplayPtr = koffi.pointer(Display);
  const WindowAttributesT = koffi.struct({
    x: 'int',
    y: 'int',
    width: 'int',
    height: 'int',
    border_width: 'int',
    depth: 'int',
    visual: 'void *',
    root: 'unsigned long',
    class: 'int',
    bit_gravity: 'int',
    win_gravity: 'int',
    backing_store: 'int',
    backing_planes: 'unsigned long',
    backing_pixel: 'unsigned long',
    save_under: 'int',
    colormap: 'unsigned long',
    map_installed: 'int',
    map_state: 'int',
    all_event_masks: 'long',
    your_event_mask: 'long',
    do_not_propagate_mask: 'long',
    override_redirect: 'int',
    screen: 'void *',
  });
  const ClientMessageT = koffi.struct({
    type: 'int',
    serial: 'unsigned long',
    send_event: 'int',
    display: 'void *',
    window: 'unsigned long',
    message_type: 'unsigned long',
    format: 'int',
    l: koffi.array('long', 5),
    pad: koffi.array('long', 12),
  });
  if (koffi.sizeof(ClientMessageT) !== X.XEventSize) throw new Error('unexpected XEvent layout on this platform');
  const XImageHeadT = koffi.struct({
    width: 'int',
    height: 'int',
    xoffset: 'int',
    format: 'int',
    data: 'void *',
    byte_order: 'int',
    bitmap_unit: 'int',
    bitmap_bit_order: 'int',
    bitmap_pad: 'int',
    depth: 'int',
    bytes_per_line: 'int',
    bits_per_pixel: 'int',
    red_mask: 'unsigned long',
    green_mask: 'unsigned long',
    blue_mask: 'unsigned long',
  });
  const ShmSegmentInfoT = koffi.struct({
    shmseg: 'unsigned long',
    shmid: 'int',
    shmaddr: 'void *',
    readOnly: 'int',
  });
  const D = DisplayPtr;
  const ul = 'unsigned long';
  const outInt = koffi.out(koffi.pointer('int'));
  const outUint = koffi.out(koffi.pointer('unsigned int'));
  const outUl = koffi.out(koffi.pointer(ul));
  const outPtr = koffi.out(koffi.pointer('void *'));
  const f = (lib: LibraryHandle, name: string, result: TypeSpec, args: TypeSpec[]) => lib.func(name, result, args);
  const fn = {
    XOpenDisplay: f(x11, 'XOpenDisplay', D, ['const char *']),
    XCloseDisplay: f(x11, 'XCloseDisplay', 'int', [D]),
    XDefaultRootWindow: f(x11, 'XDefaultRootWindow', ul, [D]),
    XDefaultScreen: f(x11, 'XDefaultScreen', 'int', [D]),
    XDefaultVisual: f(x11, 'XDefaultVisual', 'void *', [D, 'int']),
    XDefaultDepth: f(x11, 'XDefaultDepth', 'int', [D, 'int']),
    XInternAtom: f(x11, 'XInternAtom', ul, [D, 'const char *', 'int']),
    XGetWindowProperty: f(x11, 'XGetWindowProperty', 'int', [
      D,
      ul,
      ul,
      'long',
      'long',
      'int',
      ul,
      outUl,
      outInt,
      outUl,
      outUl,
      outPtr,
    ]),
    XFree: f(x11, 'XFree', 'int', ['void *']),
    XGetWindowAttributes: f(x11, 'XGetWindowAttributes', 'int', [D, ul, koffi.out(koffi.pointer(WindowAttributesT))]),
    XTranslateCoordinates: f(x11, 'XTranslateCoordinates', 'int', [D, ul, ul, 'int', 'int', outInt, outInt, outUl]),
    XGetGeometry: f(x11, 'XGetGeometry', 'int', [D, ul, outUl, outInt, outInt, outUint, outUint, outUint, outUint]),
    XQueryTree: f(x11, 'XQueryTree', 'int', [D, ul, outUl, outUl, outPtr, outUint]),
    XSendEvent: f(x11, 'XSendEvent', 'int', [D, ul, 'int', 'long', koffi.pointer(ClientMessageT)]),
    XRaiseWindow: f(x11, 'XRaiseWindow', 'int', [D, ul]),
    XSetInputFocus: f(x11, 'XSetInputFocus', 'int', [D, ul, 'int', ul]),
    XGetInputFocus: f(x11, 'XGetInputFocus', 'int', [D, outUl, outInt]),
    XSelectInput: f(x11, 'XSelectInput', 'int', [D, ul, 'long']),
    XFlush: f(x11, 'XFlush', 'int', [D]),
    XSync: f(x11, 'XSync', 'int', [D, 'int']),
    XPending: f(x11, 'XPending', 'int', [D]),
    XNextEvent: f(x11, 'XNextEvent', 'int', [D, 'void *']),
    XRefreshKeyboardMapping: f(x11, 'XRefreshKeyboardMapping', 'int', ['void *']),
    XKeysymToKeycode: f(x11, 'XKeysymToKeycode', 'uint8_t', [D, ul]),
    XDisplayKeycodes: f(x11, 'XDisplayKeycodes', 'int', [D, outInt, outInt]),
    XGetKeyboardMapping: f(x11, 'XGetKeyboardMapping', 'void *', [D, 'uint8_t', 'int', outInt]),
    XChangeKeyboardMapping: f(x11, 'XChangeKeyboardMapping', 'int', [D, 'int', 'int', koffi.pointer(ul), 'int']),
    XQueryPointer: f(x11, 'XQueryPointer', 'int', [D, ul, outUl, outUl, outInt, outInt, outInt, outInt, outUint]),
    XShmQueryExtension: f(xext, 'XShmQueryExtension', 'int', [D]),
    XShmCreateImage: f(xext, 'XShmCreateImage', 'void *', [
      D,
      'void *',
      'unsigned int',
      'int',
      'void *',
      'void *',
      'unsigned int',
      'unsigned int',
    ]),
    XShmAttach: f(xext, 'XShmAttach', 'int', [D, 'void *']),
    XShmDetach: f(xext, 'XShmDetach', 'int', [D, 'void *']),
    XShmGetImage: f(xext, 'XShmGetImage', 'int', [D, ul, 'void *', 'int', 'int', ul]),
    XGetImage: f(x11, 'XGetImage', 'void *', [D, ul, 'int', 'int', 'unsigned int', 'unsigned int', ul, 'int']),
    XDestroyImage: f(x11, 'XDestroyImage', 'int', ['void *']),
    XTestQueryExtension: f(xtst, 'XTestQueryExtension', 'int', [D, outInt, outInt, outInt, outInt]),
    XTestFakeKeyEvent: f(xtst, 'XTestFakeKeyEvent', 'int', [D, 'unsigned int', 'int', ul]),
    XTestFakeButtonEvent: f(xtst, 'XTestFakeButtonEvent', 'int', [D, 'unsigned int', 'int', ul]),
    XTestFakeMotionEvent: f(xtst, 'XTestFakeMotionEvent', 'int', [D, 'int', 'int', 'int', ul]),
    shmget: f(libc, 'shmget', 'int', ['int', 'size_t', 'int']),
    shmat: f(libc, 'shmat', 'void *', ['int', 'void *', 'int']),
    shmdt: f(libc, 'shmdt', 'int', ['void *']),
    shmctl: f(libc, 'shmctl', 'int', ['int', 'int', 'void *']),
    free: f(libc, 'free', 'void', ['void *']),
  } as unknown as XlibFunctions;
  installQuietErrorHandlers(x11, libc);
  return {
    fn,
    damage: bindDamage(D),
    types: {
      WindowAttributes: WindowAttributesT,
      ClientMessage: ClientMessageT,
      XImageHead: XImageHeadT,
      ShmSegmentInfo: ShmSegmentInfoT,
    },
  };
}

function bindDamage(D: TypeObject): DamageFunctions | undefined {
  let lib: LibraryHandle;
  try {
    lib = open(['libXdamage.so.1', 'libXdamage.so']);
  } catch {
    return undefined;
  }
  const ul = 'unsigned long';
  const outInt = koffi.out(koffi.pointer('int'));
  return {
    XDamageQueryExtension: lib.func('XDamageQueryExtension', 'int', [D, outInt, outInt]),
    XDamageCreate: lib.func('XDamageCreate', ul, [D, ul, 'int']),
    XDamageDestroy: lib.func('XDamageDestroy', 'void', [D, ul]),
    XDamageSubtract: lib.func('XDamageSubtract', 'void', [D, ul, ul, ul]),
  } as unknown as DamageFunctions;
}

/**
 * Replaces Xlib's error handlers, whose defaults print and exit(), with a native function that
 * only reads a field: `int XQLength(Display *)`, called as `int (*)(Display *, XErrorEvent *)`
 * (the extra argument is ignored by the C calling convention, and Xlib ignores the result).
 * Not a JS callback: Xlib's handler is global to the process, and the recorder's worker
 * threads use their own connections; a JS callback would belong to one thread and die with it.
 * The I/O error exit handler (libX11 ≥ 1.7) gets the same no-op, so a lost X server fails the
 * calls instead of ending the process.
 */
function installQuietErrorHandlers(x11: LibraryHandle, libc: LibraryHandle) {
  const dlopen = libc.func('dlopen', 'void *', ['const char *', 'int']);
  const dlsym = libc.func('dlsym', 'void *', ['void *', 'const char *']);
  const RTLD_NOW = 2;
  const RTLD_NOLOAD = 4;
  const handle = dlopen('libX11.so.6', RTLD_NOW | RTLD_NOLOAD) ?? dlopen('libX11.so', RTLD_NOW | RTLD_NOLOAD);
  const noop = handle ? dlsym(handle, 'XQLength') : null;
  if (!noop) throw new Error('XQLength not found in libX11');
  x11.func('XSetErrorHandler', 'void *', ['void *'])(noop);
  let exitHandler: ReturnType<LibraryHandle['func']> | undefined;
  try {
    exitHandler = x11.func('XSetIOErrorExitHandler', 'void', ['void *', 'void *', 'void *']);
  } catch {
    /* libX11 < 1.7: a lost X server still ends the process, as with every Xlib program */
  }
  ioExitHandler = exitHandler ? (d: Ptr) => exitHandler(d, noop, null) : undefined;
}

/** Sets the no-op I/O error exit handler on a display (it is per display); absent before libX11 1.7. */
let ioExitHandler: ((d: Ptr) => void) | undefined;

/** One open display per thread: its root window, screen, and the atoms interned so far. */
export interface XConnection {
  readonly lib: Xlib;
  readonly display: Ptr;
  readonly root: number;
  readonly screen: number;
  atom(name: string): number;
  /**
   * Reads the events that arrived (the keyboard mapping changes every client gets, the Damage
   * events it asked for, the structure and property events of watched windows), hands each to
   * the listeners of its type and keeps Xlib's keyboard mapping current. Returns how many there were.
   */
  pump(): number;
  /** Listens to one event type (the first int of the event); returns how to stop. */
  onEvent(type: number, listener: (event: Buffer) => void): () => void;
  /** Bumped whenever the keyboard mapping changed: caches of keycodes compare it. */
  readonly keymapGeneration: number;
}

let connection: XConnection | undefined;

/** This thread's display connection (opened once, kept for the life of the thread). */
export function xConnection(): XConnection {
  if (connection) return connection;
  const lib = loadXlib();
  const name = process.env.DISPLAY;
  if (!name) throw new Error('no X display: DISPLAY is not set');
  const display = lib.fn.XOpenDisplay(name);
  if (!display) throw new Error(`cannot open the X display ${name}`);
  ioExitHandler?.(display);
  const atoms = new Map<string, number>();
  const listeners = new Map<number, Set<(event: Buffer) => void>>();
  const event = Buffer.alloc(X.XEventSize);
  let keymapGeneration = 0;
  connection = {
    lib,
    display,
    root: lib.fn.XDefaultRootWindow(display),
    screen: lib.fn.XDefaultScreen(display),
    atom(n: string) {
      let a = atoms.get(n);
      if (a === undefined) {
        a = lib.fn.XInternAtom(display, n, X.False);
        atoms.set(n, a);
      }
      return a;
    },
    get keymapGeneration() {
      return keymapGeneration;
    },
    pump() {
      let n = 0;
      while (lib.fn.XPending(display) > 0) {
        lib.fn.XNextEvent(display, event);
        n++;
        const type = event.readInt32LE(0) & 0x7f;
        if (type === X.MappingNotify) {
          lib.fn.XRefreshKeyboardMapping(event);
          keymapGeneration++;
        }
        for (const l of listeners.get(type) ?? []) l(event);
      }
      return n;
    },
    onEvent(type: number, listener: (event: Buffer) => void) {
      const set = listeners.get(type) ?? new Set();
      listeners.set(type, set);
      set.add(listener);
      return () => set.delete(listener);
    },
  };
  return connection;
}

/** A window property: its type, format (8, 16 or 32) and raw items; undefined when absent or the window is gone. */
export interface Property {
  type: number;
  format: number;
  count: number;
  /** 32-bit items as numbers (Xlib hands them over as C longs). */
  longs(): number[];
  /** 8-bit items as a UTF-8 (or Latin-1) string. */
  text(latin1?: boolean): string;
}

/** Reads a whole window property (up to `maxLongs` 32-bit units) in one round trip. */
export function getProperty(c: XConnection, window: number, name: string, maxLongs = 65536): Property | undefined {
  const { fn } = c.lib;
  const type = [0];
  const format = [0];
  const count = [0];
  const after = [0];
  const data: (Ptr | null)[] = [null];
  const status = fn.XGetWindowProperty(
    c.display,
    window,
    c.atom(name),
    0,
    maxLongs,
    X.False,
    X.AnyPropertyType,
    type,
    format,
    count,
    after,
    data,
  );
  const ptr = data[0];
  if (status !== X.Success) return undefined;
  if (!ptr)
    return type[0] === X.None
      ? undefined
      : { type: type[0]!, format: format[0]!, count: 0, longs: () => [], text: () => '' };
  const n = count[0]!;
  const fmt = format[0]!;
  let longs: number[] = [];
  let bytes = Buffer.alloc(0);
  if (n > 0) {
    // Xlib hands 32-bit items over as C longs (sign-extended on LP64): keep the low 32 bits.
    if (fmt === 32) longs = Array.from(koffi.decode(ptr, 'long', n) as ArrayLike<bigint>, (v) => Number(v) >>> 0);
    else if (fmt === 16) longs = Array.from(koffi.decode(ptr, 'short', n) as ArrayLike<number>);
    else bytes = Buffer.from(new Uint8Array(koffi.view(ptr, n)));
  }
  fn.XFree(ptr);
  return {
    type: type[0]!,
    format: fmt,
    count: n,
    longs: () => longs,
    text: (latin1 = false) => bytes.toString(latin1 ? 'latin1' : 'utf8'),
  };
}
