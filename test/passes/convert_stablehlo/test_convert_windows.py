"""Convolutions, windowed reductions and max-pool's select_and_scatter (Inputs/windows.mlir)
converted to tensor.conv, tensor.reduce_window_sum/max and tensor.window_max_scatter mean
what the StableHLO interpreter says, interpreted and compiled."""

from __future__ import annotations

import functools
import os

import numpy as np

import irtoolkit as irt
from irtoolkit.interpreter.core import Interpreter
from irtoolkit.pipeline import run_pipeline

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs", "windows.mlir")


@functools.cache
def _source():
    with open(PATH) as f:
        return f.read()


@functools.cache
def _converted():
    return run_pipeline(irt.parse(_source(), "windows.mlir"), "convert-stablehlo-to-tensor")


def test_conversion_keeps_the_meaning():
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
