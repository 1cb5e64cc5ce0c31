"""Regression: a ``loop.for`` whose body does not read a carried block argument.

Such an argument is not taped; its adjoint (a symbolic zero) used to be looked
up in the primal value map and failed with a KeyError, with or without
checkpointing. Checked against closed forms, on the interpreter and compiled.
"""

import os
import sys

import numpy as np
import pytest

import irtoolkit as irt

sys.path.insert(0, os.path.dirname(__file__))
from adcheck import add_grad, check_grad, check_jvp, run1  # noqa: E402

CKPT = {"none": "", "sqrt": ' {autodiff.checkpoint = "sqrt"}', "segment": " {autodiff.checkpoint = 5}"}

# the fuzzer's reproducer: only the last iteration matters
UNUSED = """
func.func @p(%x: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %r = loop.for %i = %c0 to %c16 step %c1 iter_args(%a = %x) -> (f64) {
    %s = math.sin %x : f64
    %t = arith.mulf %s, %x : f64
    loop.yield %t : f64
  }ATTR
  return %r : f64
}
"""


def _closed(x):
    return np.cos(x) * x + np.sin(x)


@pytest.mark.parametrize("ckpt", list(CKPT))
def test_unused_iter_arg_closed_form(ckpt, backend):
    src = add_grad(UNUSED.replace("ATTR", CKPT[ckpt]), "p", ["f64"], [0])
    for x in (0.7, -1.3):
        np.testing.assert_allclose(run1(src, backend, "__d", x), _closed(x), rtol=1e-14)


def test_unused_iter_arg_checkpoint_option():
    m = irt.parse(add_grad(UNUSED.replace("ATTR", ""), "p", ["f64"], [0]))
    irt.run_pipeline(m, "ad{checkpoint=sqrt}")
    np.testing.assert_allclose(irt.interpret(m, "__d", 0.7), _closed(0.7), rtol=1e-14)


# dynamic trip count (0 iterations: r = x, gradient 1), one unused and one used
# carried value, vjp/jvp as well
MIXED = """
func.func @q(%x: f64, %n: index) -> (f64, f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = loop.for %i = %c0 to %n step %c1 iter_args(%a = %x, %b = %x) -> (f64, f64) {
    %s = math.sin %x : f64
    %t = arith.mulf %s, %x : f64
    %u = arith.mulf %b, %x : f64
    loop.yield %t, %u : f64, f64
  }ATTR
  return %r#0, %r#1 : f64, f64
}
"""


def _mixed_vjp(x, n, ca, cb):
    # r0 = x if n == 0 else sin(x)*x ; r1 = x**(n+1)
    d0 = 1.0 if n == 0 else _closed(x)
    return ca * d0 + cb * (n + 1) * x**n


@pytest.mark.parametrize("ckpt", list(CKPT))
@pytest.mark.parametrize("n", [0, 1, 7])
def test_unused_and_used_iter_args(ckpt, n, backend):
    src = MIXED.replace("ATTR", CKPT[ckpt])
    x = 0.8
    vjp = src + """
func.func @v(%x: f64, %n: index, %ca: f64, %cb: f64) -> f64 {
  %r0, %r1, %g = autodiff.vjp @q(%x, %n) cotangents(%ca, %cb) wrt [0] : (f64, index, f64, f64) -> (f64, f64, f64)
  return %g : f64
}
"""
    for ca, cb in ((1.0, 0.0), (0.0, 1.0), (0.5, -2.0)):
        got = run1(vjp, backend, "v", x, n, ca, cb)
        np.testing.assert_allclose(got, _mixed_vjp(x, n, ca, cb), rtol=1e-13)
    check_jvp(src, "q", ["f64", "index"], ["f64", "f64"], [np.float64(x), n], wrt=[0], backend=backend)


# an unused carried tensor of dynamic shape: the zero adjoint takes its sizes
TENSOR = """
func.func @t(%x: tensor<?xf64>) -> tensor<?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %r = loop.for %i = %c0 to %c6 step %c1 iter_args(%a = %x) -> (tensor<?xf64>) {
    %s = tensor.sin %x : tensor<?xf64>
    %t = tensor.mul %s, %x : tensor<?xf64>
    loop.yield %t : tensor<?xf64>
  }ATTR
  return %r : tensor<?xf64>
}
"""


@pytest.mark.parametrize("ckpt", list(CKPT))
def test_unused_dynamic_tensor_iter_arg(ckpt, backend):
    src = TENSOR.replace("ATTR", CKPT[ckpt])
    x = np.array([0.3, -0.9, 1.4])
    ct = np.array([1.0, -0.5, 2.0])
    vjp = src + """
func.func @v(%x: tensor<?xf64>, %ct: tensor<?xf64>) -> tensor<?xf64> {
  %r, %g = autodiff.vjp @t(%x) cotangents(%ct) : (tensor<?xf64>, tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>)
  return %g : tensor<?xf64>
}
"""
    got = run1(vjp, backend, "v", x, ct)
    np.testing.assert_allclose(got, ct * _closed(x), rtol=1e-14)


def test_unused_iter_arg_fd_checkpointed(backend):
    # the same program through the generic finite-difference check
    check_grad(UNUSED.replace("ATTR", CKPT["sqrt"]), "p", ["f64"], [np.float64(0.4)], backend=backend)
