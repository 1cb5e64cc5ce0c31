"""`lower-tensor-to-loop`: lowered programs run on the reference interpreter
(with every buffer tracked: no leak, no use after free, no double free, no
write into an argument) and are compared with numpy and with the tensor-level
program on the same interpreter."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest
from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType

import irtoolkit as irt
from irtoolkit.pipeline import run_pipeline

PASS = "lower-tensor-to-loop"


# ---------------------------------------------------------------------------
# buffer tracking on the interpreter
# ---------------------------------------------------------------------------


class MemoryError_(AssertionError):
    pass


class Tracker:
    def __init__(self):
        self.live: dict[int, np.ndarray] = {}
        self.freed: dict[int, np.ndarray] = {}
        self.allocs = 0

    def check(self, a, what):
        if isinstance(a, np.ndarray) and id(a) in self.freed:
            raise MemoryError_(f"use after free in {what}")


@contextlib.contextmanager
def tracked():
    from irtoolkit.interpreter import core

    core.load_rules()
    t = Tracker()
    saved_s = dict(core.SPECIALIZERS)
    saved_r = dict(core.RULES)
    orig_alloc = core.SPECIALIZERS[memref.AllocOp]

    def make_alloc(op):
        r = orig_alloc(op)

        def rule(interp, op, args):
            (a,) = r(interp, op, args)
            # poison: fresh buffers hold garbage, not zeros
            if a.dtype.kind == "f":
                a.fill(np.nan)
            elif a.dtype.kind in "iu":
                a.fill(-77777)
            t.live[id(a)] = a
            t.allocs += 1
            return (a,)

        return rule

    def dealloc(interp, op, args):
        (a,) = args
        if id(a) in t.freed:
            raise MemoryError_("double free")
        if id(a) not in t.live:
            raise MemoryError_("dealloc of a buffer that was not allocated (an argument?)")
        t.freed[id(a)] = t.live.pop(id(a))
        return ()

    def wrap(rule, name):
        def checked(interp, op, args):
            for a in args:
                t.check(a, name)
            return rule(interp, op, args)

        return checked

    core.SPECIALIZERS[memref.AllocOp] = make_alloc
    core.RULES[memref.DeallocOp] = dealloc
    for cls in (memref.LoadOp, memref.StoreOp, memref.DimOp, memref.CopyOp):
        if cls in core.RULES:
            core.RULES[cls] = wrap(core.RULES[cls], cls.name)
    try:
        yield t
    finally:
        core.SPECIALIZERS.clear()
        core.SPECIALIZERS.update(saved_s)
        core.RULES.clear()
        core.RULES.update(saved_r)


def lower(text: str):
    m = irt.parse(text)
    run_pipeline(m, PASS)
    return m


def run_lowered(module, name, *args):
    """Run ``name`` of a lowered module; checks the memory discipline and returns
    the results (a tuple)."""
    from irtoolkit.interpreter.core import Interpreter, convert_argument

    with tracked() as t:
        interp = Interpreter(module)
        f = interp.lookup_function(name)
        inputs = list(f.function_type.inputs.data)
        values = []
        originals = []
        for i, (a, ty) in enumerate(zip(args, inputs)):
            if isinstance(ty, MemRefType):
                a = np.array(a, copy=True)
                originals.append((a, a.copy()))
                a.flags.writeable = False  # arguments are never written by the callee
            values.append(convert_argument(a, ty, i, name))
        with np.errstate(all="ignore"):
            results = interp.call_function(f, values)
        outs = list(f.function_type.outputs.data)
        ids = set()
        for r, ty in zip(results, outs):
            if isinstance(ty, MemRefType):
                assert id(r) in t.live, "a returned buffer is not a live, freshly allocated one"
                assert id(r) not in ids, "the same buffer is returned twice"
                ids.add(id(r))
        leaked = set(t.live) - ids
        assert not leaked, f"{len(leaked)} buffer(s) leaked"
        for a, before in originals:
            np.testing.assert_array_equal(a, before)
    return tuple(np.array(r) if isinstance(r, np.ndarray) else r for r in results), t


def check(text, name, args, expected, rtol=1e-6):
    m = lower(text)
    got, _ = run_lowered(m, name, *args)
    if not isinstance(expected, tuple):
        expected = (expected,)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        e = np.asarray(e)
        g = np.asarray(g)
        assert g.shape == e.shape, (g.shape, e.shape)
        assert g.dtype == e.dtype, (g.dtype, e.dtype)
        if e.dtype.kind == "f":
            np.testing.assert_allclose(g, e, rtol=rtol, equal_nan=True)
        else:
            np.testing.assert_array_equal(g, e)
    return m


RNG = np.random.default_rng(0)


def rand(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


# ---------------------------------------------------------------------------
# elementwise
# ---------------------------------------------------------------------------

BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "max": np.maximum, "min": np.minimum, "pow": np.power,
}
UNARY = {
    "neg": np.negative, "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "tanh": np.tanh,
    "sin": np.sin, "cos": np.cos, "abs": np.abs, "logistic": lambda x: 1 / (1 + np.exp(-x)),
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(name):
    text = f"""
    func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {{
      %r = tensor.{name} %a, %b : tensor<2x3xf32>
      return %r : tensor<2x3xf32>
    }}"""
    a, b = np.abs(rand(2, 3, dtype=np.float32)) + 0.1, rand(2, 3, dtype=np.float32)
    if name in ("max", "min"):
        a[0, 0] = np.nan  # NaN propagates (arith.maximumf/minimumf)
    check(text, "f", (a, b), BINARY[name](a, b).astype(np.float32), rtol=1e-5)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name):
    text = f"""
    func.func @f(%a: tensor<5xf64>) -> tensor<5xf64> {{
      %r = tensor.{name} %a : tensor<5xf64>
      return %r : tensor<5xf64>
    }}"""
    a = np.abs(rand(5)) + 0.5 if name in ("log", "sqrt") else rand(5)
    check(text, "f", (a,), UNARY[name](a))


@pytest.mark.parametrize("dtype,mlir", [(np.int32, "i32"), (np.int64, "i64")])
def test_integer_elementwise(dtype, mlir):
    text = f"""
    func.func @f(%a: tensor<6x{mlir}>, %b: tensor<6x{mlir}>) -> (tensor<6x{mlir}>, tensor<6x{mlir}>, tensor<6x{mlir}>) {{
      %s = tensor.add %a, %b : tensor<6x{mlir}>
      %m = tensor.max %a, %b : tensor<6x{mlir}>
      %p = tensor.mul %s, %m : tensor<6x{mlir}>
      return %s, %m, %p : tensor<6x{mlir}>, tensor<6x{mlir}>, tensor<6x{mlir}>
    }}"""
    a = np.array([1, -2, 3, 4, -5, 6], dtype=dtype)
    b = np.array([0, 5, -3, 9, 2, 1], dtype=dtype)
    check(text, "f", (a, b), (a + b, np.maximum(a, b), (a + b) * np.maximum(a, b)))


@pytest.mark.parametrize("pred,fn", [("eq", np.equal), ("ne", np.not_equal), ("lt", np.less),
                                     ("le", np.less_equal), ("gt", np.greater), ("ge", np.greater_equal)])
def test_cmp_select(pred, fn):
    text = f"""
    func.func @f(%a: tensor<6xf64>, %b: tensor<6xf64>) -> (tensor<6xi1>, tensor<6xf64>) {{
      %m = tensor.cmp {pred}, %a, %b : tensor<6xf64>
      %r = tensor.select %m, %a, %b : tensor<6xi1>, tensor<6xf64>
      return %m, %r : tensor<6xi1>, tensor<6xf64>
    }}"""
    a = np.array([1.0, 2.0, np.nan, 4.0, -1.0, 0.0])
    b = np.array([1.0, 3.0, 1.0, np.nan, -2.0, 0.0])
    m = fn(a, b)
    check(text, "f", (a, b), (m, np.where(m, a, b)))


def test_convert():
    text = """
    func.func @f(%a: tensor<5xf64>, %i: tensor<5xi32>, %m: tensor<5xi1>)
        -> (tensor<5xf32>, tensor<5xi64>, tensor<5xf64>, tensor<5xf64>, tensor<5xindex>, tensor<5xi1>) {
      %a32 = tensor.convert %a : tensor<5xf64> -> tensor<5xf32>
      %ai = tensor.convert %a : tensor<5xf64> -> tensor<5xi64>
      %if = tensor.convert %i : tensor<5xi32> -> tensor<5xf64>
      %mf = tensor.convert %m : tensor<5xi1> -> tensor<5xf64>
      %ix = tensor.convert %i : tensor<5xi32> -> tensor<5xindex>
      %ib = tensor.convert %i : tensor<5xi32> -> tensor<5xi1>
      return %a32, %ai, %if, %mf, %ix, %ib : tensor<5xf32>, tensor<5xi64>, tensor<5xf64>, tensor<5xf64>, tensor<5xindex>, tensor<5xi1>
    }"""
    a = np.array([1.7, -1.7, 0.2, -0.9, 3.0])
    i = np.array([3, -2, 0, 7, 1], dtype=np.int32)
    m = np.array([True, False, True, True, False])
    check(text, "f", (a, i, m), (a.astype(np.float32), np.trunc(a).astype(np.int64),
                                 i.astype(np.float64), m.astype(np.float64), i.astype(np.int64),
                                 i != 0))


# ---------------------------------------------------------------------------
# structured ops
# ---------------------------------------------------------------------------


def test_matmul_transpose_broadcast_reduce():
    text = """
    func.func @f(%a: tensor<2x3xf64>, %b: tensor<3x4xf64>, %v: tensor<4xf64>)
        -> (tensor<2x4xf64>, tensor<4x2xf64>, tensor<2x4xf64>, tensor<4xf64>, tensor<2xf64>, tensor<f64>) {
      %c = tensor.matmul %a, %b : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
      %t = tensor.transpose %c [1, 0] : tensor<2x4xf64> -> tensor<4x2xf64>
      %bv = tensor.broadcast %v [1] : tensor<4xf64> -> tensor<2x4xf64>
      %s = tensor.add %c, %bv : tensor<2x4xf64>
      %r0 = tensor.reduce_sum %s [0] : tensor<2x4xf64> -> tensor<4xf64>
      %r1 = tensor.reduce_max %s [1] : tensor<2x4xf64> -> tensor<2xf64>
      %r01 = tensor.reduce_sum %s [0, 1] : tensor<2x4xf64> -> tensor<f64>
      return %c, %t, %s, %r0, %r1, %r01 : tensor<2x4xf64>, tensor<4x2xf64>, tensor<2x4xf64>, tensor<4xf64>, tensor<2xf64>, tensor<f64>
    }"""
    a, b, v = rand(2, 3), rand(3, 4), rand(4)
    c = a @ b
    s = c + v[None, :]
    check(text, "f", (a, b, v), (c, c.T, s, s.sum(0), s.max(1), np.array(s.sum())))


def test_broadcast_expanding_unit_dim_and_transpose3d():
    text = """
    func.func @f(%a: tensor<1x3xf32>, %x: tensor<2x3x4xf32>) -> (tensor<5x3xf32>, tensor<4x2x3xf32>) {
      %b = tensor.broadcast %a [0, 1] : tensor<1x3xf32> -> tensor<5x3xf32>
      %t = tensor.transpose %x [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
      return %b, %t : tensor<5x3xf32>, tensor<4x2x3xf32>
    }"""
    a, x = rand(1, 3, dtype=np.float32), rand(2, 3, 4, dtype=np.float32)
    check(text, "f", (a, x), (np.broadcast_to(a, (5, 3)), np.transpose(x, (2, 0, 1))))


def test_empty_reductions():
    text = """
    func.func @f(%a: tensor<?x3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
      %s = tensor.reduce_sum %a [0] : tensor<?x3xf64> -> tensor<3xf64>
      %m = tensor.reduce_max %a [0] : tensor<?x3xf64> -> tensor<3xf64>
      return %s, %m : tensor<3xf64>, tensor<3xf64>
    }"""
    a = np.zeros((0, 3))
    check(text, "f", (a,), (np.zeros(3), np.full(3, -np.inf)))
    a = rand(4, 3)
    a[1, 2] = np.nan
    check(text, "f", (a,), (a.sum(0), a.max(0)))


# ---------------------------------------------------------------------------
# upstream tensor ops
# ---------------------------------------------------------------------------


def test_empty_splat_insert_extract_from_elements():
    text = """
    func.func @f(%x: f64, %n: index, %i: index) -> (tensor<?xf64>, f64, tensor<2x2xf64>) {
      %s = tensor.splat %x[%n] : tensor<?xf64>
      %y = arith.addf %x, %x : f64
      %s2 = tensor.insert %y into %s[%i] : tensor<?xf64>
      %e = tensor.extract %s[%i] : tensor<?xf64>
      %fe = tensor.from_elements %x, %y, %e, %x : tensor<2x2xf64>
      return %s2, %e, %fe : tensor<?xf64>, f64, tensor<2x2xf64>
    }"""
    s2 = np.full(5, 1.5)
    s2[2] = 3.0
    check(text, "f", (1.5, 5, 2), (s2, np.float64(1.5), np.array([[1.5, 3.0], [1.5, 1.5]])))


def test_slices_dynamic_offsets():
    text = """
    func.func @f(%t: tensor<8x4xf32>, %i: index, %u: tensor<2x4xf32>) -> (tensor<4xf32>, tensor<2x2xf32>, tensor<8x4xf32>) {
      %row = tensor.extract_slice %t[%i, 0] [1, 4] [1, 1] : tensor<8x4xf32> to tensor<4xf32>
      %blk = tensor.extract_slice %t[1, %i] [2, 2] [2, 1] : tensor<8x4xf32> to tensor<2x2xf32>
      %w = tensor.insert_slice %u into %t[%i, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<8x4xf32>
      return %row, %blk, %w : tensor<4xf32>, tensor<2x2xf32>, tensor<8x4xf32>
    }"""
    t, u = rand(8, 4, dtype=np.float32), rand(2, 4, dtype=np.float32)
    w = t.copy()
    w[2:4] = u
    check(text, "f", (t, 2, u), (t[2], t[1:5:2, 2:4], w))


def test_collapse_expand_dim():
    text = """
    func.func @f(%a: tensor<2x3x4xf32>, %d: tensor<?x6xf32>) -> (tensor<6x4xf32>, tensor<2x12xf32>, tensor<?x2x3xf32>, index) {
      %c = tensor.collapse_shape %a [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
      %c2 = tensor.collapse_shape %a [[0], [1, 2]] : tensor<2x3x4xf32> into tensor<2x12xf32>
      %c0 = arith.constant 0 : index
      %n = tensor.dim %d, %c0 : tensor<?x6xf32>
      %e = tensor.expand_shape %d [[0], [1, 2]] output_shape [%n, 2, 3] : tensor<?x6xf32> into tensor<?x2x3xf32>
      return %c, %c2, %e, %n : tensor<6x4xf32>, tensor<2x12xf32>, tensor<?x2x3xf32>, index
    }"""
    a, d = rand(2, 3, 4, dtype=np.float32), rand(5, 6, dtype=np.float32)
    check(text, "f", (a, d), (a.reshape(6, 4), a.reshape(2, 12), d.reshape(5, 2, 3), np.int64(5)))


def test_dense_constants():
    text = """
    func.func @f(%a: tensor<2x2xf64>) -> (tensor<2x2xf64>, tensor<3xi1>, tensor<2xindex>) {
      %c = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf64>
      %s = arith.constant dense<0.5> : tensor<2x2xf64>
      %m = arith.constant dense<[true, false, true]> : tensor<3xi1>
      %ix = arith.constant dense<[3, 7]> : tensor<2xindex>
      %p = tensor.mul %a, %c : tensor<2x2xf64>
      %q = tensor.add %p, %s : tensor<2x2xf64>
      return %q, %m, %ix : tensor<2x2xf64>, tensor<3xi1>, tensor<2xindex>
    }"""
    a = rand(2, 2)
    check(text, "f", (a,), (a * np.array([[1, 2], [3, 4.0]]) + 0.5, np.array([True, False, True]),
                            np.array([3, 7], dtype=np.int64)))


# ---------------------------------------------------------------------------
# control flow and ownership
# ---------------------------------------------------------------------------

TAPE = """
func.func @tape(%x: tensor<4xf64>, %n: index) -> (tensor<4xf64>, tensor<?x4xf64>, tensor<?xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t0 = tensor.empty(%n) : tensor<?x4xf64>
  %k0 = tensor.empty(%n) : tensor<?xindex>
  %r:3 = loop.for %i = %c0 to %n step %c1 iter_args(%acc = %x, %tape = %t0, %kt = %k0) -> (tensor<4xf64>, tensor<?x4xf64>, tensor<?xindex>) {
    %t1 = tensor.insert_slice %acc into %tape[%i, 0] [1, 4] [1, 1] : tensor<4xf64> into tensor<?x4xf64>
    %k1 = tensor.insert %i into %kt[%i] : tensor<?xindex>
    %n2 = tensor.tanh %acc : tensor<4xf64>
    loop.yield %n2, %t1, %k1 : tensor<4xf64>, tensor<?x4xf64>, tensor<?xindex>
  }
  return %r#0, %r#1, %r#2 : tensor<4xf64>, tensor<?x4xf64>, tensor<?xindex>
}
"""


def _tape_ref(x, n):
    rows = []
    for _ in range(n):
        rows.append(x)
        x = np.tanh(x)
    return x, np.array(rows).reshape(n, 4), np.arange(n, dtype=np.int64)


@pytest.mark.parametrize("n", [0, 1, 5])
def test_tape_loop(n):
    x = rand(4)
    m = check(TAPE, "tape", (x, n), _tape_ref(x, n))
    # the tapes are updated in place: allocations per iteration = the tanh result only
    _, t = run_lowered(m, "tape", x, 5)
    _, t0 = run_lowered(m, "tape", x, 0)
    assert t.allocs - t0.allocs == 5


def test_yield_same_value_twice_and_argument():
    text = """
    func.func @f(%x: tensor<3xf64>, %n: index) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %e = tensor.exp %x : tensor<3xf64>
      %r:3 = loop.for %i = %c0 to %n step %c1 iter_args(%a = %e, %b = %e, %c = %x) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) {
        %s = tensor.add %a, %b : tensor<3xf64>
        loop.yield %s, %s, %x : tensor<3xf64>, tensor<3xf64>, tensor<3xf64>
      }
      return %r#0, %r#1, %r#0 : tensor<3xf64>, tensor<3xf64>, tensor<3xf64>
    }"""
    x = rand(3)
    for n in (0, 1, 3):
        e = np.exp(x)
        for _ in range(n):
            e = e + e
        check(text, "f", (x, n), (e, e, e))


def test_init_used_inside_loop_is_not_updated_in_place():
    text = """
    func.func @f(%x: tensor<3xf64>, %n: index) -> tensor<3xf64> {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %one = arith.constant 1.0 : f64
      %e = tensor.exp %x : tensor<3xf64>
      %r = loop.for %i = %c0 to %n step %c1 iter_args(%a = %e) -> (tensor<3xf64>) {
        %u = tensor.insert %one into %a[%c0] : tensor<3xf64>
        %s = tensor.add %u, %e : tensor<3xf64>
        loop.yield %s : tensor<3xf64>
      }
      return %r : tensor<3xf64>
    }"""
    x = rand(3)
    e = np.exp(x)
    a = e.copy()
    for _ in range(3):
        u = a.copy()
        u[0] = 1.0
        a = u + e
    check(text, "f", (x, 3), a)


def test_insert_not_in_place_when_dest_used_later():
    text = """
    func.func @f(%x: tensor<3xf64>, %v: f64) -> (tensor<3xf64>, tensor<3xf64>) {
      %c0 = arith.constant 0 : index
      %e = tensor.exp %x : tensor<3xf64>
      %u = tensor.insert %v into %e[%c0] : tensor<3xf64>
      %s = tensor.add %e, %e : tensor<3xf64>
      return %u, %s : tensor<3xf64>, tensor<3xf64>
    }"""
    x = rand(3)
    u = np.exp(x)
    u[0] = 2.5
    check(text, "f", (x, 2.5), (u, 2 * np.exp(x)))


def test_insert_slice_into_itself():
    text = """
    func.func @f(%x: tensor<4xf64>) -> tensor<4xf64> {
      %e = tensor.exp %x : tensor<4xf64>
      %s = tensor.extract_slice %e[0] [2] [1] : tensor<4xf64> to tensor<2xf64>
      %w = tensor.insert_slice %s into %e[2] [2] [1] : tensor<2xf64> into tensor<4xf64>
      return %w : tensor<4xf64>
    }"""
    x = rand(4)
    e = np.exp(x)
    check(text, "f", (x,), np.concatenate([e[:2], e[:2]]))


def test_if_and_while():
    text = """
    func.func @g(%x: tensor<4xf64>, %c: i1) -> tensor<4xf64> {
      %e0 = tensor.exp %x : tensor<4xf64>
      %y = loop.if %c -> (tensor<4xf64>) {
        %e = tensor.exp %e0 : tensor<4xf64>
        loop.yield %e : tensor<4xf64>
      } else {
        loop.yield %x : tensor<4xf64>
      }
      return %y : tensor<4xf64>
    }
    func.func @w(%x: tensor<f64>, %lim: f64) -> (tensor<f64>, tensor<f64>) {
      %w:2 = loop.while (%v = %x, %k = %x) : (tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>) {
        %s = tensor.extract %v[] : tensor<f64>
        %c = arith.cmpf olt, %s, %lim : f64
        loop.condition(%c) %v, %v : tensor<f64>, tensor<f64>
      } do {
      ^bb0(%v2: tensor<f64>, %k2: tensor<f64>):
        %n = tensor.add %v2, %k2 : tensor<f64>
        loop.yield %n, %k2 : tensor<f64>, tensor<f64>
      }
      return %w#0, %w#1 : tensor<f64>, tensor<f64>
    }"""
    m = lower(text)
    x = rand(4)
    for c in (True, False):
        (got,), _ = run_lowered(m, "g", x, c)
        np.testing.assert_allclose(got, np.exp(np.exp(x)) if c else x)
    (a, b), _ = run_lowered(m, "w", np.array(1.0), 10.0)
    np.testing.assert_allclose(a, 16.0)
    np.testing.assert_allclose(b, 16.0)


def test_calls_between_tensor_functions():
    text = """
    func.func private @sq(%a: tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>) {
      %m = tensor.mul %a, %a : tensor<?xf64>
      return %m, %a : tensor<?xf64>, tensor<?xf64>
    }
    func.func @main(%x: tensor<?xf64>) -> tensor<?xf64> {
      %p:2 = func.call @sq(%x) : (tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>)
      %q:2 = func.call @sq(%p#0) : (tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>)
      %r = tensor.add %q#0, %p#1 : tensor<?xf64>
      return %r : tensor<?xf64>
    }"""
    x = rand(7)
    check(text, "main", (x,), x**4 + x)


def test_unused_results_and_args_are_freed():
    text = """
    func.func @f(%x: tensor<4xf64>, %n: index) -> f64 {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %e = tensor.exp %x : tensor<4xf64>
      %unused = tensor.sin %x : tensor<4xf64>
      %r:2 = loop.for %i = %c0 to %n step %c1 iter_args(%a = %e, %b = %e) -> (tensor<4xf64>, tensor<4xf64>) {
        %t = tensor.tanh %x : tensor<4xf64>
        loop.yield %t, %t : tensor<4xf64>, tensor<4xf64>
      }
      %s = tensor.extract %x[%c1] : tensor<4xf64>
      return %s : f64
    }"""
    x = rand(4)
    check(text, "f", (x, 3), np.float64(x[1]))


def test_scalars_pass_through_and_loops_without_tensors():
    text = """
    func.func @f(%x: f64, %n: index) -> f64 {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %r = loop.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f64) {
        %b = arith.mulf %a, %a : f64
        loop.yield %b : f64
      }
      return %r : f64
    }"""
    m = lower(text)
    got, _ = run_lowered(m, "f", 1.5, 2)
    assert got[0] == 1.5**4


def test_every_tensor_op_has_a_lowering():
    """Generated from the dialect: a rule of its own, or a kernel (declared elementwise,
    or a reduction)."""
    from irtoolkit.dialects import tensor
    from irtoolkit.dialects.elementwise import meaning_of
    from irtoolkit.passes.lowering.tensor_to_loop_rules import RULES

    def lowered(cls):
        return (any(c in RULES for c in cls.__mro__) or meaning_of(cls) is not None
                or hasattr(cls, "COMBINER"))

    missing = [c.name for c in tensor.Tensor.operations if c is not tensor.YieldOp and not lowered(c)]
    assert not missing


def test_unsupported_op_is_a_located_diagnostic():
    text = """
    func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
      %p = tensor.pad %a low[1] high[1] {
      ^bb0(%i: index):
        %z = tensor.extract %a[%i] : tensor<4xf32>
        tensor.yield %z : f32
      } : tensor<4xf32> to tensor<6xf32>
      %s = tensor.extract_slice %p[0] [4] [1] : tensor<6xf32> to tensor<4xf32>
      return %s : tensor<4xf32>
    }"""
    m = irt.parse(text, "pad.mlir")
    with pytest.raises(irt.DiagnosticError) as err:
        run_pipeline(m, PASS)
    assert "pad.mlir:3:" in str(err.value)
    assert "tensor.pad" in str(err.value)


# ---------------------------------------------------------------------------
# against the tensor-level program on the same interpreter
# ---------------------------------------------------------------------------


def test_same_as_tensor_level_interpretation():
    from irtoolkit.interpreter.core import has_rule
    from irtoolkit.dialects import tensor

    if not has_rule(tensor.AddOp):
        pytest.skip("the interpreter has no tensor rules yet")
    x = rand(4)
    ref = irt.interpret(irt.parse(TAPE), "tape", x, 4)
    got, _ = run_lowered(lower(TAPE), "tape", x, 4)
    for g, r in zip(got, ref):
        np.testing.assert_allclose(g, r)


AD_LOOP = """
func.func @loss(%x: tensor<4xf64>, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = loop.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<4xf64>) {
    %t = tensor.tanh %acc : tensor<4xf64>
    %m = tensor.mul %t, %acc : tensor<4xf64>
    loop.yield %m : tensor<4xf64>
  }
  %s = tensor.reduce_sum %r [0] : tensor<4xf64> -> tensor<f64>
  %e = tensor.extract %s[] : tensor<f64>
  return %e : f64
}
func.func @main(%x: tensor<4xf64>, %n: index) -> tensor<4xf64> {
  %g = autodiff.grad @loss(%x, %n) wrt [0] : (tensor<4xf64>, index) -> tensor<4xf64>
  return %g : tensor<4xf64>
}
"""


def test_ad_generated_code():
    """The ad pass's tapes and reverse loops, lowered: same as the tensor level."""
    x = rand(4)
    ref = irt.interpret(irt.parse(AD_LOOP), "main", x, 3)
    m = irt.parse(AD_LOOP)
    run_pipeline(m, "ad," + PASS)
    for n in (0, 3):
        (got,), _ = run_lowered(m, "main", x, n)
        if n == 3:
            np.testing.assert_allclose(got, ref, rtol=1e-12)


