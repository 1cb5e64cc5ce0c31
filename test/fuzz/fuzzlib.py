"""Loads the fuzzing harness (``fuzz/mutate.py``, not a package) for the tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "fuzz" / "mutate.py"


def load():
    if "irt_fuzz_mutate" in sys.modules:
        return sys.modules["irt_fuzz_mutate"]
    spec = importlib.util.spec_from_file_location("irt_fuzz_mutate", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["irt_fuzz_mutate"] = mod
    spec.loader.exec_module(mod)
    return mod
