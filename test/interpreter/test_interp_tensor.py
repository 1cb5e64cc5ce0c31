"""tensor ops on the interpreter against numpy, in f32 and f64, 0-d and 1-element tensors."""

from __future__ import annotations

import numpy as np
import pytest
from interp_helpers import DTYPES, run_ir

import irtoolkit as irt

RNG = np.random.default_rng(0)
SHAPES = {"tensor<f{b}>": (), "tensor<1xf{b}>": (1,), "tensor<2x3xf{b}>": (2, 3)}


def arr(shape, dt, lo=-2.0, hi=2.0):
    return RNG.uniform(lo, hi, size=shape).astype(dt)


def logistic_ref(x):
    x64 = x.astype(np.float64)
    return (1.0 / (1.0 + np.exp(-x64))).astype(x.dtype)


BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
          "max": np.maximum, "min": np.minimum, "pow": np.power}
UNARY = {"neg": np.negative, "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "tanh": np.tanh,
         "sin": np.sin, "cos": np.cos, "abs": np.abs, "logistic": logistic_ref}


@pytest.mark.parametrize("bits", [32, 64])
@pytest.mark.parametrize("shape_t", sorted(SHAPES))
@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary(op, shape_t, bits):
    t = shape_t.format(b=bits)
    dt = DTYPES[f"f{bits}"]
    ir = f"func.func @f(%a: {t}, %b: {t}) -> {t} {{\n  %r = tensor.{op} %a, %b : {t}\n  return %r : {t}\n}}"
    a = arr(SHAPES[shape_t], dt, 0.1, 2.0)
    b = arr(SHAPES[shape_t], dt, -2.0, 2.0)
    got = run_ir(ir, "f", a, b)
    want = BINARY[op](a, b)
    assert isinstance(got, np.ndarray) and got.dtype == dt and got.shape == a.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("bits", [32, 64])
@pytest.mark.parametrize("shape_t", sorted(SHAPES))
@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary(op, shape_t, bits):
    t = shape_t.format(b=bits)
    dt = DTYPES[f"f{bits}"]
    ir = f"func.func @f(%a: {t}) -> {t} {{\n  %r = tensor.{op} %a : {t}\n  return %r : {t}\n}}"
    a = arr(SHAPES[shape_t], dt, 0.1, 3.0) if op in ("log", "sqrt") else arr(SHAPES[shape_t], dt)
    got = run_ir(ir, "f", a)
    assert isinstance(got, np.ndarray) and got.dtype == dt and got.shape == a.shape
    np.testing.assert_allclose(got, UNARY[op](a), rtol=2e-7 if bits == 32 else 1e-15)


def test_logistic_is_stable_for_large_inputs():
    ir = "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %r = tensor.logistic %a : tensor<4xf32>\n  return %r : tensor<4xf32>\n}"
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = run_ir(ir, "f", np.array([-1000.0, -30.0, 0.0, 1000.0], np.float32))
    np.testing.assert_allclose(got, [0.0, 9.3576230e-14, 0.5, 1.0], rtol=1e-6)
    assert got.dtype == np.float32 and np.all(np.isfinite(got))


def test_integer_elementwise_wraps():
    ir = """
func.func @f(%a: tensor<3xi8>, %b: tensor<3xi8>) -> (tensor<3xi8>, tensor<3xi8>, tensor<3xi8>) {
  %s = tensor.add %a, %b : tensor<3xi8>
  %m = tensor.mul %a, %b : tensor<3xi8>
  %x = tensor.max %a, %b : tensor<3xi8>
  return %s, %m, %x : tensor<3xi8>, tensor<3xi8>, tensor<3xi8>
}"""
    a = np.array([127, -128, 5], np.int8)
    b = np.array([1, -1, -7], np.int8)
    s, m, x = run_ir(ir, "f", a, b)
    np.testing.assert_array_equal(s, [-128, 127, -2])
    np.testing.assert_array_equal(m, [127, -128, -35])
    np.testing.assert_array_equal(x, [127, -1, 5])


