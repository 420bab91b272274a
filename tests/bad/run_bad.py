#!/usr/bin/python3
"""The hostile-input corpus runner (issue 14; ctest `bad`).

Runs every case of every tests/bad/<area>/cases.txt against the `passage`
binary, each under a wall-time limit and (outside sanitizer builds) an
address-space limit, and fails when any case

  - exits with a status other than the one its manifest line gives,
  - exits non-zero with an empty stderr (every failure must say why),
  - does not have its required fragment in stderr,
  - runs past the time limit (the process group is killed),
  - dies of a signal, or
  - peaks above the memory cap (ru_maxrss of the child).

Manifest lines: NAME | EXIT | STDERR_FRAGMENT | ARGS  ('#' starts a comment
line). ARGS is split on spaces; %S is the case folder, %t a fresh temporary
folder for this case (both also in STDERR_FRAGMENT, which cannot hold '|').
Under --sanitized, ASAN_OPTIONS gets allocator_may_return_null=1: a huge
allocation fails as it does under the address-space cap. See docs/testing.md.

usage: run_bad.py --passage BIN [--root DIR] [--sanitized] [--time-limit S]
                  [--mem-limit-mib M] [--only SUBSTRING]
"""
import argparse
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

MIB = 1 << 20


class Case:
    def __init__(self, area, folder, lineno, name, status, fragment, args):
        self.area, self.folder, self.lineno = area, folder, lineno
        self.name, self.status, self.fragment, self.args = name, status, fragment, args

    @property
    def id(self):
        return f"{self.area}/{self.name}"


def parse_manifest(path, area):
    """The cases of one cases.txt, and the errors in its lines."""
    cases, errors = [], []
    folder = os.path.dirname(os.path.abspath(path))
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            where = f"{path}:{lineno}"
            fields = [x.strip() for x in text.split("|", 3)]
            if len(fields) != 4:
                errors.append(f"{where}: expected NAME | EXIT | STDERR_FRAGMENT | ARGS")
                continue
            name, status, fragment, args = fields
            if not name or " " in name:
                errors.append(f"{where}: the case name must be one word")
                continue
            try:
                status = int(status)
            except ValueError:
                errors.append(f"{where}: EXIT '{status}' is not an integer")
                continue
            if status != 0 and not fragment:
                errors.append(f"{where}: a case with a non-zero exit needs a stderr fragment")
                continue
            cases.append(Case(area, folder, lineno, name, status, fragment, args.split()))
    return cases, errors


def collect(root, only):
    cases, errors, seen = [], [], {}
    for area in sorted(os.listdir(root)):
        manifest = os.path.join(root, area, "cases.txt")
        if not os.path.isfile(manifest):
            continue
        got, errs = parse_manifest(manifest, area)
        errors += errs
        for c in got:
            if c.id in seen:
                errors.append(f"{manifest}:{c.lineno}: case '{c.id}' is also on line {seen[c.id]}")
            seen[c.id] = c.lineno
            if only is None or only in c.id:
                cases.append(c)
    return cases, errors


def limit_child(mem_bytes):
    """preexec_fn: own process group (so a timeout kills all of it), no core
    files, and the address-space cap when there is one."""
    os.setsid()
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if mem_bytes:
        resource.setrlimit(resource.RLIMIT_AS, (mem_bytes, mem_bytes))


