"""printf.print_format from inside a program: the interpreter and compiled code
print the same text (numpy's, tensors included), and a differentiated loop
prints once per iteration, never from the reverse sweep."""

from __future__ import annotations

import numpy as np
import pytest
from test_irt_run import run_in_process

PROGRAM = """\
func.func @show(%a: tensor<2x3xf32>, %b: tensor<?xf64>, %flag: i1, %k: i32, %z: tensor<f64>) -> f32 {
  %t = tensor.transpose %a [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %s = tensor.reduce_sum %a [0, 1] : tensor<2x3xf32> -> tensor<f32>
  %e = tensor.extract %s[] : tensor<f32>
  printf.print_format "a={} t={} b={}\\n", %a : tensor<2x3xf32>, %t : tensor<3x2xf32>, %b : tensor<?xf64>
  printf.print_format "flag={} k={} z={} e={} {braces}\\n", %flag : i1, %k : i32, %z : tensor<f64>, %e : f32
  func.return %e : f32
}

func.func @loss(%w: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 6 : index
  %r = loop.for %i = %c0 to %n step %c1 iter_args(%a = %w) -> (f64) {
    %b = math.sin %a : f64
    printf.print_format "step {} value {}\\n", %i : index, %b : f64
    loop.yield %b : f64
  } {autodiff.checkpoint = 2}
  func.return %r : f64
}

func.func @train(%w: f64) -> f64 {
  %l, %g = autodiff.value_and_grad @loss(%w) : (f64) -> (f64, f64)
  func.return %g : f64
}
"""

A = (np.arange(6, dtype=np.float32).reshape(2, 3) / 3)
B = np.array([1.5, -2.0, np.nan, np.inf])


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    d = tmp_path_factory.mktemp("printf")
    (d / "prog.mlir").write_text(PROGRAM)
    np.save(d / "a.npy", A)
    np.save(d / "b.npy", B)
    np.save(d / "z.npy", np.array(3.25))
    return d


def run(monkeypatch, capsys, cwd, *args: str) -> str:
    code, out, err = run_in_process(monkeypatch, capsys, cwd, *args)
    assert code == 0, err
    return out


@pytest.mark.parametrize("mode", [["--interpret"], []], ids=["interpreter", "jit"])
def test_values_print_as_numpy_prints_them(workdir, monkeypatch, capsys, mode):
    out = run(monkeypatch, capsys, workdir, "prog.mlir", "-e", "show", *mode,
              "-i", "a.npy", "-i", "b.npy", "-i", "true", "-i", "7", "-i", "z.npy")
    printed = out.split("result0 = ")[0]
    assert printed == (f"a={A} t={A.T} b={B}\n"
                       f"flag=True k=7 z=3.25 e={np.float32(A.sum())} {{braces}}\n")


def test_a_differentiated_loop_prints_once_per_step(workdir, monkeypatch, capsys):
    outs = [run(monkeypatch, capsys, workdir, "prog.mlir", "-e", "train", *mode, "-i", "0.7")
            for mode in (["--interpret"], [])]
    for out in outs:
        lines = [line for line in out.splitlines() if line.startswith("step ")]
        assert [line.split()[1] for line in lines] == ["0", "1", "2", "3", "4", "5"]
    # the same values either way (the last digits may differ: not the same code)
    values = [[float(line.split()[3]) for line in out.splitlines() if line.startswith("step ")] for out in outs]
    np.testing.assert_allclose(values[0], values[1], rtol=1e-12)
