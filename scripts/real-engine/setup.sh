#!/usr/bin/env bash
# Builds llama.cpp's llama-server (the real engine of `npm run test:real`) into a cache directory
# outside the repository, and reuses it when it is already there.
#
#   scripts/real-engine/setup.sh            # build if missing; print the binary's path last
#
# Environment:
#   SERVEBENCH_REAL_DIR   cache directory (default $HOME/.cache/servebench/real-engine)
#   SERVEBENCH_REAL_JOBS  parallel compile jobs (default: nproc)
#
# Source: the npm package node-llama-cpp@3.21.1 carries the full llama.cpp source as a git bundle
# (package/llama/gitRelease.bundle, llama.cpp commit 80fb11a). `npm pack` fetches the tarball
# without installing anything. The compiler output goes to $DIR/build.log, not the console.
set -euo pipefail

NLC_VERSION=3.21.1
DIR=${SERVEBENCH_REAL_DIR:-$HOME/.cache/servebench/real-engine}
JOBS=${SERVEBENCH_REAL_JOBS:-$(nproc)}
SRC=$DIR/llama.cpp
BUILD=$SRC/build
BIN=$BUILD/bin/llama-server
LOG=$DIR/build.log

say() { printf '[real-engine] %s\n' "$*" >&2; }
now() { date +%s; }

mkdir -p "$DIR"

# One setup at a time per cache directory (two CI jobs sharing a cache must not build twice).
exec 9>"$DIR/.setup.lock"
if command -v flock >/dev/null 2>&1; then flock 9; fi

engine_ok() {
  [ -x "$BIN" ] && [ -f "$SRC/models/ggml-vocab-phi-3.gguf" ] && (cd "$BUILD/bin" && ./llama-server --version >/dev/null 2>&1)
}

if engine_ok; then
  say "llama-server cached: $BIN ($(cd "$BUILD/bin" && ./llama-server --version 2>&1 | grep -m1 -o 'version: .*' || true))"
  printf '%s\n' "$BIN"
  exit 0
fi

t0=$(now)
say "building llama-server into $DIR (first time: about 9-14 minutes on 2 cores; log: $LOG)"
: >"$LOG"

# 1. Debian packages, only the missing ones.
need=()
for pair in cmake:cmake g++:g++ git:git ccache:ccache make:make tar:tar; do
  cmd=${pair%%:*}; pkg=${pair#*:}
  command -v "$cmd" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  say "installing Debian packages: ${need[*]}"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq >>"$LOG" 2>&1
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >>"$LOG" 2>&1
fi

# 2. The llama.cpp source, from the npm tarball's git bundle.
if [ ! -f "$SRC/CMakeLists.txt" ]; then
  tgz=$DIR/node-llama-cpp-$NLC_VERSION.tgz
  if [ ! -f "$tgz" ]; then
    say "npm pack node-llama-cpp@$NLC_VERSION"
    (cd "$DIR" && npm pack -q "node-llama-cpp@$NLC_VERSION" >>"$LOG" 2>&1)
  fi
  rm -rf "$DIR/package" "$SRC"
  tar -xzf "$tgz" -C "$DIR" package/llama/gitRelease.bundle
  git clone -q "$DIR/package/llama/gitRelease.bundle" "$SRC" >>"$LOG" 2>&1
  rm -rf "$DIR/package"
  say "llama.cpp source at commit $(git -C "$SRC" rev-parse --short HEAD)"
fi

# 3. Configure and build only the server target.
launcher=()
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_DIR=${CCACHE_DIR:-$DIR/ccache}
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
say "cmake configure"
cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
  -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF \
  -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF "${launcher[@]}" >>"$LOG" 2>&1 \
  || { say "cmake configure failed; last lines of $LOG:"; tail -n 30 "$LOG" >&2; exit 1; }
say "cmake --build --target llama-server -j$JOBS"
cmake --build "$BUILD" --target llama-server -j"$JOBS" >>"$LOG" 2>&1 \
  || { say "build failed; last lines of $LOG:"; tail -n 30 "$LOG" >&2; exit 1; }

if ! engine_ok; then
  say "built, but $BIN --version does not run; see $LOG"
  exit 1
fi
say "llama-server built in $(( $(now) - t0 )) s: $BIN"
printf '%s\n' "$BIN"
