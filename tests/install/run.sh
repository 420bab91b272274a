#!/bin/sh
# Installs a build into a scratch prefix, then builds the README example as an
# out-of-tree user would, once with find_package(passage) and once with
# pkg-config, and runs both on the bundled model.
# Usage: run.sh BUILD_DIR SOURCE_DIR
set -eu
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" > /dev/null
libdir=$(find "$tmp/prefix" -name 'libpassage.so' -printf '%h\n' | head -n 1)
model="$src/examples/models/small_cnn.relay"

cmake -S "$src/tests/install" -B "$tmp/cmake" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
      -DEXAMPLE_SOURCE="$src/examples/c/quickstart.c" > /dev/null
cmake --build "$tmp/cmake" > /dev/null
LD_LIBRARY_PATH="$libdir" "$tmp/cmake/consumer" "$model" | grep -q 'def @main'
echo "find_package(passage): built and ran the README example"

PKG_CONFIG_PATH="$libdir/pkgconfig" cc -std=c11 -o "$tmp/pc" "$src/examples/c/quickstart.c" \
  $(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --define-variable=prefix="$tmp/prefix" --cflags --libs passage)
LD_LIBRARY_PATH="$libdir" "$tmp/pc" "$model" | grep -q 'def @main'
echo "pkg-config passage: built and ran the README example"
