#!/usr/bin/python3
"""ONNX -> lowered TIR benchmark (issue 16), everything in one run:

1. per real model (tools/fetch-models.sh): our ONNX import, the Relay -O3
   pipeline, LowerTE and tir.default_pipeline (with its slowest passes), all
   from one in-process run of bench_onnx_lower (import, then
   `sequential(O3,lower)` under the pass timing instrument; median of --runs
   runs by total), against ONNX Runtime's whole session creation with all
   graph optimizations (bench/onnx_ort_opt.js: 'all', and 'all' minus
   'disabled' = its optimization alone; median of --runs sessions).
   ratio = ORT session 'all' / our whole path (import + O3 + lower): > 1 means
   our ONNX -> lowered TIR path is faster than ORT's session creation.
2. tir.default_pipeline on a generated PrimFunc of 1e4, 1e5 and 1e6
   statements (bench_tir_pipeline): statements/s of each pass and of the
   whole pipeline, to show whether they scale linearly.

With --compare OTHER_BUILD, each model is also run by that build's
bench_onnx_lower in the same run, right before ours (a before/after pair
under the same machine load): columns "before total" and "before CPU".
OTHER_BUILD must hold a bench_onnx_lower that loads its own build's
libpassage: a build tree does (RUNPATH), but a binary copied elsewhere still
finds the build tree it came from, so run copies through a wrapper script
named bench_onnx_lower that sets LD_LIBRARY_PATH to the copies' folder.

Prints Markdown tables (the ones in bench/README.md).
Usage: bench/onnx_lower_bench.py --build build/release [--runs N] [--quick] [--only NAME] [--sizes 1e4,1e5,1e6]
       [--compare OTHER_BUILD]"""
import argparse, json, os, subprocess, sys

from onnx_bench import CACHE, HERE, MODELS


def find(tree, name):
    """The first node named `name` in a timing tree (depth first)."""
    todo = list(tree)
    while todo:
        n = todo.pop(0)
        if n["name"] == name:
            return n
        todo = n["children"] + todo
    return None


