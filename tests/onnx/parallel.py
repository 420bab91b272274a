"""Runs the per-model checks of the ONNX test scripts on every core: each
check launches `passage` processes and waits on them, so threads overlap
well. Results come back in input order, so the printed report does not
depend on scheduling."""
import concurrent.futures
import os
import tempfile


def map_in_tmp(fn, items):
    """[fn(item, tmp_dir) for item in items], each call in its own temporary
    directory, run on os.cpu_count() threads."""
    def one(item):
        with tempfile.TemporaryDirectory() as tmp:
            return fn(item, tmp)
    workers = max(1, os.cpu_count() or 1)
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(one, items))
