"""Memref programs (with loop and cf control flow) compiled, run, and compared to
numpy and to the reference interpreter."""

import numpy as np
import pytest

import irtoolkit as irt

PROGRAM_TEMPLATE = """
func.func @axpy(%a: {t}, %x: memref<?xf{w}>, %y: memref<?xf{w}>) -> memref<?xf{w}> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf{w}>
  %out = memref.alloc(%n) : memref<?xf{w}>
  loop.for %i = %c0 to %n step %c1 {{
    %xi = memref.load %x[%i] : memref<?xf{w}>
    %yi = memref.load %y[%i] : memref<?xf{w}>
    %p = arith.mulf %a, %xi : {t}
    %s = arith.addf %p, %yi : {t}
    memref.store %s, %out[%i] : memref<?xf{w}>
  }}
  return %out : memref<?xf{w}>
}}

func.func @matvec(%m: memref<?x?xf{w}>, %v: memref<?xf{w}>) -> memref<?xf{w}> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : {t}
  %rows = memref.dim %m, %c0 : memref<?x?xf{w}>
  %cols = memref.dim %m, %c1 : memref<?x?xf{w}>
  %out = memref.alloc(%rows) : memref<?xf{w}>
  loop.parallel (%i) = (%c0) to (%rows) step (%c1) {{
    %acc = loop.for %j = %c0 to %cols step %c1 iter_args(%s = %z) -> ({t}) {{
      %a = memref.load %m[%i, %j] : memref<?x?xf{w}>
      %b = memref.load %v[%j] : memref<?xf{w}>
      %p = arith.mulf %a, %b : {t}
      %s2 = arith.addf %s, %p : {t}
      loop.yield %s2 : {t}
    }}
    memref.store %acc, %out[%i] : memref<?xf{w}>
    loop.reduce
  }}
  return %out : memref<?xf{w}>
}}

func.func @stats(%x: memref<3x4xf{w}>) -> (memref<f{w}>, memref<4xf{w}>, {t}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : {t}
  %ninf = arith.constant 0xFF800000 : f32
  %total = memref.alloc() : memref<f{w}>
  %colmax = memref.alloc() : memref<4xf{w}>
  %sum = loop.for %i = %c0 to %c3 step %c1 iter_args(%s = %z) -> ({t}) {{
    %row = loop.for %j = %c0 to %c4 step %c1 iter_args(%r = %s) -> ({t}) {{
      %v = memref.load %x[%i, %j] : memref<3x4xf{w}>
      %r2 = arith.addf %r, %v : {t}
      loop.yield %r2 : {t}
    }}
    loop.yield %row : {t}
  }}
  memref.store %sum, %total[] : memref<f{w}>
  loop.for %j = %c0 to %c4 step %c1 {{
    %first = memref.load %x[%c0, %j] : memref<3x4xf{w}>
    %m = loop.for %i = %c1 to %c3 step %c1 iter_args(%acc = %first) -> ({t}) {{
      %v = memref.load %x[%i, %j] : memref<3x4xf{w}>
      %m2 = arith.maximumf %acc, %v : {t}
      loop.yield %m2 : {t}
    }}
    memref.store %m, %colmax[%j] : memref<4xf{w}>
  }}
  %mean_n = arith.constant 12.0 : {t}
  %mean = arith.divf %sum, %mean_n : {t}
  return %total, %colmax, %mean : memref<f{w}>, memref<4xf{w}>, {t}
}}

func.func @collatz(%n: i64) -> i64 {{
  %one = arith.constant 1 : i64
  %two = arith.constant 2 : i64
  %three = arith.constant 3 : i64
  %zero = arith.constant 0 : i64
  %r:2 = loop.while (%v = %n, %k = %zero) : (i64, i64) -> (i64, i64) {{
    %c = arith.cmpi ne, %v, %one : i64
    loop.condition(%c) %v, %k : i64, i64
  }} do {{
  ^bb0(%v2: i64, %k2: i64):
    %rem = arith.remsi %v2, %two : i64
    %even = arith.cmpi eq, %rem, %zero : i64
    %next = loop.if %even -> (i64) {{
      %h = arith.divsi %v2, %two : i64
      loop.yield %h : i64
    }} else {{
      %t = arith.muli %v2, %three : i64
      %t1 = arith.addi %t, %one : i64
      loop.yield %t1 : i64
    }}
    %k3 = arith.addi %k2, %one : i64
    loop.yield %next, %k3 : i64, i64
  }}
  return %r#1 : i64
}}
"""