def test_max_min_propagate_nan():
    ir = """
func.func @f(%a: tensor<3xf64>, %b: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %x = tensor.max %a, %b : tensor<3xf64>
  %n = tensor.min %a, %b : tensor<3xf64>
  return %x, %n : tensor<3xf64>, tensor<3xf64>
}"""
    a = np.array([np.nan, 1.0, 2.0])
    b = np.array([0.0, np.nan, 3.0])
    x, n = run_ir(ir, "f", a, b)
    np.testing.assert_array_equal(x, [np.nan, np.nan, 3.0])
    np.testing.assert_array_equal(n, [np.nan, np.nan, 2.0])


@pytest.mark.parametrize("pred,ref", [("eq", np.equal), ("ne", np.not_equal), ("lt", np.less),
                                      ("le", np.less_equal), ("gt", np.greater), ("ge", np.greater_equal)])
def test_cmp_and_select(pred, ref):
    ir = f"""
func.func @f(%a: tensor<5xf32>, %b: tensor<5xf32>) -> (tensor<5xi1>, tensor<5xf32>) {{
  %m = tensor.cmp {pred}, %a, %b : tensor<5xf32>
  %s = tensor.select %m, %a, %b : tensor<5xi1>, tensor<5xf32>
  return %m, %s : tensor<5xi1>, tensor<5xf32>
}}"""
    a = np.array([1.0, 2.0, np.nan, 3.0, np.nan], np.float32)
    b = np.array([1.0, 1.0, 1.0, 4.0, np.nan], np.float32)
    m, s = run_ir(ir, "f", a, b)
    want = ref(a, b)  # ordered, except ne (true on NaN)
    assert m.dtype == np.bool_
    np.testing.assert_array_equal(m, want)
    np.testing.assert_array_equal(s, np.where(want, a, b))


@pytest.mark.parametrize("bits", [32, 64])
def test_matmul_transpose(bits):
    f = f"f{bits}"
    ir = f"""
func.func @f(%a: tensor<2x3x{f}>, %b: tensor<3x4x{f}>) -> (tensor<2x4x{f}>, tensor<4x2x{f}>) {{
  %c = tensor.matmul %a, %b : (tensor<2x3x{f}>, tensor<3x4x{f}>) -> tensor<2x4x{f}>
  %t = tensor.transpose %c [1, 0] : tensor<2x4x{f}> -> tensor<4x2x{f}>
  return %c, %t : tensor<2x4x{f}>, tensor<4x2x{f}>
}}"""
    dt = DTYPES[f]
    a, b = arr((2, 3), dt), arr((3, 4), dt)
    c, t = run_ir(ir, "f", a, b)
    assert c.dtype == dt and t.dtype == dt
    np.testing.assert_allclose(c, a @ b, rtol=1e-6)
    np.testing.assert_array_equal(t, c.T)
    assert t.flags.c_contiguous  # results are fresh arrays


def test_transpose_3d():
    ir = """
func.func @f(%a: tensor<2x3x4xf64>) -> tensor<4x2x3xf64> {
  %t = tensor.transpose %a [2, 0, 1] : tensor<2x3x4xf64> -> tensor<4x2x3xf64>
  return %t : tensor<4x2x3xf64>
}"""
    a = arr((2, 3, 4), np.float64)
    np.testing.assert_array_equal(run_ir(ir, "f", a), np.transpose(a, (2, 0, 1)))


def test_broadcast_in_dim():
    ir = """
func.func @f(%a: tensor<3xf32>, %s: tensor<f32>, %u: tensor<1x3xf32>) -> (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x2xf32>, tensor<4x3xf32>) {
  %b = tensor.broadcast %a [1] : tensor<3xf32> -> tensor<2x3xf32>
  %c = tensor.broadcast %a [0] : tensor<3xf32> -> tensor<3x2xf32>
  %d = tensor.broadcast %s [] : tensor<f32> -> tensor<2x2xf32>
  %e = tensor.broadcast %u [0, 1] : tensor<1x3xf32> -> tensor<4x3xf32>
  return %b, %c, %d, %e : tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x2xf32>, tensor<4x3xf32>
}"""
    a = np.array([1.0, 2.0, 3.0], np.float32)
    s = np.array(5.0, np.float32)
    u = a.reshape(1, 3)
    b, c, d, e = run_ir(ir, "f", a, s, u)
    np.testing.assert_array_equal(b, np.broadcast_to(a, (2, 3)))
    np.testing.assert_array_equal(c, np.broadcast_to(a[:, None], (3, 2)))
    np.testing.assert_array_equal(d, np.full((2, 2), 5.0))
    np.testing.assert_array_equal(e, np.broadcast_to(u, (4, 3)))
    b[0, 0] = 9.0  # writable, not a broadcast view


