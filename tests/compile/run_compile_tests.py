#!/usr/bin/python3
"""`passage compile` end to end on small Relay modules (issue 17): each case is
compiled three ways -- `-o A.so`; `--emit-c B.c` then built by cc (and checked
with clang when present) with -std=c99 -Wall -Wextra -Werror; `-o C.so --params C.bin`
(constants in the side file) -- and run by tests/compile/model_driver.c
(dlopen + psg_model_info, as any loader would) on seeded random inputs; every
output must be within |ours - ref| <= 1e-4 * max(|ref|, 1e-2) of `passage run`
(the Relay interpreter) on the same inputs. Also: a params file of another
model is refused by set_params, and a C compiler error is reported with the
generated line it points at. With --sanitize (the ASan build) the driver and
B.so are built with ASan+UBSan, so the generated code runs under them. Run with /usr/bin/python3."""
import argparse, os, re, shutil, subprocess, sys, tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOL, FLOOR = 1e-4, 1e-2
# model, extra inputs fixed per run (several runs: both branches of each If)
CASES = [
    (os.path.join(ROOT, "examples", "models", "small_cnn.relay"), [{}]),
    (os.path.join(HERE, "if_model.relay"), [{"flag": True}, {"flag": False}]),
    # standalone reshapes share storage: of an input, of an intermediate, in a branch, as outputs
    (os.path.join(HERE, "reshape_model.relay"), [{"f": True}, {"f": False}]),
    # register tiles (default_schedule_dense.c): a transposed-a matmul vectorized over i (24 = 3 x 8 lanes) with
    # 7 rows of j (35 has no power-of-two factor), whose tile CodeGenC stores transposed (local_layout.c); a
    # matmul with 6 rows of 3 x 8 lanes; a dense and a batch_matmul of odd widths (13, 12 = 3 x 4); power with a
    # constant exponent of 2 or 0.5 bound into its kernel (const_scalars.c)
    (os.path.join(HERE, "tile_model.relay"), [{}]),
    # conv2d_transpose in sub-pixel form (default_schedule_conv_transpose.c): the parity convolution's register
    # tile (4 channels x 16 lanes; 5 x 3 lanes for the 3x3 kernel), and the interleave of the parity planes, a
    # gather at constant lane offsets read as two 8-lane windows and one shuffle (lane_gather.c)
    (os.path.join(HERE, "transpose_model.relay"), [{}]),
    # nearest resize (lane_gather.c): the column index, a function of the width loop alone, evaluated at compile
    # time into a table; 2x reads one 8-lane window, 8x a 2-lane one, duplicated by a shuffle; scales whose
    # columns do not repeat one pattern per vector (1.5x, half_pixel 3x) keep the lane-by-lane gather; 6 lanes
    # (not a power of two): no shuffle, lane loads at the offset table
    (os.path.join(HERE, "resize_model.relay"), [{}]),
]


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, **kw)