# ---------------------------------------------------------------------------
# compiled (lower-to-llvm + JIT)
# ---------------------------------------------------------------------------

JIT_PROGRAM = """
func.func private @sq(%a: tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>) {
  %m = tensor.mul %a, %a : tensor<?xf64>
  return %m, %a : tensor<?xf64>, tensor<?xf64>
}
func.func @mix(%a: tensor<2x3xf64>, %b: tensor<3x4xf64>, %v: tensor<?xf64>, %c: i1)
    -> (tensor<4x2xf64>, tensor<4xf64>, tensor<?xf64>, tensor<?xf64>, tensor<6xi1>) {
  %mm = tensor.matmul %a, %b : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  %t = tensor.transpose %mm [1, 0] : tensor<2x4xf64> -> tensor<4x2xf64>
  %mx = tensor.reduce_max %t [1] : tensor<4x2xf64> -> tensor<4xf64>
  %k = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf64>
  %s = tensor.add %mx, %k : tensor<4xf64>
  %p:2 = func.call @sq(%v) : (tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>)
  %y = loop.if %c -> (tensor<?xf64>) {
    loop.yield %p#0 : tensor<?xf64>
  } else {
    %e = tensor.exp %v : tensor<?xf64>
    loop.yield %e : tensor<?xf64>
  }
  %f = tensor.collapse_shape %a [[0, 1]] : tensor<2x3xf64> into tensor<6xf64>
  %z = arith.constant dense<0.0> : tensor<6xf64>
  %pos = tensor.cmp gt, %f, %z : tensor<6xf64>
  return %t, %s, %p#1, %y, %pos : tensor<4x2xf64>, tensor<4xf64>, tensor<?xf64>, tensor<?xf64>, tensor<6xi1>
}
"""


