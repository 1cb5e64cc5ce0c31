"""Counterexamples found by the property tests, minimized (by ``propgen.shrink`` and by hand).

Each runs the program compiled and interpreted and compares with numpy.
A bug not fixed yet is marked ``xfail(strict=True)`` (and the generator steers
around it meanwhile: ``propgen.KNOWN_BUGS``), so that a fix turns it into a
pass that must then be unmarked. All found so far are fixed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import irtoolkit as irt

FOR_ONCE_FORWARDING = """
func.func @f(%x: f64, %t: tensor<4xf32>) -> (f64, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r:2 = loop.for %i = %c0 to %c1 step %c2 iter_args(%a = %x, %b = %t) -> (f64, tensor<4xf32>) {
    loop.yield %a, %b : f64, tensor<4xf32>
  }
  func.return %r#0, %r#1 : f64, tensor<4xf32>
}
"""


def _both(text, name, *args):
    m = irt.parse(text)
    want = irt.interpret(m, name, *args)
    got = irt.compile(m)[name](*args)
    return got, want


def test_one_trip_for_forwarding_its_iter_arg():
    t = np.arange(4, dtype=np.float32)
    m = irt.parse(FOR_ONCE_FORWARDING)
    irt.run_pipeline(m, "canonicalize")
    (g0, g1), (w0, w1) = _both(FOR_ONCE_FORWARDING, "f", 1.5, t)
    assert g0 == w0 == 1.5
    assert np.array_equal(g1, t) and np.array_equal(w1, t)


WHILE_IN_FOR_GRAD = """
func.func @f(%x: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %h = arith.constant 0.5 : f64
  %r = loop.for %i = %c0 to %c3 step %c1 iter_args(%a = %h) -> (f64) {
    %w:2 = loop.while (%w0 = %c0, %w1 = %x) : (index, f64) -> (index, f64) {
      %b = arith.cmpi ult, %w0, %c3 : index
      loop.condition(%b) %w0, %w1 : index, f64
    } do {
    ^bb0(%x0: index, %x1: f64):
      %n = arith.addi %x0, %c1 : index
      %t = math.tanh %x1 : f64
      loop.yield %n, %t : index, f64
    }
    %v = math.tanh %w#1 : f64
    loop.yield %v : f64
  }
  func.return %r : f64
}
func.func @g(%x: f64) -> f64 {
  %g = autodiff.grad @f(%x) : (f64) -> f64
  func.return %g : f64
}
"""


def _tanh4_grad(x):
    d, v = 1.0, x
    for _ in range(4):
        v = math.tanh(v)
        d *= 1 - v * v
    return d


def test_grad_of_while_inside_for():
    g, w = _both(WHILE_IN_FOR_GRAD, "g", 0.3)
    assert abs(w - _tanh4_grad(0.3)) < 1e-12
    assert abs(g - _tanh4_grad(0.3)) < 1e-12


# carried values swap places; the tape-like last one is the only result used
SWAP_AND_DEAD_ITER_ARG = """
func.func @h(%x: f64, %y: f64, %n: index) -> tensor<?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty(%n) : tensor<?xf64>
  %e2 = tensor.empty(%n) : tensor<?xf64>
  %r:4 = loop.for %i = %c0 to %n step %c1 iter_args(%a = %x, %b = %y, %t = %e, %t1 = %e2) -> (f64, f64, tensor<?xf64>, tensor<?xf64>) {
    %s = tensor.insert %a into %t[%i] : tensor<?xf64>
    %th = math.tanh %b : f64
    %t2 = tensor.insert %th into %t1[%i] : tensor<?xf64>
    loop.yield %th, %a, %s, %t2 : f64, f64, tensor<?xf64>, tensor<?xf64>
  }
  func.return %r#3 : tensor<?xf64>
}
"""


def _swap_model(x, y, n):
    a, b, out = x, y, []
    for _ in range(n):
        th = math.tanh(b)
        out.append(th)
        a, b = th, a
    return np.array(out)


def test_dead_iter_arg_next_to_a_forwarded_block_argument():
    m = irt.parse(SWAP_AND_DEAD_ITER_ARG)
    irt.run_pipeline(m, "canonicalize")
    got, want = _both(SWAP_AND_DEAD_ITER_ARG, "h", 0.3, 0.7, 5)
    np.testing.assert_allclose(want, _swap_model(0.3, 0.7, 5), rtol=1e-15)
    np.testing.assert_allclose(got, want, rtol=1e-15)


WHILE_SWAP_GRAD = """
func.func @f(%x: f64, %y: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r:3 = loop.while (%w0 = %c0, %w1 = %x, %w2 = %y) : (index, f64, f64) -> (index, f64, f64) {
    %b = arith.cmpi ult, %w0, %c4 : index
    loop.condition(%b) %w0, %w1, %w2 : index, f64, f64
  } do {
  ^bb0(%x0: index, %x1: f64, %x2: f64):
    %n = arith.addi %x0, %c1 : index
    %t = math.tanh %x2 : f64
    loop.yield %n, %t, %x1 : index, f64, f64
  }
  func.return %r#2 : f64
}
func.func @g(%x: f64, %y: f64) -> (f64, f64) {
  %a, %b = autodiff.grad @f(%x, %y) : (f64, f64) -> (f64, f64)
  func.return %a, %b : f64, f64
}
"""


def test_grad_of_while_swapping_carried_values():
    # (x1, x2) <- (tanh x2, x1) four times: f = tanh(tanh(y)), independent of x
    irt.run_pipeline(irt.parse(WHILE_SWAP_GRAD), "ad,canonicalize")
    (gx, gy), (wx, wy) = _both(WHILE_SWAP_GRAD, "g", 0.3, 0.7)
    t1 = math.tanh(0.7)
    want_y = (1 - math.tanh(t1) ** 2) * (1 - t1 ** 2)
    assert wx == 0.0 and abs(wy - want_y) < 1e-14
    assert gx == 0.0 and abs(gy - want_y) < 1e-14


NESTED_CHECKPOINT = """
func.func @f(%x: tensor<2xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %h = arith.constant 0.7 : f64
  %r = loop.for %i = %c0 to %c4 step %c1 iter_args(%a = %h) -> (f64) {
    %e = tensor.extract %x[%c0] : tensor<2xf64>
    %t = math.tanh %e : f64
    %r2 = loop.for %j = %c0 to %c2 step %c1 iter_args(%b = %t) -> (f64) {
      loop.yield %h : f64
    } {autodiff.checkpoint = 1}
    loop.yield %t : f64
  } {autodiff.checkpoint = 2}
  func.return %r : f64
}
func.func @g(%x: tensor<2xf64>) -> tensor<2xf64> {
  %g = autodiff.grad @f(%x) : (tensor<2xf64>) -> tensor<2xf64>
  func.return %g : tensor<2xf64>
}
"""


def test_grad_with_nested_checkpointed_loops():
    x = np.array([0.4, -1.0])
    g, w = _both(NESTED_CHECKPOINT, "g", x)
    want = np.array([1 - np.tanh(0.4) ** 2, 0.0])
    np.testing.assert_allclose(w, want, rtol=1e-15)
    np.testing.assert_allclose(g, want, rtol=1e-15)


IF_IN_WHILE_GRAD = """
func.func @f(%x: tensor<1xf64>) -> f64 {
  %h = arith.constant 0.5 : f64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = loop.while (%w0 = %c0, %w1 = %h) : (index, f64) -> (index, f64) {
    %b = arith.cmpi ult, %w0, %c1 : index
    loop.condition(%b) %w0, %w1 : index, f64
  } do {
  ^bb0(%x0: index, %x1: f64):
    %false = arith.cmpf olt, %h, %h : f64
    %r21 = loop.if %false -> (f64) {
      loop.yield %h : f64
    } else {
      %e = tensor.extract %x[%c0] : tensor<1xf64>
      loop.yield %e : f64
    }
    %n = arith.addi %x0, %c1 : index
    %v = math.tanh %r21 : f64
    loop.yield %n, %v : index, f64
  }
  func.return %r#1 : f64
}
func.func @g(%x: tensor<1xf64>) -> tensor<1xf64> {
  %g = autodiff.grad @f(%x) : (tensor<1xf64>) -> tensor<1xf64>
  func.return %g : tensor<1xf64>
}
"""


def test_grad_of_while_holding_an_if_with_a_constant_condition():
    x = np.array([0.2])
    g, w = _both(IF_IN_WHILE_GRAD, "g", x)
    want = np.array([1 - np.tanh(0.2) ** 2])
    np.testing.assert_allclose(w, want, rtol=1e-15)
    np.testing.assert_allclose(g, want, rtol=1e-15)


FOR_IN_WHILE_GRAD = """
func.func @f(%x: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %h = arith.constant 3.0 : f64
  %r:2 = loop.while (%w0 = %c0, %w1 = %h) : (index, f64) -> (index, f64) {
    %b = arith.cmpi ult, %w0, %c2 : index
    loop.condition(%b) %w0, %w1 : index, f64
  } do {
  ^bb0(%x0: index, %x1: f64):
    %f = loop.for %i = %c0 to %c2 step %c1 iter_args(%a = %x) -> (f64) {
      %t = math.tanh %a : f64
      loop.yield %t : f64
    }
    %n = arith.addi %x0, %c1 : index
    %v = math.tanh %f : f64
    loop.yield %n, %v : index, f64
  }
  func.return %r#1 : f64
}
func.func @g(%x: f64) -> f64 {
  %g = autodiff.grad @f(%x) : (f64) -> f64
  func.return %g : f64
}
"""


def _tanh_chain_grad(x, n):
    d, v = 1.0, x
    for _ in range(n):
        v = math.tanh(v)
        d *= 1 - v * v
    return d


def test_grad_of_for_inside_while():
    g, w = _both(FOR_IN_WHILE_GRAD, "g", 0.3)
    assert abs(w - _tanh_chain_grad(0.3, 3)) < 1e-14
    assert abs(g - _tanh_chain_grad(0.3, 3)) < 1e-14
