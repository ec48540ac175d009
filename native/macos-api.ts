/**
 * The macOS functions Gamepilot calls, bound in-process through koffi (CoreFoundation,
 * CoreGraphics, the Accessibility API), and CoreFoundation values decoded to plain JS. Loaded
 * on first use only. Written to Apple's documentation; not run by CI (no Mac here).
 */
import { createRequire } from 'node:module';

type Koffi = typeof import('koffi');
/** A CoreFoundation or CoreGraphics object (CFTypeRef, CGEventRef, AXUIElementRef): a koffi pointer. */
export type Ref = bigint | null;
export interface CGPoint {
  x: number;
  y: number;
}
export interface CGRect {
  origin: CGPoint;
  size: { width: number; height: number };
}

export interface MacApi {
  koffi: Koffi;
  // CoreFoundation
  CFRelease(r: Ref): void;
  CFRetain(r: Ref): Ref;
  CFGetTypeID(r: Ref): number | bigint;
  CFStringGetTypeID(): number | bigint;
  CFNumberGetTypeID(): number | bigint;
  CFBooleanGetTypeID(): number | bigint;
  CFDictionaryGetTypeID(): number | bigint;
  CFArrayGetTypeID(): number | bigint;
  CFArrayGetCount(a: Ref): number;
  CFArrayGetValueAtIndex(a: Ref, i: number): Ref;
  CFDictionaryGetCount(d: Ref): number;
  CFDictionaryGetKeysAndValues(d: Ref, keys: BigUint64Array, values: BigUint64Array): void;
  CFStringGetLength(s: Ref): number;
  CFStringGetMaximumSizeForEncoding(length: number, encoding: number): number;
  CFStringGetCString(s: Ref, buf: Buffer, size: number, encoding: number): boolean;
  CFStringCreateWithCString(alloc: Ref, s: string, encoding: number): Ref;
  CFNumberGetValue(n: Ref, type: number, out: Buffer): boolean;
  CFBooleanGetValue(b: Ref): boolean;
  kCFBooleanTrue: Ref;
  kCFBooleanFalse: Ref;
  // CoreGraphics: windows and displays
  CGWindowListCopyWindowInfo(option: number, relativeTo: number): Ref;
  CGGetActiveDisplayList(max: number, displays: Uint32Array, count: number[]): number;
  CGDisplayBounds(display: number): CGRect;
  CGDisplayCopyDisplayMode(display: number): Ref;
  CGDisplayModeGetWidth(mode: Ref): number;
  CGDisplayModeGetPixelWidth(mode: Ref): number;
  CGDisplayModeRelease(mode: Ref): void;
  // CoreGraphics: events
  CGEventSourceCreate(state: number): Ref;
  CGEventCreate(source: Ref): Ref;
  CGEventGetLocation(e: Ref): CGPoint;
  CGEventCreateKeyboardEvent(source: Ref, key: number, down: boolean): Ref;
  CGEventCreateMouseEvent(source: Ref, type: number, at: CGPoint, button: number): Ref;
  CGEventCreateScrollWheelEvent2(source: Ref, units: number, count: number, w1: number, w2: number, w3: number): Ref;
  CGEventSetFlags(e: Ref, flags: bigint): void;
  CGEventSetIntegerValueField(e: Ref, field: number, value: bigint): void;
  CGEventKeyboardSetUnicodeString(e: Ref, length: number, chars: Buffer): void;
  CGEventPost(tap: number, e: Ref): void;
  // Accessibility (HIServices)
  AXIsProcessTrusted(): boolean;
  AXUIElementCreateApplication(pid: number): Ref;
  AXUIElementCreateSystemWide(): Ref;
  AXUIElementCopyAttributeValue(e: Ref, attribute: Ref, out: Ref[]): number;
  AXUIElementSetAttributeValue(e: Ref, attribute: Ref, value: Ref): number;
  AXUIElementPerformAction(e: Ref, action: Ref): number;
  AXUIElementGetPid(e: Ref, pid: number[]): number;
  /** Private but long-stable (used by every macOS window manager): the CGWindowID of an AX window. */
  _AXUIElementGetWindow?: (e: Ref, id: number[]) => number;
}

export const kCFStringEncodingUTF8 = 0x08000100;
const kCFNumberFloat64Type = 6;

let api: MacApi | undefined;

