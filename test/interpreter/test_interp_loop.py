"""loop (and scf) control flow on the interpreter."""

from __future__ import annotations

import time

import numpy as np
import pytest
from interp_helpers import run_ir

import irtoolkit as irt

FOR_IR = """
func.func @f(%x: tensor<4xf32>, %lb: index, %ub: index, %step: index) -> tensor<4xf32> {
  %r = loop.for %i = %lb to %ub step %step iter_args(%acc = %x) -> (tensor<4xf32>) {
    %n = tensor.tanh %acc : tensor<4xf32>
    loop.yield %n : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}"""


@pytest.mark.parametrize("lb,ub,step,trips", [(0, 3, 1, 3), (0, 0, 1, 0), (5, 2, 1, 0), (1, 8, 3, 3), (0, 1, 10, 1)])
def test_for_trip_counts(lb, ub, step, trips):
    x = np.array([0.5, -1.0, 2.0, 0.0], np.float32)
    want = x.copy()
    for _ in range(trips):
        want = np.tanh(want)
    got = run_ir(FOR_IR, "f", x, lb, ub, step)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, want)


def test_zero_trip_loop_returns_inits_unchanged():
    x = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    np.testing.assert_array_equal(run_ir(FOR_IR, "f", x, 3, 3, 1), x)


def test_for_non_positive_step_is_an_error():
    with pytest.raises(irt.DiagnosticError, match="'loop.for' op step must be positive"):
        run_ir(FOR_IR, "f", np.zeros(4, np.float32), 0, 3, 0)


def test_for_induction_variable_and_scalar_iter_args():
    ir = """
func.func @f(%n: index) -> (f64, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %s, %k = loop.for %i = %c0 to %n step %c1 iter_args(%acc = %z, %cnt = %c0) -> (f64, index) {
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f64
    %a = arith.addf %acc, %f : f64
    %c = arith.addi %cnt, %c1 : index
    loop.yield %a, %c : f64, index
  }
  return %s, %k : f64, index
}"""
    s, k = run_ir(ir, "f", 400)
    assert type(s) is np.float64 and s == 400 * 399 / 2
    assert type(k) is np.int64 and k == 400


def test_for_with_i32_bounds_and_no_results():
    ir = """
func.func @f(%m: memref<5xi32>) {
  %lb = arith.constant 0 : i32
  %ub = arith.constant 5 : i32
  %s = arith.constant 2 : i32
  loop.for %i = %lb to %ub step %s : i32 {
    %j = arith.index_cast %i : i32 to index
    memref.store %i, %m[%j] : memref<5xi32>
  }
  return
}"""
    m = np.full(5, -1, np.int32)
    run_ir(ir, "f", m)
    np.testing.assert_array_equal(m, [0, -1, 2, -1, 4])


def test_if_both_branches_and_without_else():
    ir = """
func.func @f(%c: i1, %a: tensor<2xf64>, %b: tensor<2xf64>) -> tensor<2xf64> {
  %y = loop.if %c -> (tensor<2xf64>) {
    loop.yield %a : tensor<2xf64>
  } else {
    %n = tensor.neg %b : tensor<2xf64>
    loop.yield %n : tensor<2xf64>
  }
  return %y : tensor<2xf64>
}
func.func @g(%c: i1, %m: memref<1xf64>) {
  loop.if %c {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f64
    memref.store %one, %m[%c0] : memref<1xf64>
  }
  return
}"""
    a, b = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    np.testing.assert_array_equal(run_ir(ir, "f", True, a, b), a)
    np.testing.assert_array_equal(run_ir(ir, "f", False, a, b), -b)
    m = np.zeros(1)
    run_ir(ir, "g", False, m)
    assert m[0] == 0.0
    run_ir(ir, "g", True, m)
    assert m[0] == 1.0


WHILE_IR = """
func.func @f(%x: f64, %limit: f64) -> f64 {
  %two = arith.constant 2.0 : f64
  %w = loop.while (%v = %x) : (f64) -> f64 {
    %c = arith.cmpf olt, %v, %limit : f64
    loop.condition(%c) %v : f64
  } do {
  ^bb0(%v2: f64):
    %n = arith.mulf %v2, %two : f64
    loop.yield %n : f64
  }
  return %w : f64
}"""


@pytest.mark.parametrize("x,limit,want", [(1.0, 100.0, 128.0), (1000.0, 100.0, 1000.0), (3.0, 3.0, 3.0)])
def test_while(x, limit, want):
    got = run_ir(WHILE_IR, "f", x, limit)
    assert type(got) is np.float64 and got == want


