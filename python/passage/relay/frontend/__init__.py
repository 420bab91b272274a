"""Passage — tvm.relay.frontend: the helpers TVM's frontends share
(`common`). Passage's model importer is ONNX in C (passage.onnx / the CLI)."""

from . import common  # noqa: F401