def _jit(module):
    try:
        return irt.compile(module, "lower-to-llvm")
    except ImportError as err:  # pragma: no cover - runtime missing
        pytest.skip(f"no JIT: {err}")


def test_compiled_matches_numpy():
    m = irt.parse(JIT_PROGRAM)
    exe = _jit(m)
    a, b, v = rand(2, 3), rand(3, 4), rand(5)
    mm = a @ b
    for c in (True, False):
        t, s, p1, y, pos = exe["mix"](a, b, v, c)
        np.testing.assert_allclose(t, mm.T)
        np.testing.assert_allclose(s, mm.T.max(1) + [1, 2, 3, 4])
        np.testing.assert_allclose(p1, v)
        np.testing.assert_allclose(y, v * v if c else np.exp(v))
        np.testing.assert_array_equal(pos, a.reshape(6) > 0)
    # the lowered program on the interpreter agrees (and keeps the memory discipline)
    lowered = lower(JIT_PROGRAM)
    got, _ = run_lowered(lowered, "mix", a, b, v, True)
    np.testing.assert_allclose(got[0], mm.T)


def test_compiled_tape_and_gradient():
    exe = _jit(irt.parse(TAPE))
    x = rand(4)
    for n in (0, 6):
        for g, e in zip(exe["tape"](x, n), _tape_ref(x, n)):
            np.testing.assert_allclose(g, e)
    exe = irt.compile(irt.parse(AD_LOOP))  # default pipeline: ad,lower-to-llvm
    ref = irt.interpret(irt.parse(AD_LOOP), "main", x, 5)
    np.testing.assert_allclose(exe["main"](x, 5), ref, rtol=1e-12)


