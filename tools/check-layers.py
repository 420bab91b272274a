#!/usr/bin/python3
"""The layering check of src/ (docs/design.md, "Layers as built").

Reads every `#include "dir/file.h"` under src/, prints the include graph
folder to folder, and fails (exit 1) naming the edge and the files when
  - an include cycle spans two folders (a cycle of the folder graph), or
  - a folder includes a folder above it in LAYERS below.
With --build DIR it also checks the built objects of src/ (nm): every
undefined psg_*/psgi_* symbol of an object in folder X must be defined in a
folder at or below X, so a folder that calls upward without including
(a prototype declared by hand) is caught too.

Known violations may be listed in an allow-list file (--allow), one per line:
  include FROM_FILE TO_FILE      (paths relative to src/)
  link FROM_FILE SYMBOL
An allowed violation is printed but does not fail; an allow-list entry that
matches nothing fails, so the list only shrinks.

usage: check-layers.py [--src SRC] [--build BUILD_DIR] [--allow FILE]
"""
import argparse
import os
import re
import subprocess
import sys

# Bottom up; folders on one row are peers (may include each other, but not in
# a cycle). A folder not listed sits above all of these (e.g. a top folder
# that registers the built-in passes).
LAYERS = [["support"], ["ir"], ["tir"], ["tir/arith"], ["text", "ops"], ["te"], ["interp"], ["pass"], ["transforms"],
          ["tir/transforms"], ["tir/schedule"], ["lower"], ["codegen"], ["runtime"], ["builtin"], ["onnx"]]
RANK = {folder: row for row, folders in enumerate(LAYERS) for folder in folders}
TOP = len(LAYERS)

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCE_EXT = (".c", ".h", ".def")


def rank(folder):
    return RANK.get(folder, TOP)


def folder_of(rel):
    """The layer folder of a path relative to src/: the longest listed folder
    holding it ('tir/transforms/x.c' -> 'tir/transforms'), else its top folder
    ('ir/expr.c' -> 'ir')."""
    parts = rel.split("/")
    for k in range(len(parts) - 1, 1, -1):
        if "/".join(parts[:k]) in RANK:
            return "/".join(parts[:k])
    return parts[0] if len(parts) > 1 else "."


def read_includes(src):
    """{file: [included file]} over src/, paths relative to src/. An include is
    resolved next to its file first, then from src/ (the build's -Isrc); one that
    resolves to neither (public headers, generated code) is not part of the graph."""
    graph = {}
    for dirpath, _, names in os.walk(src):
        for name in sorted(names):
            if not name.endswith(SOURCE_EXT):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, src)
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            targets = []
            for inc in INCLUDE_RE.findall(text):
                for base in (dirpath, src):
                    cand = os.path.normpath(os.path.join(base, inc))
                    if os.path.isfile(cand):
                        targets.append(os.path.relpath(cand, src))
                        break
            graph[rel] = targets
    return graph


def strongly_connected(nodes, edges):
    """Tarjan's components of a small graph (iterative), as lists of nodes."""
    index, low, on_stack, stack, comps = {}, {}, set(), [], []
    counter = 0
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    n = stack.pop()
                    on_stack.discard(n)
                    comp.append(n)
                    if n == node:
                        break
                comps.append(sorted(comp))
    return comps


def object_sources(build, src):
    """{source path relative to src/: object path} for the objects CMake built
    from src/ (CMakeFiles/<target>.dir/src/<folder>/<file>.c.o). Objects whose
    source is gone (moved or deleted since) are left out: the build keeps them."""
    objs = {}
    for dirpath, _, names in os.walk(build):
        for name in names:
            if not name.endswith(".c.o"):
                continue
            path = os.path.join(dirpath, name)
            parts = path.replace(os.sep, "/").split(".dir/", 1)
            rel = parts[1][len("src/"):-len(".o")] if len(parts) == 2 and parts[1].startswith("src/") else None
            # Several targets may compile one source (the fuzzers): the newest object speaks for it.
            if rel and os.path.isfile(os.path.join(src, rel)) and (
                    rel not in objs or os.path.getmtime(path) > os.path.getmtime(objs[rel])):
                objs[rel] = path
    return objs


