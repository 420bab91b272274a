#!/usr/bin/python3
"""The pass cache (issue 20 item 4, docs/pass-infra.md "Pass cache"):
`passage opt IN -O3 [--lower]` with no cache, with a cold cache (empty
directory) and with a warm cache after one function of IN was edited (the
cache filled from the unedited module), best of N runs each (a warm run
starts from a fresh copy of the filled cache). Every output must be byte
identical to the no-cache output of the same input; the script fails if not.

  generated: a module of --functions functions from gen_many_functions.py,
             the edit changing one constant of one function;
  --models:  the 8 real models of onnx_bench.py (warm = the same model again).

Usage: bench/pass_cache_bench.py --passage BUILD/passage [--runs N] [--functions 256]
       [--lower] [--models] [--gen-args '...']"""
import argparse, os, resource, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


CPU = []  # CPU seconds (user + sys) of each run, beside its wall time


def run(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    w = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    if r.returncode:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), r.stderr))
    stats = [ln for ln in r.stderr.splitlines() if ln.startswith("pass cache:")]
    return w, stats[-1] if stats else ""


def same(a, b):
    with open(a, "rb") as f, open(b, "rb") as g:
        return f.read() == g.read()


def measure(passage, base_in, edited_in, extra, runs, tmp):
    """(no-cache s, cold s, warm-after-edit s, cold stats, warm stats, [CPU s of the three])"""
    out_n, out_c, out_w = (os.path.join(tmp, n) for n in ("n.txt", "c.txt", "w.txt"))
    best = [float("inf")] * 3
    cpu = [float("inf")] * 3
    stats = ["", ""]
    ref_base = os.path.join(tmp, "ref_base.txt")
    run([passage, "opt", base_in, "-o", ref_base] + extra)
    filled = os.path.join(tmp, "filled")
    for _ in range(runs):
        shutil.rmtree(filled, ignore_errors=True)
        w, _s = run([passage, "opt", edited_in, "-o", out_n] + extra)
        best[0], cpu[0] = min(best[0], w), min(cpu[0], CPU[-1])
        w, stats[0] = run([passage, "opt", base_in, "-o", out_c, "--pass-cache", filled, "--pass-cache-stats"] + extra)
        best[1], cpu[1] = min(best[1], w), min(cpu[1], CPU[-1])
        warm = os.path.join(tmp, "warm")
        shutil.rmtree(warm, ignore_errors=True)
        shutil.copytree(filled, warm)
        w, stats[1] = run([passage, "opt", edited_in, "-o", out_w, "--pass-cache", warm, "--pass-cache-stats"] + extra)
        best[2], cpu[2] = min(best[2], w), min(cpu[2], CPU[-1])
        if not same(out_c, ref_base) or not same(out_w, out_n):
            sys.exit("OUTPUT DIFFERS with the cache: %s %s" % (base_in, " ".join(extra)))
    return best + stats + [cpu]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--passage", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--functions", type=int, default=256)
    ap.add_argument("--gen-args", default="", help="more arguments of gen_many_functions.py")
    ap.add_argument("--lower", action="store_true", help="also lower (prim-func passes)")
    ap.add_argument("--models", action="store_true", help="the 8 real models instead")
    a = ap.parse_args()
    extra = ["-O3"] + (["--lower"] if a.lower else [])
    print("%-22s %9s %9s %9s %8s  %-26s %s" % ("input", "no cache", "cold", "warm+edit", "saved", "CPU s (none/cold/warm)",
                                                 "warm run's counts"))
    with tempfile.TemporaryDirectory() as tmp:
        if a.models:
            from onnx_bench import MODELS
            for label, model, shapes in MODELS:
                if not os.path.exists(model):
                    print("%-22s missing" % label)
                    continue
                sh = sum((["--input-shape", s] for s in shapes), [])
                r = measure(a.passage, model, model, extra + sh, a.runs, tmp)
                row(label, r)
            return
        base, edited = os.path.join(tmp, "base.relay"), os.path.join(tmp, "edited.relay")
        gen = [sys.executable, os.path.join(HERE, "gen_many_functions.py"), str(a.functions)] + a.gen_args.split()
        for path, more in ((base, []), (edited, ["--edit", str(a.functions // 2)])):
            with open(path, "w") as f:
                subprocess.run(gen + more, stdout=f, check=True)
        row("%d functions" % a.functions, measure(a.passage, base, edited, extra, a.runs, tmp))


def row(label, r):
    saved = 100.0 * (1 - r[2] / r[0])
    cpu = "%.3f/%.3f/%.3f" % tuple(r[5])
    print("%-22s %8.3fs %8.3fs %8.3fs %7.0f%%  %-26s %s" % (label, r[0], r[1], r[2], saved, cpu, r[4]))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