TYPES = {"f32": ("f32", "32", np.float32), "f64": ("f64", "64", np.float64)}


@pytest.fixture(scope="module", params=["f32", "f64"])
def prog(request):
    t, w, dt = TYPES[request.param]
    text = PROGRAM_TEMPLATE.format(t=t, w=w)
    if t == "f64":
        text = text.replace("0xFF800000 : f32", "0xFFF0000000000000 : f64")
    module = irt.parse(text)
    return irt.compile(module), dt, module


def test_axpy_dynamic(prog):
    exe, dt, _ = prog
    for n in (0, 1, 7, 1000):
        x = np.arange(n, dtype=dt)
        y = np.ones(n, dtype=dt)
        out = exe["axpy"](dt(2.5), x, y)
        assert out.dtype == dt and out.shape == (n,)
        np.testing.assert_allclose(out, 2.5 * x + y)
        assert out.flags.c_contiguous
        if n:
            assert not out.flags.owndata  # wraps the malloc'ed buffer, no copy


def test_matvec_matches_numpy_and_interpreter(prog):
    exe, dt, module = prog
    rng = np.random.default_rng(0)
    m = rng.standard_normal((5, 3)).astype(dt)
    v = rng.standard_normal(3).astype(dt)
    got = exe["matvec"](m, v)
    rtol = 1e-5 if dt is np.float32 else 1e-12
    np.testing.assert_allclose(got, m @ v, rtol=rtol)
    np.testing.assert_allclose(got, irt.interpret(module, "matvec", m, v), rtol=rtol)


def test_several_results_and_0d(prog):
    exe, dt, module = prog
    x = np.arange(12, dtype=dt).reshape(3, 4)
    x[1, 2] = 100
    total, colmax, mean = exe["stats"](x)
    assert isinstance(total, np.ndarray) and total.shape == () and total.dtype == dt
    assert total == x.sum()
    np.testing.assert_array_equal(colmax, x.max(axis=0))
    assert type(mean) is dt and mean == dt(x.sum() / 12)
    want = irt.interpret(module, "stats", x)
    np.testing.assert_allclose(np.asarray(want[1]), colmax)
    # NaN propagates through maximumf, as numpy's max
    x[2, 0] = np.nan
    assert np.isnan(exe["stats"](x)[1][0])


def test_while_and_if(prog):
    exe, _, module = prog
    for n in (1, 6, 27):
        assert exe["collatz"](n) == irt.interpret(module, "collatz", n)
    assert exe["collatz"](27) == 111


def test_non_contiguous_input_is_copied(prog):
    exe, dt, _ = prog
    base = np.arange(20, dtype=dt)
    x = base[::2]
    y = np.zeros(10, dtype=dt)
    np.testing.assert_allclose(exe["axpy"](dt(1), x, y), x)
    m = np.arange(15, dtype=dt).reshape(3, 5).T  # Fortran order
    v = np.ones(3, dtype=dt)
    np.testing.assert_allclose(exe["matvec"](m, v), m @ v)


OWNERSHIP = """
func.func @identity(%a: memref<4xf64>) -> memref<4xf64> {
  return %a : memref<4xf64>
}
func.func @twice(%n: index) -> (memref<?xf64>, memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.alloc(%n) : memref<?xf64>
  loop.for %i = %c0 to %n step %c1 {
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f64
    memref.store %f, %m[%i] : memref<?xf64>
  }
  return %m, %m : memref<?xf64>, memref<?xf64>
}
"memref.global"() <{sym_name = "table_data", sym_visibility = "private", type = memref<3xf32>, initial_value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>, constant}> : () -> ()
func.func @table() -> memref<3xf32> {
  %g = memref.get_global @table_data : memref<3xf32>
  return %g : memref<3xf32>
}
func.func @scratch(%n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %tmp = memref.alloc(%n) : memref<?xf64>
  %one = arith.constant 1.0 : f64
  memref.store %one, %tmp[%c0] : memref<?xf64>
  %v = memref.load %tmp[%c0] : memref<?xf64>
  memref.dealloc %tmp : memref<?xf64>
  return %v : f64
}
"""


