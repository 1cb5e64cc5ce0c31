"""The Python examples: the training example gives the losses of its IR
version; the RNN's data-dependent while and the meta-learning step match numpy
and finite differences."""

import importlib.util
from pathlib import Path

import numpy as np

import irtoolkit as irt
from fdiff import fd

EXAMPLES = Path(__file__).parents[2] / "examples"


def _load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_train_mlp_matches_the_ir_version(capsys):
    py = _load("train_mlp")
    hist, final = py.train(*py.data())
    py_printed = capsys.readouterr().out
    exe = irt.compile((EXAMPLES / "train_mlp.mlir").read_text(), filename="train_mlp.mlir")
    ir_hist, ir_final = exe["train"]()
    assert py_printed == capsys.readouterr().out and py_printed.count("step") == 4
    np.testing.assert_allclose(hist, ir_hist, rtol=1e-12)
    np.testing.assert_allclose(final, ir_final, rtol=1e-12)
    assert hist[-1] < hist[0] / 100  # it trains


def test_rnn_while_matches_numpy_and_finite_differences():
    rnn = _load("rnn_while")
    wx, wh, xs, threshold = rnn.problem()
    h, t = rnn.encode(wx, wh, xs, threshold)
    want_h, want_t = rnn.encode_numpy(wx, wh, xs, threshold)
    assert int(t) == want_t and 1 < want_t < len(xs)
    np.testing.assert_allclose(h, want_h, rtol=1e-12)
    _, (gx, gh) = irt.value_and_grad(rnn.readout, argnums=(0, 1))(wx, wh, xs, threshold)
    args = (wx, wh, xs, threshold)
    np.testing.assert_allclose(gx, fd(rnn.readout, args, 0), rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(gh, fd(rnn.readout, args, 1), rtol=1e-5, atol=1e-8)


def test_meta_learning_step_matches_finite_differences():
    meta = _load("meta_learning")
    task = next(meta.tasks())
    w = np.full((3, 1), 0.3)
    value, g = meta.meta_grad(w, *task)
    np.testing.assert_allclose(value, meta.adapted_loss(w, *task))
    np.testing.assert_allclose(g, fd(meta.adapted_loss, (w, *task), 0), rtol=1e-5, atol=1e-9)
