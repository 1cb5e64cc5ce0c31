"""Run-time checks of compiled code: what the verifier cannot check statically
(dynamic dims that must agree, indices and slices in bounds, reshape sizes,
negative sizes) fails cleanly, compiled and interpreted.

Compiled: ``lower-tensor-to-loop`` emits ``cf.assert``; ``convert-cf-to-llvm``
lowers it to a call that jumps back to the entry point; Python raises
``RuntimeCheckError`` (a DiagnosticError and a ValueError) naming the op, its
``file:line:col`` and the two compared values. Nothing is returned, the
process survives, valid calls keep working.
"""

import gc
import resource

import numpy as np
import pytest

import irtoolkit as irt
from irtoolkit.diagnostics import DiagnosticError
from irtoolkit.runtime import RuntimeCheckError

FILE = "checks.mlir"

PROGRAM = """\
func.func @add(%x: tensor<?xf64>, %y: tensor<?xf64>) -> tensor<?xf64> {
  %z = tensor.add %x, %y : tensor<?xf64>
  return %z : tensor<?xf64>
}
func.func @matmul(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %c = tensor.matmul %a, %b : (tensor<?x?xf64>, tensor<?x?xf64>) -> tensor<?x?xf64>
  return %c : tensor<?x?xf64>
}
func.func @matvec(%a: tensor<2x?xf64>, %b: tensor<?x1xf64>) -> tensor<2x1xf64> {
  %c = tensor.matmul %a, %b : (tensor<2x?xf64>, tensor<?x1xf64>) -> tensor<2x1xf64>
  return %c : tensor<2x1xf64>
}
func.func @broadcast(%a: tensor<?xf64>) -> tensor<2x3xf64> {
  %b = tensor.broadcast %a [1] : tensor<?xf64> -> tensor<2x3xf64>
  return %b : tensor<2x3xf64>
}
func.func @select(%m: tensor<?xi1>, %a: tensor<?xf64>, %b: tensor<?xf64>) -> tensor<?xf64> {
  %r = tensor.select %m, %a, %b : tensor<?xi1>, tensor<?xf64>
  return %r : tensor<?xf64>
}
func.func @cmp(%a: tensor<?xf64>, %b: tensor<?xf64>) -> tensor<?xi1> {
  %r = tensor.cmp lt, %a, %b : tensor<?xf64>
  return %r : tensor<?xi1>
}
func.func @extract(%t: tensor<?xf64>, %i: index) -> f64 {
  %e = tensor.extract %t[%i] : tensor<?xf64>
  return %e : f64
}
func.func @extract_static(%t: tensor<4xf64>, %i: index) -> f64 {
  %e = tensor.extract %t[%i] : tensor<4xf64>
  return %e : f64
}
func.func @insert(%t: tensor<?xf64>, %i: index, %v: f64) -> tensor<?xf64> {
  %u = tensor.insert %v into %t[%i] : tensor<?xf64>
  return %u : tensor<?xf64>
}
func.func @extract_slice(%t: tensor<?xf64>, %o: index, %n: index) -> tensor<?xf64> {
  %s = tensor.extract_slice %t[%o] [%n] [1] : tensor<?xf64> to tensor<?xf64>
  return %s : tensor<?xf64>
}
func.func @insert_slice(%s: tensor<?xf64>, %t: tensor<?xf64>, %o: index, %n: index) -> tensor<?xf64> {
  %u = tensor.insert_slice %s into %t[%o] [%n] [1] : tensor<?xf64> into tensor<?xf64>
  return %u : tensor<?xf64>
}
func.func @reshape(%a: tensor<?xf64>, %s: tensor<2xi64>) -> tensor<?x?xf64> {
  %r = tensor.reshape %a(%s) : (tensor<?xf64>, tensor<2xi64>) -> tensor<?x?xf64>
  return %r : tensor<?x?xf64>
}
func.func @empty(%n: index, %m: index) -> tensor<?x?xf64> {
  %e = tensor.empty(%n, %m) : tensor<?x?xf64>
  return %e : tensor<?x?xf64>
}
func.func @cast(%a: tensor<?xf64>) -> tensor<3xf64> {
  %c = tensor.cast %a : tensor<?xf64> to tensor<3xf64>
  return %c : tensor<3xf64>
}
func.func @pad(%a: tensor<?xf64>, %l: index) -> tensor<?xf64> {
  %p = tensor.pad %a low[%l] high[1] {
  ^bb0(%i: index):
    %z = arith.constant 0.0 : f64
    tensor.yield %z : f64
  } : tensor<?xf64> to tensor<?xf64>
  return %p : tensor<?xf64>
}
func.func @expand(%a: tensor<?xf64>, %n: index) -> tensor<?x2xf64> {
  %e = tensor.expand_shape %a [[0, 1]] output_shape [%n, 2] : tensor<?xf64> into tensor<?x2xf64>
  return %e : tensor<?x2xf64>
}
func.func @concat(%a: tensor<2x?xf64>, %b: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %c = tensor.concat dim(0) %a, %b : (tensor<2x?xf64>, tensor<?x?xf64>) -> tensor<?x?xf64>
  return %c : tensor<?x?xf64>
}
func.func @leaky(%x: tensor<?x?xf64>, %y: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %e = tensor.exp %x : tensor<?x?xf64>
  %c = tensor.matmul %e, %y : (tensor<?x?xf64>, tensor<?x?xf64>) -> tensor<?x?xf64>
  return %c : tensor<?x?xf64>
}
func.func @chain(%x: tensor<?xf64>, %y: tensor<?xf64>) -> tensor<?xf64> {
  %e = tensor.exp %x : tensor<?xf64>
  %f = tensor.mul %e, %e : tensor<?xf64>
  %z = tensor.add %f, %y : tensor<?xf64>
  return %z : tensor<?xf64>
}
"""


