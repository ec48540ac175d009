/**
 * Screen and window pixels on Windows through GDI, in-process (koffi): BitBlt from the screen
 * for frames (what is on the screen, as the player sees it), PrintWindow for a window's own
 * client area even while another window covers it (thumbnails). Pixels come out top-down BGRA
 * with alpha 255. The memory DC and its DIB section are kept between grabs of the same size.
 */
import type { Rect } from './types.ts';
import { type Handle, win32 } from './win32-api.ts';
import { parseWindowId } from './win32.ts';

const SM_XVIRTUALSCREEN = 76;
const SM_YVIRTUALSCREEN = 77;
const SM_CXVIRTUALSCREEN = 78;
const SM_CYVIRTUALSCREEN = 79;

/** The desktop across every monitor, in physical pixels (monitors left of or above the main one have negative coordinates). */
export function win32VirtualScreen(): Rect {
  const api = win32();
  return {
    x: api.GetSystemMetrics(SM_XVIRTUALSCREEN),
    y: api.GetSystemMetrics(SM_YVIRTUALSCREEN),
    width: api.GetSystemMetrics(SM_CXVIRTUALSCREEN),
    height: api.GetSystemMetrics(SM_CYVIRTUALSCREEN),
  };
}

export interface Win32Frame {
  data: Buffer;
  width: number;
  height: number;
}

const SRCCOPY = 0x00cc0020;
/** Includes layered (translucent, overlay) windows in the copy. */
const CAPTUREBLT = 0x40000000;
const DIB_RGB_COLORS = 0;
const PW_CLIENTONLY = 0x1;
/** Windows 8.1+: also windows drawn with DirectComposition (browsers, many games' launchers). */
const PW_RENDERFULLCONTENT = 0x2;

function bitmapInfo(width: number, height: number): Buffer {
  const info = Buffer.alloc(40 + 16); // BITMAPINFOHEADER, and room for a colour table 32 bpp does not use
  info.writeUInt32LE(40, 0);
  info.writeInt32LE(width, 4);
  info.writeInt32LE(-height, 8); // negative: top-down rows
  info.writeUInt16LE(1, 12);
  info.writeUInt16LE(32, 14);
  return info;
}

/** GDI leaves the fourth byte 0; 255 makes the frame opaque wherever it is saved. */
function opaque(data: Buffer) {
  const px = new Uint32Array(data.buffer, data.byteOffset, data.length >>> 2);
  for (let i = 0; i < px.length; i++) px[i]! |= 0xff000000;
}

export class Win32GdiCapture {
  private memDC: Handle = null;
  private bitmap: Handle = null;
  /** Where the DIB section's pixels live (GDI's memory, top-down BGRA). */
  private bits: bigint | null = null;
  private size = { width: 0, height: 0 };

  /** A memory DC with a DIB section of this size selected, compatible with `dc`. */
  private target(dc: Handle, width: number, height: number): Handle {
    const api = win32();
    if (this.memDC && this.size.width === width && this.size.height === height) return this.memDC;
    this.close();
    this.memDC = api.CreateCompatibleDC(dc);
    const bits: (bigint | null)[] = [null];
    this.bitmap = this.memDC
      ? api.CreateDIBSection(dc, bitmapInfo(width, height), DIB_RGB_COLORS, bits, null, 0)
      : null;
    this.bits = bits[0] ?? null;
    if (!this.memDC || !this.bitmap || !this.bits) {
      this.close();
      throw new Error(`cannot make a ${width}×${height} bitmap to capture into (out of GDI memory?)`);
    }
    api.SelectObject(this.memDC, this.bitmap);
    this.size = { width, height };
    return this.memDC;
  }

  /** A copy of the DIB section's pixels, made opaque. */
  private read(width: number, height: number): Win32Frame {
    const api = win32();
    api.GdiFlush();
    const data = Buffer.allocUnsafe(width * height * 4);
    data.set(new Uint8Array(api.koffi.view(this.bits, data.length)));
    opaque(data);
    return { data, width, height };
  }

  /** The pixels on the screen in `region` (physical pixels; may span monitors). */
  grab(region: Rect): Win32Frame {
    const api = win32();
    const { width, height } = region;
    if (width <= 0 || height <= 0) throw new Error(`cannot capture an empty region (${width}×${height})`);
    const screen = api.GetDC(null);
    if (!screen) throw new Error('GetDC(NULL) failed: no screen to capture (a locked or disconnected session?)');
    try {
      const dc = this.target(screen, width, height);
      if (!api.BitBlt(dc, 0, 0, width, height, screen, region.x, region.y, SRCCOPY | CAPTUREBLT))
        throw new Error(`BitBlt failed (error ${api.GetLastError()})`);
    } finally {
      api.ReleaseDC(null, screen);
    }
    return this.read(width, height);
  }

  /** A window's client area as the window draws it, covered or not (not when minimized). */
  grabWindow(id: string): Win32Frame {
    const api = win32();
    const h = parseWindowId(id);
    if (h === undefined || !api.IsWindow(h)) throw new Error(`no window ${id}`);
    if (api.IsIconic(h)) throw new Error(`window ${id} is minimized: nothing of it is drawn`);
    const r: { left?: number; top?: number; right?: number; bottom?: number } = {};
    if (!api.GetClientRect(h, r)) throw new Error(`GetClientRect failed for ${id}`);
    const width = (r.right ?? 0) - (r.left ?? 0);
    const height = (r.bottom ?? 0) - (r.top ?? 0);
    if (width <= 0 || height <= 0) throw new Error(`window ${id} has no client area`);
    const own = api.GetDC(h);
    try {
      const dc = this.target(own, width, height);
      if (!api.PrintWindow(h, dc, PW_CLIENTONLY | PW_RENDERFULLCONTENT))
        throw new Error(`PrintWindow failed for ${id} (error ${api.GetLastError()})`);
    } finally {
      api.ReleaseDC(h, own);
    }
    return this.read(width, height);
  }

  /** Frees the DC and bitmap (they are freed with the process otherwise). */
  close() {
    const api = win32();
    if (this.memDC) api.DeleteDC(this.memDC);
    if (this.bitmap) api.DeleteObject(this.bitmap);
    this.bitmap = this.memDC = this.bits = null;
    this.size = { width: 0, height: 0 };
  }
}
