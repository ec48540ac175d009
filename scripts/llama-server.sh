#!/usr/bin/env bash
# A real third-party OpenAI-compatible server for tests/real-server: llama.cpp's llama-server,
# built from the llama.cpp source that node-llama-cpp's npm package carries (the npm registry is
# all a CI machine can reach), plus a tiny random-weight vision-language model written by
# scripts/make-tiny-vlm.py, since no weights exist offline.
#
# Everything lands in a cache folder, keyed by the node-llama-cpp version (a later version builds
# anew next to the old one):
#   ${GAMEPILOT_LLAMA_CACHE:-$HOME/.cache/gamepilot-llama}/node-llama-cpp-<version>/
#     bin/llama-server  model/fake-vlm-text.gguf  model/fake-vlm-mmproj.gguf  BUILD-INFO
# Built only when missing (about 10 minutes on 2 cores), in a temporary folder next to it that is
# renamed into place at the end: a killed build never leaves a half cache. A lock file keeps two
# runs from building at once. Safe to re-run.
#
# Prints, on stdout, shell assignments for `eval`:
#   GAMEPILOT_LLAMA_SERVER=…  GAMEPILOT_LLAMA_MODEL=…  GAMEPILOT_LLAMA_MMPROJ=…
# Progress goes to stderr. Needs cmake, a C++ compiler, git and a python3 with numpy: when run
# as root on Debian the missing ones are installed with apt-get, otherwise the install line is
# printed and the script fails.
set -euo pipefail

VERSION="${GAMEPILOT_LLAMA_CPP_VERSION:-3.21.1}"
CACHE="${GAMEPILOT_LLAMA_CACHE:-$HOME/.cache/gamepilot-llama}"
DEST="$CACHE/node-llama-cpp-$VERSION"
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(dirname "$HERE")"
JOBS="${GAMEPILOT_LLAMA_JOBS:-$(nproc 2>/dev/null || echo 2)}"

say() { echo "llama-server.sh: $*" >&2; }

print_paths() {
  printf 'GAMEPILOT_LLAMA_SERVER=%q\n' "$DEST/bin/llama-server"
  printf 'GAMEPILOT_LLAMA_MODEL=%q\n' "$DEST/model/fake-vlm-text.gguf"
  printf 'GAMEPILOT_LLAMA_MMPROJ=%q\n' "$DEST/model/fake-vlm-mmproj.gguf"
}

complete() {
  [ -x "$DEST/bin/llama-server" ] && [ -s "$DEST/model/fake-vlm-text.gguf" ] &&
    [ -s "$DEST/model/fake-vlm-mmproj.gguf" ] && [ -f "$DEST/BUILD-INFO" ]
}

if complete; then
  print_paths
  exit 0
fi

mkdir -p "$CACHE"
# One build at a time; the second run waits, then finds the cache complete.
exec 9>"$CACHE/.lock"
if command -v flock >/dev/null && ! flock -n 9; then
  say "another build holds $CACHE/.lock: waiting for it"
  flock 9
fi
if complete; then
  print_paths
  exit 0
fi

# The generator of the tiny model: the checkout's, else the shared tools folder next to it.
MAKE_VLM="${GAMEPILOT_MAKE_TINY_VLM:-}"
for candidate in "$HERE/make-tiny-vlm.py" "$ROOT/../shared/tools/make-tiny-vlm.py"; do
  [ -n "$MAKE_VLM" ] && break
  [ -f "$candidate" ] && MAKE_VLM="$candidate"
done
if [ -z "$MAKE_VLM" ]; then
  say "make-tiny-vlm.py not found (set GAMEPILOT_MAKE_TINY_VLM)"
  exit 1
fi

# A python3 that imports numpy (pyenv's often has it; Debian's needs python3-numpy).
pick_python() {
  for py in "${GAMEPILOT_PYTHON:-}" python3 /usr/bin/python3; do
    [ -n "$py" ] && command -v "$py" >/dev/null && "$py" -c 'import numpy' 2>/dev/null && { echo "$py"; return 0; }
  done
  return 1
}

# Debian packages this build needs (also listed in scripts/system-packages.txt).
missing=()
command -v cmake >/dev/null || missing+=(cmake)
command -v g++ >/dev/null || missing+=(g++)
command -v git >/dev/null || missing+=(git)
command -v make >/dev/null || missing+=(make)
pick_python >/dev/null || missing+=(python3-numpy)
if [ ${#missing[@]} -gt 0 ]; then
  line="apt-get update && apt-get install -y ${missing[*]}"
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq "${missing[@]}" >&2
  else
    say "missing: ${missing[*]}; install them (as root) and run again: sudo sh -c '$line'"
    exit 1
  fi
fi
PYTHON="$(pick_python)"

# Leftovers of killed builds (we hold the lock, so no one else is using them).
rm -rf "$CACHE"/.tmp-* 2>/dev/null || true
TMP="$(mktemp -d "$CACHE/.tmp-node-llama-cpp-$VERSION.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT

t0=$(date +%s)
say "building llama-server from node-llama-cpp@$VERSION into $DEST (about 10 minutes on 2 cores)"
(cd "$TMP" && npm pack --silent --pack-destination "$TMP" "node-llama-cpp@$VERSION" >/dev/null)
tar xzf "$TMP"/node-llama-cpp-*.tgz -C "$TMP" package/llama/gitRelease.bundle
git -c advice.detachedHead=false clone --quiet "$TMP/package/llama/gitRelease.bundle" "$TMP/llama.cpp" >&2
rm -rf "$TMP/package" "$TMP"/node-llama-cpp-*.tgz
commit="$(git -C "$TMP/llama.cpp" rev-parse HEAD)"

# Static libraries: the binary depends on nothing in the build folder, so it survives the rename.
cmake -S "$TMP/llama.cpp" -B "$TMP/llama.cpp/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
  -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF >"$TMP/cmake-configure.log" 2>&1 ||
  { tail -40 "$TMP/cmake-configure.log" >&2; exit 1; }
cmake --build "$TMP/llama.cpp/build" -j"$JOBS" --target llama-server >"$TMP/cmake-build.log" 2>&1 ||
  { tail -60 "$TMP/cmake-build.log" >&2; exit 1; }
t1=$(date +%s)
say "llama-server built in $((t1 - t0)) s"

OUT="$TMP/out"
mkdir -p "$OUT/bin" "$OUT/model"
cp "$TMP/llama.cpp/build/bin/llama-server" "$OUT/bin/llama-server"
PYTHONPATH="$TMP/llama.cpp/gguf-py" "$PYTHON" "$MAKE_VLM" "$TMP/llama.cpp/models/ggml-vocab-qwen2.gguf" "$OUT/model" >&2
"$OUT/bin/llama-server" --version >/dev/null 2>&1 || { say "the built llama-server does not run"; exit 1; }
{
  echo "node-llama-cpp $VERSION"
  echo "llama.cpp $commit"
  echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ) in $((t1 - t0)) s with -j$JOBS"
  echo "model $(basename "$MAKE_VLM") with vocabulary models/ggml-vocab-qwen2.gguf"
} >"$OUT/BUILD-INFO"

rm -rf "$DEST"
mv "$OUT" "$DEST"
say "cache ready: $DEST ($(du -sh "$DEST" | cut -f1))"
print_paths
