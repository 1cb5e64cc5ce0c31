"""Helpers for the interpreter tests: parse IR text, run a function with type checks on."""

from __future__ import annotations

import numpy as np
import irtoolkit as irt
from irtoolkit.interpreter import interpret_function

_CACHE: dict[str, object] = {}


def parse_cached(text: str):
    """Parse (and verify) once per distinct text: the interpreter never mutates a module."""
    module = _CACHE.get(text)
    if module is None:
        module = irt.parse(text)
        _CACHE[text] = module
    return module


def run_ir(text: str, name: str, *args):
    """Interpret ``name`` of ``text``, checking every produced value against its IR type."""
    return interpret_function(parse_cached(text), name, *args, check_types=True)


DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i1": np.bool_, "i8": np.int8,
          "i16": np.int16, "i32": np.int32, "i64": np.int64, "index": np.int64}
