"""Every `loop` form, calls, and their buffer ownership: compiled vs interpreter vs numpy.

for (zero-trip, negative range, steps, nested, carrying scalars and tensors),
while (zero-trip, carrying tensors, condition forwarding other values), if
(with and without results, tensors from either side), parallel + reduce,
func.call (tensor arguments and results, several results, in loops, the same
buffer twice, recursion). f32 and f64, one packed module per element type.
"""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from numcheck import Pack, check  # noqa: E402

DTYPES = {"f32": np.float32, "f64": np.float64}
EXACT = "exact"
TRANS = ("ulps", 4)
# a loop of transcendentals: errors of an ulp or two per step, compounded
ITER = ("ulps", 64)


def _python_for(lb, ub, step, body, init):
    acc = init
    i = lb
    while i < ub:
        acc = body(i, acc)
        i += step
    return acc


SRC = r"""
func.func @for_scalar(%lb: index, %ub: index, %step: index, %x: {T}) -> ({T}, index) {
  %c0 = arith.constant 0 : index
  %r, %n = loop.for %i = %lb to %ub step %step iter_args(%a = %x, %k = %c0) -> ({T}, index) {
    %fi = arith.index_cast %i : index to i64
    %f = arith.sitofp %fi : i64 to {T}
    %b = arith.mulf %a, %f : {T}
    %c = arith.addf %b, %x : {T}
    %c1 = arith.constant 1 : index
    %k2 = arith.addi %k, %c1 : index
    loop.yield %c, %k2 : {T}, index
  }
  return %r, %n : {T}, index
}

func.func @for_tensor(%x: tensor<4x{T}>, %n: index) -> (tensor<4x{T}>, tensor<4x{T}>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = loop.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<4x{T}>) {
    %t = tensor.tanh %acc : tensor<4x{T}>
    %s = tensor.add %t, %x : tensor<4x{T}>
    loop.yield %s : tensor<4x{T}>
  }
  return %r, %x : tensor<4x{T}>, tensor<4x{T}>
}

func.func @for_nested(%n: index, %m: index) -> tensor<?x?x{T}> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty(%n, %m) : tensor<?x?x{T}>
  %r = loop.for %i = %c0 to %n step %c1 iter_args(%a = %e) -> (tensor<?x?x{T}>) {
    %b = loop.for %j = %c0 to %m step %c1 iter_args(%bb = %a) -> (tensor<?x?x{T}>) {
      %p = arith.muli %i, %m : index
      %q = arith.addi %p, %j : index
      %qi = arith.index_cast %q : index to i64
      %v = arith.sitofp %qi : i64 to {T}
      %u = tensor.insert %v into %bb[%i, %j] : tensor<?x?x{T}>
      loop.yield %u : tensor<?x?x{T}>
    }
    loop.yield %b : tensor<?x?x{T}>
  }
  return %r : tensor<?x?x{T}>
}

func.func @for_swap(%x: tensor<3x{T}>, %y: tensor<3x{T}>, %n: index) -> (tensor<3x{T}>, tensor<3x{T}>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a, %b = loop.for %i = %c0 to %n step %c1 iter_args(%p = %x, %q = %y) -> (tensor<3x{T}>, tensor<3x{T}>) {
    loop.yield %q, %p : tensor<3x{T}>, tensor<3x{T}>
  }
  return %a, %b : tensor<3x{T}>, tensor<3x{T}>
}

func.func @for_same_twice(%x: tensor<3x{T}>, %n: index) -> (tensor<3x{T}>, tensor<3x{T}>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a, %b = loop.for %i = %c0 to %n step %c1 iter_args(%p = %x, %q = %x) -> (tensor<3x{T}>, tensor<3x{T}>) {
    %d = tensor.add %p, %q : tensor<3x{T}>
    loop.yield %d, %d : tensor<3x{T}>, tensor<3x{T}>
  }
  return %a, %b : tensor<3x{T}>, tensor<3x{T}>
}

func.func @while_scalar(%x: {T}, %y: {T}) -> ({T}, i32) {
  %lim = arith.constant 10.0 : {T}
  %z = arith.constant 0 : i32
  %r, %k = loop.while (%v = %x, %c = %z) : ({T}, i32) -> ({T}, i32) {
    %cond = arith.cmpf olt, %v, %lim : {T}
    loop.condition(%cond) %v, %c : {T}, i32
  } do {
  ^bb0(%v2: {T}, %c2: i32):
    %n = arith.mulf %v2, %y : {T}
    %one = arith.constant 1 : i32
    %c3 = arith.addi %c2, %one : i32
    loop.yield %n, %c3 : {T}, i32
  }
  return %r, %k : {T}, i32
}

func.func @while_tensor(%x: tensor<3x{T}>, %lim: {T}) -> (tensor<3x{T}>, index) {
  %c0 = arith.constant 0 : index
  %r, %k = loop.while (%v = %x, %i = %c0) : (tensor<3x{T}>, index) -> (tensor<3x{T}>, index) {
    %s = tensor.reduce_sum %v [0] : tensor<3x{T}> -> tensor<{T}>
    %se = tensor.extract %s[] : tensor<{T}>
    %cond = arith.cmpf olt, %se, %lim : {T}
    loop.condition(%cond) %v, %i : tensor<3x{T}>, index
  } do {
  ^bb0(%v2: tensor<3x{T}>, %i2: index):
    %d = tensor.add %v2, %v2 : tensor<3x{T}>
    %c1 = arith.constant 1 : index
    %i3 = arith.addi %i2, %c1 : index
    loop.yield %d, %i3 : tensor<3x{T}>, index
  }
  return %r, %k : tensor<3x{T}>, index
}

func.func @while_forward(%n: i64) -> (i64, tensor<2x{T}>) {
  %z = arith.constant 0 : i64
  %init = arith.constant dense<0.0> : tensor<2x{T}>
  %r, %t = loop.while (%i = %z, %acc = %init) : (i64, tensor<2x{T}>) -> (i64, tensor<2x{T}>) {
    %c = arith.cmpi slt, %i, %n : i64
    %one = arith.constant 1 : i64
    %next = arith.addi %i, %one : i64
    %f = arith.sitofp %next : i64 to {T}
    %s = tensor.splat %f : tensor<2x{T}>
    %acc2 = tensor.add %acc, %s : tensor<2x{T}>
    loop.condition(%c) %next, %acc2 : i64, tensor<2x{T}>
  } do {
  ^bb0(%j: i64, %a: tensor<2x{T}>):
    loop.yield %j, %a : i64, tensor<2x{T}>
  }
  return %r, %t : i64, tensor<2x{T}>
}

func.func @if_scalar(%x: {T}, %y: {T}) -> {T} {
  %z = arith.constant 0.0 : {T}
  %c = arith.cmpf ogt, %x, %z : {T}
  %r = loop.if %c -> ({T}) {
    %a = arith.mulf %x, %y : {T}
    %s = math.sin %a : {T}
    loop.yield %s : {T}
  } else {
    %b = math.exp %y : {T}
    loop.yield %b : {T}
  }
  return %r : {T}
}

func.func @if_tensor(%c: i1, %x: tensor<3x{T}>, %y: tensor<3x{T}>) -> (tensor<3x{T}>, tensor<3x{T}>) {
  %r = loop.if %c -> (tensor<3x{T}>) {
    loop.yield %x : tensor<3x{T}>
  } else {
    %m = tensor.mul %x, %y : tensor<3x{T}>
    loop.yield %m : tensor<3x{T}>
  }
  %s = loop.if %c -> (tensor<3x{T}>) {
    %n = tensor.neg %y : tensor<3x{T}>
    loop.yield %n : tensor<3x{T}>
  } else {
    loop.yield %y : tensor<3x{T}>
  }
  return %r, %s : tensor<3x{T}>, tensor<3x{T}>
}

func.func @if_no_result(%c: i1, %x: tensor<3x{T}>) -> tensor<3x{T}> {
  loop.if %c {
    %unused = tensor.exp %x : tensor<3x{T}>
  }
  %r = tensor.neg %x : tensor<3x{T}>
  return %r : tensor<3x{T}>
}

func.func @if_in_for(%x: tensor<5x{T}>) -> tensor<5x{T}> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %z = arith.constant 0.0 : {T}
  %r = loop.for %i = %c0 to %c5 step %c1 iter_args(%t = %x) -> (tensor<5x{T}>) {
    %v = tensor.extract %t[%i] : tensor<5x{T}>
    %pos = arith.cmpf ogt, %v, %z : {T}
    %u = loop.if %pos -> (tensor<5x{T}>) {
      %w = arith.mulf %v, %v : {T}
      %t2 = tensor.insert %w into %t[%i] : tensor<5x{T}>
      loop.yield %t2 : tensor<5x{T}>
    } else {
      loop.yield %t : tensor<5x{T}>
    }
    loop.yield %u : tensor<5x{T}>
  }
  return %r : tensor<5x{T}>
}

func.func @parallel_sum(%x: tensor<6x{T}>) -> ({T}, {T}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %z = arith.constant 0.0 : {T}
  %s, %m = loop.parallel (%i) = (%c0) to (%c6) step (%c1) init (%z, %z) -> ({T}, {T}) {
    %v = tensor.extract %x[%i] : tensor<6x{T}>
    loop.reduce(%v, %v : {T}, {T}) {
    ^bb0(%l: {T}, %r: {T}):
      %a = arith.addf %l, %r : {T}
      loop.reduce.return %a : {T}
    }, {
    ^bb0(%l: {T}, %r: {T}):
      %a = arith.maximumf %l, %r : {T}
      loop.reduce.return %a : {T}
    }
  }
  return %s, %m : {T}, {T}
}

func.func private @affine(%x: tensor<3x{T}>, %w: tensor<3x{T}>, %b: {T}) -> (tensor<3x{T}>, {T}) {
  %m = tensor.mul %x, %w : tensor<3x{T}>
  %s = tensor.splat %b : tensor<3x{T}>
  %r = tensor.add %m, %s : tensor<3x{T}>
  %t = tensor.reduce_sum %r [0] : tensor<3x{T}> -> tensor<{T}>
  %te = tensor.extract %t[] : tensor<{T}>
  return %r, %te : tensor<3x{T}>, {T}
}

func.func @calls(%x: tensor<3x{T}>, %w: tensor<3x{T}>, %n: index) -> (tensor<3x{T}>, {T}, tensor<3x{T}>, {T}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = arith.constant 0.5 : {T}
  %a, %s = func.call @affine(%x, %x, %b) : (tensor<3x{T}>, tensor<3x{T}>, {T}) -> (tensor<3x{T}>, {T})
  %r, %acc = loop.for %i = %c0 to %n step %c1 iter_args(%t = %x, %q = %b) -> (tensor<3x{T}>, {T}) {
    %t2, %q2 = func.call @affine(%t, %w, %q) : (tensor<3x{T}>, tensor<3x{T}>, {T}) -> (tensor<3x{T}>, {T})
    loop.yield %t2, %q2 : tensor<3x{T}>, {T}
  }
  return %a, %s, %r, %acc : tensor<3x{T}>, {T}, tensor<3x{T}>, {T}
}

func.func @ident(%x: tensor<2x{T}>) -> tensor<2x{T}> {
  return %x : tensor<2x{T}>
}

func.func @call_ident_twice(%x: tensor<2x{T}>) -> (tensor<2x{T}>, tensor<2x{T}>) {
  %a = func.call @ident(%x) : (tensor<2x{T}>) -> tensor<2x{T}>
  %b = func.call @ident(%a) : (tensor<2x{T}>) -> tensor<2x{T}>
  return %a, %b : tensor<2x{T}>, tensor<2x{T}>
}

func.func @fact(%n: i64) -> i64 {
  %one = arith.constant 1 : i64
  %c = arith.cmpi sle, %n, %one : i64
  %r = loop.if %c -> (i64) {
    loop.yield %one : i64
  } else {
    %m = arith.subi %n, %one : i64
    %f = func.call @fact(%m) : (i64) -> i64
    %p = arith.muli %n, %f : i64
    loop.yield %p : i64
  }
  return %r : i64
}
func.func @yield_outer(%x: tensor<3x{T}>, %y: tensor<3x{T}>, %n: index) -> (tensor<3x{T}>, tensor<3x{T}>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a, %b = loop.for %i = %c0 to %n step %c1 iter_args(%p = %x, %q = %y) -> (tensor<3x{T}>, tensor<3x{T}>) {
    %s = tensor.add %p, %q : tensor<3x{T}>
    loop.yield %y, %s : tensor<3x{T}>, tensor<3x{T}>
  }
  return %a, %b : tensor<3x{T}>, tensor<3x{T}>
}

func.func @if_same(%c: i1, %x: tensor<3x{T}>) -> (tensor<3x{T}>, tensor<3x{T}>) {
  %e = tensor.neg %x : tensor<3x{T}>
  %a, %b = loop.if %c -> (tensor<3x{T}>, tensor<3x{T}>) {
    loop.yield %e, %e : tensor<3x{T}>, tensor<3x{T}>
  } else {
    %n = tensor.add %e, %e : tensor<3x{T}>
    loop.yield %n, %x : tensor<3x{T}>, tensor<3x{T}>
  }
  return %a, %b : tensor<3x{T}>, tensor<3x{T}>
}

func.func @i32loop(%a: i32, %b: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %r = loop.for %i = %a to %b step %c1 iter_args(%s = %a) -> (i32) : i32 {
    %t = arith.addi %s, %i : i32
    loop.yield %t : i32
  }
  return %r : i32
}

func.func @while_dup(%x: tensor<2x{T}>, %n: i64) -> (tensor<2x{T}>, tensor<2x{T}>) {
  %z = arith.constant 0 : i64
  %r:3 = loop.while (%i = %z, %v = %x) : (i64, tensor<2x{T}>) -> (i64, tensor<2x{T}>, tensor<2x{T}>) {
    %c = arith.cmpi slt, %i, %n : i64
    loop.condition(%c) %i, %v, %v : i64, tensor<2x{T}>, tensor<2x{T}>
  } do {
  ^bb0(%j: i64, %a: tensor<2x{T}>, %b: tensor<2x{T}>):
    %one = arith.constant 1 : i64
    %k = arith.addi %j, %one : i64
    %s = tensor.add %a, %b : tensor<2x{T}>
    loop.yield %k, %s : i64, tensor<2x{T}>
  }
  return %r#1, %r#2 : tensor<2x{T}>, tensor<2x{T}>
}
"""