def info(driver, lib, params=None):
    p = run([driver, lib] + (["--params", params] if params else []) + ["info"])
    if p.returncode:
        raise RuntimeError("driver info: " + p.stderr)
    ins, outs, meta = [], [], {}
    for line in p.stdout.splitlines():
        f = line.split(" ")
        if f[0] in ("input", "output"):
            shape = [int(d) for d in f[4].split(",")] if len(f) > 4 and f[4] else []
            (ins if f[0] == "input" else outs).append((f[1], f[2], shape))
        else:
            meta[f[0]] = f[1] if len(f) > 1 else ""
    return ins, outs, meta


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--passage", required=True)
    ap.add_argument("--sanitize", action="store_true",
                    help="build the driver and the --emit-c library with ASan+UBSan (the sanitizer build)")
    args = ap.parse_args()
    cc = os.environ.get("CC", "cc")
    san = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-g"] if args.sanitize else []
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        driver = os.path.join(tmp, "model_driver")
        p = run([cc, "-std=c99", "-O1", "-Wall", "-Werror"] + san + ["-I", os.path.join(ROOT, "include"),
                 os.path.join(HERE, "model_driver.c"), "-o", driver, "-ldl"])
        if p.returncode:
            print("FAIL building the driver: " + p.stderr)
            return 1
        rng = np.random.default_rng(11)
        for model, runs in CASES:
            name = os.path.basename(model)
            d = os.path.join(tmp, name.split(".")[0])
            os.mkdir(d)
            a_so, b_c, b_so = os.path.join(d, "a.so"), os.path.join(d, "b.c"), os.path.join(d, "b.so")
            c_so, c_bin = os.path.join(d, "c.so"), os.path.join(d, "c.bin")
            steps = [
                [args.passage, "compile", model, "-o", a_so],
                [args.passage, "compile", model, "--emit-c", b_c, "--name", "case_b"],
                [cc, "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-c", b_c, "-o", os.path.join(d, "b.o")],
                [cc, "-std=c99", "-O2", "-fPIC", "-shared", "-DPASSAGE_MODEL_ENTRY"] + san + [b_c, "-o", b_so, "-lm"],
                [args.passage, "compile", model, "-o", c_so, "--params", c_bin],
            ]
            if shutil.which("clang-14") or shutil.which("clang"):
                clang = shutil.which("clang-14") or shutil.which("clang")
                # (clang warns of unused static inline helpers in a main file: not an error here)
                steps.append([clang, "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-Wno-unused-function", "-c", b_c, "-o",
                              os.path.join(d, "b2.o")])
            bad = False
            for cmd in steps:
                p = run(cmd)
                if p.returncode:
                    print("FAIL %s: %s: %s" % (name, " ".join(cmd[:3]), p.stderr.strip()[:3000]))
                    bad = True
                    break
            if bad:
                failed += 1
                continue
            if not os.path.exists(os.path.join(d, "b.h")):
                print("FAIL %s: --emit-c wrote no header" % name)
                failed += 1
            ins, outs, meta = info(driver, a_so)
            _, _, cmeta = info(driver, c_so, c_bin)
            if int(cmeta["params"]) != os.path.getsize(c_bin) or int(meta["params"]) != 0:
                print("FAIL %s: params bytes %s / %s, file %d" % (name, meta["params"], cmeta["params"],
                                                                   os.path.getsize(c_bin)))
                failed += 1
            for fixed in runs:
                feeds, raws = [], []
                for iname, dt, shape in ins:
                    if iname in fixed:
                        arr = np.array(fixed[iname], dtype=dt).reshape(shape)
                    elif dt == "bool":
                        arr = rng.integers(0, 2, size=shape).astype(bool)
                    else:
                        arr = rng.uniform(-1, 1, size=shape).astype(dt)
                    np.save(os.path.join(d, iname + ".npy"), arr)
                    arr.tofile(os.path.join(d, iname + ".bin"))
                    feeds += ["--input", "%s=%s" % (iname, os.path.join(d, iname + ".npy"))]
                    raws.append(os.path.join(d, iname + ".bin"))
                p = run([args.passage, "run", model, "-o", os.path.join(d, "ref.npy")] + feeds)
                if p.returncode:
                    print("FAIL %s: passage run: %s" % (name, p.stderr.strip()))
                    failed += 1
                    continue
                refs = [np.load(os.path.join(d, "ref.npy") if len(outs) == 1 else os.path.join(d, "ref_%d.npy" % k))
                        for k in range(len(outs))]
                for lib, extra in ((a_so, []), (b_so, []), (c_so, ["--params", c_bin])):
                    got_paths = [os.path.join(d, "out_%d.bin" % k) for k in range(len(outs))]
                    p = run([driver, lib] + extra + ["run"] + raws + ["--"] + got_paths)
                    if p.returncode:
                        print("FAIL %s %s: driver: %s" % (name, os.path.basename(lib), p.stderr.strip()))
                        failed += 1
                        continue
                    worst = 0.0
                    for k, (oname, dt, shape) in enumerate(outs):
                        got = np.fromfile(got_paths[k], dtype=dt).reshape(shape)
                        ref = refs[k]
                        if got.shape != ref.shape or got.dtype != ref.dtype:
                            print("FAIL %s: output %d is %s %s, the interpreter's %s %s" %
                                  (name, k, got.dtype, got.shape, ref.dtype, ref.shape))
                            worst = np.inf
                            continue
                        r64 = ref.astype(np.float64)
                        err = np.abs(got.astype(np.float64) - r64) / np.maximum(np.abs(r64), FLOOR)
                        if err.size:
                            worst = max(worst, float(np.nan_to_num(err, nan=np.inf).max()))
                    ok = worst <= TOL
                    failed += not ok
                    print("%s %s %s %s: %s, max |ours-ref|/max(|ref|,%g) %.2e" %
                          ("ok  " if ok else "FAIL", name, os.path.basename(lib), fixed or "", p.stdout.strip(), FLOOR,
                           worst))
            # a params file with another module hash (same size) is refused
            data = bytearray(open(c_bin, "rb").read())
            data[16] ^= 1
            forged = os.path.join(d, "forged.bin")
            open(forged, "wb").write(bytes(data))
            p = run([driver, c_so, "--params", forged, "info"])
            if p.returncode == 0 or "set_params: 3" not in p.stderr:
                print("FAIL %s: set_params took a params file of another hash: %s" % (name, p.stderr.strip()))
                failed += 1
            # another model's params file is refused
            other = os.path.join(tmp, "small_cnn", "c.bin")
            if name != "small_cnn.relay" and os.path.exists(other):
                p = run([driver, c_so, "--params", other, "info"])
                if p.returncode == 0 or "set_params" not in p.stderr:
                    print("FAIL %s: set_params took another model's params file" % name)
                    failed += 1
                else:
                    print("ok   %s: another model's params file refused (%s)" % (name, p.stderr.strip()))
        # a C compiler error names the generated line
        model = CASES[1][0]
        env = dict(os.environ, CC="%s -Wcast-qual -Werror" % cc)
        p = run([args.passage, "compile", model, "-o", os.path.join(tmp, "x.so")], env=env)
        m = re.search(r"model\.c:(\d+):\d+: error: .*\n  generated line (\d+): (.+)", p.stderr)
        if p.returncode != 1 or not m or m.group(1) != m.group(2) or "(void *)" not in m.group(3):
            print("FAIL: a C compiler error was reported as: %s" % p.stderr.strip())
            failed += 1
        else:
            print("ok   C compiler error reported: %s" % p.stderr.strip().splitlines()[-1])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
