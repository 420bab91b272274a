"""Passage's Python frontend: `pip install ./python` (offline: no build
dependencies beyond the setuptools already installed; there is no
pyproject.toml, so pip does not create an isolated build environment).

The package finds libpassage at import time (PASSAGE_LIBRARY, the package
directory, the source tree's build/release, then the system). Set
PASSAGE_BUNDLE_LIBRARY=/path/to/libpassage.so when installing to copy the
library into the package."""

import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildPy(build_py):
    def run(self):
        super().run()
        lib = os.environ.get("PASSAGE_BUNDLE_LIBRARY")
        if lib:
            dest = os.path.join(self.build_lib, "passage", "libpassage.so")
            shutil.copyfile(lib, dest)


setup(
    name="passage",
    version="0.1.0",
    description="Relay-style tensor IR and TVM's pass infrastructure (ctypes bindings to libpassage)",
    packages=["passage", "passage.relay", "passage.relay.testing", "passage.tir", "passage.script"],
    python_requires=">=3.8",
    cmdclass={"build_py": BuildPy},
    zip_safe=False,
)
