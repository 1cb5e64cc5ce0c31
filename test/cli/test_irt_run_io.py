"""irt-run's inputs and outputs: .npz archives, literal and named inputs, .npy and
directory outputs, summaries of big arrays, --timing, the status line, and -p
meaning exactly the pipeline given."""

from __future__ import annotations

import re

import numpy as np
import pytest
from test_irt_run import run_in_process

PROGRAM = """\
func.func @affine(%x: tensor<4xf64>, %w: tensor<4xf64>, %lr: f64) -> (tensor<4xf64>, f64) {
  %s = tensor.splat %lr : tensor<4xf64>
  %p = tensor.mul %w, %s : tensor<4xf64>
  %y = tensor.add %x, %p : tensor<4xf64>
  %t = tensor.reduce_sum %y [0] : tensor<4xf64> -> tensor<f64>
  %r = tensor.extract %t[] : tensor<f64>
  func.return %y, %r : tensor<4xf64>, f64
}
func.func @scale(%x: tensor<4xf64>, %k: index) -> tensor<4xf64> {
  %f = arith.index_cast %k : index to i64
  %g = arith.sitofp %f : i64 to f64
  %s = tensor.splat %g : tensor<4xf64>
  %y = tensor.mul %x, %s : tensor<4xf64>
  func.return %y : tensor<4xf64>
}
func.func @ramp(%n: f64) -> tensor<2000xf64> {
  %z = tensor.empty() : tensor<2000xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2000 = arith.constant 2000 : index
  %r = loop.for %i = %c0 to %c2000 step %c1 iter_args(%acc = %z) -> (tensor<2000xf64>) {
    %k = arith.index_cast %i : index to i64
    %f = arith.sitofp %k : i64 to f64
    %v = arith.mulf %f, %n : f64
    %u = tensor.insert %v into %acc[%i] : tensor<2000xf64>
    loop.yield %u : tensor<2000xf64>
  }
  func.return %r : tensor<2000xf64>
}
"""

X = np.arange(4.0)
W = np.array([0.5, -1.0, 0.25, 2.0])


@pytest.fixture()
def workdir(tmp_path):
    (tmp_path / "prog.mlir").write_text(PROGRAM)
    np.save(tmp_path / "x.npy", X)
    np.save(tmp_path / "w.npy", W)
    np.savez(tmp_path / "ordered.npz", X, W, np.array(0.5))  # arr_0, arr_1, arr_2: in order
    np.savez(tmp_path / "named.npz", lr=np.array(0.5), w=W, x=X)  # by argument name
    return tmp_path


run = run_in_process


def expected():
    y = X + W * 0.5
    return y, y.sum()


@pytest.mark.parametrize("inputs", [
    ["-i", "ordered.npz"],
    ["-i", "named.npz"],
    ["-i", "x.npy", "-i", "w.npy", "-i", "0.5"],  # a literal scalar
    ["-i", "lr=0.5", "-i", "x.npy", "-i", "w.npy"],  # named, then the others in order
    ["-i", "w=w.npy", "-i", "x=x.npy", "-i", "lr=5e-1"],
])
def test_inputs(workdir, monkeypatch, capsys, inputs):
    code, out, err = run(monkeypatch, capsys, workdir, "prog.mlir", "-e", "affine", "--interpret",
                         *inputs, "-o", "out.npz")
    assert code == 0, err
    y, r = expected()
    with np.load(workdir / "out.npz") as data:
        assert data.files == ["result0", "result1"]
        np.testing.assert_allclose(data["result0"], y)
        np.testing.assert_allclose(data["result1"], r)


BAD = [
    (["-i", "lrr=0.5", "-i", "x.npy", "-i", "w.npy"],
     "input 0 'lrr=0.5': the entry has no argument '%lrr'; did you mean 'lr'? (arguments: %x, %w, %lr)"),
    (["-i", "lr=0.5", "-i", "lr=0.5", "-i", "x.npy"], "argument '%lr' is given twice"),
    (["-i", "x.npy", "-i", "w.npy", "-i", "fast"], "cannot read input 2 'fast': no such file"),
    (["-i", "0.5", "-i", "w.npy", "-i", "0.5"],
     "input 0 ('0.5'): expected tensor<4xf64>, an array: give an .npy file, not a literal"),
    (["-i", "a=named.npz"], "an .npz archive holds several arrays; give it without a name"),
]


@pytest.mark.parametrize(("inputs", "message"), BAD)
def test_bad_inputs(workdir, monkeypatch, capsys, inputs, message):
    code, out, err = run(monkeypatch, capsys, workdir, "prog.mlir", "-e", "affine", "--interpret", *inputs)
    assert code == 1 and out == ""
    assert message in err


def test_integer_literal(workdir, monkeypatch, capsys):
    code, out, err = run(monkeypatch, capsys, workdir, "prog.mlir", "-e", "scale", "--interpret",
                         "-i", "x.npy", "-i", "3")
    assert code == 0, err
    assert out == "result0 = array([0., 3., 6., 9.])\n"
    code, _, err = run(monkeypatch, capsys, workdir, "prog.mlir", "-e", "scale", "--interpret",
                       "-i", "x.npy", "-i", "2.5")
    assert code == 1 and "input 1 ('2.5'): expected an integer for index" in err


