/**
 * Screen pixels from the X root window over the thread's display connection, handed on as
 * packed RGB (the conversion from the server's 32-bit pixels is done while copying out, at
 * about the cost of the copy alone) or as the server's own 32-bit pixels.
 *
 * `ShmGrabber`: XShmGetImage into shared-memory segments sized to the screen, each made once: the
 * server writes the pixels straight into our memory, with no copy through the socket; a caller
 * that reuses (the session loop) gets them where the server wrote them, in two segments in turn.
 * `GetImageGrabber`: plain XGetImage (the pixels come through the socket), for displays where
 * shared memory is refused (a remote X server, another IPC namespace).
 * Both return tightly packed 32-bit pixels, BGRX in memory on the usual little-endian TrueColor
 * visuals (the fourth byte is undefined: the consumer ignores it).
 */
import koffi from 'koffi';
import { X, xConnection, type XConnection, type XImageHead } from './xlib.ts';
import type { Rect } from '../types.ts';
import { packRgb } from '../pixels.ts';
import { MIN_SERVER_SCALE, RenderScaler } from './render.ts';

export interface Pixels {
  data: Buffer;
  width: number;
  height: number;
  /** Byte order of each pixel in memory: packed RGB, or the server's 32-bit pixels. */
  order: 'rgb' | 'bgrx' | 'rgbx';
}

/** `rgb`: 3 bytes a pixel, ready for an encoder; `native`: the server's 4 bytes a pixel, as they are. */
export type PixelLayout = 'rgb' | 'native';

export interface GrabOptions {
  layout?: PixelLayout;
  /**
   * Deliver the region scaled to this size, bilinear, scaled by the X server (render.ts):
   * honoured down to half size where the server has XRender; otherwise the pixels come at the
   * region's own size (check `width` and `height` of the result).
   */
  size?: { width: number; height: number };
  /**
   * For one sequential caller (the session loop), with layout `native`: the pixels need to stay
   * valid only until the second next grab with this option, so the grabber hands out memory of
   * its own in turn instead of a new buffer each grab (a new 2.6 MB buffer cost 640 page faults,
   * about 1 ms, and a full GC now and then to free): ShmGrabber the segment the server wrote
   * into (no copy), GetImageGrabber one of two buffers.
   */
  reuse?: boolean;
}

export interface ScreenGrabber {
  readonly name: string;
  /** The root window's size (all monitors' bounding box). */
  screenSize(): { width: number; height: number };
  /** Pixels of a region that lies on the screen (the caller checks). */
  grab(region: Rect, opts?: GrabOptions): Pixels;
}

/** Where to read a region from: the root window itself, or a server-scaled copy of it. */
export function sourceOf(
  c: XConnection,
  scaler: RenderScaler | undefined,
  region: Rect,
  size: GrabOptions['size'],
): { drawable: number; area: Rect } {
  const scaled =
    scaler &&
    size &&
    (size.width !== region.width || size.height !== region.height) &&
    size.width <= region.width &&
    size.height <= region.height &&
    size.width >= region.width * MIN_SERVER_SCALE &&
    size.height >= region.height * MIN_SERVER_SCALE;
  if (!scaled) return { drawable: c.root, area: region };
  return { drawable: scaler.scale(region, size), area: { x: 0, y: 0, width: size.width, height: size.height } };
}

export function rootSize(c: XConnection): { width: number; height: number } {
  const r = [0];
  const x = [0];
  const y = [0];
  const w = [0];
  const h = [0];
  const b = [0];
  const d = [0];
  if (!c.lib.fn.XGetGeometry(c.display, c.root, r, x, y, w, h, b, d)) throw new Error('cannot read the X screen size');
  return { width: w[0]!, height: h[0]! };
}

/** Channel order of a 32-bit ZPixmap image, or why it is not one we can hand on. */
export function pixelOrder(img: XImageHead): 'bgrx' | 'rgbx' {
  if (img.bits_per_pixel !== 32 || img.byte_order !== X.LSBFirst)
    throw new Error(
      `unsupported X visual: ${img.bits_per_pixel} bits per pixel, ${img.byte_order === X.LSBFirst ? 'LSB' : 'MSB'} first (need 32, LSB first)`,
    );
  if (img.red_mask === 0xff0000 && img.blue_mask === 0xff) return 'bgrx';
  if (img.red_mask === 0xff && img.blue_mask === 0xff0000) return 'rgbx';
  throw new Error(`unsupported X visual masks: red ${img.red_mask.toString(16)}, blue ${img.blue_mask.toString(16)}`);
}

/**
 * Unmaps a segment from this process once nothing in it can be read any more: its memory is an
 * ArrayBuffer that frames may still view after the server let go of the segment, and reading
 * an unmapped page would end the process, not throw.
 */
const unmapWhenUnread = new FinalizationRegistry<{ shmdt(addr: bigint): number; addr: bigint }>((s) => s.shmdt(s.addr));