@pytest.mark.parametrize("bits", [32, 64])
def test_reductions(bits):
    f = f"f{bits}"
    ir = f"""
func.func @f(%a: tensor<2x3x{f}>) -> (tensor<{f}>, tensor<3x{f}>, tensor<2x{f}>, tensor<{f}>) {{
  %s = tensor.reduce_sum %a [0, 1] : tensor<2x3x{f}> -> tensor<{f}>
  %s0 = tensor.reduce_sum %a [0] : tensor<2x3x{f}> -> tensor<3x{f}>
  %m1 = tensor.reduce_max %a [1] : tensor<2x3x{f}> -> tensor<2x{f}>
  %m = tensor.reduce_max %a [0, 1] : tensor<2x3x{f}> -> tensor<{f}>
  return %s, %s0, %m1, %m : tensor<{f}>, tensor<3x{f}>, tensor<2x{f}>, tensor<{f}>
}}"""
    dt = DTYPES[f]
    a = arr((2, 3), dt)
    s, s0, m1, m = run_ir(ir, "f", a)
    assert s.shape == () and isinstance(s, np.ndarray) and s.dtype == dt
    np.testing.assert_allclose(s, a.sum(), rtol=1e-6)
    np.testing.assert_allclose(s0, a.sum(0), rtol=1e-6)
    np.testing.assert_array_equal(m1, a.max(1))
    np.testing.assert_array_equal(m, a.max())


