"""Compile time of the lowering pipeline is linear in program size.

Cheap check: CPU time per op at N and 4N ops (min of 2 runs, passes in
process, no verify-each) must not grow by 2.5x or more -- a quadratic pass
grows ~4x. CPU time (``time.process_time``) rather than wall time, so that a
loaded machine does not make the test flaky.
"""

from __future__ import annotations

import pytest
import sys
import time
from pathlib import Path

import irtoolkit
from irtoolkit.pipeline import PipelineRunner, build_passes

# the program generator is the benchmark's (bench/ lives beside test/)
sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from bench.scaling import generate  # noqa: E402


def chain_program(n_ops: int, grad: bool) -> str:
    return generate(n_ops, grad=grad, ty="tensor<4xf64>")


def _compile_time(text: str, pipeline: str) -> float:
    module = irtoolkit.parse(text)
    runner = PipelineRunner(build_passes(pipeline), verify_each=False)
    t0 = time.process_time()
    runner.run(module)
    return time.process_time() - t0


def _per_op_growth(pipeline: str, small: int, grad: bool) -> tuple[float, float, float]:
    big = 4 * small
    t_small = min(_compile_time(chain_program(small, grad), pipeline) for _ in range(2))
    t_big = min(_compile_time(chain_program(big, grad), pipeline) for _ in range(2))
    return (t_big / big) / (t_small / small), t_small, t_big


@pytest.mark.long  # a long run (memory/scaling measurement): IRT_FULL_TESTS=1
def test_default_pipeline_is_linear():
    growth, ts, tb = _per_op_growth("ad,lower-to-llvm", 400, grad=True)
    assert growth < 2.5, f"ad,lower-to-llvm: per-op time x{growth:.2f} from 400 to 1600 ops ({ts:.2f} s, {tb:.2f} s)"


@pytest.mark.long  # a long run (memory/scaling measurement): IRT_FULL_TESTS=1
def test_unfused_lowering_is_linear():
    # every tensor op becomes its own loop nest: lower-tensor-to-loop,
    # lower-loop-to-cf and convert-to-llvm see thousands of loops and memrefs
    pipeline = "lower-tensor-to-loop,lower-loop-to-cf,convert-to-llvm"
    growth, ts, tb = _per_op_growth(pipeline, 100, grad=False)
    assert growth < 2.5, f"{pipeline}: per-op time x{growth:.2f} from 100 to 400 ops ({ts:.2f} s, {tb:.2f} s)"