def test_outputs(workdir, monkeypatch, capsys):
    args = ("prog.mlir", "-e", "affine", "--interpret", "-i", "named.npz")
    y, r = expected()
    # a directory: one .npy per result
    code, _, err = run(monkeypatch, capsys, workdir, *args, "-o", "results/")
    assert code == 0, err
    np.testing.assert_allclose(np.load(workdir / "results" / "result0.npy"), y)
    assert np.load(workdir / "results" / "result1.npy").shape == ()
    # .npy holds one array: refused before anything runs, nothing written
    code, out, err = run(monkeypatch, capsys, workdir, *args, "-o", "out.npy")
    assert code == 1 and out == "" and not (workdir / "out.npy").exists()
    assert "an .npy file holds one array, and the entry returns 2 results" in err
    code, _, err = run(monkeypatch, capsys, workdir, *args, "-o", "out.txt")
    assert code == 1 and "expected an .npz file, an .npy file (one result) or a directory" in err
    # a single result in an .npy file: an array, not an archive under that name
    code, _, err = run(monkeypatch, capsys, workdir, "prog.mlir", "-e", "scale", "--interpret",
                       "-i", "x.npy", "-i", "2", "-o", "one.npy")
    assert code == 0, err
    assert (workdir / "one.npy").read_bytes()[:6] == b"\x93NUMPY"
    np.testing.assert_array_equal(np.load(workdir / "one.npy"), 2 * X)


def test_big_arrays_are_summarized(workdir, monkeypatch, capsys):
    code, out, err = run(monkeypatch, capsys, workdir, "prog.mlir", "-e", "ramp", "--interpret", "-i", "0.5")
    assert code == 0, err
    assert "..." in out  # numpy's summary
    assert "result0: shape (2000,), dtype float64, min 0.0, max 999.5" in out


def _rows(report: str) -> tuple[list[float], float]:
    rows = [float(m.group(1)) for m in re.finditer(r"^ +([0-9.]+) \( *[0-9.]+%\)  (?!Total)", report, re.M)]
    total = float(re.search(r"^ +([0-9.]+) \(100\.0%\)  Total", report, re.M).group(1))
    return rows, total


def test_timing_rows_add_up(workdir, monkeypatch, capsys):
    code, out, err = run(monkeypatch, capsys, workdir, "prog.mlir", "-e", "scale", "--timing",
                         "-p", "ad,lower-to-llvm", "-i", "x.npy", "-i", "2")
    assert code == 0, err
    for name in ("Parser and verifier", "LowerTensorToLoop (lower-tensor-to-loop)", "LLVM", "Run", "Rest"):
        assert name in err
    rows, total = _rows(err)
    assert abs(sum(rows) - total) <= 1e-4 * len(rows) + 1e-4


def test_irt_opt_timing_rows_add_up(tmp_path, monkeypatch, capsys):
    from irtoolkit.cli.opt import main

    (tmp_path / "p.mlir").write_text(PROGRAM)
    with pytest.raises(SystemExit):
        main([str(tmp_path / "p.mlir"), "-p", "cse,canonicalize", "--timing"])
    err = capsys.readouterr().err
    rows, total = _rows(err)
    assert "Rest" in err
    assert abs(sum(rows) - total) <= 1e-4 * len(rows) + 1e-4


def test_pipeline_is_exactly_what_runs(workdir, monkeypatch, capsys):
    code, out, err = run(monkeypatch, capsys, workdir, "prog.mlir", "-e", "scale", "-p", "canonicalize",
                         "-i", "x.npy", "-i", "2")
    assert code == 1 and out == ""
    assert "error: pipeline 'canonicalize' does not lower the program to the llvm dialect" in err
    assert re.search(r"prog\.mlir:\d+:\d+: note: '(tensor|arith)\.[a-z_]+' is not in the llvm dialect", err)
    assert "note: end the pipeline with 'lower-to-llvm' (-p 'canonicalize,lower-to-llvm')" in err
    code, out, err = run(monkeypatch, capsys, workdir, "prog.mlir", "-e", "scale",
                         "-p", "canonicalize,lower-to-llvm{blas=false}", "-i", "x.npy", "-i", "2")
    assert code == 0, err
    assert out == "result0 = array([0., 2., 4., 6.])\n"


def test_status_line_only_on_a_terminal(workdir, monkeypatch, capsys):
    import irtoolkit.cli.run as run_mod
    from irtoolkit.runtime import clear_cache

    monkeypatch.setenv("IRT_NO_CACHE", "1")
    clear_cache()
    code, _, err = run(monkeypatch, capsys, workdir, "prog.mlir", "-e", "scale", "-i", "x.npy", "-i", "2")
    assert code == 0 and err == ""  # stderr is not a terminal here
    clear_cache()
    monkeypatch.setattr(run_mod, "_stderr_is_tty", lambda: True)
    monkeypatch.setattr(run_mod.Progress, "DELAY", 0.0)  # a compile "longer than a second"
    code, _, err = run(monkeypatch, capsys, workdir, "prog.mlir", "-e", "scale", "-i", "x.npy", "-i", "3")
    assert code == 0
    assert "\r\x1b[Kirt-run: compiling prog.mlir: " in err
    assert err.endswith("\r\x1b[K")  # erased before the results
    clear_cache()
