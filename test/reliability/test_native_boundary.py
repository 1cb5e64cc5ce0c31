"""The boundary between numpy and native code (`irt.compile(m)["f"]`) and the
interpreter (`irt.interpret`): bad arguments are rejected before anything
runs, odd but valid arrays are handled, inputs are never written to, and
NaN/Inf follow IEEE (numpy) semantics in compiled code and the interpreter alike.
"""

from __future__ import annotations

import numpy as np
import pytest

import irtoolkit as irt

SRC = """
func.func @add(%a: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<4xf64> {
  %r = tensor.add %a, %b : tensor<4xf64>
  return %r : tensor<4xf64>
}
func.func @mm(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x2xf32> {
  %r = tensor.matmul %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
func.func @dyn(%a: tensor<?x3xf64>) -> tensor<?x3xf64> {
  %r = tensor.exp %a : tensor<?x3xf64>
  return %r : tensor<?x3xf64>
}
func.func @sq(%x: f64) -> f64 {
  %r = arith.mulf %x, %x : f64
  return %r : f64
}
func.func @idx(%t: tensor<4xf64>, %i: index) -> f64 {
  %e = tensor.extract %t[%i] : tensor<4xf64>
  return %e : f64
}
func.func @ins(%t: tensor<4xf64>, %e: f64) -> tensor<4xf64> {
  %i = arith.constant 1 : index
  %u = tensor.insert %e into %t[%i] : tensor<4xf64>
  return %u : tensor<4xf64>
}
func.func @ins_slice(%t: tensor<4xf64>, %s: tensor<2xf64>) -> tensor<4xf64> {
  %u = tensor.insert_slice %s into %t[1] [2] [1] : tensor<2xf64> into tensor<4xf64>
  return %u : tensor<4xf64>
}
func.func @ident(%t: tensor<4xf64>) -> tensor<4xf64> {
  return %t : tensor<4xf64>
}
"""


@pytest.fixture(scope="module")
def module():
    return irt.parse(SRC)


@pytest.fixture(scope="module")
def exe(module):
    return irt.compile(module)


@pytest.fixture(params=["compile", "interpret"])
def call(request, module, exe):
    if request.param == "compile":
        return lambda name, *args: exe[name](*args)
    return lambda name, *args: irt.interpret(module, name, *args)


A4 = np.arange(4.0)

REJECTED = {
    "too few": ("add", (A4,)),
    "too many": ("add", (A4, A4, A4)),
    "none": ("add", ()),
    "shape": ("add", (np.arange(5.0), A4)),
    "rank": ("add", (np.ones((2, 2)), A4)),
    "0-d for tensor": ("add", (np.float64(1.0), A4)),
    "dtype f32": ("add", (A4.astype(np.float32), A4)),
    "dtype int": ("add", (np.arange(4), A4)),
    "dtype f64 for f32": ("mm", (np.ones((2, 3)), np.ones((3, 2), np.float32))),
    "transposed shape": ("mm", (np.ones((3, 2), np.float32), np.ones((3, 2), np.float32))),
    "dyn static dim": ("dyn", (np.ones((2, 4)),)),
    "None": ("add", (None, A4)),
    "string": ("add", ("abcd", A4)),
    "object array": ("add", (np.array([1.0, None, 2.0, 3.0], dtype=object), A4)),
    "array for scalar": ("sq", (np.array([1.0]),)),
    "string for scalar": ("sq", ("x",)),
    "complex for scalar": ("sq", (1 + 2j,)),
    "None for scalar": ("sq", (None,)),
    "float for index": ("idx", (A4, 1.5)),
}


@pytest.mark.parametrize("case", sorted(REJECTED))
def test_bad_arguments_are_rejected_before_running(call, case):
    name, args = REJECTED[case]
    with pytest.raises((irt.DiagnosticError, TypeError, ValueError)) as info:
        call(name, *args)
    assert str(info.value).strip(), "the error says what is wrong"


def test_argument_error_is_a_diagnostic(exe):
    with pytest.raises(irt.DiagnosticError) as info:
        exe["add"](A4)
    assert "2" in str(info.value)


@pytest.mark.parametrize("index", [4, -1, 1 << 40])
def test_out_of_range_index_is_an_error_in_the_interpreter(module, index):
    """The interpreter checks indices. (Compiled code does not: like MLIR, an
    out-of-range `tensor.extract` is undefined behaviour there, and index 2**40
    segfaults, so it is not called here.)"""
    with pytest.raises((irt.DiagnosticError, IndexError)):
        irt.interpret(module, "idx", A4, index)


