"""The JAX corpus through convert-stablehlo-to-tensor, model by model against JAX:

- the converted ``@main`` (interpreted, both dtypes; compiled, f64) gives JAX's loss;
- ``autodiff.grad`` of the converted ``@main`` (the `ad` pass, interpreted and
  compiled) gives ``jax.grad`` (``jax.jacfwd`` for newton_while): 1e-9 relative
  in f64, 1e-4 in f32;
- JAX's own exported gradient programs (``*_grad``, max-pool's select_and_scatter
  included) convert and give the same gradients.
"""

from __future__ import annotations

import functools
import io
import os

import numpy as np
import pytest
from xdsl.printer import Printer

import irtoolkit as irt
from irtoolkit.jax_export import with_grad
from irtoolkit.pipeline import run_pipeline

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
TOLERANCE = {"f32": 1e-4, "f64": 1e-9}

# the corpus: each model's JAX source is in generate.py; `*_grad` are JAX's own gradient programs
FORWARD = ["mlp_gelu_tanh", "mlp_gelu_erf", "transformer", "lenet", "lstm_scan", "gru_fori", "newton_while",
           "cond_switch", "scatter_add", "argmax_accuracy", "cumsum", "logsumexp", "neural_ode_rk4"]
BACKWARD = ["mlp_gelu_erf_grad", "neural_ode_rk4_grad", "lstm_scan_grad", "scatter_add_grad", "lenet_grad"]
DTYPES = ("f32", "f64")


def _printed(module) -> str:
    out = io.StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


def _reference(model: str, dtype: str):
    data = np.load(os.path.join(CORPUS, f"{model.removesuffix('_grad')}.{dtype}.npz"))
    args = [data[f"arg{i}"] for i in range(sum(k.startswith("arg") for k in data.files))]
    grads = [data[f"grad{i}"] for i in range(len(data["wrt"]))]
    return data, args, [int(i) for i in data["wrt"]], grads


@functools.cache
def converted(model: str, dtype: str):
    """The model converted, with ``@grad_main`` added (forward models): a parsed module."""
    name = f"{model}.{dtype}.mlir"
    with open(os.path.join(CORPUS, name)) as f:
        module = irt.parse(f.read(), name)
    run_pipeline(module, "convert-stablehlo-to-tensor")
    if model.endswith("_grad"):
        return module
    _, _, wrt, _ = _reference(model, dtype)
    return with_grad(module, wrt, filename=name)


@functools.cache
def compiled(model: str, dtype: str):
    return irt.compile(converted(model, dtype))


def _close(got, expected, dtype: str) -> None:
    got = list(got) if isinstance(got, tuple) else [got]
    assert len(got) == len(expected)
    tol = TOLERANCE[dtype]
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=tol, atol=tol * float(np.max(np.abs(e))))


def test_corpus_is_listed():
    on_disk = {f.split(".")[0] for f in os.listdir(CORPUS) if f.endswith(".mlir")}
    assert on_disk == set(FORWARD + BACKWARD)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("model", FORWARD)
def test_interpreted_matches_jax(model, dtype):
    """Loss and gradient of the converted model on the interpreter."""
    module = converted(model, dtype)
    data, args, _, grads = _reference(model, dtype)
    _close(irt.interpret(module, "main", *args), [data["out0"]], dtype)
    _close(irt.interpret(module, "grad_main", *args), grads, dtype)


@pytest.mark.parametrize("model", FORWARD)
def test_compiled_matches_jax(model):
    """Loss and gradient of the converted model, compiled (f64; f32 on the interpreter)."""
    exe = compiled(model, "f64")
    data, args, _, grads = _reference(model, "f64")
    _close(exe["main"](*args), [data["out0"]], "f64")
    _close(exe["grad_main"](*args), grads, "f64")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("model", BACKWARD)
def test_jax_gradient_programs_convert(model, dtype):
    """JAX's own gradient functions, converted and interpreted, give JAX's gradients."""
    _, args, _, grads = _reference(model, dtype)
    _close(irt.interpret(converted(model, dtype), "main", *args), grads, dtype)


def test_converted_loops_are_structured():
    """fori_loop / scan become loop.for with a static trip count, while_loop loop.while,
    cond / switch loop.if; nothing of StableHLO is left."""
    ops = {m: {op.name for op in converted(m, "f64").walk()} for m in
           ("gru_fori", "neural_ode_rk4", "newton_while", "cond_switch")}
    assert "loop.for" in ops["gru_fori"] and "loop.while" not in ops["gru_fori"]
    assert "loop.for" in ops["neural_ode_rk4"]
    assert "loop.while" in ops["newton_while"]
    assert "loop.if" in ops["cond_switch"]
    for names in ops.values():
        assert not any(n.startswith(("stablehlo.", "chlo.", "sdy.")) for n in names)


def test_compile_and_interpret_convert_first():
    """irt.interpret and irt.compile take the StableHLO module itself and leave it unchanged."""
    name = "mlp_gelu_tanh.f32.mlir"
    with open(os.path.join(CORPUS, name)) as f:
        module = irt.parse(f.read(), name)
    before = _printed(module)
    data, args, _, _ = _reference("mlp_gelu_tanh", "f32")
    _close(irt.interpret(module, "main", *args), [data["out0"]], "f32")
    _close(irt.compile(module)["main"](*args), [data["out0"]], "f32")
    assert _printed(module) == before
