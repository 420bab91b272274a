#!/usr/bin/python3
"""tools/check-layers.py on small made-up trees: it passes a clean tree and
fails, naming the files, on an upward include, an include cycle across two
peer folders, an upward link reference (objects compiled with cc), and an
allow-list entry that matches nothing. Run with /usr/bin/python3."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, "..", "..", "tools", "check-layers.py")


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path


def check(src, *extra):
    p = subprocess.run([sys.executable, CHECK, "--src", src, *extra], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def expect(label, got, rc, *needles):
    code, out = got
    missing = [n for n in needles if n not in out]
    if code != rc or missing:
        print(f"FAIL {label}: exit {code} (want {rc}), missing {missing}\n{out}")
        return 1
    print(f"ok   {label}")
    return 0


def main():
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "src")
        write(src, "support/support.h", "int psgi_base(void);\n")
        write(src, "ir/ir_internal.h", '#include "support/support.h"\n')
        write(src, "ir/expr.c", '#include "ir/ir_internal.h"\n')
        write(src, "builtin/all.c", '#include "ir/ir_internal.h"\n')  # unlisted: on top
        failed += expect("clean tree", check(src), 0, "ir          -> support (1)", "check-layers: ok")

        write(src, "ir/expr.c", '#include "ir/ir_internal.h"\n#include "ops/op_table.h"\n')
        write(src, "ops/op_table.h", "\n")
        failed += expect("upward include", check(src), 1,
                         "ir includes ops, which sits above it: ir/expr.c -> ops/op_table.h")
        allow = write(tmp, "allow.txt", "# known\ninclude ir/expr.c ops/op_table.h\n")
        failed += expect("upward include, allowed", check(src, "--allow", allow), 0, "allowed (listed in")
        write(src, "ir/expr.c", '#include "ir/ir_internal.h"\n')
        failed += expect("stale allow-list entry", check(src, "--allow", allow), 1,
                         "'include ir/expr.c ops/op_table.h' matches nothing")

        # text and ops are peers: one may include the other, but not both ways.
        write(src, "text/printer.c", '#include "ops/op_table.h"\n')
        failed += expect("peer include", check(src), 0, "check-layers: ok")
        write(src, "ops/op_table.h", '#include "text/lexer.h"\n')
        write(src, "text/lexer.h", '#include "ops/op_table.h"\n')
        failed += expect("cycle across folders", check(src), 1, "folders ops, text include each other",
                         "ops/op_table.h -> text/lexer.h", "a file include cycle spans folders")
        write(src, "ops/op_table.h", "\n")

        # Link level: ir/walk.c calls psgi_run, defined in pass/run.c, with no include.
        build = os.path.join(tmp, "build")
        for rel, code in (("ir/walk.c", "int psgi_run(void);\nint psgi_walk(void) { return psgi_run(); }\n"),
                          ("pass/run.c", "int psgi_run(void) { return 1; }\n")):
            write(src, rel, code)
            obj = os.path.join(build, "CMakeFiles", "lib.dir", "src", rel + ".o")
            os.makedirs(os.path.dirname(obj), exist_ok=True)
            subprocess.run(["cc", "-c", os.path.join(src, rel), "-o", obj], check=True)
        failed += expect("upward link", check(src, "--build", build), 1,
                         "ir/walk.c calls psgi_run, defined in pass/run.c (ir -> pass, upward)")
        allow = write(tmp, "allow.txt", "link ir/walk.c psgi_run\n")
        failed += expect("upward link, allowed", check(src, "--build", build, "--allow", allow), 0, "check-layers: ok")
        # An object left behind by a source that moved does not count.
        os.remove(os.path.join(src, "ir/walk.c"))
        failed += expect("stale object ignored", check(src, "--build", build, "--allow", allow), 1,
                         "'link ir/walk.c psgi_run' matches nothing")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