def _odd_arrays():
    base = np.arange(8.0)
    ro = np.arange(4.0)
    ro.flags.writeable = False
    fortran = np.asfortranarray(np.arange(8.0).reshape(4, 2))[:, 0]
    big_endian = np.arange(4.0).astype(">f8")
    unaligned = np.frombuffer(b"\0" + np.arange(4.0).tobytes(), dtype=np.float64, offset=1)
    return {
        "strided": base[::2],
        "reversed": base[3::-1],
        "read-only": ro,
        "fortran column": fortran,
        "list": [0.0, 1.0, 2.0, 3.0],
        "big-endian": big_endian,
        "unaligned": unaligned,
    }


@pytest.mark.parametrize("case", sorted(_odd_arrays()))
def test_odd_but_valid_arrays_give_right_results(call, case):
    x = _odd_arrays()[case]
    ref = np.asarray(x, dtype=np.float64)
    try:
        got = call("add", x, A4)
    except (irt.DiagnosticError, TypeError, ValueError):
        if case in ("big-endian",):
            return  # rejecting a foreign byte order is fine too
        raise
    assert np.array_equal(got, ref + A4)
    assert np.array_equal(np.asarray(x, dtype=np.float64), ref), "input unchanged"


def test_non_contiguous_2d_and_dynamic(call):
    x = np.arange(30.0).reshape(5, 6)[:, ::2] / 10  # shape (5, 3), strided
    assert np.allclose(call("dyn", x), np.exp(x))
    x0 = np.zeros((0, 3))
    assert call("dyn", x0).shape == (0, 3)


@pytest.mark.parametrize("name,extra", [("ins", (9.0,)), ("ins_slice", (np.array([7.0, 8.0]),))])
def test_inputs_are_never_written(call, name, extra):
    t = np.arange(4.0)
    t.flags.writeable = False  # a write through numpy would fail; native code would crash or succeed
    keep = t.copy()
    r = call(name, t, *extra)
    assert np.array_equal(t, keep)
    w = np.arange(4.0)
    r2 = call(name, w, *extra)
    assert np.array_equal(w, keep), "a writable input is not modified either"
    assert np.array_equal(r, r2)
    assert r[1] in (9.0, 7.0)


def test_same_array_twice_and_results_are_fresh(call):
    x = np.arange(4.0)
    r = call("add", x, x)
    assert np.array_equal(r, 2 * x) and np.array_equal(x, np.arange(4.0))
    r = call("ident", x)
    assert np.array_equal(r, x)
    r[0] = 42.0  # the result does not alias the input
    assert x[0] == 0.0


# ---------------------------------------------------------------------------
# NaN / Inf

SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 1e308, 5e-324, -2.5], dtype=np.float64)
N = SPECIAL.size
PAIR_A = np.repeat(SPECIAL, N)
PAIR_B = np.tile(SPECIAL, N)
M = PAIR_A.size

UNARY = {
    "neg": np.negative, "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "tanh": np.tanh,
    "sin": np.sin, "cos": np.cos, "abs": np.abs, "logistic": lambda x: 1 / (1 + np.exp(-x)),
}
BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "max": np.maximum, "min": np.minimum, "pow": np.power,
}
CMP = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
       "gt": np.greater, "ge": np.greater_equal}


def _ieee_src() -> str:
    t = f"tensor<{M}xf64>"
    lines = []
    for op in UNARY:
        lines.append(f"func.func @u_{op}(%a: {t}) -> {t} {{\n  %r = tensor.{op} %a : {t}\n  return %r : {t}\n}}")
    for op in BINARY:
        lines.append(f"func.func @b_{op}(%a: {t}, %b: {t}) -> {t} {{\n"
                     f"  %r = tensor.{op} %a, %b : {t}\n  return %r : {t}\n}}")
    m = f"tensor<{M}xi1>"
    for p in CMP:
        lines.append(f"func.func @c_{p}(%a: {t}, %b: {t}) -> {m} {{\n"
                     f"  %r = tensor.cmp {p}, %a, %b : {t}\n  return %r : {m}\n}}")
    lines.append(f"""func.func @reduce(%a: tensor<{N}x{N}xf64>) -> (tensor<{N}xf64>, tensor<{N}xf64>) {{
  %s = tensor.reduce_sum %a [1] : tensor<{N}x{N}xf64> -> tensor<{N}xf64>
  %m = tensor.reduce_max %a [1] : tensor<{N}x{N}xf64> -> tensor<{N}xf64>
  return %s, %m : tensor<{N}xf64>, tensor<{N}xf64>
}}""")
    lines.append("""func.func @scalar(%a: f64, %b: f64) -> (f64, f64, f64, i1, i1) {
  %x = arith.maximumf %a, %b : f64
  %n = arith.minimumf %a, %b : f64
  %d = arith.divf %a, %b : f64
  %lt = arith.cmpf olt, %a, %b : f64
  %ne = arith.cmpf une, %a, %b : f64
  return %x, %n, %d, %lt, %ne : f64, f64, f64, i1, i1
}""")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def ieee():
    m = irt.parse(_ieee_src())
    return m, irt.compile(m)