def median_run(binary, model, shapes, runs):
    """The run of median total (import + pipeline) of `runs` in-process runs, or an error text."""
    p = subprocess.run([binary, model, str(runs)] + shapes, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode:
        return None, p.stderr.decode().strip()[:200].replace("\n", " ")
    runs = [json.loads(line) for line in p.stdout.decode().splitlines() if line.strip()]
    runs.sort(key=lambda r: r["import_us"] + r["pipeline_us"])
    return runs[len(runs) // 2], None


def model_table(args):
    before = " before total ms | before CPU ms |" if args.compare else ""
    print("| model | import ms | Relay -O3 ms | LowerTE ms | tir.default_pipeline ms |%s ours total ms | ours CPU ms | ORT session 'all' ms | ORT optimization ms | ratio | slowest TIR passes (ms) |" % before)
    print("|---|---:|---:|---:|---:|" + ("---:|---:|" if args.compare else "") + "---:|---:|---:|---:|---:|---|")
    binary = os.path.join(args.build, "bench_onnx_lower")
    for label, model, shapes in MODELS:
        if (args.quick and "PP-OCRv4" in label) or args.only not in label:
            continue
        b = None
        if args.compare:
            b, err = median_run(os.path.join(args.compare, "bench_onnx_lower"), model, shapes, args.runs)
            if err:
                print("| %s | before failed: %s |" % (label, err))
                continue
        r, err = median_run(binary, model, shapes, args.runs)
        if err:
            print("| %s | failed: %s |" % (label, err))
            continue
        o3, low = find(r["timing"], "O3"), find(r["timing"], "lower")
        te, tir = find(r["timing"], "LowerTE"), find(r["timing"], "tir.default_pipeline")
        passes = {}
        for c in tir["children"] if tir else []:
            passes[c["name"]] = passes.get(c["name"], 0) + c["us"]
        top = sorted(passes.items(), key=lambda kv: -kv[1])[:3]
        total = (r["import_us"] + r["pipeline_us"]) / 1000
        q = subprocess.run(["node", os.path.join(HERE, "onnx_ort_opt.js"), model, os.path.join(args.tmp, "ext.onnx"), str(args.runs)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        ort = json.loads(q.stdout) if q.returncode == 0 else None
        ms = lambda us: "%.1f" % (us / 1000) if us is not None else "n/a"
        bcells = " %.1f | %.1f |" % ((b["import_us"] + b["pipeline_us"]) / 1000, b["cpu_us"] / 1000) if b else ""
        print("| %s | %s | %s | %s | %s |%s %.1f | %.1f | %s | %s | %s | %s |" % (
            label, ms(r["import_us"]), ms(o3["us"] if o3 else None), ms(te["us"] if te else None),
            ms(tir["us"] if tir else None), bcells, total, r["cpu_us"] / 1000, "%.1f" % ort["all_ms"] if ort else "n/a",
            "%.1f" % ort["optimize_ms"] if ort else "n/a", "%.2fx" % (ort["all_ms"] / total) if ort else "n/a",
            ", ".join("%s %.1f" % (k[4:], v / 1000) for k, v in top)))
        sys.stdout.flush()
    print("\nMedian of %d in-process runs (each from the file) for ours, of %d sessions for ORT; ratio = ORT session "
          "'all' / ours total (> 1: ours faster). ORT optimization = session 'all' minus 'disabled'. Times are wall clock "
          "(as ORT's); ours CPU = the process CPU time of the same import + pipeline." % (args.runs, args.runs))


def throughput_table(args):
    binary = os.path.join(args.build, "bench_tir_pipeline")
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    results = {}
    for n in sizes:
        p = subprocess.run([binary, str(n)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode:
            print("bench_tir_pipeline %d failed: %s" % (n, p.stderr.decode().strip()[:300]))
            return
        rows = dict((f[0], float(f[1])) for f in (l.split() for l in p.stdout.decode().splitlines()) if f[0] != "statements")
        # The machine may be shared: scale every wall-clock pass time by the
        # pipeline's CPU/wall ratio (each pass is taken to have waited in proportion).
        scale = rows["pipeline_cpu"] / rows["pipeline"]
        rows = dict((k, v * scale) for k, v in rows.items() if k != "pipeline_cpu")
        results[n] = rows
    names = [k for k in results[sizes[0]] if k != "pipeline"] + ["pipeline"]
    print("| pass | " + " | ".join("stmts/s at %.0e" % n for n in sizes) + " | s at %.0e |" % sizes[-1])
    print("|---|" + "---:|" * (len(sizes) + 1))
    for name in names:
        cells = []
        for n in sizes:
            us = results[n].get(name)
            cells.append("%.3g" % (n / (us / 1e6)) if us else "n/a")
        us = results[sizes[-1]].get(name)
        print("| %s | %s | %s |" % (name, " | ".join(cells), "%.3f" % (us / 1e6) if us else "n/a"))
    print("\nstmts/s = statements of the generated PrimFunc / the pass's time (best of the runs; one run at 1e6); "
          "a pass that runs twice (tir.Simplify) counts both runs. pipeline = its process CPU time; each pass's "
          "wall time (pass timing instrument) is scaled by the pipeline's CPU/wall ratio. Linear scaling keeps a "
          "row's stmts/s constant.")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build/release")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="small models, sizes 1e3 and 1e4")
    ap.add_argument("--only", default="")
    ap.add_argument("--sizes", default="1e4,1e5,1e6")
    ap.add_argument("--tir-only", action="store_true")
    ap.add_argument("--models-only", action="store_true")
    ap.add_argument("--compare", default="", help="another build directory, run before ours on each model")
    args = ap.parse_args()
    if args.quick:
        args.sizes, args.runs = "1e3,1e4", 1
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        args.tmp = tmp
        if not args.tir_only:
            if os.path.isdir(os.path.join(CACHE, "node_modules", "onnxruntime-node")):
                model_table(args)
            else:
                print("models not fetched (run tools/fetch-models.sh): model table skipped")
            print()
        if not args.models_only:
            throughput_table(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