# ---------------------------------------------------------------------------
# more ownership cases
# ---------------------------------------------------------------------------


def test_if_takes_over_values_last_used_by_it():
    text = """
    func.func @f(%x: tensor<4xf64>, %c: i1) -> tensor<4xf64> {
      %e = tensor.exp %x : tensor<4xf64>
      %y = loop.if %c -> (tensor<4xf64>) {
        %s = tensor.sin %e : tensor<4xf64>
        loop.yield %s : tensor<4xf64>
      } else {
        loop.yield %e : tensor<4xf64>
      }
      return %y : tensor<4xf64>
    }"""
    m = lower(text)
    # the else branch hands %e on without a copy
    assert not any(o.name == "memref.copy" for o in m.walk())
    x = rand(4)
    for c in (True, False):
        (got,), t = run_lowered(m, "f", x, c)
        np.testing.assert_allclose(got, np.sin(np.exp(x)) if c else np.exp(x))
        assert t.allocs == (2 if c else 1)


def test_nested_loops_and_while_update_tapes_in_place():
    text = """
    func.func @f(%n: index, %m: index) -> (tensor<?x?xf64>, tensor<?xi1>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %t0 = tensor.empty(%n, %m) : tensor<?x?xf64>
      %r = loop.for %i = %c0 to %n step %c1 iter_args(%t = %t0) -> (tensor<?x?xf64>) {
        %r2 = loop.for %j = %c0 to %m step %c1 iter_args(%u = %t) -> (tensor<?x?xf64>) {
          %ii = arith.index_cast %i : index to i64
          %jj = arith.index_cast %j : index to i64
          %s = arith.muli %ii, %jj : i64
          %f = arith.sitofp %s : i64 to f64
          %u2 = tensor.insert %f into %u[%i, %j] : tensor<?x?xf64>
          loop.yield %u2 : tensor<?x?xf64>
        }
        loop.yield %r2 : tensor<?x?xf64>
      }
      %b0 = tensor.empty(%n) : tensor<?xi1>
      %w:2 = loop.while (%k = %c0, %b = %b0) : (index, tensor<?xi1>) -> (index, tensor<?xi1>) {
        %go = arith.cmpi slt, %k, %n : index
        loop.condition(%go) %k, %b : index, tensor<?xi1>
      } do {
      ^bb0(%k2: index, %b2: tensor<?xi1>):
        %c2 = arith.constant 2 : index
        %rem = arith.remui %k2, %c2 : index
        %even = arith.cmpi eq, %rem, %c0 : index
        %b3 = tensor.insert %even into %b2[%k2] : tensor<?xi1>
        %k3 = arith.addi %k2, %c1 : index
        loop.yield %k3, %b3 : index, tensor<?xi1>
      }
      return %r, %w#1 : tensor<?x?xf64>, tensor<?xi1>
    }"""
    m = lower(text)
    (t, b), tr = run_lowered(m, "f", 4, 3)
    np.testing.assert_array_equal(t, np.outer(np.arange(4), np.arange(3)).astype(np.float64))
    np.testing.assert_array_equal(b, np.arange(4) % 2 == 0)
    assert tr.allocs == 2  # the two tapes, nothing per iteration


