"""Loading libpassage: the PASSAGE_LIBRARY override, a clear ImportError,
and `pip install ./python` working offline with the library bundled."""

import os
import subprocess
import sys

import passage

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(passage.__file__)))


def _run(code, env_updates, cwd=None):
    env = dict(os.environ)
    env.update(env_updates)
    for k, v in list(env.items()):
        if v is None:
            del env[k]
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def test_library_override_is_used():
    lib = os.environ.get("PASSAGE_LIBRARY")
    if lib:
        assert passage.library_path == lib
    res = _run("import passage; print(passage.library_path)",
               {"PYTHONPATH": PYTHON_DIR, "PASSAGE_LIBRARY": passage.library_path})
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == passage.library_path


def test_missing_library_is_a_clear_import_error(tmp_path):
    res = _run("import passage", {"PYTHONPATH": PYTHON_DIR,
                                  "PASSAGE_LIBRARY": str(tmp_path / "nope" / "libpassage.so")})
    assert res.returncode != 0
    assert "ImportError" in res.stderr and "PASSAGE_LIBRARY" in res.stderr


def test_pip_install_offline(tmp_path):
    # Install from a copy: a setup.py build writes build/ and *.egg-info
    # next to setup.py, and two builds' test runs may run at once.
    import shutil
    src = tmp_path / "src"
    shutil.copytree(PYTHON_DIR, str(src),
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    target = tmp_path / "site"
    res = subprocess.run([sys.executable, "-m", "pip", "install", "--no-index", "--no-deps",
                          "--target", str(target), str(src)],
                         env=dict(os.environ, PASSAGE_BUNDLE_LIBRARY=passage.library_path,
                                  PIP_NO_CACHE_DIR="1"),
                         capture_output=True, text=True, timeout=600, cwd=str(tmp_path))
    assert res.returncode == 0, res.stdout + res.stderr
    res = _run("import passage; from passage import relay; "
               "print(passage.library_path); print(relay.abs.__name__)",
               {"PYTHONPATH": str(target), "PASSAGE_LIBRARY": None}, cwd=str(tmp_path))
    assert res.returncode == 0, res.stderr
    path, name = res.stdout.split()
    assert path == str(target / "passage" / "libpassage.so") and name == "abs"
