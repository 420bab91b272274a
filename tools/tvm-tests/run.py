#!/usr/bin/env python3
"""Runs TVM v0.19's own Python tests through the rename-only `tvm` shim and
prints their pass rate per file (issue 18; docs/tvm-tests.md).

The test files are never part of this repository: they are copied from a TVM
checkout (--tvm-tests) into a temporary directory outside it, where pytest
runs each one in its own process and writes a JUnit report. Every test id is
then passed, failed, skipped (by TVM's own skip or xfail marks) or out of
scope, the last by the patterns in out-of-scope.txt beside this script (each
with its reason). The only change a scratch copy may get is the one that
file allows: deleting module-level imports of out-of-scope modules, listed
there as `drop-import` lines (docs/design.md, departure "TVM tests").

    tools/tvm-tests/run.py                       # the table for files.txt
    tools/tvm-tests/run.py relay/test_const.py   # some files only
    tools/tvm-tests/run.py --failures            # and every failure's first line
"""

import argparse
import ast
import fnmatch
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

# Written into the scratch directory: a per-test time limit (pytest-timeout
# is not installed here). A test over it fails with TimeoutError.
CONFTEST = '''
import signal
import pytest

LIMIT = int(__import__("os").environ.get("TVM_TESTS_LIMIT", "120"))


def _expire(signum, frame):
    raise TimeoutError("over the %d s per-test limit of tools/tvm-tests/run.py" % LIMIT)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    old = signal.signal(signal.SIGALRM, _expire)
    signal.alarm(LIMIT)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
'''


def read_list(path):
    """Lines of a list file without comments and blanks."""
    out = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                out.append(line)
    return out


class Scope:
    """out-of-scope.txt: `PATTERN | reason` (an fnmatch pattern over test ids
    `FILE::TEST` or `FILE::CLASS::TEST`, parameters in brackets) and
    `drop-import FILE MODULE | reason`."""

    def __init__(self, path):
        self.patterns = []       # (pattern, reason)
        self.imports = {}        # file -> [module or module.name]
        self.defs = {}           # file -> [name]
        for line in read_list(path):
            what, _, reason = line.partition("|")
            what, reason = what.strip(), reason.strip()
            if not reason:
                raise SystemExit("%s: no reason given for %r" % (path, what))
            if what.startswith(("drop-import ", "drop-def ")):
                kind, file, name = what.split()
                table = self.imports if kind == "drop-import" else self.defs
                table.setdefault(file, []).append(name)
            else:
                self.patterns.append((what, reason))

    def reason(self, test_id):
        # A bare name matches every parameter set of that test.
        base = test_id.split("[", 1)[0]
        for pat, why in self.patterns:
            if fnmatch.fnmatchcase(test_id, pat) or fnmatch.fnmatchcase(base, pat):
                return why
        return None