def v(*xs):
    return np.array(xs, dtype=np.float64)


def r(n):
    return np.arange(n, dtype=np.float64)


@pytest.fixture(scope="module")
def module():
    return irt.parse(PROGRAM, FILE)


@pytest.fixture(scope="module")
def exe(module):
    return irt.compile(module)


def line_of(op_text: str) -> int:
    for k, line in enumerate(PROGRAM.splitlines(), 1):
        if op_text in line:
            return k
    raise AssertionError(op_text)


# (function, args, op name, the line's marker, message fragment)
FAILING = [
    ("add", (r(3), r(5)), "tensor.add", "%z = tensor.add %x, %y", "operand shapes differ at run time"),
    ("add", (r(5), r(3)), "tensor.add", "%z = tensor.add %x, %y", "operand shapes differ at run time"),
    ("matmul", (np.ones((2, 3)), np.ones((4, 2))), "tensor.matmul", "tensor.matmul %a, %b : (tensor<?x?",
     "contracting dimensions differ"),
    ("matvec", (np.ones((2, 3)), np.ones((4, 1))), "tensor.matmul", "tensor.matmul %a, %b : (tensor<2x?", "contracting"),
    ("broadcast", (r(2),), "tensor.broadcast", "tensor.broadcast", "broadcast"),
    ("select", (np.ones(3, bool), r(3), r(4)), "tensor.select", "tensor.select", "operand shapes differ"),
    ("select", (np.ones(4, bool), r(3), r(3)), "tensor.select", "tensor.select", "operand shapes differ"),
    ("cmp", (r(3), r(2)), "tensor.cmp", "tensor.cmp", "operand shapes differ"),
    ("extract", (r(3), 3), "tensor.extract", "%e = tensor.extract %t[%i] : tensor<?", "out of bounds"),
    ("extract", (r(3), -1), "tensor.extract", "%e = tensor.extract %t[%i] : tensor<?", "out of bounds"),
    ("extract_static", (r(4), 4), "tensor.extract", "tensor<4xf64>\n", "out of bounds"),
    ("insert", (r(3), 7, 1.0), "tensor.insert", "tensor.insert %v", "out of bounds"),
    ("extract_slice", (r(5), 3, 3), "tensor.extract_slice", "tensor.extract_slice", "out of bounds"),
    ("extract_slice", (r(5), 4, 2), "tensor.extract_slice", "tensor.extract_slice", "out of bounds"),
    ("extract_slice", (r(5), -1, 2), "tensor.extract_slice", "tensor.extract_slice", "negative"),
    ("extract_slice", (r(5), 1, -1), "tensor.extract_slice", "tensor.extract_slice", "negative"),
    ("insert_slice", (r(2), r(5), 4, 2), "tensor.insert_slice", "tensor.insert_slice", "out of bounds"),
    ("insert_slice", (r(3), r(5), 0, 2), "tensor.insert_slice", "tensor.insert_slice", "slice size"),
    ("reshape", (r(6), np.array([4, 2], np.int64)), "tensor.reshape", "tensor.reshape", "element counts"),
    ("reshape", (r(6), np.array([-2, -3], np.int64)), "tensor.reshape", "tensor.reshape", "negative"),
    ("empty", (-2, -3), "tensor.empty", "tensor.empty", "negative"),
    ("cast", (r(4),), "tensor.cast", "tensor.cast", "dim 0"),
    ("pad", (r(3), -2), "tensor.pad", "tensor.pad", "negative"),
    ("expand", (r(5), 2), "tensor.expand_shape", "tensor.expand_shape", "does not match"),
    ("concat", (np.ones((2, 3)), np.ones((1, 4))), "tensor.concat", "tensor.concat", "operand shapes differ"),
    ("leaky", (np.ones((2, 3)), np.ones((4, 2))), "tensor.matmul", "%c = tensor.matmul %e, %y",
     "contracting dimensions differ"),
    ("chain", (r(3), r(4)), "tensor.add", "%z = tensor.add %f, %y", "operand shapes differ"),
    ("chain", (r(4), r(3)), "tensor.add", "%z = tensor.add %f, %y", "operand shapes differ"),
]

