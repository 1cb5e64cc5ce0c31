"""The JAX corpus (generate.py) as it is read today, before any conversion:

- every export parses, verifies, prints, and the printed text (pretty and
  generic) parses back to the same module;
- the interpreter runs each model's ``@main`` as StableHLO (its stablehlo
  rules, without converting) on the stored inputs and gives JAX's output; for
  the exported gradient functions it gives JAX's gradients.
"""

from __future__ import annotations

import io
import os

import numpy as np
import pytest
from xdsl.printer import Printer

import irtoolkit as irt
from irtoolkit.interpreter.core import Interpreter

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
FILES = sorted(f for f in os.listdir(CORPUS) if f.endswith(".mlir"))
TOLERANCE = {"f32": 1e-5, "f64": 1e-12}


def _printed(module, generic: bool = False) -> str:
    out = io.StringIO()
    Printer(stream=out, print_generic_format=generic).print_op(module)
    return out.getvalue()


def _load(name: str):
    with open(os.path.join(CORPUS, name)) as f:
        return irt.parse(f.read(), name)


def _reference(name: str):
    stem = name.removesuffix(".mlir").replace("_grad.", ".")
    return np.load(os.path.join(CORPUS, stem + ".npz"))


def test_corpus_is_complete():
    models = {f.split(".")[0] for f in FILES}
    expected = {"mlp_gelu_erf", "mlp_gelu_tanh", "lenet", "transformer", "lstm_scan", "gru_fori",
                "newton_while", "cond_switch", "scatter_add", "argmax_accuracy", "cumsum",
                "logsumexp", "neural_ode_rk4"}
    assert expected <= models
    for model in models:
        for dtype in ("f32", "f64"):
            assert f"{model}.{dtype}.mlir" in FILES
            if not model.endswith("_grad"):
                assert os.path.exists(os.path.join(CORPUS, f"{model}.{dtype}.npz"))
    assert sum(m.endswith("_grad") for m in models) >= 2


@pytest.mark.parametrize("name", FILES)
def test_round_trip(name):
    module = _load(name)
    text = _printed(module)
    again = irt.parse(text, "printed")
    assert module.is_structurally_equivalent(again)
    assert _printed(again) == text
    generic = irt.parse(_printed(module, generic=True), "generic")
    assert module.is_structurally_equivalent(generic)


@pytest.mark.parametrize("name", FILES)
def test_interpreter_matches_jax(name):
    module = _load(name)
    data = _reference(name)
    args = [data[f"arg{i}"] for i in range(sum(k.startswith("arg") for k in data.files))]
    got = Interpreter(module).call("main", *args)
    if "_grad." in name:
        expected = [data[f"grad{i}"] for i in range(len(data["wrt"]))]
        got = list(got) if isinstance(got, tuple) else [got]
    else:
        expected, got = [data["out0"]], [got]
    tol = TOLERANCE[name.split(".")[1]]
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=tol, atol=tol * float(np.max(np.abs(e))))