def test_empty_reductions_and_nan_max():
    ir = """
func.func @f(%a: tensor<0x3xf32>, %b: tensor<3xf64>) -> (tensor<3xf32>, tensor<3xf32>, tensor<f64>) {
  %s = tensor.reduce_sum %a [0] : tensor<0x3xf32> -> tensor<3xf32>
  %m = tensor.reduce_max %a [0] : tensor<0x3xf32> -> tensor<3xf32>
  %n = tensor.reduce_max %b [0] : tensor<3xf64> -> tensor<f64>
  return %s, %m, %n : tensor<3xf32>, tensor<3xf32>, tensor<f64>
}"""
    s, m, n = run_ir(ir, "f", np.zeros((0, 3), np.float32), np.array([1.0, np.nan, 2.0]))
    np.testing.assert_array_equal(s, [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(m, [-np.inf] * 3)
    assert m.dtype == np.float32
    assert np.isnan(n)


def test_convert():
    ir = """
func.func @f(%a: tensor<4xf64>, %i: tensor<2xi32>) -> (tensor<4xf32>, tensor<4xi32>, tensor<2xf64>, tensor<4xi64>) {
  %x = tensor.convert %a : tensor<4xf64> -> tensor<4xf32>
  %y = tensor.convert %a : tensor<4xf64> -> tensor<4xi32>
  %z = tensor.convert %i : tensor<2xi32> -> tensor<2xf64>
  %w = tensor.convert %x : tensor<4xf32> -> tensor<4xi64>
  return %x, %y, %z, %w : tensor<4xf32>, tensor<4xi32>, tensor<2xf64>, tensor<4xi64>
}"""
    a = np.array([1.7, -1.7, 0.1, -0.9])
    x, y, z, w = run_ir(ir, "f", a, np.array([3, -4], np.int32))
    np.testing.assert_array_equal(x, a.astype(np.float32))
    np.testing.assert_array_equal(y, [1, -1, 0, 0])  # toward zero
    np.testing.assert_array_equal(z, [3.0, -4.0])
    np.testing.assert_array_equal(w, [1, -1, 0, 0])
    assert (x.dtype, y.dtype, z.dtype, w.dtype) == (np.float32, np.int32, np.float64, np.int64)


def test_empty_splat_extract_insert_from_elements():
    ir = """
func.func @f(%s: f32, %n: index, %i: index) -> (tensor<?x2xf32>, tensor<3xf32>, f32, tensor<3xf32>, tensor<2x2xf32>, tensor<3xf32>) {
  %e = tensor.empty(%n) : tensor<?x2xf32>
  %t = tensor.splat %s : tensor<3xf32>
  %one = arith.constant 1.0 : f32
  %u = tensor.insert %one into %t[%i] : tensor<3xf32>
  %x = tensor.extract %u[%i] : tensor<3xf32>
  %f = tensor.from_elements %s, %one, %x, %s : tensor<2x2xf32>
  return %e, %t, %x, %u, %f, %t : tensor<?x2xf32>, tensor<3xf32>, f32, tensor<3xf32>, tensor<2x2xf32>, tensor<3xf32>
}"""
    e, t, x, u, f, t2 = run_ir(ir, "f", 2.5, 4, 1)
    assert e.shape == (4, 2) and e.dtype == np.float32
    np.testing.assert_array_equal(t, [2.5, 2.5, 2.5])
    np.testing.assert_array_equal(t2, [2.5, 2.5, 2.5])  # insert copied: %t is unchanged
    np.testing.assert_array_equal(u, [2.5, 1.0, 2.5])
    assert type(x) is np.float32 and x == 1.0
    np.testing.assert_array_equal(f, [[2.5, 1.0], [1.0, 2.5]])


def test_insert_does_not_modify_the_argument():
    ir = """
func.func @f(%t: tensor<3xf64>) -> tensor<3xf64> {
  %c0 = arith.constant 0 : index
  %v = arith.constant 9.0 : f64
  %u = tensor.insert %v into %t[%c0] : tensor<3xf64>
  return %u : tensor<3xf64>
}"""
    t = np.array([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(run_ir(ir, "f", t), [9.0, 2.0, 3.0])
    np.testing.assert_array_equal(t, [1.0, 2.0, 3.0])


def test_extract_out_of_bounds_is_located():
    ir = """
func.func @f(%t: tensor<3xf64>, %i: index) -> f64 {
  %x = tensor.extract %t[%i] : tensor<3xf64>
  return %x : f64
}"""
    for bad in (3, -1):
        with pytest.raises(irt.DiagnosticError, match="'tensor.extract' op .*out of bounds"):
            run_ir(ir, "f", np.zeros(3), bad)


def test_extract_insert_slice():
    ir = """
func.func @f(%t: tensor<8x4xf32>, %i: index) -> (tensor<4xf32>, tensor<2x2xf32>, tensor<8x4xf32>) {
  %row = tensor.extract_slice %t[%i, 0] [1, 4] [1, 1] : tensor<8x4xf32> to tensor<4xf32>
  %blk = tensor.extract_slice %t[1, 1] [2, 2] [2, 1] : tensor<8x4xf32> to tensor<2x2xf32>
  %z = arith.constant dense<0.0> : tensor<2x2xf32>
  %u = tensor.insert_slice %z into %t[%i, 2] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<8x4xf32>
  return %row, %blk, %u : tensor<4xf32>, tensor<2x2xf32>, tensor<8x4xf32>
}"""
    t = np.arange(32, dtype=np.float32).reshape(8, 4)
    row, blk, u = run_ir(ir, "f", t, 5)
    np.testing.assert_array_equal(row, t[5])
    np.testing.assert_array_equal(blk, t[1:4:2, 1:3])
    want = t.copy()
    want[5:7, 2:4] = 0
    np.testing.assert_array_equal(u, want)
    np.testing.assert_array_equal(t, np.arange(32, dtype=np.float32).reshape(8, 4))


def test_collapse_expand_dim_cast():
    ir = """
func.func @f(%a: tensor<2x3xf32>, %d: tensor<?x3xf32>) -> (tensor<6xf32>, tensor<3x2xf32>, index, tensor<2x3xf32>) {
  %f = tensor.collapse_shape %a [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %e = tensor.expand_shape %f [[0, 1]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %d, %c0 : tensor<?x3xf32>
  %s = tensor.cast %d : tensor<?x3xf32> to tensor<2x3xf32>
  return %f, %e, %n, %s : tensor<6xf32>, tensor<3x2xf32>, index, tensor<2x3xf32>
}"""
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    f, e, n, s = run_ir(ir, "f", a, a)
    np.testing.assert_array_equal(f, a.reshape(6))
    np.testing.assert_array_equal(e, a.reshape(3, 2))
    assert type(n) is np.int64 and n == 2
    np.testing.assert_array_equal(s, a)
    with pytest.raises(irt.DiagnosticError, match="'tensor.cast' op"):
        run_ir(ir, "f", a, np.zeros((5, 3), np.float32))


def test_dynamic_shapes_are_checked_at_run_time():
    ir = """
func.func @f(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %r = tensor.add %a, %b : tensor<?xf32>
  return %r : tensor<?xf32>
}"""
    got = run_ir(ir, "f", np.ones(3, np.float32), np.ones(3, np.float32))
    np.testing.assert_array_equal(got, [2.0, 2.0, 2.0])
    with pytest.raises(irt.DiagnosticError, match="'tensor.add' op operand shapes differ"):
        run_ir(ir, "f", np.ones(3, np.float32), np.ones(1, np.float32))


def test_concat_reshape_pad():
    ir = """
func.func @f(%a: tensor<2x2xf32>, %b: tensor<1x2xf32>, %s: tensor<1xindex>) -> (tensor<3x2xf32>, tensor<4xf32>, tensor<4x3xf32>) {
  %c = tensor.concat dim(0) %a, %b : (tensor<2x2xf32>, tensor<1x2xf32>) -> tensor<3x2xf32>
  %r = tensor.reshape %a(%s) : (tensor<2x2xf32>, tensor<1xindex>) -> tensor<4xf32>
  %z = arith.constant 7.0 : f32
  %p = tensor.pad %a low[1, 0] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %z : f32
  } : tensor<2x2xf32> to tensor<4x3xf32>
  return %c, %r, %p : tensor<3x2xf32>, tensor<4xf32>, tensor<4x3xf32>
}"""
    a = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    b = np.array([[5.0, 6.0]], np.float32)
    c, r, p = run_ir(ir, "f", a, b, np.array([4], np.int64))
    np.testing.assert_array_equal(c, np.concatenate([a, b]))
    np.testing.assert_array_equal(r, a.reshape(4))
    np.testing.assert_array_equal(p, np.pad(a, ((1, 1), (0, 1)), constant_values=7.0))


def test_dynamic_slices_and_expand():
    ir = """
func.func @f(%t: tensor<?x4xf64>, %n: index, %o: index) -> (tensor<?xf64>, tensor<1x?xf64>, tensor<?x4xf64>) {
  %row = tensor.extract_slice %t[%o, 1] [1, %n] [1, 1] : tensor<?x4xf64> to tensor<?xf64>
  %e = tensor.expand_shape %row [[0, 1]] output_shape [1, %n] : tensor<?xf64> into tensor<1x?xf64>
  %u = tensor.insert_slice %row into %t[%o, 0] [1, %n] [1, 2] : tensor<?xf64> into tensor<?x4xf64>
  return %row, %e, %u : tensor<?xf64>, tensor<1x?xf64>, tensor<?x4xf64>
}"""
    t = np.arange(12.0).reshape(3, 4)
    row, e, u = run_ir(ir, "f", t, 2, 1)
    np.testing.assert_array_equal(row, t[1, 1:3])
    np.testing.assert_array_equal(e, t[1, 1:3].reshape(1, 2))
    want = t.copy()
    want[1, 0:4:2] = t[1, 1:3]
    np.testing.assert_array_equal(u, want)
