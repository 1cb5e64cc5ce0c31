"""memref buffers, cf branches and func calls on the interpreter."""

from __future__ import annotations

import numpy as np
import pytest
from interp_helpers import run_ir

import irtoolkit as irt


def test_alloc_store_load_dim():
    ir = """
func.func @f(%v: f32, %n: index) -> (f32, f32, index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.alloc(%n) : memref<3x?xf32>
  memref.store %v, %m[%c1, %c0] : memref<3x?xf32>
  %x = memref.load %m[%c1, %c0] : memref<3x?xf32>
  %y = memref.load %m[%c0, %c0] : memref<3x?xf32>
  %d0 = memref.dim %m, %c0 : memref<3x?xf32>
  %d1 = memref.dim %m, %c1 : memref<3x?xf32>
  memref.dealloc %m : memref<3x?xf32>
  return %x, %y, %d0, %d1 : f32, f32, index, index
}"""
    x, y, d0, d1 = run_ir(ir, "f", 2.5, 7)
    assert type(x) is np.float32 and x == 2.5
    assert y == 0.0
    assert type(d0) is np.int64 and (d0, d1) == (3, 7)


def test_memref_arguments_alias_the_callers_buffer():
    ir = """
func.func @scale(%m: memref<4xf64>, %s: f64) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  loop.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %m[%i] : memref<4xf64>
    %y = arith.mulf %x, %s : f64
    memref.store %y, %m[%i] : memref<4xf64>
  }
  return
}"""
    buf = np.arange(4.0)
    assert run_ir(ir, "scale", buf, 2.0) is None
    np.testing.assert_array_equal(buf, [0.0, 2.0, 4.0, 6.0])


def test_out_of_bounds_load_is_a_located_error():
    ir = """
func.func @f(%m: memref<4xf32>, %i: index) -> f32 {
  %x = memref.load %m[%i] : memref<4xf32>
  return %x : f32
}"""
    m = np.zeros(4, np.float32)
    for bad in (4, -1):
        with pytest.raises(irt.DiagnosticError) as info:
            run_ir(ir, "f", m, bad)
        assert "'memref.load' op" in str(info.value) and "out of bounds" in str(info.value)
        assert info.value.location is not None and info.value.location.line == 3


def test_subview_aliases_and_copy():
    ir = """
func.func @f(%m: memref<4x4xf32>, %o: index) -> memref<4x4xf32> {
  %s = memref.subview %m[1, %o] [2, 2] [1, 1] : memref<4x4xf32> to memref<2x2xf32, strided<[4, 1], offset: ?>>
  %r = memref.subview %m[3, 0] [1, 4] [1, 1] : memref<4x4xf32> to memref<4xf32, strided<[1], offset: 12>>
  %c = memref.alloc() : memref<2x2xf32>
  "memref.copy"(%s, %c) : (memref<2x2xf32, strided<[4, 1], offset: ?>>, memref<2x2xf32>) -> ()
  %one = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  memref.store %one, %s[%c0, %c0] : memref<2x2xf32, strided<[4, 1], offset: ?>>
  memref.store %one, %r[%c0] : memref<4xf32, strided<[1], offset: 12>>
  %out = memref.alloc() : memref<4x4xf32>
  "memref.copy"(%m, %out) : (memref<4x4xf32>, memref<4x4xf32>) -> ()
  return %out : memref<4x4xf32>
}"""
    m = np.zeros((4, 4), np.float32)
    out = run_ir(ir, "f", m, 2)
    want = np.zeros((4, 4), np.float32)
    want[1, 2] = 1.0
    want[3, 0] = 1.0
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(m, want)  # subviews wrote through to the argument


def test_collapse_expand_and_global():
    ir = """
"memref.global"() <{sym_name = "table", sym_visibility = "private", type = memref<2x2xf32>, initial_value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>, constant}> : () -> ()
func.func @f() -> (f32, f32) {
  %g = memref.get_global @table : memref<2x2xf32>
  %flat = memref.collapse_shape %g [[0, 1]] : memref<2x2xf32> into memref<4xf32>
  %e = memref.expand_shape %flat [[0, 1, 2]] output_shape [1, 4, 1] : memref<4xf32> into memref<1x4x1xf32>
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %x = memref.load %flat[%c3] : memref<4xf32>
  %y = memref.load %e[%c0, %c3, %c0] : memref<1x4x1xf32>
  return %x, %y : f32, f32
}"""
    assert run_ir(ir, "f") == (np.float32(4.0), np.float32(4.0))


