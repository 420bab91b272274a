"""docs/python.md: every ```python block runs, in order, in one namespace."""

import contextlib
import io
import os
import re

DOC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                   "docs", "python.md")


def test_python_md_examples_run():
    text = open(DOC, encoding="utf-8").read()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 6
    ns = {"__name__": "docs_python_md"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for i, code in enumerate(blocks):
            exec(compile(code, "%s:block%d" % (DOC, i + 1), "exec"), ns)
    printed = out.getvalue()
    assert "def @main" in printed                      # print(mod)
    assert "calls: ['abs', 'add', 'multiply']" in printed  # the Sequential ran CountCalls
    assert printed.count("calls:") == 1                # ... only at opt_level 2
    assert "InferType: " in printed                    # timing.render()
    assert "bad.relay:3:" in printed                   # the parse error with its location
    ns.clear()
