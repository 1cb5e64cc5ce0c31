"""irt.from_jax: with JAX (only where it is installed; the project never needs it) a
function becomes a converted module whose @main and autodiff.grad agree with JAX;
without JAX, a clear ImportError."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import irtoolkit as irt


def test_from_jax_without_jax_says_so(monkeypatch):
    monkeypatch.setitem(sys.modules, "jax", None)  # `import jax` raises ImportError
    with pytest.raises(ImportError, match="irt.from_jax needs JAX"):
        irt.from_jax(lambda x: x, np.zeros(2))


def test_from_jax_matches_jax():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy

    def loss(w, x):
        h = jnp.tanh(x @ w)
        return jnp.sum(h * h)

    w = np.linspace(-1, 1, 6, dtype=np.float32).reshape(3, 2)
    x = np.linspace(0, 1, 12, dtype=np.float32).reshape(4, 3)
    module = irt.from_jax(loss, w, x)
    assert not any(op.name.startswith("stablehlo.") for op in module.walk())
    np.testing.assert_allclose(irt.interpret(module, "main", w, x), loss(w, x), rtol=1e-5)
    text = str(module).rstrip().removesuffix("}") + """
func.func @dw(%w: tensor<3x2xf32>, %x: tensor<4x3xf32>) -> tensor<3x2xf32> {
  %g = autodiff.grad @main(%w, %x) wrt [0] : (tensor<3x2xf32>, tensor<4x3xf32>) -> tensor<3x2xf32>
  func.return %g : tensor<3x2xf32>
}
}
"""
    exe = irt.compile(irt.parse(text))
    np.testing.assert_allclose(exe["dw"](w, x), jax.grad(loss)(w, x), rtol=1e-5)
