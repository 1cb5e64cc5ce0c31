"""Every derivative rule vs central finite differences (f64, random inputs), reverse and forward."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from adcheck import check_grad, check_jvp, grad_texts, register, run1  # noqa: E402

RNG = np.random.default_rng(1234)

# scalar unary ops and an input domain
UNARY = {
    "arith.negf": (-2, 2), "math.exp": (-1, 1), "math.log": (0.5, 2), "math.sqrt": (0.5, 2),
    "math.tanh": (-1, 1), "math.sin": (-2, 2), "math.cos": (-2, 2), "math.absf": (0.2, 2),
    "math.exp2": (-1, 1), "math.expm1": (-1, 1), "math.log2": (0.5, 2), "math.log10": (0.5, 2),
    "math.log1p": (-0.5, 1), "math.rsqrt": (0.5, 2), "math.cbrt": (0.5, 2), "math.tan": (-1, 1),
    "math.sinh": (-1, 1), "math.cosh": (-1, 1), "math.asin": (-0.8, 0.8), "math.acos": (-0.8, 0.8),
    "math.atan": (-2, 2), "math.asinh": (-2, 2), "math.acosh": (1.2, 3), "math.atanh": (-0.8, 0.8),
    "math.erf": (-1.5, 1.5),
}
BINARY = {
    "arith.addf": ((-2, 2), (-2, 2)), "arith.subf": ((-2, 2), (-2, 2)),
    "arith.mulf": ((-2, 2), (-2, 2)), "arith.divf": ((-2, 2), (0.5, 2)),
    "arith.maximumf": ((-2, 0), (0.1, 2)), "arith.minimumf": ((-2, 0), (0.1, 2)),
    "arith.maxnumf": ((0.1, 2), (-2, 0)), "arith.minnumf": ((0.1, 2), (-2, 0)),
    "math.powf": ((0.5, 2), (-1.5, 1.5)), "math.atan2": ((-2, 2), (0.5, 2)),
    "math.copysign": ((0.5, 2), (-2, -0.5)),
}


def _u(lo, hi):
    return np.float64(RNG.uniform(lo, hi))


def _unary_src(op):
    return f"""
func.func @f(%x: f64) -> f64 {{
  %y = {op} %x : f64
  %z = arith.mulf %y, %x : f64
  return %z : f64
}}
"""


def _binary_src(op):
    return f"""
func.func @f(%x: f64, %y: f64) -> f64 {{
  %r = {op} %x, %y : f64
  %z = arith.mulf %r, %r : f64
  return %z : f64
}}
"""


@pytest.mark.parametrize("op", sorted(UNARY))
def test_scalar_unary(op, backend):
    x = _u(*UNARY[op])
    check_grad(_unary_src(op), "f", ["f64"], [x], backend=backend)
    check_jvp(_unary_src(op), "f", ["f64"], ["f64"], [x], backend=backend)


@pytest.mark.parametrize("op", sorted(BINARY))
def test_scalar_binary(op, backend):
    a, b = (_u(*r) for r in BINARY[op])
    check_grad(_binary_src(op), "f", ["f64", "f64"], [a, b], backend=backend)
    check_jvp(_binary_src(op), "f", ["f64", "f64"], ["f64"], [a, b], backend=backend)


def test_scalar_misc(backend):
    src = """