/**
 * A shared-memory segment the X server writes images into (XShmGetImage: no copy through the
 * socket), and the XImage header of the last size read, pointing into it. The segment grows
 * when a size needs more; it is marked for removal at once, so it goes when both sides let go
 * (this side once no view of it is left: unmapWhenUnread).
 */
export class ShmImage {
  /** The XShmSegmentInfo Xlib reads (allocated here), and its address. */
  private readonly infoMemory: unknown;
  private readonly info: bigint;
  private segment: { id: number; addr: bigint; size: number; memory: Uint8Array } | undefined;
  private image: { ptr: bigint; width: number; height: number; head: XImageHead } | undefined;

  constructor(
    private readonly c: XConnection,
    bytes: number,
  ) {
    const { fn, types } = c.lib;
    if (!fn.XShmQueryExtension(c.display)) throw new Error('the X server has no MIT-SHM extension');
    this.infoMemory = koffi.alloc(types.ShmSegmentInfo, 1);
    this.info = koffi.address(this.infoMemory);
    this.attach(bytes);
  }

  /**
   * Reads `area` of `drawable` into the segment: the image's head (stride, channel masks) and
   * the segment's bytes, which the next read overwrites (and which stay readable while viewed,
   * even after the segment is replaced). Throws when the server refuses.
   */
  read(drawable: number, area: Rect): { head: XImageHead; memory: Uint8Array } {
    const img = this.imageFor(area.width, area.height);
    if (!this.c.lib.fn.XShmGetImage(this.c.display, drawable, img.ptr, area.x, area.y, X.AllPlanes))
      throw new Error(
        `XShmGetImage of ${area.width}×${area.height} at ${area.x},${area.y} failed (shared memory refused, or the region is off the screen)`,
      );
    return { head: img.head, memory: this.segment!.memory };
  }

  /** Detaches the segment from both sides; the object is not to be used again. */
  close() {
    this.detach();
    koffi.free(this.infoMemory);
  }

  /** A segment of `size` bytes, attached to the server and marked for removal (it goes when both sides let go). */
  private attach(size: number) {
    const { fn, types } = this.c.lib;
    this.detach();
    const id = fn.shmget(X.IPC_PRIVATE, size, X.IPC_CREAT | 0o600);
    if (id < 0) throw new Error(`shmget of ${size} bytes failed (errno ${koffi.errno()})`);
    const addr = fn.shmat(id, null, 0);
    if (addr === -1n || !addr) {
      fn.shmctl(id, X.IPC_RMID, null);
      throw new Error(`shmat failed (errno ${koffi.errno()})`);
    }
    koffi.encode(this.info, types.ShmSegmentInfo, { shmseg: 0, shmid: id, shmaddr: addr, readOnly: X.False });
    fn.XShmAttach(this.c.display, this.info);
    fn.XSync(this.c.display, X.False); // the server has attached before the segment is marked for removal
    fn.shmctl(id, X.IPC_RMID, null);
    const memory = koffi.view(addr, size);
    unmapWhenUnread.register(memory, { shmdt: fn.shmdt, addr });
    this.segment = { id, addr, size, memory: new Uint8Array(memory) };
  }

  /** The server lets go of the segment now; this process once no view of its memory is left. */
  private detach() {
    if (!this.segment) return;
    const { fn } = this.c.lib;
    this.dropImage();
    fn.XShmDetach(this.c.display, this.info);
    fn.XSync(this.c.display, X.False);
    this.segment = undefined;
  }

  private dropImage() {
    // The header only: its data is the segment. Xlib allocated it with malloc.
    if (this.image) this.c.lib.fn.free(this.image.ptr);
    this.image = undefined;
  }

  private imageFor(width: number, height: number) {
    if (this.image?.width === width && this.image.height === height) return this.image;
    const { fn, types } = this.c.lib;
    this.dropImage();
    const visual = fn.XDefaultVisual(this.c.display, this.c.screen);
    const depth = fn.XDefaultDepth(this.c.display, this.c.screen);
    const ptr = fn.XShmCreateImage(this.c.display, visual, depth, X.ZPixmap, null, this.info, width, height);
    if (!ptr) throw new Error(`XShmCreateImage ${width}×${height} failed`);
    const head = koffi.decode(ptr, types.XImageHead) as XImageHead;
    try {
      pixelOrder(head);
    } catch (err) {
      fn.free(ptr);
      throw err;
    }
    const bytes = head.bytes_per_line * height;
    if (!this.segment || bytes > this.segment.size) this.attach(Math.max(bytes, this.segment?.size ?? 0));
    koffi.encode(ptr, koffi.offsetof(types.XImageHead, 'data'), 'void *', this.segment!.addr);
    this.image = { ptr, width, height, head };
    return this.image;
  }
}

