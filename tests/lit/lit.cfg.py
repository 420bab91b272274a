# lit configuration for Passage's golden tests: `passage`, `FileCheck` and
# `not` come first on PATH (the build's bin dir and Debian's LLVM tools).
import os
import lit.formats

config.name = "passage"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".relay", ".test"]
config.excludes = ["Inputs", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)

bin_dir = lit_config.params.get("passage_bin_dir")
llvm_dir = lit_config.params.get("llvm_bin_dir", "/usr/lib/llvm-14/bin")
if not bin_dir:
    lit_config.fatal("pass --param passage_bin_dir=<dir of the passage binary>")
config.environment["PATH"] = os.pathsep.join([bin_dir, llvm_dir, os.environ.get("PATH", "")])
for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "HOME", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
# Pass plugins built with the CLI (cmake/plugin.cmake): %plugins/libpassage_NAME.so.
config.substitutions.append(("%plugins", os.path.join(bin_dir, "plugins")))