def test_cast_concat_dynamic_slice_sizes():
    text = """
    func.func @f(%a: tensor<4xf32>, %b: tensor<?xf32>, %o: index, %s: index) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
      %d = tensor.cast %a : tensor<4xf32> to tensor<?xf32>
      %c = tensor.concat dim(0) %d, %b : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
      %sl = tensor.extract_slice %c[%o] [%s] [1] : tensor<?xf32> to tensor<?xf32>
      return %d, %c, %sl : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
    }"""
    a, b = rand(4, dtype=np.float32), rand(3, dtype=np.float32)
    c = np.concatenate([a, b])
    check(text, "f", (a, b, 2, 4), (a, c, c[2:6]))


def test_parallel_loop_reading_tensors():
    text = """
    func.func @f(%a: tensor<5xf64>) -> f64 {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c5 = arith.constant 5 : index
      %z = arith.constant 0.0 : f64
      %e = tensor.exp %a : tensor<5xf64>
      %s = loop.parallel (%i) = (%c0) to (%c5) step (%c1) init (%z) -> f64 {
        %x = tensor.extract %e[%i] : tensor<5xf64>
        loop.reduce(%x : f64) {
        ^bb0(%l: f64, %r: f64):
          %t = arith.addf %l, %r : f64
          loop.reduce.return %t : f64
        }
      }
      return %s : f64
    }"""
    a = rand(5)
    check(text, "f", (a,), np.float64(np.exp(a).sum()))


def test_reshape():
    text = """
    func.func @f(%a: tensor<2x3xf32>, %s: tensor<2xi64>) -> (tensor<3x2xf32>, tensor<?x?xf32>) {
      %k = arith.constant dense<[3, 2]> : tensor<2xi64>
      %r = tensor.reshape %a(%k) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x2xf32>
      %d = tensor.reshape %a(%s) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
      return %r, %d : tensor<3x2xf32>, tensor<?x?xf32>
    }"""
    a = rand(2, 3, dtype=np.float32)
    check(text, "f", (a, np.array([6, 1])), (a.reshape(3, 2), a.reshape(6, 1)))
