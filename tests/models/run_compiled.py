#!/usr/bin/python3
"""Compiled real models against ONNX Runtime (issue 17): each model of run_e2e.py
(the same seeded inputs) is compiled by `passage compile MODEL -o m.so` (the
pipeline of `passage opt -O3 --lower`, C kernels, the host function over the
static memory plan, the system C compiler), run by tests/compile/model_driver.c
(dlopen + psg_model_info), and every output element must be within the
project tolerance of ONNX Runtime's (CPU, graph optimizations disabled):
|ours - ort| <= 1e-4 * max(|ort|, 1e-2) (run_e2e.py's KNOWN tolerances apply).
With --plan-check TEST_MEMORY_PLAN, each lowered model's plan is also checked
along every path (tests/unit/test_memory_plan.c). Prints per model the largest error, the plan's peak workspace against the sum
of the intermediates, and the compile time in Passage against the C compiler.
--skip NAME leaves a model out (said so); PP-OCRv4 det is left out unless --all
(its C takes long to build: a by-hand run). Skips (exit 0 with a note) when the
model cache is absent. Run with /usr/bin/python3."""
import argparse, json, os, re, subprocess, sys, tempfile, time

import numpy as np

from run_e2e import CACHE, HERE, KNOWN, draw_inputs, io_names

TOL = 1e-4
FLOOR = 1e-2
ROOT = os.path.dirname(os.path.dirname(HERE))
SLOW = ("ch_PP-OCRv4_det_infer.onnx",)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--passage", required=True)
    ap.add_argument("--only", default="")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--skip", action="append", default=[])
    ap.add_argument("--plan-check", default="", help="test_memory_plan: also check each lowered model's plan")
    args = ap.parse_args()
    if not os.path.isdir(os.path.join(CACHE, "node_modules", "onnxruntime-node")):
        print("models not fetched (run tools/fetch-models.sh): skipped")
        return 0
    cc = os.environ.get("CC", "cc")
    failed = 0
    with tempfile.TemporaryDirectory() as top:
        driver = os.path.join(top, "model_driver")
        p = subprocess.run([cc, "-std=c99", "-O1", "-I", os.path.join(ROOT, "include"),
                            os.path.join(ROOT, "tests", "compile", "model_driver.c"), "-o", driver, "-ldl"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode:
            print("FAIL building the driver: %s" % p.stderr.decode())
            return 1
        for model, inputs, shown, arrays in draw_inputs():
            name = os.path.basename(model)
            if args.only not in shown:
                continue
            if (name in SLOW and not args.all) or name in args.skip:
                print("skip %s (%s)" % (shown, "by hand: --all" if name in SLOW else "--skip"))
                continue
            with tempfile.TemporaryDirectory() as tmp:
                so = os.path.join(tmp, "m.so")
                shapes, raws, spec = [], [], {}
                for iname, (dt, shape, *fixed) in inputs.items():
                    arr = arrays[iname]
                    arr.tofile(os.path.join(tmp, iname + ".bin"))
                    spec[iname] = {"type": dt, "dims": shape, "file": os.path.join(tmp, iname + ".bin")}
                    shapes += ["--input-shape", "%s=%s" % (iname, ",".join(map(str, shape)))]
                t0 = time.time()
                p = subprocess.run([args.passage, "compile", model, "-o", so] + shapes,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                t_compile = time.time() - t0
                err = p.stderr.decode()
                if p.returncode:
                    print("FAIL %s: passage compile: %s" % (shown, err.strip()[-3000:]))
                    failed += 1
                    continue
                m = re.search(r"workspace (\d+) bytes \(sum of intermediates (\d+)\).*?([\d.]+) s in passage.*?"
                              r"([\d.]+) s in the C compiler", err)
                ws, inter, t_ours, t_cc = (int(m.group(1)), int(m.group(2)), float(m.group(3)),
                                           float(m.group(4))) if m else (0, 0, 0.0, 0.0)
                if args.plan_check:
                    lowered = os.path.join(tmp, "m.relay")
                    pc = subprocess.run([args.passage, "opt", model, "-O3", "--lower", "-o", lowered] + shapes,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                    if not pc.returncode:
                        pc = subprocess.run([args.plan_check, lowered], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                    if pc.returncode:
                        print("FAIL %s: the memory plan check: %s%s" % (shown, pc.stdout.decode()[-2000:],
                                                                       pc.stderr.decode()[-2000:]))
                        failed += 1
                        continue
                info = subprocess.run([driver, so, "info"], stdout=subprocess.PIPE, universal_newlines=True).stdout
                names = [l.split(" ")[1] for l in info.splitlines() if l.startswith("input ")]
                outs = [l.split(" ") for l in info.splitlines() if l.startswith("output ")]
                # @main's parameters (the library's inputs) are the graph's inputs, in the graph's order
                order = io_names(model)[0]
                if len(names) != len(order):
                    print("FAIL %s: the library takes %s, the model %s" % (shown, names, order))
                    failed += 1
                    continue
                got_paths = [os.path.join(tmp, "out_%d.bin" % k) for k in range(len(outs))]
                t0 = time.time()
                q = subprocess.run([driver, so, "run"] + [spec[i]["file"] for i in order] + ["--"] + got_paths,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                t_run = time.time() - t0
                if q.returncode:
                    print("FAIL %s: running the library: %s" % (shown, q.stderr.decode().strip()))
                    failed += 1
                    continue
                json.dump(spec, open(os.path.join(tmp, "in.json"), "w"))
                r = subprocess.run(["node", os.path.join(HERE, "ort_run.js"), model, os.path.join(tmp, "in.json"), tmp],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                if r.returncode:
                    print("FAIL %s: onnxruntime: %s" % (shown, r.stderr.decode().strip()))
                    failed += 1
                    continue
                refs = json.load(open(os.path.join(tmp, "outputs.json")))
                worst, ok = 0.0, len(refs) == len(outs)
                for k, o in enumerate(refs[:len(outs)]):
                    ref = np.fromfile(o["file"], dtype=o["type"]).reshape(o["dims"])
                    got = np.fromfile(got_paths[k], dtype=outs[k][2])
                    if got.size != ref.size:
                        print("FAIL %s: output %s has %d elements, ONNX Runtime %d" % (shown, o["name"], got.size, ref.size))
                        ok = False
                        continue
                    got = got.reshape(ref.shape)
                    ref64 = ref.astype(np.float64)
                    e = np.abs(got.astype(np.float64) - ref64) / np.maximum(np.abs(ref64), FLOOR)
                    if e.size:
                        worst = max(worst, float(np.nan_to_num(e, nan=np.inf).max()))
                tol, note = KNOWN.get(name, (TOL, ""))
                ok &= worst <= tol
                print("%s %s: compile %.2fs (passage %.2fs, cc %.2fs), workspace %d B vs %d B of intermediates, "
                      "run %.3fs, max |ours-ort|/max(|ort|,%g) %.2e%s" %
                      ("ok  " if ok else "FAIL", shown, t_compile, t_ours, t_cc, ws, inter, t_run, FLOOR, worst,
                       " (known: %g)" % tol if note else ""))
                failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