def run_case(case, passage, time_limit, mem_bytes):
    """Runs one case; returns (list of failure reasons, exit status, seconds, peak MiB)."""
    tmp = tempfile.mkdtemp(prefix="passage-bad-")
    try:
        args = [a.replace("%S", case.folder).replace("%t", tmp) for a in case.args]
        with open(os.path.join(tmp, ".stdout"), "w+b") as out, open(os.path.join(tmp, ".stderr"), "w+b") as err:
            start = time.monotonic()
            proc = subprocess.Popen([passage] + args, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                    cwd=tmp, preexec_fn=lambda: limit_child(mem_bytes))
            timed_out = False
            while True:
                pid, wstatus, usage = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    break
                if time.monotonic() - start > time_limit:
                    timed_out = True
                    os.killpg(proc.pid, signal.SIGKILL)
                    pid, wstatus, usage = os.wait4(proc.pid, 0)
                    break
                time.sleep(0.002)
            seconds = time.monotonic() - start
            proc.returncode = 0  # reaped by wait4 above: keep Popen from waiting again
            err.seek(0)
            stderr = err.read().decode("utf-8", "replace")
        peak_mib = usage.ru_maxrss / 1024.0  # ru_maxrss is in KiB on Linux
        reasons = []
        if timed_out:
            reasons.append(f"timed out after {time_limit:g} s")
        elif os.WIFSIGNALED(wstatus):
            reasons.append(f"killed by signal {os.WTERMSIG(wstatus)} ({signal.Signals(os.WTERMSIG(wstatus)).name})")
        else:
            status = os.WEXITSTATUS(wstatus)
            if status != case.status:
                reasons.append(f"exit {status}, expected {case.status}")
            if status != 0 and not stderr.strip():
                reasons.append(f"exit {status} with an empty stderr")
        fragment = case.fragment.replace("%S", case.folder).replace("%t", tmp)
        if fragment and fragment not in stderr:
            reasons.append(f"stderr lacks '{case.fragment}'")
        if mem_bytes and usage.ru_maxrss * 1024 > mem_bytes:
            reasons.append(f"peak memory {peak_mib:.0f} MiB over the cap")
        if reasons and stderr.strip():
            reasons.append("stderr was:\n    " + "\n    ".join(stderr.rstrip("\n").split("\n")[:12]))
        status = "sig" if timed_out or os.WIFSIGNALED(wstatus) else os.WEXITSTATUS(wstatus)
        return reasons, status, seconds, peak_mib
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--passage", required=True, help="the passage binary")
    ap.add_argument("--root", default=here, help="the folder of the areas (default: this script's)")
    ap.add_argument("--sanitized", action="store_true",
                    help="ASan build: no address-space cap (ASan reserves terabytes of shadow), "
                         "and the time limit x10 unless --time-limit is given")
    ap.add_argument("--time-limit", type=float, default=None, help="seconds per case (default 2)")
    ap.add_argument("--mem-limit-mib", type=int, default=1024, help="address-space cap per case (default 1024)")
    ap.add_argument("--only", default=None, help="run only the cases whose AREA/NAME contains this")
    opt = ap.parse_args()

    time_limit = opt.time_limit if opt.time_limit is not None else (20.0 if opt.sanitized else 2.0)
    mem_bytes = 0 if opt.sanitized else opt.mem_limit_mib * MIB
    if opt.sanitized:
        asan = os.environ.get("ASAN_OPTIONS", "")
        os.environ["ASAN_OPTIONS"] = (asan + ":" if asan else "") + "allocator_may_return_null=1"
    passage = os.path.abspath(opt.passage)
    cases, errors = collect(opt.root, opt.only)
    for e in errors:
        print(f"MANIFEST ERROR {e}")
    if not cases:
        print(f"bad: no cases found under {opt.root}")
        return 1

    failed, max_time, max_mem = [], (0.0, ""), (0.0, "")
    for c in cases:
        reasons, status, seconds, mib = run_case(c, passage, time_limit, mem_bytes)
        max_time = max(max_time, (seconds, c.id))
        max_mem = max(max_mem, (mib, c.id))
        verdict = "FAIL" if reasons else "ok  "
        print(f"{verdict} {c.id:<48} exit {status:<3} {seconds:6.3f} s {mib:7.1f} MiB", flush=True)
        for r in reasons:
            print(f"     {r}")
        if reasons:
            failed.append(c)
    cap = f"{opt.mem_limit_mib} MiB" if mem_bytes else "off (sanitized build)"
    print(f"bad: {len(cases)} cases, {len(failed)} failed; limits {time_limit:g} s and {cap}; "
          f"max time {max_time[0]:.3f} s ({max_time[1]}), max memory {max_mem[0]:.1f} MiB ({max_mem[1]})")
    for c in failed:
        print(f"FAILED {c.id} ({os.path.join(c.folder, 'cases.txt')}:{c.lineno})")
    return 1 if failed or errors else 0


if __name__ == "__main__":
    sys.exit(main())