def symbols(obj):
    """(defined, undefined) psg_/psgi_ symbols of one object (nm -P)."""
    out = subprocess.run(["nm", "-P", obj], check=True, capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 2 or not fields[0].startswith(("psg_", "psgi_")):
            continue
        (undefined if fields[1] == "U" else defined).add(fields[0])
    return defined, undefined


def read_allow(path):
    entries = []
    if not path:
        return entries
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].split()
            if not line:
                continue
            if len(line) != 3 or line[0] not in ("include", "link"):
                sys.exit(f"{path}:{n}: want 'include FROM TO' or 'link FROM SYMBOL'")
            entries.append(tuple(line))
    return entries


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", default=os.path.join(here, "..", "src"))
    ap.add_argument("--build", help="a build directory: also check the objects' undefined symbols")
    ap.add_argument("--allow", help="allow-list of known violations")
    args = ap.parse_args()
    src = os.path.normpath(args.src)
    shown = os.path.relpath(src) if not os.path.relpath(src).startswith("..") else src
    allow = read_allow(args.allow)
    used = set()
    failures = 0

    def report(key, message):
        nonlocal failures
        if key in allow:
            used.add(key)
            print(f"  allowed (listed in {args.allow}): {message}")
        else:
            failures += 1
            print(f"  FAIL: {message}")

    graph = read_includes(src)
    # The folder graph, each edge with the file includes that make it.
    fedges = {}
    for f, targets in graph.items():
        for t in targets:
            a, b = folder_of(f), folder_of(t)
            if a != b:
                fedges.setdefault(a, {}).setdefault(b, []).append((f, t))
    folders = sorted({folder_of(f) for f in graph}, key=lambda d: (rank(d), d))
    print(f"include graph of {shown}/ (folder -> folders it includes, with the number of includes):")
    for a in folders:
        outs = fedges.get(a, {})
        row = ", ".join(f"{b} ({len(outs[b])})" for b in sorted(outs, key=lambda d: (rank(d), d)))
        print(f"  {a:<11} -> {row or '(nothing)'}")
    print("layer order, bottom up: " + " < ".join("/".join(r) for r in LAYERS) + " < (unlisted folders)")

    print("include cycles across folders:")
    before = failures
    for comp in strongly_connected(folders, {a: set(bs) for a, bs in fedges.items()}):
        if len(comp) < 2:
            continue
        inside = [e for a in comp for b in comp for e in fedges.get(a, {}).get(b, [])]
        failures += 1
        print(f"  FAIL: folders {', '.join(comp)} include each other: "
              + "; ".join(f"{f} -> {t}" for f, t in inside))
    # The same at file level, to name the files of a cycle that runs through headers.
    for comp in strongly_connected(graph, {f: set(ts) for f, ts in graph.items()}):
        if len({folder_of(f) for f in comp}) > 1:
            failures += 1
            print(f"  FAIL: a file include cycle spans folders: {' -> '.join(comp)}")
    if failures == before:
        print("  none")

    print("upward includes (a folder including one above it):")
    before = failures
    for a, outs in sorted(fedges.items()):
        for b, edges in sorted(outs.items()):
            if rank(b) > rank(a):
                for f, t in edges:
                    report(("include", f, t), f"{a} includes {b}, which sits above it: {f} -> {t}")
    if failures == before and not any(k[0] == "include" for k in used):
        print("  none")

    if args.build:
        objs = object_sources(args.build, src)
        if not objs:
            print(f"  FAIL: no objects of src/ under {args.build} (build first)")
            return 1
        where, needs = {}, {}
        for rel, obj in sorted(objs.items()):
            defined, undefined = symbols(obj)
            for s in defined:
                # A symbol defined in two folders (libpassage_onnx carries its own
                # psgi_alloc over the public API) counts at the lower one: that is
                # the definition a caller of the lower library links to.
                if s not in where or rank(folder_of(rel)) < rank(folder_of(where[s])):
                    where[s] = rel
            needs[rel] = undefined
        print(f"upward links (an object of src/ calling a psg_/psgi_ symbol defined above its folder; "
              f"{len(objs)} objects in {args.build}):")
        before = failures
        for rel, undefined in sorted(needs.items()):
            for s in sorted(undefined):
                d = where.get(s)
                if d and rank(folder_of(d)) > rank(folder_of(rel)):
                    report(("link", rel, s), f"{rel} calls {s}, defined in {d} "
                           f"({folder_of(rel)} -> {folder_of(d)}, upward)")
        if failures == before and not any(k[0] == "link" for k in used):
            print("  none")

    for key in allow:
        if key not in used and (key[0] == "include" or args.build):
            failures += 1
            print(f"  FAIL: allow-list entry '{' '.join(key)}' matches nothing: remove it from {args.allow}")
    print(f"check-layers: {'FAILED, ' + str(failures) + ' violation(s)' if failures else 'ok'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