@pytest.fixture(scope="module")
def ownership():
    return irt.compile(irt.parse(OWNERSHIP))


def test_returned_input_is_copied(ownership):
    a = np.arange(4.0)
    out = ownership["identity"](a)
    np.testing.assert_array_equal(out, a)
    out[0] = 42.0
    assert a[0] == 0.0  # the caller's array is not aliased


def test_shared_result_buffer(ownership):
    a, b = ownership["twice"](5)
    np.testing.assert_array_equal(a, np.arange(5.0))
    np.testing.assert_array_equal(b, np.arange(5.0))
    del a
    np.testing.assert_array_equal(b, np.arange(5.0))  # still owned by b


def test_global_result_is_copied(ownership):
    t = ownership["table"]()
    np.testing.assert_array_equal(t, [1, 2, 3])
    t[0] = 9
    np.testing.assert_array_equal(ownership["table"](), [1, 2, 3])


def test_alloc_dealloc_inside(ownership):
    assert ownership["scratch"](8) == 1.0


VIEWS = """
func.func @views(%a: memref<4x6xf64>) -> (memref<6xf64>, memref<24xf64>, memref<2x3x4xf64>, f64, memref<4x6xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %row = memref.subview %a[%c2, 0] [1, 6] [1, 1] : memref<4x6xf64> to memref<6xf64, strided<[1], offset: ?>>
  %out = memref.alloc() : memref<6xf64>
  "memref.copy"(%row, %out) : (memref<6xf64, strided<[1], offset: ?>>, memref<6xf64>) -> ()
  %flat = memref.collapse_shape %a [[0, 1]] : memref<4x6xf64> into memref<24xf64>
  %flatc = memref.alloc() : memref<24xf64>
  "memref.copy"(%flat, %flatc) : (memref<24xf64>, memref<24xf64>) -> ()
  %e = memref.expand_shape %flatc [[0, 1, 2]] output_shape [2, 3, 4] : memref<24xf64> into memref<2x3x4xf64>
  %blk = memref.subview %a[1, 2] [2, 3] [2, 1] : memref<4x6xf64> to memref<2x3xf64, strided<[12, 1], offset: 8>>
  %v = memref.load %blk[%c1, %c2] : memref<2x3xf64, strided<[12, 1], offset: 8>>
  %copy = memref.alloc() : memref<4x6xf64>
  "memref.copy"(%a, %copy) : (memref<4x6xf64>, memref<4x6xf64>) -> ()
  return %out, %flatc, %e, %v, %copy : memref<6xf64>, memref<24xf64>, memref<2x3x4xf64>, f64, memref<4x6xf64>
}
"""


def test_views_and_copies():
    # subview (rank-reducing, strided), collapse/expand_shape, contiguous copies
    exe = irt.compile(irt.parse(VIEWS))
    a = np.arange(24.0).reshape(4, 6)
    row, flat, cube, v, copy = exe["views"](a)
    np.testing.assert_array_equal(row, a[2])
    np.testing.assert_array_equal(flat, a.ravel())
    np.testing.assert_array_equal(cube, a.reshape(2, 3, 4))
    assert v == a[1:4:2, 2:5][1, 2]
    np.testing.assert_array_equal(copy, a)
    del flat  # cube views the same buffer
    np.testing.assert_array_equal(cube, a.reshape(2, 3, 4))


ALLOC = """
func.func @fill(%n: index) -> memref<?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f64
  %m = memref.alloc(%n) : memref<?xf64>
  loop.for %i = %c0 to %n step %c1 {
    memref.store %one, %m[%i] : memref<?xf64>
  }
  return %m : memref<?xf64>
}
"""


def test_failed_allocation_is_an_exception():
    # malloc returning null ends the call with an exception instead of compiled
    # code writing through a null pointer; a negative size (a byte count of 2^63
    # or more) fails the size check at the op before malloc.
    from irtoolkit.runtime import RuntimeCheckError

    exe = irt.compile(irt.parse(ALLOC))
    with pytest.raises(RuntimeCheckError, match="size is negative") as err:
        exe["fill"](-3)
    assert err.value.location is not None
    with pytest.raises(MemoryError, match=f"allocation of {8 * 2**59} bytes failed"):
        exe["fill"](2**59)  # 4 EiB: more than any address space
    np.testing.assert_array_equal(exe["fill"](3), np.ones(3))  # still usable