export function macos(): MacApi {
  if (api) return api;
  if (process.platform !== 'darwin') throw new Error('the macOS backend runs on macOS only');
  api = bind(createRequire(import.meta.url)('koffi') as Koffi);
  return api;
}

function bind(koffi: Koffi): MacApi {
  const framework = (name: string) => koffi.load(`/System/Library/Frameworks/${name}.framework/${name}`);
  const cf = framework('CoreFoundation');
  const cg = framework('CoreGraphics');
  const ax = framework('ApplicationServices');
  koffi.struct('GP_CGPoint', { x: 'double', y: 'double' });
  koffi.struct('GP_CGSize', { width: 'double', height: 'double' });
  koffi.struct('GP_CGRect', { origin: 'GP_CGPoint', size: 'GP_CGSize' });
  const constant = (name: string): Ref => koffi.decode(cf.symbol(name), 'void *') as Ref;
  let getWindow: MacApi['_AXUIElementGetWindow'];
  try {
    getWindow = ax.func('int32_t _AXUIElementGetWindow(void *e, _Out_ uint32_t *id)');
  } catch {
    getWindow = undefined;
  }
  return {
    koffi,
    CFRelease: cf.func('void CFRelease(void *r)'),
    CFRetain: cf.func('void *CFRetain(void *r)'),
    CFGetTypeID: cf.func('uintptr_t CFGetTypeID(void *r)'),
    CFStringGetTypeID: cf.func('uintptr_t CFStringGetTypeID()'),
    CFNumberGetTypeID: cf.func('uintptr_t CFNumberGetTypeID()'),
    CFBooleanGetTypeID: cf.func('uintptr_t CFBooleanGetTypeID()'),
    CFDictionaryGetTypeID: cf.func('uintptr_t CFDictionaryGetTypeID()'),
    CFArrayGetTypeID: cf.func('uintptr_t CFArrayGetTypeID()'),
    CFArrayGetCount: cf.func('intptr_t CFArrayGetCount(void *a)'),
    CFArrayGetValueAtIndex: cf.func('void *CFArrayGetValueAtIndex(void *a, intptr_t i)'),
    CFDictionaryGetCount: cf.func('intptr_t CFDictionaryGetCount(void *d)'),
    CFDictionaryGetKeysAndValues: cf.func(
      'void CFDictionaryGetKeysAndValues(void *d, _Out_ uint64_t *keys, _Out_ uint64_t *values)',
    ),
    CFStringGetLength: cf.func('intptr_t CFStringGetLength(void *s)'),
    CFStringGetMaximumSizeForEncoding: cf.func('intptr_t CFStringGetMaximumSizeForEncoding(intptr_t n, uint32_t enc)'),
    CFStringGetCString: cf.func('bool CFStringGetCString(void *s, _Out_ uint8_t *buf, intptr_t size, uint32_t enc)'),
    CFStringCreateWithCString: cf.func('void *CFStringCreateWithCString(void *alloc, const char *s, uint32_t enc)'),
    CFNumberGetValue: cf.func('bool CFNumberGetValue(void *n, intptr_t type, _Out_ void *out)'),
    CFBooleanGetValue: cf.func('bool CFBooleanGetValue(void *b)'),
    kCFBooleanTrue: constant('kCFBooleanTrue'),
    kCFBooleanFalse: constant('kCFBooleanFalse'),
    CGWindowListCopyWindowInfo: cg.func('void *CGWindowListCopyWindowInfo(uint32_t option, uint32_t relativeTo)'),
    CGGetActiveDisplayList: cg.func(
      'int32_t CGGetActiveDisplayList(uint32_t max, _Out_ uint32_t *displays, _Out_ uint32_t *count)',
    ),
    CGDisplayBounds: cg.func('GP_CGRect CGDisplayBounds(uint32_t display)'),
    CGDisplayCopyDisplayMode: cg.func('void *CGDisplayCopyDisplayMode(uint32_t display)'),
    CGDisplayModeGetWidth: cg.func('size_t CGDisplayModeGetWidth(void *mode)'),
    CGDisplayModeGetPixelWidth: cg.func('size_t CGDisplayModeGetPixelWidth(void *mode)'),
    CGDisplayModeRelease: cg.func('void CGDisplayModeRelease(void *mode)'),
    CGEventSourceCreate: cg.func('void *CGEventSourceCreate(int32_t state)'),
    CGEventCreate: cg.func('void *CGEventCreate(void *source)'),
    CGEventGetLocation: cg.func('GP_CGPoint CGEventGetLocation(void *e)'),
    CGEventCreateKeyboardEvent: cg.func('void *CGEventCreateKeyboardEvent(void *source, uint16_t key, bool down)'),
    CGEventCreateMouseEvent: cg.func(
      'void *CGEventCreateMouseEvent(void *source, uint32_t type, GP_CGPoint at, uint32_t button)',
    ),
    CGEventCreateScrollWheelEvent2: cg.func(
      'void *CGEventCreateScrollWheelEvent2(void *source, uint32_t units, uint32_t count, int32_t w1, int32_t w2, int32_t w3)',
    ),
    CGEventSetFlags: cg.func('void CGEventSetFlags(void *e, uint64_t flags)'),
    CGEventSetIntegerValueField: cg.func('void CGEventSetIntegerValueField(void *e, uint32_t field, int64_t value)'),
    CGEventKeyboardSetUnicodeString: cg.func(
      'void CGEventKeyboardSetUnicodeString(void *e, uintptr_t length, const uint16_t *chars)',
    ),
    CGEventPost: cg.func('void CGEventPost(uint32_t tap, void *e)'),
    AXIsProcessTrusted: ax.func('bool AXIsProcessTrusted()'),
    AXUIElementCreateApplication: ax.func('void *AXUIElementCreateApplication(int32_t pid)'),
    AXUIElementCreateSystemWide: ax.func('void *AXUIElementCreateSystemWide()'),
    AXUIElementCopyAttributeValue: ax.func(
      'int32_t AXUIElementCopyAttributeValue(void *e, void *attribute, _Out_ void **out)',
    ),
    AXUIElementSetAttributeValue: ax.func(
      'int32_t AXUIElementSetAttributeValue(void *e, void *attribute, void *value)',
    ),
    AXUIElementPerformAction: ax.func('int32_t AXUIElementPerformAction(void *e, void *action)'),
    AXUIElementGetPid: ax.func('int32_t AXUIElementGetPid(void *e, _Out_ int32_t *pid)'),
    _AXUIElementGetWindow: getWindow,
  } as MacApi;
}

