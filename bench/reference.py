#!/usr/bin/env python3
"""
A yardstick, not a dependency: the plain Python harness that Gamepilot's per-step overhead is
compared with (`gamepilot bench --compare`). It does the same work a step of the harness does
on the same screen region — capture, resize to a long side of 1024 (bilinear), JPEG quality 80,
one key press into the focused window — with the usual Python tools: Pillow's ImageGrab (XCB),
Pillow's resize and JPEG encoder, python-xlib's XTest over one connection.

Needs python3 with Pillow and python-xlib (Debian: python3-pil python3-xlib).

    python3 bench/reference.py --region X,Y,W,H [--iterations N] [--warmup N] [--long-side 1024]
                               [--quality 80] [--key Shift_L]

Prints one JSON object: per-iteration times in ms (capture, encode, input, total) and their
p50/p95, the encoded size, and the tools' versions.
"""
import argparse
import io
import json
import os
import sys
import time


def percentile(values, p):
    s = sorted(values)
    if not s:
        return 0.0
    k = (len(s) - 1) * p / 100.0
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--region", required=True, help="X,Y,W,H of the screen region to capture")
    ap.add_argument("--iterations", type=int, default=60)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--long-side", type=int, default=1024)
    ap.add_argument("--quality", type=int, default=80)
    ap.add_argument("--key", default="Shift_L", help="X keysym name of the key pressed each iteration")
    args = ap.parse_args()

    try:
        import PIL
        from PIL import Image, ImageGrab
        from Xlib import XK, X, display as xdisplay
        from Xlib.ext import xtest
    except ImportError as err:
        print(f"reference.py needs Pillow and python-xlib (Debian: python3-pil python3-xlib): {err}", file=sys.stderr)
        return 3

    x, y, w, h = (int(v) for v in args.region.split(","))
    bbox = (x, y, x + w, y + h)
    scale = min(1.0, args.long_side / max(w, h))
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    name = os.environ.get("DISPLAY")
    d = xdisplay.Display(name)
    keycode = d.keysym_to_keycode(XK.string_to_keysym(args.key))
    if not keycode:
        print(f"no key produces {args.key} on this keyboard", file=sys.stderr)
        return 2
    resample = Image.Resampling.BILINEAR if hasattr(Image, "Resampling") else Image.BILINEAR

    cap, enc, inp, tot, sizes = [], [], [], [], []
    for i in range(args.warmup + args.iterations):
        t0 = time.perf_counter()
        im = ImageGrab.grab(bbox=bbox, xdisplay=name)
        t1 = time.perf_counter()
        if size != im.size:
            im = im.resize(size, resample)
        buf = io.BytesIO()
        (im if im.mode == "RGB" else im.convert("RGB")).save(buf, "JPEG", quality=args.quality)
        t2 = time.perf_counter()
        xtest.fake_input(d, X.KeyPress, keycode)
        xtest.fake_input(d, X.KeyRelease, keycode)
        d.flush()
        t3 = time.perf_counter()
        if i < args.warmup:
            continue
        cap.append((t1 - t0) * 1000)
        enc.append((t2 - t1) * 1000)
        inp.append((t3 - t2) * 1000)
        tot.append((t3 - t0) * 1000)
        sizes.append(buf.tell())

    stat = lambda v: {"p50": round(percentile(v, 50), 2), "p95": round(percentile(v, 95), 2)}
    print(
        json.dumps(
            {
                "region": {"x": x, "y": y, "width": w, "height": h},
                "encoded": {"width": size[0], "height": size[1], "bytes_p50": percentile(sizes, 50)},
                "iterations": args.iterations,
                "capture_ms": stat(cap),
                "encode_ms": stat(enc),
                "input_ms": stat(inp),
                "total_ms": stat(tot),
                "samples_ms": [round(t, 3) for t in tot],
                "tools": {
                    "python": sys.version.split()[0],
                    "pillow": PIL.__version__,
                    "python-xlib": ".".join(str(v) for v in __import__("Xlib").__version__),
                },
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