# `tensor-fuse` (in the default pipeline) emits the shape checks of the ops it
# fuses itself (tensor.dim + arith.cmpi + cf.assert located at the original op):
# the `chain` cases fail under the fused `tensor.add`.


def _compiled_cases():
    return [pytest.param(*c, id=f"{c[0]}-{k}") for k, c in enumerate(FAILING)]

FIXED_LINES = {"extract_static": line_of("%e = tensor.extract %t[%i] : tensor<4xf64>")}


def _expected_line(fn: str, marker: str) -> int:
    return FIXED_LINES.get(fn) or line_of(marker)


@pytest.mark.parametrize("fn, args, opname, marker, fragment", _compiled_cases())
def test_compiled_check_raises(exe, fn, args, opname, marker, fragment):
    with pytest.raises(RuntimeCheckError) as info:
        exe[fn](*args)
    err = info.value
    assert isinstance(err, DiagnosticError) and isinstance(err, ValueError)
    text = str(err)
    assert f"'{opname}' op" in text, text
    assert fragment in text, text
    line = _expected_line(fn, marker)
    assert f"{FILE}:{line}:" in text, text


@pytest.mark.parametrize("fn, args, opname, marker, fragment", FAILING,
                         ids=[f"{c[0]}-{k}" for k, c in enumerate(FAILING)])
def test_interpreter_raises(module, fn, args, opname, marker, fragment):
    with pytest.raises(DiagnosticError) as info:
        irt.interpret(module, fn, *args)
    assert opname in str(info.value)


def test_reported_values(exe):
    with pytest.raises(RuntimeCheckError, match=r"dim 0 of operand #0 vs operand #1: 3 vs 5"):
        exe.add(r(3), r(5))
    with pytest.raises(RuntimeCheckError, match=r"\(index vs dim size\): 3 vs 3"):
        exe.extract(r(3), 3)


