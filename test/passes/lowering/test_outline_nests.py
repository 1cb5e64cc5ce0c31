"""lower-loop-to-cf's outlining of the loop runs of large functions
(``outline_loop_nests``): which ops move, what the outlined functions are told
(READS_APART_ATTR), and the compiled results against numpy."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func, memref

import irtoolkit
from irtoolkit.passes.lowering import loop_to_cf
from irtoolkit.pipeline import run_pipeline

PROGRAM = """
func.func @f(%x: tensor<8x4xf32>, %y: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<4xf32>) {
  %a = tensor.mul %x, %y : tensor<8x4xf32>
  %e = tensor.exp %a : tensor<8x4xf32>
  %s = tensor.reduce_sum %e [0] : tensor<8x4xf32> -> tensor<4xf32>
  %b = tensor.broadcast %s [1] : tensor<4xf32> -> tensor<8x4xf32>
  %d = tensor.div %e, %b : tensor<8x4xf32>
  %t = tensor.transpose %d [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  %m = tensor.reduce_max %t [1] : tensor<4x8xf32> -> tensor<4xf32>
  func.return %d, %m : tensor<8x4xf32>, tensor<4xf32>
}
"""


@pytest.fixture
def small_thresholds(monkeypatch):
    """Outline the runs of every function, a few ops at a time."""
    monkeypatch.setattr(loop_to_cf, "NEST_FUNCTION_MIN_OPS", 1)
    monkeypatch.setattr(loop_to_cf, "NEST_MIN_OPS", 1)
    monkeypatch.setattr(loop_to_cf, "NEST_OPS", 12)


def _loop_level():
    return run_pipeline(irtoolkit.parse(PROGRAM), "lower-tensor-to-loop{blas=false}")


def _functions(module) -> dict[str, func.FuncOp]:
    return {op.sym_name.data: op for op in module.body.block.ops if isinstance(op, func.FuncOp)}


def test_large_function_runs_outlined(small_thresholds):
    module = _loop_level()
    assert loop_to_cf.outline_loop_nests(module) >= 2
    fns = _functions(module)
    nests = [n for n in fns if n.startswith(loop_to_cf.NEST_PREFIX + "f_")]
    assert len(nests) >= 2
    for name in nests:
        body = fns[name].body.block
        # only what may leave the function: no allocation, call or check
        assert not any(isinstance(o, memref.AllocOp | memref.DeallocOp | func.CallOp) or o.name == "cf.assert"
                       for o in fns[name].walk())
        assert fns[name].sym_visibility.data == "private"
        assert isinstance(body.last_op, func.ReturnOp)
    # the buffers the outlined runs write are allocated (and freed) by the caller
    calls = [o for o in fns["f"].body.block.ops if isinstance(o, func.CallOp)]
    assert {c.callee.string_value() for c in calls} == set(nests)
    module.verify()


def test_reads_apart_only_when_no_buffer_is_read_and_written(small_thresholds, monkeypatch):
    module = _loop_level()
    monkeypatch.setattr(loop_to_cf, "NEST_OPS", 10_000)  # one run: later loops read what earlier ones wrote
    loop_to_cf.outline_loop_nests(module)
    (whole,) = [f for n, f in _functions(module).items() if n.startswith(loop_to_cf.NEST_PREFIX)]
    assert loop_to_cf.READS_APART_ATTR not in whole.attributes

    module = run_pipeline(irtoolkit.parse("""
func.func @g(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %e = tensor.exp %x : tensor<8x4xf32>
  func.return %e : tensor<8x4xf32>
}"""), "lower-tensor-to-loop{blas=false}")
    loop_to_cf.outline_loop_nests(module)
    (single,) = [f for n, f in _functions(module).items() if n.startswith(loop_to_cf.NEST_PREFIX)]
    assert loop_to_cf.READS_APART_ATTR in single.attributes


def test_small_functions_keep_their_loops():
    module = _loop_level()
    assert loop_to_cf.outline_loop_nests(module) == 0


def _expected(x, y):
    e = np.exp(x * y)
    d = e / e.sum(axis=0)
    return d, d.T.max(axis=1)


@pytest.mark.parametrize("threshold", [True, False])
def test_compiled_outlined_matches_numpy(small_thresholds, monkeypatch, threshold):
    if not threshold:  # outlining off: the reference of the same compile path
        monkeypatch.setattr(loop_to_cf, "NEST_FUNCTION_MIN_OPS", 10**9)
    monkeypatch.setenv("IRT_CACHE_DIR", "")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 4)).astype(np.float32)
    y = rng.standard_normal((8, 4)).astype(np.float32)
    exe = irtoolkit.compile(irtoolkit.parse(PROGRAM, f"outline_{threshold}.mlir"))
    assert (loop_to_cf.NEST_PREFIX in exe.llvm_ir) == threshold
    d, m = exe["f"](x, y)
    ed, em = _expected(x, y)
    np.testing.assert_allclose(d, ed, rtol=1e-5)
    np.testing.assert_allclose(m, em, rtol=1e-5)
    exe.optimize()  # the full level, where the outlined runs may be compiled apart
    d, m = exe["f"](x, y)
    np.testing.assert_allclose(d, ed, rtol=1e-5)


def test_first_tier_compiles_the_outlined_nests_out_of_line(small_thresholds):
    """The JIT's first tier makes every outlined nest ``noinline`` (LLVM would otherwise
    simplify it alone, then again inlined in its caller); the tier-up compiles the
    text as it is, where LLVM inlines them back."""
    from irtoolkit.runtime.translate import first_tier_text

    exe = irtoolkit.compile(irtoolkit.parse(PROGRAM, "outline_tiers.mlir"))
    full = exe.llvm_ir
    defines = {line.split("@", 1)[1].split("(", 1)[0].strip('"'): line
               for line in first_tier_text(full).split("\n") if line.startswith("define ")}
    nests = {n for n in defines if n.startswith(loop_to_cf.NEST_PREFIX)}
    assert nests
    assert {n for n, line in defines.items() if line.endswith(" noinline")} >= nests
    assert not any(line.startswith("define ") and loop_to_cf.NEST_PREFIX in line and "noinline" in line
                   for line in full.split("\n"))
    assert "noinline" not in defines["__irt_fn_f"]
