"""The distribution ships every package of the source tree, and nothing else at top level."""

import os
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOP = {"irtoolkit": "irtoolkit", "dialects": "irtoolkit.dialects",
       "passes": "irtoolkit.passes", "cli": "irtoolkit.cli"}


def _source_packages():
    found = set()
    for top, pkg in TOP.items():
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, top)):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
            if "__init__.py" in filenames:
                rel = os.path.relpath(dirpath, os.path.join(ROOT, top))
                found.add(pkg if rel == "." else pkg + "." + rel.replace(os.sep, "."))
    return found


def test_every_package_is_listed():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        listed = set(tomllib.load(f)["tool"]["setuptools"]["packages"])
    assert _source_packages() == listed


def test_public_api():
    import irtoolkit

    for name in ("parse", "run_pipeline", "compile", "interpret", "context"):
        assert callable(getattr(irtoolkit, name))