def drop_statements(source, imports, defs):
    """The source without (a) its module-level imports of the modules or
    `module.name`s in `imports` (one name of a `from` import goes alone, the
    others stay) and (b) its module-level definitions (assignment, function,
    class, and the module-level method calls on them that finish the
    definition) of the names in `defs`. Every entry must match something."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    used = set()

    def under(name):
        for m in imports:
            if name == m or name.startswith(m + "."):
                used.add(m)
                return True
        return False

    def replace(node, text):
        first = node.lineno - 1
        if getattr(node, "decorator_list", None):
            first = node.decorator_list[0].lineno - 1
        for i in range(first, node.end_lineno):
            lines[i] = "\n"
        lines[first] = text + "\n"

    for node in tree.body:
        if isinstance(node, ast.Import):
            keep = [a for a in node.names if not under(a.name)]
            if len(keep) != len(node.names):
                replace(node, "import " + ", ".join(
                    a.name + (" as " + a.asname if a.asname else "") for a in keep) if keep else "pass")
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            if under(node.module):
                replace(node, "pass")
                continue
            keep = [a for a in node.names if not under(node.module + "." + a.name)]
            if len(keep) != len(node.names):
                replace(node, "from %s import %s" % (node.module, ", ".join(
                    a.name + (" as " + a.asname if a.asname else "") for a in keep)) if keep else "pass")
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in defs:
            used.add(node.name)
            replace(node, "pass")
        elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id in defs for t in node.targets):
            used.update(t.id for t in node.targets if isinstance(t, ast.Name))
            replace(node, "pass")
        elif (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
              and isinstance(node.value.func, ast.Attribute)
              and isinstance(node.value.func.value, ast.Name) and node.value.func.value.id in defs):
            # `core.import_from_std(...)`: a method call on a dropped name
            # finishes its definition and goes with it.
            replace(node, "pass")
    unused = (set(imports) | set(defs)) - used
    if unused:
        raise SystemExit("drop-import/drop-def matches nothing: %s" % ", ".join(sorted(unused)))
    return "".join(lines)


def static_tests(source, rel):
    """Test ids found without importing the file (for a file that fails at
    import): top-level `test_*` functions and `test_*` methods of `Test*`
    classes, parameters not expanded."""
    ids = []
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            ids.append("%s::%s" % (rel, node.name))
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            for sub in node.body:
                if isinstance(sub, ast.FunctionDef) and sub.name.startswith("test"):
                    ids.append("%s::%s::%s" % (rel, node.name, sub.name))
            if any(b for b in node.bases if getattr(b, "attr", "") == "CompareBeforeAfter"):
                ids.append("%s::%s::test_compare" % (rel, node.name))
    return ids


def first_line(text):
    for line in (text or "").splitlines():
        if line.startswith("E "):
            return line[1:].strip()
    return (text or "").strip().splitlines()[0] if (text or "").strip() else ""


def junit_results(path, rel):
    """[(test id, outcome, message)] from a JUnit report; outcome is
    passed / failed / skipped / xfail, or collect when the file did not
    import."""
    out = []
    root = ET.parse(path).getroot()
    for case in root.iter("testcase"):
        cls, name = case.get("classname", ""), case.get("name", "")
        parts = cls.split(".")[1:] if cls else []
        tid = "::".join([rel] + parts + [name])
        outcome, msg = "passed", ""
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "collect" if not cls else "failed"
                msg = first_line(child.text) or child.get("message", "")
                break
            if child.tag == "skipped":
                xfail = child.get("type") == "pytest.xfail"
                outcome = "xfail" if xfail else "skipped"
                msg = child.get("message", "")
        out.append((tid, outcome, msg))
    return out


def run_file(rel, args, scope, work):
    src = os.path.join(args.tvm_tests, rel)
    with open(src) as f:
        source = f.read()
    dest = os.path.join(work, rel)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    if rel in scope.imports or rel in scope.defs:
        source = drop_statements(source, scope.imports.get(rel, []), scope.defs.get(rel, []))
    with open(dest, "w") as f:
        f.write(source)
    report = os.path.join(work, rel.replace("/", "__") + ".xml")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([args.shim, os.path.join(args.root, "python")])
    env["TVM_TESTS_LIMIT"] = str(args.limit)
    if args.library:
        env["PASSAGE_LIBRARY"] = args.library
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--junitxml", report,
           "--rootdir", os.path.dirname(dest), os.path.basename(dest)]
    try:
        proc = subprocess.run(cmd, cwd=os.path.dirname(dest), env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=args.file_limit)
        log = proc.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        log = "file over its %d s limit" % args.file_limit
    results = junit_results(report, rel) if os.path.exists(report) else []
    collected = list(results)
    if not results or any(o == "collect" for _, o, _ in results):
        msg = next((m for _, o, m in results if o == "collect"), "") or log.strip().splitlines()[-1]
        results = [(t, "collect", msg) for t in static_tests(source, rel)]
        if not static_tests(source, rel):
            # A file of module-level asserts and no test function is one test.
            ok = not any(o == "collect" for _, o, _ in collected) and "no tests ran" in log
            results = [(rel + "::<module>", "passed" if ok else "collect", "" if ok else msg)]
    # A test whose definition was dropped still counts (it must be out of scope).
    for name in scope.defs.get(rel, []):
        if name.startswith("test"):
            tid = "%s::%s" % (rel, name)
            if scope.reason(tid) is None:
                raise SystemExit("%s: drop-def of a test that is not out of scope" % tid)
            results.append((tid, "dropped", ""))
    return results


def classify(results, scope):
    rows = {"passed": [], "failed": [], "scope": [], "skipped": []}
    for tid, outcome, msg in results:
        why = scope.reason(tid)
        if why is not None:
            rows["scope"].append((tid, why))
        elif outcome in ("passed", "xfail"):
            rows["passed"].append((tid, outcome))
        elif outcome == "skipped":
            rows["skipped"].append((tid, msg))
        else:
            rows["failed"].append((tid, msg if outcome == "failed" else "import: " + msg))
    return rows


def rate(p, f):
    return "%.0f%%" % (100.0 * p / (p + f)) if p + f else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", help="test files relative to --tvm-tests (default: files.txt)")
    ap.add_argument("--tvm-tests", default="/work/scratch/tvm19/tests/python",
                    help="TVM's tests/python directory (read only)")
    ap.add_argument("--shim", default=os.path.join(HERE, "shim"), help="directory holding the tvm shim (default: shim/ beside this script)")
    ap.add_argument("--root", default=REPO, help="the Passage checkout whose python/ is tested")
    ap.add_argument("--library", help="libpassage.so to load (default: the checkout's release build)")
    ap.add_argument("--limit", type=int, default=120, help="seconds per test")
    ap.add_argument("--file-limit", type=int, default=1800, help="seconds per file")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    ap.add_argument("--failures", action="store_true", help="list every failure with its first line")
    ap.add_argument("--scope", action="store_true", help="list every out-of-scope test with its reason")
    args = ap.parse_args()

    scope = Scope(os.path.join(HERE, "out-of-scope.txt"))
    files = args.files or read_list(os.path.join(HERE, "files.txt"))
    work = tempfile.mkdtemp(prefix="passage-tvm-tests-")
    if os.path.realpath(work).startswith(os.path.realpath(REPO) + os.sep):
        raise SystemExit("the scratch directory must be outside the repository")
    with open(os.path.join(work, "conftest.py"), "w") as f:
        f.write(CONFTEST)

    table, details = [], []
    try:
        for rel in files:
            rows = classify(run_file(rel, args, scope, work), scope)
            table.append((rel, len(rows["passed"]), len(rows["failed"]), len(rows["scope"]),
                          len(rows["skipped"])))
            details.append((rel, rows))
            print("ran %s" % rel, file=sys.stderr, flush=True)
    finally:
        if args.keep:
            print("scratch directory: %s" % work, file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)

    print("| file | passed | failed | out of scope | skipped | rate |")
    print("|---|---:|---:|---:|---:|---:|")
    tp = tf = ts = tk = 0
    for rel, p, f, s, k in table:
        print("| %s | %d | %d | %d | %d | %s |" % (rel, p, f, s, k, rate(p, f)))
        tp, tf, ts, tk = tp + p, tf + f, ts + s, tk + k
    print("| **total** | %d | %d | %d | %d | **%s** |" % (tp, tf, ts, tk, rate(tp, tf)))
    if args.failures:
        print()
        for rel, rows in details:
            for tid, msg in rows["failed"]:
                print("FAILED %s: %s" % (tid, msg[:200]))
    if args.scope:
        print()
        for rel, rows in details:
            for tid, why in rows["scope"]:
                print("SCOPE %s: %s" % (tid, why))


if __name__ == "__main__":
    main()