def test_valid_calls(exe, module):
    np.testing.assert_array_equal(exe.add(r(4), r(4)), r(4) * 2)
    np.testing.assert_array_equal(exe.add(r(0), r(0)), r(0))
    a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    np.testing.assert_allclose(exe.matmul(a, b), a @ b)
    np.testing.assert_allclose(exe.matvec(a, r(3).reshape(3, 1)), a @ r(3).reshape(3, 1))
    np.testing.assert_array_equal(exe.broadcast(r(3)), np.broadcast_to(r(3), (2, 3)))
    np.testing.assert_array_equal(exe.broadcast(v(7.0)), np.full((2, 3), 7.0))
    m = np.array([True, False, True])
    np.testing.assert_array_equal(exe.select(m, r(3), -r(3)), np.where(m, r(3), -r(3)))
    np.testing.assert_array_equal(exe.cmp(r(3), v(1, 1, 1)), r(3) < 1)
    assert exe.extract(r(3), 2) == 2.0
    assert exe.extract_static(r(4), 3) == 3.0
    np.testing.assert_array_equal(exe.insert(r(3), 0, 9.0), v(9, 1, 2))
    np.testing.assert_array_equal(exe.extract_slice(r(5), 2, 3), v(2, 3, 4))
    np.testing.assert_array_equal(exe.extract_slice(r(5), 5, 0), r(0))
    np.testing.assert_array_equal(exe.extract_slice(r(5), 9, 0), r(0))  # empty: anywhere
    np.testing.assert_array_equal(exe.insert_slice(v(8, 9), r(5), 3, 2), v(0, 1, 2, 8, 9))
    np.testing.assert_array_equal(exe.reshape(r(6), np.array([3, 2], np.int64)), r(6).reshape(3, 2))
    assert exe.empty(2, 0).shape == (2, 0)
    np.testing.assert_array_equal(exe.cast(r(3)), r(3))
    np.testing.assert_allclose(exe.chain(r(3), r(3)), np.exp(r(3)) ** 2 + r(3))
    np.testing.assert_allclose(exe.leaky(a, b), np.exp(a) @ b)
    np.testing.assert_array_equal(exe.pad(r(3), 1), v(0, 0, 1, 2, 0))
    np.testing.assert_array_equal(exe.expand(r(6), 3), r(6).reshape(3, 2))
    np.testing.assert_array_equal(exe.concat(np.ones((2, 3)), np.zeros((1, 3))),
                                  np.concatenate([np.ones((2, 3)), np.zeros((1, 3))]))
    # the interpreter agrees on the valid calls
    np.testing.assert_array_equal(irt.interpret(module, "add", r(4), r(4)), r(4) * 2)


def test_inputs_untouched_after_failure(exe):
    t = r(3)
    with pytest.raises(RuntimeCheckError):
        exe.insert(t, 3, 5.0)
    np.testing.assert_array_equal(t, r(3))


def _rss_kb() -> int:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * resource.getpagesize() // 1024


@pytest.mark.long  # a long run (memory/scaling measurement): IRT_FULL_TESTS=1
def test_many_failures_no_leak_no_crash(exe):
    """The buffer of tensor.exp is allocated before the matmul check fails: the
    failed call frees it."""
    big = np.ones((100, 200))  # 160 kB per temporary: a leak of 1000 calls shows clearly
    small = np.ones((3, 3))
    for _ in range(50):  # warm up
        with pytest.raises(RuntimeCheckError):
            exe.leaky(big, small)
    gc.collect()
    before = _rss_kb()
    for _ in range(1000):
        with pytest.raises(RuntimeCheckError):
            exe.leaky(big, small)
        with pytest.raises(RuntimeCheckError):
            exe.add(r(3), r(20000))
    gc.collect()
    grown = _rss_kb() - before
    # a temporary of 160 kB leaked per call would be ~160 MB
    assert grown < 20_000, f"resident memory grew by {grown} kB over 1000 failing calls"
    np.testing.assert_allclose(exe.leaky(big, np.ones((200, 3))), np.exp(big) @ np.ones((200, 3)))


def test_threads(exe):
    """Each thread's failures jump back to its own call."""
    import threading

    errors: list = []

    def work(k: int) -> None:
        try:
            for i in range(300):
                n = 3 + (i + k) % 5
                np.testing.assert_array_equal(exe.add(r(n), r(n)), 2 * r(n))
                try:
                    exe.leaky(np.ones((2, n)), np.ones((n + 1, 2)))
                except RuntimeCheckError as err:
                    assert f"{n} vs {n + 1}" in str(err)
                else:
                    raise AssertionError("no error")
        except Exception as err:  # noqa: BLE001
            errors.append(err)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