func.func @f(%x: f64, %y: f64, %w: f32) -> f64 {
  %c = arith.cmpf olt, %x, %y : f64
  %s = arith.select %c, %x, %y : f64
  %m = math.fma %s, %x, %y : f64
  %n = arith.constant 3 : i32
  %p = math.fpowi %m, %n : f64, i32
  %e = arith.extf %w : f32 to f64
  %q = arith.mulf %p, %e : f64
  %fl = math.floor %x : f64
  %v = arith.addf %q, %fl : f64
  return %v : f64
}
"""
    for x, y in ((0.3, 0.9), (0.9, 0.3)):
        args = [np.float64(x), np.float64(y), np.float32(0.75)]
        check_grad(src, "f", ["f64", "f64", "f32"], args, wrt=[0, 1], backend=backend)
        check_jvp(src, "f", ["f64", "f64", "f32"], ["f64"], args, wrt=[0, 1], backend=backend)


# -- tensor ops -------------------------------------------------------------------
T_UNARY = {
    "neg": (-2, 2), "exp": (-1, 1), "log": (0.5, 2), "sqrt": (0.5, 2), "tanh": (-1, 1),
    "sin": (-2, 2), "cos": (-2, 2), "abs": (0.2, 2), "logistic": (-2, 2),
}
T_BINARY = {
    "add": ((-2, 2), (-2, 2)), "sub": ((-2, 2), (-2, 2)), "mul": ((-2, 2), (-2, 2)),
    "div": ((-2, 2), (0.5, 2)), "max": ((-2, 0), (0.1, 2)), "min": ((-2, 0), (0.1, 2)),
    "pow": ((0.5, 2), (-1.5, 1.5)),
}
SHAPES = [(3,), (2, 3)]


def _tt(shape):
    return "tensor<" + "x".join(map(str, shape)) + "xf64>"


def _loss(v, t, shape):
    """sum(v * v) as f64, appended to a function body."""
    dims = ", ".join(str(i) for i in range(len(shape)))
    return f"""  %sq = tensor.mul {v}, {v} : {t}
  %sum = tensor.reduce_sum %sq [{dims}] : {t} -> tensor<f64>
  %l = tensor.extract %sum[] : tensor<f64>
  return %l : f64"""


def _arr(shape, lo, hi):
    return RNG.uniform(lo, hi, size=shape)


def _tensor_unary_src(op, shape):
    t = _tt(shape)
    return f"func.func @f(%x: {t}) -> f64 {{\n  %y = tensor.{op} %x : {t}\n{_loss('%y', t, shape)}\n}}\n"


def _tensor_binary_src(op, shape):
    t = _tt(shape)
    return f"func.func @f(%x: {t}, %y: {t}) -> f64 {{\n  %r = tensor.{op} %x, %y : {t}\n{_loss('%r', t, shape)}\n}}\n"


# compiled once per group (backend "jit"): the derivative programs of all cases
register(t for op in UNARY for t in grad_texts(_unary_src(op), "f", ["f64"], ["f64"]))
register(t for op in BINARY for t in grad_texts(_binary_src(op), "f", ["f64", "f64"], ["f64"]))
register(t for op in T_UNARY for shape in SHAPES[-1:]
         for t in grad_texts(_tensor_unary_src(op, shape), "f", [_tt(shape)], ["f64"]))
register(t for op in T_BINARY for shape in SHAPES[-1:]
         for t in grad_texts(_tensor_binary_src(op, shape), "f", [_tt(shape)] * 2, ["f64"]))


# compiled: the 2-D shape only (the lowering of every op and shape is covered by test/lowering_e2e)
SHAPE_BACKENDS = [(s, b) for s in SHAPES for b in ("interp", "jit") if b == "interp" or s == SHAPES[-1]]


@pytest.mark.parametrize(("shape", "backend"), SHAPE_BACKENDS)
@pytest.mark.parametrize("op", sorted(T_UNARY))
def test_tensor_unary(op, shape, backend):
    t = _tt(shape)
    src = _tensor_unary_src(op, shape)
    x = _arr(shape, *T_UNARY[op])
    check_grad(src, "f", [t], [x], backend=backend)
    check_jvp(src, "f", [t], ["f64"], [x], backend=backend)


@pytest.mark.parametrize(("shape", "backend"), SHAPE_BACKENDS)
@pytest.mark.parametrize("op", sorted(T_BINARY))
def test_tensor_binary(op, shape, backend):
    t = _tt(shape)
    src = _tensor_binary_src(op, shape)
    a, b = (_arr(shape, *r) for r in T_BINARY[op])
    check_grad(src, "f", [t, t], [a, b], backend=backend)
    check_jvp(src, "f", [t, t], ["f64"], [a, b], backend=backend)


STRUCT = {
    # name: (arg types, body producing %r of type rt, result type, arg shapes)
    "matmul": (["tensor<2x3xf64>", "tensor<3x4xf64>"],
               "%r = tensor.matmul %a0, %a1 : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>",
               (2, 4)),
    "transpose": (["tensor<2x3xf64>"], "%r = tensor.transpose %a0 [1, 0] : tensor<2x3xf64> -> tensor<3x2xf64>", (3, 2)),
    "broadcast": (["tensor<3xf64>"], "%r = tensor.broadcast %a0 [1] : tensor<3xf64> -> tensor<2x3xf64>", (2, 3)),
    "broadcast_expand": (["tensor<1x3xf64>"],
                         "%r = tensor.broadcast %a0 [0, 1] : tensor<1x3xf64> -> tensor<4x3xf64>", (4, 3)),
    "reduce_sum": (["tensor<2x3xf64>"], "%r = tensor.reduce_sum %a0 [0] : tensor<2x3xf64> -> tensor<3xf64>", (3,)),
    "reduce_max": (["tensor<2x3xf64>"], "%r = tensor.reduce_max %a0 [1] : tensor<2x3xf64> -> tensor<2xf64>", (2,)),
    "select": (["tensor<3xf64>", "tensor<3xf64>"],
               "%m = tensor.cmp gt, %a0, %a1 : tensor<3xf64>\n  %r = tensor.select %m, %a0, %a1 : tensor<3xi1>, tensor<3xf64>",
               (3,)),
    "extract_slice": (["tensor<4x3xf64>"],
                      "%c1 = arith.constant 1 : index\n  %r = tensor.extract_slice %a0[%c1, 0] [2, 3] [1, 1] : tensor<4x3xf64> to tensor<2x3xf64>",
                      (2, 3)),
    "insert_slice": (["tensor<3xf64>", "tensor<2x3xf64>"],
                     "%r = tensor.insert_slice %a0 into %a1[1, 0] [1, 3] [1, 1] : tensor<3xf64> into tensor<2x3xf64>",
                     (2, 3)),
    "collapse": (["tensor<2x3xf64>"], "%r = tensor.collapse_shape %a0 [[0, 1]] : tensor<2x3xf64> into tensor<6xf64>", (6,)),
    "expand": (["tensor<6xf64>"],
               "%r = tensor.expand_shape %a0 [[0, 1]] output_shape [2, 3] : tensor<6xf64> into tensor<2x3xf64>", (2, 3)),
    "splat": (["f64"], "%r = tensor.splat %a0 : tensor<2x3xf64>", (2, 3)),
    "extract_insert": (["tensor<3xf64>", "f64"],
                       "%c2 = arith.constant 2 : index\n  %e = tensor.extract %a0[%c2] : tensor<3xf64>\n"
                       "  %p = arith.mulf %e, %a1 : f64\n  %r = tensor.insert %p into %a0[%c2] : tensor<3xf64>", (3,)),
    "from_elements": (["f64", "f64"], "%r = tensor.from_elements %a0, %a1, %a0, %a1 : tensor<2x2xf64>", (2, 2)),
}


def _shape_of(t):
    if not t.startswith("tensor"):
        return ()
    inner = t[len("tensor<"):-1].split("x")[:-1]
    return tuple(int(d) for d in inner)


@pytest.mark.parametrize("name", sorted(STRUCT))
def _struct_src(name):
    types, body, rshape = STRUCT[name]
    rt = _tt(rshape)
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    return f"func.func @f({args}) -> f64 {{\n  {body}\n{_loss('%r', rt, rshape)}\n}}\n"


register(t for name, (types, _, _) in STRUCT.items()
         for t in grad_texts(_struct_src(name), "f", types, ["f64"], [i for i, t in enumerate(types) if "f64" in t]))


@pytest.mark.parametrize("name", sorted(STRUCT))
def test_tensor_structural(name, backend):
    types, body, rshape = STRUCT[name]
    src = _struct_src(name)
    vals = []
    for t in types:
        shp = _shape_of(t)
        v = RNG.uniform(-2, 2, size=shp)
        if "f32" in t:
            v = v.astype(np.float32)
        vals.append(v if shp else np.float64(v))
    wrt = [i for i, t in enumerate(types) if "f64" in t]
    check_grad(src, "f", types, vals, wrt=wrt, backend=backend)
    check_jvp(src, "f", types, ["f64"], vals, wrt=wrt, backend=backend)


def test_tensor_convert_f32_to_f64(backend):
    """FD is too coarse in f32: compare with the closed form d sum(x^2) = 2x."""
    src = """
func.func @f(%x: tensor<3xf32>) -> f64 {
  %r = tensor.convert %x : tensor<3xf32> -> tensor<3xf64>
  %sq = tensor.mul %r, %r : tensor<3xf64>
  %sum = tensor.reduce_sum %sq [0] : tensor<3xf64> -> tensor<f64>
  %l = tensor.extract %sum[] : tensor<f64>
  return %l : f64
}
func.func @g(%x: tensor<3xf32>) -> tensor<3xf32> {
  %d = autodiff.grad @f(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %d : tensor<3xf32>
}
"""
    x = np.array([0.5, -1.25, 2.0], dtype=np.float32)
    got = run1(src, backend, "g", x)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, 2 * x, rtol=1e-6)
