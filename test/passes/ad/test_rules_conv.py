"""`tensor.conv` and the windowed reductions: JVP and VJP vs central finite
differences (f64), on the interpreter and compiled; the adjoints of a conv are
convs themselves."""

import os
import sys

import numpy as np
import pytest

import irtoolkit as irt

sys.path.insert(0, os.path.dirname(__file__))
from adcheck import add_grad, check_grad, check_jvp, grad_texts, register  # noqa: E402

RNG = np.random.default_rng(7)


def _t(shape):
    return "tensor<" + "x".join(map(str, shape)) + ("x" if shape else "") + "f64>"


def _scalar_loss(body: str, args: list[tuple[str, tuple]], out_shape: tuple) -> str:
    """``@f(args) -> f64``: sum(tanh(y) * y) of ``%y`` computed by ``body`` (a
    nonlinear loss so the cotangent varies per element)."""
    sig = ", ".join(f"%{n}: {_t(s)}" for n, s in args)
    rank = len(out_shape)
    return f"""
func.func @f({sig}) -> f64 {{
  {body}
  %th = tensor.tanh %y : {_t(out_shape)}
  %p = tensor.mul %th, %y : {_t(out_shape)}
  %s = tensor.reduce_sum %p [{", ".join(map(str, range(rank)))}] : {_t(out_shape)} -> tensor<f64>
  %r = tensor.extract %s[] : tensor<f64>
  return %r : f64
}}
"""


def _conv_text(x, w, out, clauses):
    return (f"%y = tensor.conv %x, %w {clauses} : ({_t(x)}, {_t(w)}) -> {_t(out)}")


# (input shape, filter shape, clauses)
CONV_CASES = {
    "1d": ((2, 7, 3), (3, 3, 2), ""),
    "1d_stride_pad": ((2, 8, 2), (3, 2, 3), "stride [2] pad [[2, 1]]"),
    "2d": ((2, 5, 4, 3), (3, 2, 3, 4), ""),
    "2d_stride_pad": ((1, 7, 6, 2), (3, 3, 2, 3), "stride [2, 3] pad [[1, 1], [2, 0]]"),
    "2d_dilation": ((2, 7, 7, 2), (2, 3, 2, 2), "dilation [2, 1]"),
    "2d_input_dilation": ((1, 4, 3, 2), (2, 2, 2, 3), "stride [2, 1] pad [[1, 0], [0, 1]] input_dilation [2, 3]"),
    "2d_negative_pad": ((1, 6, 6, 1), (2, 2, 1, 2), "pad [[-1, 0], [0, -2]]"),
    "2d_groups": ((2, 5, 5, 4), (3, 3, 2, 6), "groups 2"),
    "2d_depthwise": ((2, 6, 5, 3), (3, 2, 1, 3), "stride [2, 1] pad [[1, 1], [0, 1]] groups 3"),
    "2d_all": ((1, 6, 7, 4), (2, 3, 2, 4), "stride [2, 1] pad [[1, 0], [1, 2]] input_dilation [1, 2] dilation [2, 1] groups 2"),
    "2d_1x1": ((2, 3, 3, 4), (1, 1, 4, 5), ""),
    "2d_size1": ((1, 1, 1, 1), (1, 1, 1, 1), ""),
    "2d_stride_skips_tail": ((1, 6, 6, 1), (2, 2, 1, 1), "stride [3, 3]"),
    "3d": ((1, 4, 3, 4, 2), (2, 2, 3, 2, 2), "stride [1, 2, 1] pad [[0, 1], [1, 1], [0, 0]]"),
    "3d_groups_dilation": ((1, 5, 4, 4, 2), (2, 2, 2, 1, 4), "dilation [2, 1, 2] groups 2"),
}


def _conv_out(x, w, clauses):
    m = irt.parse(f"func.func @g(%x: {_t(x)}, %w: {_t(w)}) {{ return }}")
    from irtoolkit.dialects import tensor as T
    arg = m.body.block.ops.first.body.block.args
    text = f"%y = tensor.conv %x, %w {clauses} : ({_t(x)}, {_t(w)}) -> "
    # the inferred result type, via the builder
    stride, pad, ld, rd, g = _parse_clauses(clauses, len(x) - 2)
    op = T.ConvOp(arg[0], arg[1], stride, pad, ld, rd, g)
    return tuple(op.result.type.get_shape())


def _parse_clauses(clauses, d):
    import re
    def ints(name):
        m = re.search(rf"(?<![a-z_]){name} \[([-\d, ]*)\]", clauses)
        return None if m is None else [int(v) for v in m.group(1).split(",")]
    m = re.search(r"pad \[(\[.*?\](?:, \[.*?\])*)\]", clauses)
    pad = None if m is None else [[int(v) for v in p.split(",")] for p in re.findall(r"\[([-\d, ]+)\]", m.group(1))]
    g = re.search(r"groups (\d+)", clauses)
    return ints("stride"), pad, ints("input_dilation"), ints("dilation"), int(g.group(1)) if g else 1


def _conv_src(name):
    x, w, clauses = CONV_CASES[name]
    out = _conv_out(x, w, clauses)
    return _scalar_loss(_conv_text(x, w, out, clauses), [("x", x), ("w", w)], out), x, w


@pytest.mark.parametrize("name", list(CONV_CASES))
def test_conv_grad_interp(name):
    src, x, w = _conv_src(name)
    args = [RNG.standard_normal(x), RNG.standard_normal(w)]
    check_grad(src, "f", [_t(x), _t(w)], args)


@pytest.mark.parametrize("name", list(CONV_CASES))
def test_conv_jvp_interp(name):
    src, x, w = _conv_src(name)
    args = [RNG.standard_normal(x), RNG.standard_normal(w)]
    check_jvp(src, "f", [_t(x), _t(w)], ["f64"], args)


def test_conv_adjoints_are_convs():
    src, x, w = _conv_src("2d_all")
    text = irt.run_pipeline(irt.parse(add_grad(src, "f", [_t(x), _t(w)], [0, 1])), "ad,canonicalize")
    printed = str(text)
    grad_fn = printed[printed.index("@f_grad"):printed.index("func.func @__d")]
    # the primal conv and the two adjoints; nothing else does the arithmetic
    assert grad_fn.count("tensor.conv") == 3, grad_fn
    assert "loop." not in grad_fn and "tensor.matmul" not in grad_fn
