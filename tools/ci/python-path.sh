#!/bin/sh
# Makes `import passage` work after `make run` / `make test` without a pip
# install: a passage-dev.pth file naming the checkout's python/ directory in
# the site-packages of Debian's /usr/bin/python3 and of the `python3` first on
# PATH (when that is another interpreter). The package then finds the
# library in build/release. Usage: python-path.sh /path/to/checkout/python
set -eu
dir=${1:?usage: python-path.sh PYTHON_DIR}
for py in /usr/bin/python3 "$(command -v python3 || true)"; do
  [ -n "$py" ] && [ -x "$py" ] || continue
  site=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' 2>/dev/null) || continue
  if ! { mkdir -p "$site" && [ -w "$site" ]; } 2>/dev/null; then
    site=$("$py" -c 'import site; print(site.getusersitepackages())') || continue
    mkdir -p "$site"
  fi
  echo "$dir" > "$site/passage-dev.pth"
done
