"""The JIT does not verify after each internal lowering pass (the input is
verified once, LLVM's verifier checks the result); ``IRT_VERIFY_EACH=1`` turns
verify-each back on. irt-opt / ``run_pipeline`` keep MLIR's verify-each."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import irtoolkit as irt
import irtoolkit.verifier
from irtoolkit.pipeline import PipelineRunner, build_passes, verify_each_default
from irtoolkit.runtime import clear_cache

PROGRAM = """\
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %y = tensor.tanh %x : tensor<3xf64>
  %z = tensor.mul %y, %x : tensor<3xf64>
  return %z : tensor<3xf64>
}
"""


@pytest.fixture
def count_verifications(monkeypatch):
    calls = []
    real = irtoolkit.verifier.verify_module

    def counting(module, *args, **kwargs):
        calls.append(module)
        return real(module, *args, **kwargs)

    monkeypatch.setattr(irtoolkit.verifier, "verify_module", counting)
    return calls


def _compile_and_run(calls):
    m = irt.parse(PROGRAM, "v.mlir")
    clear_cache()
    calls.clear()
    exe = irt.compile(m)
    x = np.array([0.1, -2.0, 3.0])
    np.testing.assert_allclose(exe["f"](x), np.tanh(x) * x, rtol=1e-13)


def test_compile_verifies_only_its_input(monkeypatch, count_verifications):
    monkeypatch.delenv("IRT_VERIFY_EACH", raising=False)
    monkeypatch.setenv("IRT_NO_CACHE", "1")
    _compile_and_run(count_verifications)
    assert len(count_verifications) == 1


def test_irt_verify_each_turns_it_back_on(monkeypatch, count_verifications):
    monkeypatch.setenv("IRT_VERIFY_EACH", "1")
    monkeypatch.setenv("IRT_NO_CACHE", "1")
    _compile_and_run(count_verifications)
    assert len(count_verifications) >= 4  # after ad, lowering passes, convert-to-llvm


def test_pipelines_outside_the_jit_still_verify_each(count_verifications):
    m = irt.parse(PROGRAM)
    count_verifications.clear()
    irt.run_pipeline(m, "canonicalize,cse")
    assert len(count_verifications) == 2
    count_verifications.clear()
    PipelineRunner(build_passes("canonicalize,cse")).run(m)
    assert len(count_verifications) == 2
    count_verifications.clear()
    with verify_each_default(False):
        PipelineRunner(build_passes("canonicalize,cse")).run(m)
        assert len(count_verifications) == 0
        PipelineRunner(build_passes("canonicalize"), verify_each=True).run(m)
        assert len(count_verifications) == 1
    PipelineRunner(build_passes("canonicalize")).run(m)
    assert len(count_verifications) == 2


def test_an_invalid_input_is_still_rejected_before_lowering(monkeypatch):
    """A module built in code and never verified: compile verifies it."""
    from xdsl.dialects import arith, func
    from xdsl.dialects.builtin import Float64Type, IntegerType, ModuleOp

    from irtoolkit.diagnostics import DiagnosticError

    monkeypatch.delenv("IRT_VERIFY_EACH", raising=False)
    monkeypatch.setenv("IRT_NO_CACHE", "1")
    f64 = Float64Type()
    body = func.FuncOp("g", ((f64,), (f64,)))
    block = body.body.blocks[0]
    bad = arith.AddiOp(block.args[0], block.args[0], IntegerType(64))  # addi on f64: invalid
    block.add_ops([bad, func.ReturnOp(block.args[0])])
    with pytest.raises(DiagnosticError):
        irt.compile(ModuleOp([body]))


E2E = Path(__file__).resolve().parent.parent / "lowering_e2e"


@pytest.mark.long  # every e2e program compiled with verification after each pass
@pytest.mark.skipif(not E2E.is_dir(), reason="no test/lowering_e2e")
def test_the_e2e_programs_compile_with_verify_each_on(tmp_path):
    """The e2e suite's programs, compiled with verification after every pass
    (a fresh cache: every program really goes through the passes). The f32
    variants repeat the f64 programs with another element type: left out, to
    keep this under half of the e2e suite's time."""
    env = dict(os.environ, IRT_VERIFY_EACH="1", IRT_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("IRT_NO_CACHE", None)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-k", "not f32",
         str(E2E)],
        capture_output=True, text=True, timeout=600, env=env, cwd=E2E.parent.parent)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
