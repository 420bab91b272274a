"""The rename-only `tvm` shim of tools/tvm-tests/run.py (issue 18; docs/tvm-tests.md).

`import tvm` gives the `passage` package itself, and `import tvm.X.Y` gives
`passage.X.Y` (the very same module object, under both names). It renames and
implements nothing: a name Passage lacks fails to import exactly as it would
under its own name."""
import importlib
import importlib.abc
import importlib.util
import sys

import passage

_PREFIX = "tvm."


class _Rename(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds `tvm.X` by importing `passage.X`; loading binds nothing new."""

    def find_spec(self, name, path, target=None):
        if not name.startswith(_PREFIX):
            return None
        real = "passage." + name[len(_PREFIX):]
        # Some of passage's modules are made at run time (no spec): those are
        # found in sys.modules once their package is imported.
        if real not in sys.modules and importlib.util.find_spec(real) is None:
            return None
        return importlib.util.spec_from_loader(name, self)

    def create_module(self, spec):
        module = importlib.import_module("passage." + spec.name[len(_PREFIX):])
        spec.loader_state = module.__spec__  # the import system overwrites it; put it back
        return module

    def exec_module(self, module):
        module.__spec__ = module.__spec__.loader_state


sys.meta_path.insert(0, _Rename())
sys.modules[__name__] = passage
