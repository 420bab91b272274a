"""The one-file HTML run report from Python (docs/report.md):
passage.instrument.ReportInstrument(path, graphs=...) in a PassContext's
instruments writes the file when the context exits; render() gives the text."""

import shutil

import pytest

import passage
from passage import relay
from passage.instrument import ReportInstrument
from passage.transform import PassContext

TEXT = """#[version = "0.0.5"]
def @main(%x: Tensor[(2, 2), float32]) -> Tensor[(2, 2), float32] {
  add(%x, multiply(2f, 3f))
}
"""


def test_report_written_on_exit(tmp_path):
    path = tmp_path / "run.html"
    report = ReportInstrument(path, graphs="none")
    seq = passage.transform.Sequential([relay.transform.InferType(), relay.transform.FoldConstant()], name="outer")
    with PassContext(opt_level=3, instruments=[report]):
        seq(passage.parse(TEXT))
    html = path.read_text()
    assert html.startswith("<!DOCTYPE html>")
    assert "</span>outer</td>" in html and "</span>FoldConstant</td>" in html
    assert '<span class="add">+  add(%x, 6f)</span>' in html
    assert "<svg" not in html
    assert html == report.render()


@pytest.mark.skipif(not shutil.which("dot"), reason="Graphviz's dot is not installed")
def test_report_graphs_and_write(tmp_path):
    report = ReportInstrument(graphs="each")
    with PassContext(instruments=[report]):
        relay.transform.FoldConstant()(passage.parse(TEXT))
    html = report.render()
    assert html.count("<svg") == 3  # before, after, and after FoldConstant
    report.write(tmp_path / "again.html")
    assert (tmp_path / "again.html").read_text().count("<svg") == 3


def test_report_errors(tmp_path):
    with pytest.raises(ValueError, match="graphs must be"):
        ReportInstrument(tmp_path / "x.html", graphs="all")
    report = ReportInstrument(graphs="none")
    with pytest.raises(passage.PassError, match="cannot write the run report"):
        report.write(tmp_path / "no" / "such" / "dir.html")