def _tanh_iter(x, n):
    acc = x
    for _ in range(n):
        acc = np.tanh(acc) + x
    return acc


def cases(dt):
    def sc(v):
        return dt(v)

    def for_ref(lb, ub, step, x):
        r = x
        k = 0
        for i in range(lb, ub, step):
            r = r * dt(i) + x
            k += 1
        return sc(r), np.int64(k)

    def while_ref(x, y):
        v, k = x, 0
        while v < dt(10.0):
            v, k = v * y, k + 1
        return v, np.int32(k)

    def while_tensor_ref(x, lim):
        v, k = x, 0
        while np.sum(v, dtype=dt) < lim:
            v, k = v + v, k + 1
        return v, np.int64(k)

    def while_forward_ref(n):
        acc, i = np.zeros(2, dt), 0
        while True:
            c = i < n
            i += 1
            acc = acc + dt(i)
            if not c:
                return np.int64(i), acc

    def affine(x, w, b):
        r = x * w + b
        return r, np.sum(r, dtype=dt)

    def calls_ref(x, w, n):
        a, s = affine(x, x, dt(0.5))
        t, q = x, dt(0.5)
        for _ in range(n):
            t, q = affine(t, w, q)
        return a, s, t, q

    def yield_outer_ref(x, y, n):
        p, q = x, y
        for _ in range(n):
            p, q = y, p + q
        return p, q

    def if_in_for_ref(x):
        y = x.copy()
        y[y > 0] = y[y > 0] ** 2
        return y

    r = np.random.default_rng(7)

    def vec(n, lo=-1.0, hi=1.0):
        return r.uniform(lo, hi, n).astype(dt)

    x3, y3 = vec(3), vec(3)
    return {
        "for_scalar": ([(0, 5, 1, sc(0.5)), (3, 3, 1, sc(0.5)), (5, 2, 1, sc(0.5)), (1, 8, 3, sc(0.25)),
                        (0, 2, 5, sc(2.0))], for_ref, EXACT),
        "for_tensor": ([(vec(4), 0), (vec(4), 1), (vec(4), 6)],
                       lambda x, n: (_tanh_iter(x, n), x), ITER),
        "for_nested": ([(3, 4), (0, 4), (3, 0), (1, 1)],
                       lambda n, m: np.arange(n * m, dtype=dt).reshape(n, m), EXACT),
        "for_swap": ([(x3, y3, 0), (x3, y3, 1), (x3, y3, 4)],
                     lambda x, y, n: (x, y) if n % 2 == 0 else (y, x), EXACT),
        "for_same_twice": ([(x3, 0), (x3, 3)], lambda x, n: (x * dt(2 ** n),) * 2, EXACT),
        "while_scalar": ([(sc(0.7), sc(1.7)), (sc(11.0), sc(1.7)), (sc(3.0), sc(2.0))], while_ref, EXACT),
        "while_tensor": ([(np.abs(vec(3)) + dt(0.1), sc(10.0)), (vec(3, 5, 6), sc(1.0))], while_tensor_ref, EXACT),
        "while_forward": ([(np.int64(0),), (np.int64(3),), (np.int64(-2),)], while_forward_ref, EXACT),
        "if_scalar": ([(sc(0.5), sc(0.3)), (sc(-0.5), sc(0.3))],
                      lambda x, y: sc(np.sin(x * y)) if x > 0 else sc(np.exp(y)), TRANS),
        "if_tensor": ([(True, x3, y3), (False, x3, y3)],
                      lambda c, x, y: (x, -y) if c else (x * y, y), EXACT),
        "if_no_result": ([(True, x3), (False, x3)], lambda c, x: -x, EXACT),
        "if_in_for": ([(vec(5),)], if_in_for_ref, EXACT),
        "parallel_sum": ([(vec(6),)], lambda x: (np.sum(x, dtype=dt), max(dt(0), np.max(x))),
                         ("reduce", 4, lambda x: (np.sum(np.abs(x)), np.abs(x).max()))),
        "calls": ([(x3, y3, 0), (x3, y3, 3)], calls_ref, ("reduce", 8, lambda x, w, n: 8.0)),
        "call_ident_twice": ([(vec(2),)], lambda x: (x, x), EXACT),
        "yield_outer": ([(x3, y3, 0), (x3, y3, 1), (x3, y3, 3)],
                        yield_outer_ref, EXACT),
        "if_same": ([(True, x3), (False, x3)], lambda c, x: (-x, -x) if c else (-x + -x, x), EXACT),
        "i32loop": ([(np.int32(2), np.int32(7)), (np.int32(5), np.int32(5)), (np.int32(-3), np.int32(2))],
                    lambda a, b: np.int32(a + sum(range(a, b))), EXACT),
        "while_dup": ([(vec(2), np.int64(0)), (vec(2), np.int64(3))],
                      lambda x, n: (x * dt(2 ** n),) * 2, EXACT),
        "fact": ([(np.int64(0),), (np.int64(1),), (np.int64(10),)], lambda n: np.int64(np.prod(range(1, n + 1))), EXACT),
    }


