"""The numpy calling convention: argument checks before native code, caching,
LLVM IR output, and memory that stays flat over many calls."""

import gc

import numpy as np
import pytest

import irtoolkit as irt
from irtoolkit.diagnostics import DiagnosticError
from irtoolkit.runtime import llvm_ir

PROGRAM = """
func.func @scale(%a: memref<2x?xf32>, %s: f32) -> memref<2x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n = memref.dim %a, %c1 : memref<2x?xf32>
  %out = memref.alloc(%n) : memref<2x?xf32>
  loop.for %i = %c0 to %c2 step %c1 {
    loop.for %j = %c0 to %n step %c1 {
      %v = memref.load %a[%i, %j] : memref<2x?xf32>
      %p = arith.mulf %v, %s : f32
      memref.store %p, %out[%i, %j] : memref<2x?xf32>
    }
  }
  return %out : memref<2x?xf32>
}
func.func @count(%n: index, %flag: i1, %k: i32) -> (index, i32) {
  %c1 = arith.constant 1 : index
  %m = arith.addi %n, %c1 : index
  %z = arith.constant 0 : i32
  %r = arith.select %flag, %k, %z : i32
  return %m, %r : index, i32
}
"""


@pytest.fixture(scope="module")
def module():
    return irt.parse(PROGRAM)


@pytest.fixture(scope="module")
def exe(module):
    return irt.compile(module)


def test_call(exe):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(exe["scale"](a, 2.0), a * 2)
    np.testing.assert_array_equal(exe.scale(a, np.float32(0.5)), a * 0.5)
    assert exe["count"](4, True, 7) == (5, 7)
    assert exe["count"](np.int64(4), np.bool_(False), np.int32(7)) == (5, 0)


@pytest.mark.parametrize(
    "args, message",
    [
        ((np.zeros((2, 3), np.float32),), "takes 2 argument(s), got 1"),
        ((np.zeros((2, 3), np.float64), 1.0), "expected dtype float32, got float64"),
        ((np.zeros((3, 3), np.float32), 1.0), "dimension 0 must be 2"),
        ((np.zeros(6, np.float32), 1.0), "expected rank 2"),
        ((np.zeros((2, 3), np.float32), "x"), "expected a f32 scalar"),
        ((np.zeros((2, 3), np.float32), np.ones(2)), "expected a scalar"),
        (("abc", 1.0), "expected dtype float32"),
    ],
)
def test_argument_errors(exe, args, message):
    with pytest.raises(DiagnosticError, match=message.replace("(", r"\(").replace(")", r"\)")):
        exe["scale"](*args)
    with pytest.raises(TypeError):  # also a TypeError
        exe["scale"](*args)


def test_scalar_argument_errors(exe):
    with pytest.raises(TypeError, match="expected a index scalar"):
        exe["count"](1.5, True, 1)
    with pytest.raises(TypeError, match="does not fit in i32"):
        exe["count"](1, True, 2**40)
    with pytest.raises(TypeError, match="expected a i1 scalar"):
        exe["count"](1, 0.5, 1)


def test_unknown_function(exe):
    with pytest.raises(KeyError, match="no public function @nope"):
        exe["nope"]


def test_lists_are_converted(exe):
    out = exe["scale"]([[1, 2], [3, 4]], 2)
    np.testing.assert_array_equal(out, [[2, 4], [6, 8]])
    assert out.dtype == np.float32


def test_compile_is_cached_and_module_unchanged(module, exe):
    before = str(module)
    assert irt.compile(module) is exe
    assert irt.compile(irt.parse(PROGRAM)) is exe  # same text, same pipeline
    assert str(module) == before


def test_llvm_ir_parses(module, exe):
    import llvmlite.binding as llvm

    text = llvm_ir(module)
    assert "define" in text and "@\"scale\"" in text or "@scale" in text
    llvm.parse_assembly(text).verify()
    llvm.parse_assembly(exe.llvm_ir).verify()
    assert "_irt_call_scale" in exe.llvm_ir


def test_llvm_ir_rejects_unlowered():
    m = irt.parse('func.func @f(%x: i64) -> i64 {\n'
                  '  %r = math.ipowi %x, %x : i64\n  return %r : i64\n}', "bad.mlir")
    with pytest.raises(DiagnosticError, match="failed to legalize operation 'math.ipowi'") as info:
        llvm_ir(m)
    assert str(info.value.location) == "bad.mlir:2:3"


def _rss_pages() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1])


@pytest.mark.long  # a long run (memory/scaling measurement): IRT_FULL_TESTS=1
def test_memory_stays_flat(exe):
    a = np.ones((2, 5000), np.float32)  # 40 kB per result
    f = exe["scale"]
    for _ in range(500):
        f(a, 2.0)
    gc.collect()
    before = _rss_pages()
    for _ in range(10_000):
        out = f(a, 2.0)
    del out
    gc.collect()
    grown_mb = (_rss_pages() - before) * 4096 / 1e6
    # 10,000 leaked results would be 400 MB
    assert grown_mb < 20, f"RSS grew by {grown_mb:.1f} MB"