export class ShmGrabber implements ScreenGrabber {
  readonly name = 'x11-shm';
  private readonly c: XConnection;
  private readonly scaler: RenderScaler | undefined;
  /** The segment of grabs copied out, and the two handed out in turn to grabs with `reuse`, each made when first needed. */
  private copied: ShmImage | undefined;
  private readonly turns: (ShmImage | undefined)[] = [undefined, undefined];
  private turn = 0;

  constructor(connect: () => XConnection = xConnection) {
    this.c = connect();
    this.scaler = RenderScaler.create(this.c);
    if (!this.c.lib.fn.XShmQueryExtension(this.c.display)) throw new Error('the X server has no MIT-SHM extension');
  }

  screenSize() {
    return rootSize(this.c);
  }

  grab(region: Rect, opts: GrabOptions = {}): Pixels {
    const { drawable, area } = sourceOf(this.c, this.scaler, region, opts.size);
    const layout = opts.layout ?? 'rgb';
    const inPlace = opts.reuse && layout === 'native';
    const { head, memory } = (inPlace ? this.nextTurn() : this.copyFrom()).read(drawable, area);
    if (inPlace && head.bytes_per_line === area.width * 4) {
      const data = Buffer.from(memory.buffer, memory.byteOffset, area.width * area.height * 4);
      return { data, width: area.width, height: area.height, order: pixelOrder(head) };
    }
    // Copied out: the next grab reuses the segment while this frame is still being encoded.
    return copyOut(memory, head, area, layout);
  }

  /** The segment of the grab after the last one with `reuse`. */
  private nextTurn(): ShmImage {
    this.turn ^= 1;
    this.turns[this.turn] ??= this.segment();
    return this.turns[this.turn]!;
  }

  private copyFrom(): ShmImage {
    this.copied ??= this.segment();
    return this.copied;
  }

  /** A segment the size of the screen (a larger grab makes it grow). */
  private segment() {
    const size = rootSize(this.c);
    return new ShmImage(this.c, size.width * size.height * 4);
  }
}

/** The pixels of an image in memory, copied out as packed RGB or as they are (into `into` when it fits exactly). */
function copyOut(memory: Uint8Array, head: XImageHead, region: Rect, layout: PixelLayout, into?: Buffer): Pixels {
  const order = pixelOrder(head);
  const { width, height } = region;
  const stride = head.bytes_per_line;
  const buffer = (bytes: number) => (into?.length === bytes ? into : Buffer.allocUnsafe(bytes));
  if (layout === 'native') {
    const row = width * 4;
    const data = buffer(row * height);
    if (stride === row) data.set(memory.subarray(0, row * height));
    else for (let y = 0; y < height; y++) data.set(memory.subarray(y * stride, y * stride + row), y * row);
    return { data, width, height, order };
  }
  const data = buffer(width * height * 3);
  if (stride === width * 4) packRgb(memory, 0, data, 0, width * height, order === 'bgrx');
  else for (let y = 0; y < height; y++) packRgb(memory, y * stride, data, y * width * 3, width, order === 'bgrx');
  return { data, width, height, order: 'rgb' };
}

export class GetImageGrabber implements ScreenGrabber {
  readonly name = 'x11-getimage';
  private readonly c: XConnection;
  private readonly scaler: RenderScaler | undefined;
  /** The two buffers handed out in turn to grabs with `reuse`. */
  private readonly buffers: (Buffer | undefined)[] = [undefined, undefined];
  private turn = 0;

  constructor(connect: () => XConnection = xConnection) {
    this.c = connect();
    this.scaler = RenderScaler.create(this.c);
  }

  screenSize() {
    return rootSize(this.c);
  }

  grab(region: Rect, opts: GrabOptions = {}): Pixels {
    const { fn, types } = this.c.lib;
    const { drawable, area } = sourceOf(this.c, this.scaler, region, opts.size);
    const ptr = fn.XGetImage(this.c.display, drawable, area.x, area.y, area.width, area.height, X.AllPlanes, X.ZPixmap);
    if (!ptr) throw new Error(`XGetImage of ${region.width}×${region.height} at ${region.x},${region.y} failed`);
    const layout = opts.layout ?? 'rgb';
    const reuse = opts.reuse && layout === 'native';
    if (reuse) this.turn ^= 1;
    try {
      const head = koffi.decode(ptr, types.XImageHead) as XImageHead;
      const memory = new Uint8Array(koffi.view(head.data!, head.bytes_per_line * area.height));
      const px = copyOut(memory, head, area, layout, reuse ? this.buffers[this.turn] : undefined);
      if (reuse) this.buffers[this.turn] = px.data;
      return px;
    } finally {
      fn.XDestroyImage(ptr);
    }
  }
}

/** XShm where the server allows it, XGetImage otherwise. */
export function createGrabber(connect: () => XConnection = xConnection): ScreenGrabber {
  try {
    const shm = new ShmGrabber(connect);
    shm.grab({ x: 0, y: 0, width: 1, height: 1 });
    return shm;
  } catch {
    return new GetImageGrabber(connect);
  }
}
