"""examples/cnn.mlir and examples/attention.mlir (the README tour's models):
the compiled program agrees with the interpreter, and its gradient with
central finite differences of its loss on a few coordinates."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irtoolkit as irt

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _inputs(module, rng):
    """Random arguments of @loss, of its declared shapes (all f64)."""
    from xdsl.dialects import func

    loss = next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "loss")
    return [rng.standard_normal(tuple(t.get_shape())) * 0.5 for t in loss.function_type.inputs.data]


@pytest.fixture(scope="module", params=["cnn.mlir", "attention.mlir"])
def example(request):
    from irtoolkit.runtime import translate

    module = irt.parse((EXAMPLES / request.param).read_text(), request.param)
    before = translate.FALLBACKS.copy()
    exe = irt.compile(module)
    # its LLVM IR straight from the llvm dialect, not through llvmlite's IR objects
    assert translate.FALLBACKS == before
    return module, exe


def test_compiled_main_agrees_with_interpreter(example):
    module, exe = example
    compiled = exe["main"]()
    interpreted = irt.interpret(module, "main")
    assert len(compiled) == len(interpreted) == 3
    for c, i in zip(compiled, interpreted):
        np.testing.assert_allclose(c, i, rtol=1e-12, atol=1e-14)
    assert np.all(np.abs(np.asarray(compiled[2])) > 0)  # a gradient that is not identically zero


def test_gradient_matches_finite_differences(example):
    module, exe = example
    rng = np.random.default_rng(0)
    args = _inputs(module, rng)
    if len(args) == 5:  # cnn: labels must be a distribution
        args[4] = np.eye(3)[[0, 2]]
    grads = exe["grad"](*args)
    eps = 1e-6
    for g, (pos, arg) in zip(grads, enumerate(args)):
        assert g.shape == arg.shape
        for flat in rng.choice(arg.size, size=2, replace=False):
            idx = np.unravel_index(flat, arg.shape)
            up, down = [a.copy() for a in args], [a.copy() for a in args]
            up[pos][idx] += eps
            down[pos][idx] -= eps
            fd = (exe["loss"](*up) - exe["loss"](*down)) / (2 * eps)
            assert g[idx] == pytest.approx(fd, rel=1e-5, abs=1e-8), (pos, idx)
