"""Each function of ops.mlir means the same before and after convert-stablehlo-to-tensor:
the StableHLO interpreter rules (the executable statement of StableHLO's semantics)
against the converted program, interpreted and compiled, on random inputs; integer
indices include out-of-range ones, which StableHLO clamps."""

from __future__ import annotations

import functools
import os

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerType

import irtoolkit as irt
from irtoolkit.interpreter.core import Interpreter
from irtoolkit.pipeline import run_pipeline

OPS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ops.mlir")


@functools.cache
def _modules():
    with open(OPS) as f:
        text = f.read()
    source = irt.parse(text, "ops.mlir")
    converted = run_pipeline(irt.parse(text, "ops.mlir"), "convert-stablehlo-to-tensor")
    return source, converted


def _functions() -> list[str]:
    return [op.sym_name.data for op in _modules()[0].body.block.ops if isinstance(op, func.FuncOp)]


def _inputs(fn: func.FuncOp, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    args = []
    for t in fn.function_type.inputs.data:
        shape, et = tuple(t.get_shape()), t.get_element_type()
        if isinstance(et, IntegerType):
            args.append(np.asarray(rng.integers(-3, 8, shape), dtype=f"int{et.width.data}"))
        else:
            dtype = np.float32 if et.bitwidth == 32 else np.float64
            args.append(rng.uniform(0.5, 1.5, shape).astype(dtype) * rng.choice([-1, 1], shape).astype(dtype))
    return args


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("name", _functions())
def test_conversion_keeps_the_meaning(name, seed):
    source, converted = _modules()
    fn = next(op for op in source.body.block.ops if isinstance(op, func.FuncOp) and op.sym_name.data == name)
    args = _inputs(fn, seed)
    if name == "elementwise":  # pow of a negative base is NaN in both; keep the numbers finite
        args = [np.abs(a) for a in args]
    expected = Interpreter(source).call(name, *args)
    expected = expected if isinstance(expected, tuple) else (expected,)
    for got in (Interpreter(converted).call(name, *args), _compiled()[name](*args)):
        got = got if isinstance(got, tuple) else (got,)
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert g.dtype == e.dtype and g.shape == e.shape
            np.testing.assert_allclose(g, e, rtol=1e-6 if g.dtype == np.float32 else 1e-13)


@functools.cache
def _compiled():
    return irt.compile(_modules()[1])
