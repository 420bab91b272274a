#!/usr/bin/python3
"""Self-test of run_bad.py (ctest `bad.selftest`): the runner must fail on
each kind of broken case, so that `bad` cannot pass vacuously.

A made-up area with a fake `passage` (a shell script) holds one good case and
one case per failure the runner must catch: a wrong exit status, a missing
stderr fragment, a silent non-zero exit, a timeout, a death by signal and an
allocation past the address-space cap. Each broken case alone must make the
runner fail and be named with its reason; the good case alone must pass; a
malformed manifest line and an empty corpus must fail too."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "run_bad.py")

FAKE = """#!/bin/sh
case "$1" in
  ok)      echo "error: bad input" >&2; exit 1 ;;
  silent)  exit 1 ;;
  sleep)   sleep 30 ;;
  abort)   echo "dying" >&2; kill -ABRT $$ ;;
  hog)     exec /usr/bin/python3 -c "import mmap; m = mmap.mmap(-1, 1536 << 20)" ;;
  arg)     test -f "$2" && echo "has $2" >&2 && exit 1; echo "missing $2" >&2; exit 3 ;;
esac
"""

CASES = {
    # name: (manifest line, reason the runner must give or None when the case passes)
    "good": ("good | 1 | bad input | ok", None),
    "good-subst": ("good-subst | 1 | has | arg %S/cases.txt", None),
    "wrong-exit": ("wrong-exit | 2 | bad input | ok", "exit 1, expected 2"),
    "no-fragment": ("no-fragment | 1 | no such words | ok", "stderr lacks 'no such words'"),
    "silent": ("silent | 1 | x | silent", "exit 1 with an empty stderr"),
    "timeout": ("timeout | 0 | | sleep", "timed out after 1 s"),
    "signal": ("signal | 1 | dying | abort", "killed by signal 6"),
    "memory": ("memory | 0 | | hog", "exit 1, expected 0"),
}


def run(area_lines, extra=()):
    with tempfile.TemporaryDirectory() as root:
        area = os.path.join(root, "fake")
        os.mkdir(area)
        fake = os.path.join(root, "passage")
        with open(fake, "w") as f:
            f.write(FAKE)
        os.chmod(fake, 0o755)
        with open(os.path.join(area, "cases.txt"), "w") as f:
            f.write("# made-up manifest\n" + "".join(line + "\n" for line in area_lines))
        p = subprocess.run([sys.executable, RUNNER, "--passage", fake, "--root", root, "--time-limit", "1",
                            *extra], capture_output=True, text=True)
        return p.returncode, p.stdout + p.stderr


def main():
    failures = []

    def check(what, ok, out):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)
            print("     runner output:\n     " + out.replace("\n", "\n     "))

    for name, (line, reason) in CASES.items():
        rc, out = run([line])
        if reason is None:
            check(f"{name}: passes", rc == 0 and "1 cases, 0 failed" in out, out)
        else:
            check(f"{name}: fails with '{reason}'",
                  rc != 0 and f"FAILED fake/{name}" in out and reason in out, out)
    rc, out = run([line for line, _ in CASES.values()])
    broken = sum(1 for _, r in CASES.values() if r)
    check(f"all together: {broken} of {len(CASES)} fail", rc != 0 and f"{len(CASES)} cases, {broken} failed" in out,
          out)
    rc, out = run(["good | 1 | bad input | ok", "no fields here"])
    check("malformed line fails", rc != 0 and "MANIFEST ERROR" in out, out)
    rc, out = run(["good | 1 | | ok"])
    check("non-zero exit without a fragment is refused", rc != 0 and "needs a stderr fragment" in out, out)
    rc, out = run(["good | 1 | bad input | ok", "good | 1 | bad input | ok"])
    check("duplicate names fail", rc != 0 and "is also on line" in out, out)
    rc, out = run([])
    check("an empty corpus fails", rc != 0 and "no cases found" in out, out)
    rc, out = run(["memory | 0 | | hog"], ["--sanitized"])
    check("no memory cap under --sanitized", rc == 0, out)
    print(f"selftest: {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
