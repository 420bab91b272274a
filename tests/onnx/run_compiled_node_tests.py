#!/usr/bin/python3
"""The ONNX backend node tests, compiled (issue 17): every test of Debian's
libonnx-testdata whose ops run_backend_tests.py lists as supported and that
the importer takes (inputs used as shapes frozen as there) is compiled by
`passage compile -O3 --emit-c tN.c --name tN` (the pipeline of `passage opt
-O3 --lower`, CodeGenC, the host function), the C files are built in batches
into shared libraries by the system C compiler with the flags of `passage
compile -o` plus -Wall -Wextra -Werror (a batch that does not build is rebuilt
file by file, to name the culprit), and each model is run through
tests/compile/model_driver.c --entry tN on every test_data_set_*. Every
output element must be within the project tolerance of the test's expected
output, |ours - ref| <= 1e-4 * max(|ref|, 1e-2) (integers and booleans
exactly). Prints compiled / supported by the importer / total and exits 1 on
any compile failure or mismatch among the supported tests that is not listed
in known_failures.txt (run_backend_tests.py's list: what fails there for a
reason outside the compiler fails here too) or compiled_known_failures.txt
(what the compiled path refuses or computes differently, with the reason). With --sanitize (the ASan
build) the driver and the libraries are built with ASan+UBSan.
Run with /usr/bin/python3."""
import argparse, collections, contextlib, concurrent.futures, glob, os, subprocess, sys, tempfile, time

import numpy as np
import onnx

from run_backend_tests import (ROOT, import_failure, import_frozen, read_dataset, read_known, run,
                               supported_tests)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
TOL, FLOOR = 1e-4, 1e-2
# passage compile -o's flags (src/codegen/compile_files.c) and the warnings the
# generated C must not raise
CFLAGS = ["-std=c99", "-O3", "-ffp-contract=fast", "-march=native", "-fPIC", "-Wall", "-Wextra", "-Werror"]
BATCH = 24  # C files per shared library


def workers():
    return max(1, os.cpu_count() or 1)


def prepare(passage, item, work):
    """Imports and compiles one test to C in work/tK.*; returns (status,
    detail, datasets): status in ok, unsupported, fail; datasets is a list of
    ({input name: array}, [expected arrays])."""
    key, (name, test_dir, ops) = item
    model_path = os.path.join(test_dir, "model.onnx")
    graph = onnx.load(model_path).graph
    inits = {x.name for x in graph.initializer}
    graph_inputs = [i.name for i in graph.input if i.name not in inits]
    try:
        datasets = [read_dataset(ds, graph_inputs) for ds in sorted(glob.glob(os.path.join(test_dir, "test_data_set_*")))]
    except ValueError as e:  # test data python-onnx cannot read as tensors (as run_backend_tests.py)
        return "unsupported", "test data: %s" % e, []
    if not datasets:
        return "fail", "no test data", []
    tmp = os.path.join(work, key + ".d")
    os.mkdir(tmp)
    inputs = dict(datasets[0][0])
    rc, out, path, _ = import_frozen(passage, model_path, inputs, tmp)
    if rc != 0:
        status, detail = import_failure(out)
        return status, detail, []
    # frozen inputs are constants of the model: the other data sets must agree
    kept = set(inputs)
    datasets = [({k: v for k, v in ins.items() if k in kept}, exp) for ins, exp in datasets]
    shapes = []
    for iname, arr in inputs.items():
        shapes += ["--input-shape", "%s=%s" % (iname, ",".join(map(str, arr.shape)))]
    rc, out = run([passage, "compile", path, "-O3", "--name", key, "--emit-c", os.path.join(work, key + ".c")] + shapes)
    if rc != 0:
        errors = [l for l in out.splitlines() if "error" in l] or out.strip().splitlines() or ["failed"]
        return "fail", "passage compile: " + errors[0], []
    return "ok", "", datasets