def _text(T):
    return SRC.replace("{T}", T)


PACKS = {T: Pack({"all": _text(T)}) for T in DTYPES}
CASES = {T: cases(dt) for T, dt in DTYPES.items()}
PARAMS = [pytest.param(T, name, id=f"{T}-{name}") for T in DTYPES for name in CASES[T]]


@pytest.mark.parametrize(("T", "name"), PARAMS)
def test_loop_form(T, name):
    runs, ref, tol = CASES[T][name]
    pack = PACKS[T]
    for args in runs:
        jit = pack.jit("all", name, *args)
        interp = pack.interp("all", name, *args)
        check(jit, interp, tol, args, f"{name}{args!r} jit vs interp")
        want = ref(*args)
        want = want if isinstance(want, tuple) else (want,)
        want = tuple(np.asarray(w, dtype=np.asarray(g).dtype) if isinstance(g, np.ndarray)
                     else type(g)(w) for w, g in zip(want, interp))
        check(jit, want, tol, args, f"{name}{args!r} jit vs numpy")


def test_results_do_not_alias_arguments():
    """A result that is an argument unchanged comes back as a new array; the input is untouched."""
    pack = PACKS["f64"]
    x = np.array([1.0, 2.0, 3.0, 4.0])
    keep = x.copy()
    r, same = pack.jit("all", "for_tensor", x, 0)
    assert not np.shares_memory(r, x) and not np.shares_memory(same, x)
    r[:] = 0
    same[:] = 0
    np.testing.assert_array_equal(x, keep)
    a, b = pack.jit("all", "call_ident_twice", np.array([1.0, 2.0]))
    assert not np.shares_memory(a, b)
