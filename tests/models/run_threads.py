#!/usr/bin/python3
"""Function and prim-func passes on threads against the serial run
(docs/pass-infra.md "Threads", issue 19 item 6).

Each real model (tests/models/cache, shapes as in bench/onnx_bench.py) is
brought to its lowered Relay module once (`-O3` then LowerTE), and that
module goes through the per-function TIR pipeline (tir.default_pipeline)
--runs times serially and --runs times with --threads N; a generated
256-function Relay module goes through the whole `-O3 --lower`. Every run's
output file and stderr (the diagnostics; timing is not asked for, as it
varies) must be byte-identical to the first serial run's. Each model also runs the whole `MODEL -O3 --lower` once each way.

--measure prints the wall and CPU time (user+sys of the child) of every
configuration: the median over the runs.

Usage: run_threads.py --passage BUILD/passage [--runs N] [--threads N]
                      [--only NAME] [--measure] [--skip-models]"""
import argparse, importlib.util, os, resource, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")


def models():
    spec = importlib.util.spec_from_file_location("onnx_bench", os.path.join(ROOT, "bench", "onnx_bench.py"))
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench.MODELS


def generated_module(n=256):
    """n Relay functions of different shapes and constants, all called by @main."""
    s = '#[version = "0.0.5"]\n'
    for i in range(n):
        d = i % 16 + 1
        s += (f"def @f{i}(%x: Tensor[({d}, 8), float32]) -> Tensor[({d}, 8), float32] {{\n"
              f"  %0 = add(%x, {i}.5f);\n  %1 = nn.relu(%0);\n  multiply(%1, %x)\n}}\n")
    calls = ", ".join(f'@f{i}(zeros(shape=[{i % 16 + 1}, 8], dtype="float32"))' for i in range(n))
    return s + "def @main(%x: Tensor[(1, 8), float32]) {\n  (" + calls + ")\n}\n"


def run(cmd, out):
    """(wall s, cpu s, output bytes, stderr bytes) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd + ["-o", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr.decode(errors="replace")))
    with open(out, "rb") as f:
        data = f.read()
    return wall, cpu, data, p.stdout + p.stderr


def compare(label, cmd, tmp, args):
    """Runs `cmd` serially and on threads, interleaved; every run must match
    the first serial one. Returns {threads: (median wall, median cpu)}."""
    want = None
    times = {1: [], args.threads: []}
    for r in range(args.runs):
        for t in (1, args.threads):
            wall, cpu, data, err = run(cmd + ["--threads", str(t)], os.path.join(tmp, "out.txt"))
            if want is None:
                want = (data, err)
            elif (data, err) != want:
                which = "output" if data != want[0] else "diagnostics"
                sys.exit(f"{label}: the {which} of run {r + 1} with --threads {t} differ from the serial run's")
            times[t].append((wall, cpu))
    res = {t: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for t, v in times.items()}
    line = f"{label}: {args.runs} runs each way, output and diagnostics identical ({len(want[0])} bytes)"
    if args.measure:
        s, p = res[1], res[args.threads]
        line += (f"; serial wall {s[0] * 1e3:.0f} ms cpu {s[1] * 1e3:.0f} ms, --threads {args.threads} wall "
                 f"{p[0] * 1e3:.0f} ms cpu {p[1] * 1e3:.0f} ms, speedup {s[0] / p[0]:.2f}x")
    print(line, flush=True)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--passage", required=True)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only", help="models whose label contains this")
    ap.add_argument("--measure", action="store_true")
    ap.add_argument("--skip-models", action="store_true", help="the generated module only")
    args = ap.parse_args()
    P = args.passage
    with tempfile.TemporaryDirectory() as tmp:
        gen = os.path.join(tmp, "gen256.relay")
        with open(gen, "w") as f:
            f.write(generated_module())
        compare("generated 256 functions, -O3 --lower", [P, "opt", gen, "-O3", "--lower"], tmp, args)
        # The lowered module alone through the per-function TIR passes.
        lowered = os.path.join(tmp, "gen256_te.txt")
        run([P, "opt", gen, "-O3", "-p", "sequential(O3,LowerTE)"], lowered)
        compare("generated 256 functions, tir.default_pipeline",
                [P, "opt", lowered, "-p", "tir.default_pipeline"], tmp, args)
        if args.skip_models:
            return 0
        seen = 0
        for label, model, shapes in models():
            if args.only and args.only not in label:
                continue
            if not os.path.exists(model):
                print(f"{label}: skipped (no {os.path.relpath(model)})")
                continue
            seen += 1
            sh = sum((["--input-shape", s] for s in shapes), [])
            lowered = os.path.join(tmp, "te.txt")
            run([P, "opt", model, "-O3", "-p", "sequential(O3,LowerTE)"] + sh, lowered)
            compare(f"{label}, tir.default_pipeline", [P, "opt", lowered, "-p", "tir.default_pipeline"], tmp, args)
            whole = argparse.Namespace(**{**vars(args), "runs": 1, "measure": False})
            compare(f"{label}, -O3 --lower", [P, "opt", model, "-O3", "--lower"] + sh, tmp, whole)
        if not seen:
            print("no model in tests/models/cache: only the generated module was checked")
    return 0


if __name__ == "__main__":
    sys.exit(main())