def build(cc, flags, sources, lib):
    p = subprocess.run([cc] + flags + ["-shared", "-o", lib] + sources + ["-lm"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    return p.returncode, p.stdout


def model_io(driver, lib, key):
    p = subprocess.run([driver, lib, "--entry", key, "info"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if p.returncode:
        raise RuntimeError("driver info: " + p.stderr.strip())
    ins, outs = [], []
    for line in p.stdout.splitlines():
        f = line.split(" ")
        if f[0] in ("input", "output"):
            shape = tuple(int(d) for d in f[4].split(",")) if len(f) > 4 and f[4] else ()
            (ins if f[0] == "input" else outs).append((f[1], f[2], shape))
    return ins, outs


def compare(got, exp):
    """'' when got matches the expected output, else why not."""
    if got.shape != exp.shape:
        return "shape %s, expected %s" % (got.shape, exp.shape)
    if got.dtype != exp.dtype:
        return "dtype %s, expected %s" % (got.dtype, exp.dtype)
    if exp.dtype.kind in "fc":
        g, e = got.astype(np.float64), exp.astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            err = np.abs(g - e) / np.maximum(np.abs(e), FLOOR)
        # NaN where NaN is expected and an infinity where it is expected are equal;
        # any other NaN (ours, or inf/inf from a finite value against an infinity) fails
        err = np.where((np.isnan(g) & np.isnan(e)) | (np.isinf(e) & (g == e)), 0.0, err)
        err = np.nan_to_num(err, nan=np.inf)
        worst = float(err.max()) if err.size else 0.0
        if worst > TOL:
            return "max |ours-ref|/max(|ref|,%g) %.3g" % (FLOOR, worst)
        return ""
    if not np.array_equal(got, exp):
        return "differs (%d of %d elements)" % (int(np.sum(got != exp)), got.size)
    return ""


def run_one(driver, lib, key, datasets, work):
    """'' when every data set's outputs match, else the first mismatch."""
    ins, outs = model_io(driver, lib, key)
    for d, (inputs, expected) in enumerate(datasets):
        if sorted(n for n, _, _ in ins) != sorted(inputs) or len(outs) != len(expected):
            return "the library takes %s and gives %d outputs; the test has %s and %d" % (
                [n for n, _, _ in ins], len(outs), sorted(inputs), len(expected))
        files = []
        for i, (iname, dtype, shape) in enumerate(ins):
            f = os.path.join(work, "%s.in%d" % (key, i))
            arr = inputs[iname]
            if arr.dtype != np.dtype(dtype) or arr.shape != shape:
                return "input %s: the library takes %s%s, the test gives %s%s" % (
                    iname, dtype, list(shape), arr.dtype, list(arr.shape))
            np.ascontiguousarray(arr).tofile(f)
            files.append(f)
        got_files = [os.path.join(work, "%s.out%d" % (key, k)) for k in range(len(outs))]
        p = subprocess.run([driver, lib, "--entry", key, "run"] + files + ["--"] + got_files,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=300)
        if p.returncode:
            return "data set %d: running: %s" % (d, p.stderr.strip()[-500:])
        for k, ((oname, dtype, shape), exp) in enumerate(zip(outs, expected)):
            got = np.fromfile(got_files[k], dtype=np.dtype(dtype)).reshape(shape)
            why = compare(got, exp)
            if why:
                return "data set %d, output %d: %s" % (d, k, why)
    return ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--passage", required=True)
    ap.add_argument("--known-failures", action="append",
                    default=[os.path.join(HERE, "known_failures.txt"), os.path.join(HERE, "compiled_known_failures.txt")])
    ap.add_argument("--sets", default="node")
    ap.add_argument("-k", default="", help="only tests whose name contains this")
    ap.add_argument("--sanitize", type=int, nargs="?", const=1, default=0, choices=(0, 1),
                    help="1 (or the bare flag): build the driver and the libraries with ASan+UBSan")
    ap.add_argument("--keep", default="", help="work in this (new) directory and leave the C files there")
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args()
    t_start = time.time()
    cc = os.environ.get("CC", "cc")
    san = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-g"] if args.sanitize else []
    known = {}
    for path in args.known_failures:
        known.update(read_known(path))
    total = sum(len(glob.glob(os.path.join(ROOT, s, "test_*"))) for s in args.sets.split(","))
    todo, _, _ = supported_tests(args.sets.split(","), args.k)
    results = {}  # name -> (status, detail)
    if args.keep:
        os.makedirs(args.keep)
    with tempfile.TemporaryDirectory() if not args.keep else contextlib.nullcontext(args.keep) as work:
        driver = os.path.join(work, "model_driver")
        p = subprocess.run([cc, "-std=c99", "-O1", "-I", os.path.join(REPO, "include")] + san +
                           [os.path.join(REPO, "tests", "compile", "model_driver.c"), "-o", driver, "-ldl"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        if p.returncode:
            print("FAIL building the driver: " + p.stdout)
            return 1
        keyed = [("t%d" % i, item) for i, item in enumerate(todo)]
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers()) as pool:
            prepared = list(pool.map(lambda it: prepare(args.passage, it, work), keyed))
        t_prepared = time.time()
        ready = []
        for (key, (name, _, _)), (status, detail, datasets) in zip(keyed, prepared):
            if status == "ok":
                ready.append((key, name, datasets))
            else:
                results[name] = (status, detail)
        # build in batches, in parallel; a batch that fails is rebuilt file by file
        batches = [ready[i:i + BATCH] for i in range(0, len(ready), BATCH)]

        def build_batch(b):
            idx, batch = b
            lib = os.path.join(work, "lib%d.so" % idx)
            rc, out = build(cc, CFLAGS + san, [os.path.join(work, key + ".c") for key, _, _ in batch], lib)
            if rc == 0:
                return {key: (lib, "") for key, _, _ in batch}
            libs = {}
            for key, _, _ in batch:
                one = os.path.join(work, key + ".so")
                rc, out = build(cc, CFLAGS + san, [os.path.join(work, key + ".c")], one)
                errors = [l for l in out.splitlines() if "error" in l] or out.strip().splitlines() or ["cc failed"]
                libs[key] = (one, "") if rc == 0 else (None, errors[0])
            return libs

        libs = {}
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers()) as pool:
            for part in pool.map(build_batch, enumerate(batches)):
                libs.update(part)
        t_built = time.time()

        def check(r):
            key, name, datasets = r
            lib, why = libs[key]
            if lib is None:
                return name, ("fail", "cc: " + why)
            try:
                why = run_one(driver, lib, key, datasets, work)
            except (RuntimeError, subprocess.TimeoutExpired, ValueError) as e:
                why = str(e)
            return name, ("fail", why) if why else ("pass", "")

        with concurrent.futures.ThreadPoolExecutor(max_workers=workers()) as pool:
            for name, res in pool.map(check, ready):
                results[name] = res
        t_ran = time.time()
    counts = collections.Counter()
    failures = 0
    for name, _, _ in todo:
        status, detail = results[name]
        if status == "fail" and name in known:
            status = "known"
        counts[status] += 1
        if status == "fail":
            failures += 1
        if status == "fail" or (args.v and status != "pass"):
            print("%-11s %s %s" % (status.upper(), name, detail), flush=True)
    supported = counts["pass"] + counts["fail"] + counts["known"]
    print("\ncompiled node tests: %d passed / %d supported by the importer / %d in total "
          "(%d known failures, %d failed, %d of the supported ops' variants refused by the importer, "
          "%d with unsupported ops)" % (counts["pass"], supported, total, counts["known"], counts["fail"],
                                        counts["unsupported"], total - len(todo)))
    print("time: %.1f s import + passage compile, %.1f s cc (%d libraries), %.1f s runs, %.1f s in all" % (
        t_prepared - t_start, t_built - t_prepared, len(batches), t_ran - t_built, t_ran - t_start))
    return 1 if failures else 0

if __name__ == "__main__":
    sys.exit(main())