def test_cf_loop_and_cond_br():
    ir = """
func.func @sum(%n: index) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i64
  cf.br ^loop(%c0, %z : index, i64)
^loop(%i: index, %acc: i64):
  %done = arith.cmpi sge, %i, %n : index
  cf.cond_br %done, ^exit(%acc : i64), ^body
^body:
  %ii = arith.index_cast %i : index to i64
  %acc2 = arith.addi %acc, %ii : i64
  %i2 = arith.addi %i, %c1 : index
  cf.br ^loop(%i2, %acc2 : index, i64)
^exit(%r: i64):
  return %r : i64
}"""
    assert run_ir(ir, "sum", 0) == 0
    assert run_ir(ir, "sum", 300) == 300 * 299 // 2


def test_cf_switch_and_assert():
    ir = """
func.func @f(%x: i32) -> f64 {
  cf.switch %x : i32, [
    default: ^d,
    1: ^one,
    5: ^five
  ]
^d:
  %a = arith.constant -1.0 : f64
  return %a : f64
^one:
  %b = arith.constant 1.0 : f64
  return %b : f64
^five:
  %c = arith.constant 5.0 : f64
  return %c : f64
}
func.func @g(%c: i1) {
  cf.assert %c, "must hold"
  return
}"""
    assert [run_ir(ir, "f", x) for x in (0, 1, 5, 7)] == [-1.0, 1.0, 5.0, -1.0]
    run_ir(ir, "g", True)
    with pytest.raises(irt.DiagnosticError, match="assertion failed: must hold"):
        run_ir(ir, "g", False)


def test_func_call_and_recursion():
    ir = """
func.func private @fact(%n: i64) -> i64 {
  %one = arith.constant 1 : i64
  %small = arith.cmpi sle, %n, %one : i64
  cf.cond_br %small, ^base, ^rec
^base:
  return %one : i64
^rec:
  %m = arith.subi %n, %one : i64
  %r = func.call @fact(%m) : (i64) -> i64
  %p = arith.muli %n, %r : i64
  return %p : i64
}
func.func @twice(%x: f32) -> (f32, f32) {
  %a = func.call @id(%x) : (f32) -> f32
  %b = arith.addf %a, %a : f32
  return %a, %b : f32, f32
}
func.func @id(%x: f32) -> f32 {
  return %x : f32
}
func.func @main(%n: i64) -> i64 {
  %r = func.call @fact(%n) : (i64) -> i64
  return %r : i64
}"""
    assert run_ir(ir, "main", 10) == 3628800
    assert run_ir(ir, "main", 21) == np.int64(-4249290049419214848)  # wraps
    a, b = run_ir(ir, "twice", 1.5)
    assert type(a) is np.float32 and (a, b) == (1.5, 3.0)


def test_call_to_external_function_is_an_error():
    ir = """
func.func private @ext(f64) -> f64
func.func @f(%x: f64) -> f64 {
  %r = func.call @ext(%x) : (f64) -> f64
  return %r : f64
}"""
    with pytest.raises(irt.DiagnosticError, match="external function '@ext'"):
        run_ir(ir, "f", 1.0)


def test_deep_recursion():
    ir = """
func.func @count(%n: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %done = arith.cmpi sle, %n, %zero : i64
  %r = loop.if %done -> (i64) {
    loop.yield %zero : i64
  } else {
    %m = arith.subi %n, %one : i64
    %c = func.call @count(%m) : (i64) -> i64
    %s = arith.addi %c, %one : i64
    loop.yield %s : i64
  }
  return %r : i64
}"""
    assert run_ir(ir, "count", 1500) == 1500


def test_reinterpret_cast_metadata_atomic_rank():
    ir = """
func.func @f(%m: memref<2x3xf32>) -> (f32, index, index, index, f32, index) {
  %r = memref.reinterpret_cast %m to offset: [1], sizes: [5], strides: [1] : memref<2x3xf32> to memref<5xf32, strided<[1], offset: 1>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = memref.load %r[%c1] : memref<5xf32, strided<[1], offset: 1>>
  %s = memref.subview %m[1, 1] [1, 2] [1, 1] : memref<2x3xf32> to memref<2xf32, strided<[1], offset: 4>>
  %base, %off, %sz, %st = memref.extract_strided_metadata %s : memref<2xf32, strided<[1], offset: 4>> -> memref<f32>, index, index, index
  %v = arith.constant 10.0 : f32
  %old = "memref.atomic_rmw"(%v, %m, %c0, %c0) <{kind = 0 : i64}> : (f32, memref<2x3xf32>, index, index) -> f32
  %rank = "memref.rank"(%m) : (memref<2x3xf32>) -> index
  return %x, %off, %sz, %st, %old, %rank : f32, index, index, index, f32, index
}"""
    buf = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert run_ir(ir, "f", buf) == (2.0, 4, 2, 1, 0.0, 2)
    assert buf[0, 0] == 10.0