def test_while_with_different_before_and_after_types():
    ir = """
func.func @f(%n: i64) -> (i64, f32) {
  %one = arith.constant 1 : i64
  %z = arith.constant 0 : i64
  %h = arith.constant 0.5 : f32
  %r:2 = loop.while (%i = %z) : (i64) -> (i64, f32) {
    %c = arith.cmpi slt, %i, %n : i64
    loop.condition(%c) %i, %h : i64, f32
  } do {
  ^bb0(%j: i64, %f: f32):
    %k = arith.addi %j, %one : i64
    loop.yield %k : i64
  }
  return %r#0, %r#1 : i64, f32
}"""
    i, f = run_ir(ir, "f", 250)
    assert i == 250 and type(f) is np.float32 and f == 0.5


def test_parallel_with_reduction():
    ir = """
func.func @f(%m: memref<4x3xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f32
  %s = loop.parallel (%i, %j) = (%c0, %c0) to (%c4, %c3) step (%c1, %c1) init (%z) -> f32 {
    %x = memref.load %m[%i, %j] : memref<4x3xf32>
    loop.reduce(%x : f32) {
    ^bb0(%l: f32, %r: f32):
      %a = arith.addf %l, %r : f32
      loop.reduce.return %a : f32
    }
  }
  return %s : f32
}
func.func @g(%m: memref<5xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  loop.parallel (%i) = (%c0) to (%c5) step (%c1) {
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f64
    memref.store %f, %m[%i] : memref<5xf64>
    loop.reduce
  }
  return
}"""
    m = np.arange(12, dtype=np.float32).reshape(4, 3)
    got = run_ir(ir, "f", m)
    assert type(got) is np.float32 and got == 66.0
    buf = np.zeros(5)
    run_ir(ir, "g", buf)
    np.testing.assert_array_equal(buf, np.arange(5.0))


def test_nested_loops_and_call_inside_loop():
    ir = """
func.func private @step(%x: f64) -> f64 {
  %h = arith.constant 0.5 : f64
  %y = arith.mulf %x, %h : f64
  return %y : f64
}
func.func @f(%x: f64, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = loop.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f64) {
    %r2 = loop.for %j = %c0 to %n step %c1 iter_args(%b = %a) -> (f64) {
      %y = func.call @step(%b) : (f64) -> f64
      loop.yield %y : f64
    }
    loop.yield %r2 : f64
  }
  return %r : f64
}"""
    assert run_ir(ir, "f", 2.0 ** 20, 4) == 2.0 ** 4
    assert run_ir(ir, "f", 3.0, 0) == 3.0


def test_scf_ops_run_like_loop_ops():
    ir = """
func.func @f(%x: f64, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f64) {
    %y = arith.mulf %a, %two : f64
    scf.yield %y : f64
  }
  %big = arith.cmpf ogt, %r, %x : f64
  %s = scf.if %big -> (f64) {
    scf.yield %r : f64
  } else {
    scf.yield %two : f64
  }
  return %s : f64
}"""
    assert run_ir(ir, "f", 1.5, 3) == 12.0
    assert run_ir(ir, "f", 1.5, 0) == 2.0


def test_loop_of_a_few_hundred_iterations_is_fast():
    ir = """
func.func @f(%x: tensor<16xf64>, %n: index) -> tensor<16xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %h = arith.constant dense<0.999> : tensor<16xf64>
  %r = loop.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<16xf64>) {
    %a = tensor.mul %acc, %h : tensor<16xf64>
    %b = tensor.tanh %a : tensor<16xf64>
    %c = tensor.add %b, %a : tensor<16xf64>
    %d = tensor.mul %c, %h : tensor<16xf64>
    loop.yield %d : tensor<16xf64>
  }
  return %r : tensor<16xf64>
}"""
    from irtoolkit.interpreter import interpret_function
    from interp_helpers import parse_cached

    module = parse_cached(ir)
    x = np.linspace(-1, 1, 16)
    start = time.process_time()  # (CPU time: the machine's load does not count)
    got = interpret_function(module, "f", x, 500)
    elapsed = time.process_time() - start
    want = x.copy()
    h = np.full(16, 0.999)
    for _ in range(500):
        a = want * h
        want = (np.tanh(a) + a) * h
    np.testing.assert_array_equal(got, want)
    assert elapsed < 0.5, f"500 iterations took {elapsed:.3f}s"