const strings = new Map<string, Ref>();
/** A CFString for a constant name ("AXWindows", "kCGWindowBounds"), made once and kept. */
export function cfString(s: string): Ref {
  let r = strings.get(s);
  if (r === undefined) {
    r = macos().CFStringCreateWithCString(null, s, kCFStringEncodingUTF8);
    strings.set(s, r);
  }
  return r;
}

/** A CoreFoundation value as plain JS: strings, numbers, booleans, dictionaries and arrays; other types as undefined. */
export function fromCF(r: Ref): unknown {
  if (!r) return undefined;
  const a = macos();
  const type = a.CFGetTypeID(r);
  if (type === a.CFStringGetTypeID()) {
    const size = a.CFStringGetMaximumSizeForEncoding(a.CFStringGetLength(r), kCFStringEncodingUTF8) + 1;
    const buf = Buffer.alloc(size);
    if (!a.CFStringGetCString(r, buf, size, kCFStringEncodingUTF8)) return undefined;
    return buf.toString('utf8', 0, buf.indexOf(0));
  }
  if (type === a.CFNumberGetTypeID()) {
    const out = Buffer.alloc(8);
    return a.CFNumberGetValue(r, kCFNumberFloat64Type, out) ? out.readDoubleLE(0) : undefined;
  }
  if (type === a.CFBooleanGetTypeID()) return a.CFBooleanGetValue(r);
  if (type === a.CFArrayGetTypeID()) {
    const n = a.CFArrayGetCount(r);
    return Array.from({ length: n }, (_, i) => fromCF(a.CFArrayGetValueAtIndex(r, i)));
  }
  if (type === a.CFDictionaryGetTypeID()) {
    const n = a.CFDictionaryGetCount(r);
    const keys = new BigUint64Array(n);
    const values = new BigUint64Array(n);
    a.CFDictionaryGetKeysAndValues(r, keys, values);
    const out: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) {
      const key = fromCF(keys[i]!);
      if (typeof key === 'string') out[key] = fromCF(values[i]!);
    }
    return out;
  }
  return undefined;
}