def _same(got, want, what, ulps=False):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, what
    if want.dtype == np.bool_:
        bad = got != want
    else:
        nan_ok = np.isnan(got) == np.isnan(want)
        close = np.isclose(got, want, rtol=1e-12 if not ulps else 1e-9, atol=0.0, equal_nan=True)
        bad = ~(nan_ok & close)
    assert not bad.any(), (f"{what}: differs at inputs a={PAIR_A[bad][:5] if bad.size == M else ''} "
                           f"b={PAIR_B[bad][:5] if bad.size == M else ''}: got {got[bad][:5]}, want {want[bad][:5]}")


@pytest.mark.parametrize("mode", ["compile", "interpret"])
@pytest.mark.parametrize("op", sorted(UNARY))
def test_ieee_unary(ieee, mode, op):
    m, exe = ieee
    with np.errstate(all="ignore"):
        want = UNARY[op](PAIR_A)
    got = exe[f"u_{op}"](PAIR_A) if mode == "compile" else irt.interpret(m, f"u_{op}", PAIR_A)
    _same(got, want, f"tensor.{op} ({mode})", ulps=True)


@pytest.mark.parametrize("mode", ["compile", "interpret"])
@pytest.mark.parametrize("op", sorted(BINARY))
def test_ieee_binary(ieee, mode, op):
    m, exe = ieee
    with np.errstate(all="ignore"):
        want = BINARY[op](PAIR_A, PAIR_B)
    f = f"b_{op}"
    got = exe[f](PAIR_A, PAIR_B) if mode == "compile" else irt.interpret(m, f, PAIR_A, PAIR_B)
    _same(got, want, f"tensor.{op} ({mode})", ulps=op == "pow")


@pytest.mark.parametrize("mode", ["compile", "interpret"])
@pytest.mark.parametrize("pred", sorted(CMP))
def test_ieee_compare(ieee, mode, pred):
    """Ordered compares are false on NaN; ne is unordered (true on NaN), as numpy."""
    m, exe = ieee
    want = CMP[pred](PAIR_A, PAIR_B)
    f = f"c_{pred}"
    got = exe[f](PAIR_A, PAIR_B) if mode == "compile" else irt.interpret(m, f, PAIR_A, PAIR_B)
    _same(np.asarray(got, dtype=bool), want, f"tensor.cmp {pred} ({mode})")


@pytest.mark.parametrize("mode", ["compile", "interpret"])
def test_ieee_reductions(ieee, mode):
    m, exe = ieee
    a = PAIR_A.reshape(N, N).T.copy()  # each row holds every special value once...
    a[:, 0] = SPECIAL[::-1]            # ...and rows differ
    with np.errstate(all="ignore"):
        want_s, want_m = a.sum(axis=1), a.max(axis=1)
    got = exe["reduce"](a) if mode == "compile" else irt.interpret(m, "reduce", a)
    _same(got[1], want_m, f"reduce_max ({mode})")
    _same(got[0], want_s, f"reduce_sum ({mode})", ulps=True)


@pytest.mark.parametrize("mode", ["compile", "interpret"])
def test_ieee_scalars(ieee, mode):
    m, exe = ieee
    for a in SPECIAL:
        for b in SPECIAL:
            got = exe["scalar"](a, b) if mode == "compile" else irt.interpret(m, "scalar", a, b)
            with np.errstate(all="ignore"):
                want = (np.maximum(a, b), np.minimum(a, b), np.divide(a, b), a < b, a != b)
            for g, w, what in zip(got, want, ["maximumf", "minimumf", "divf", "cmpf olt", "cmpf une"]):
                g, w = np.asarray(g), np.asarray(w)
                ok = (g == w) or (np.isnan(g) and np.isnan(w))
                assert ok, f"arith.{what}({a}, {b}) = {g}, want {w} ({mode})"


def test_ieee_signed_zero(ieee):
    """max(-0, +0) and min: numpy picks by order of arguments; both agree with each other."""
    m, exe = ieee
    a = np.array([-0.0, 0.0] * (M // 2))
    b = np.array([0.0, -0.0] * (M // 2))
    c = exe["b_max"](a, b)
    i = irt.interpret(m, "b_max", a, b)
    assert np.array_equal(c, i) and (c == 0).all()
