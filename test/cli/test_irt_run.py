"""irt-run end to end: .npy inputs checked against the entry signature, results
printed and saved to .npz, --interpret and the JIT, errors without tracebacks."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

PROGRAM = """\
func.func @loss(%x: tensor<4xf64>, %w: tensor<4xf64>) -> f64 {
  %p = tensor.mul %x, %w : tensor<4xf64>
  %t = tensor.tanh %p : tensor<4xf64>
  %s = tensor.reduce_sum %t [0] : tensor<4xf64> -> tensor<f64>
  %r = tensor.extract %s[] : tensor<f64>
  func.return %r : f64
}
func.func @main(%x: tensor<4xf64>, %w: tensor<4xf64>) -> (f64, tensor<4xf64>) {
  %l, %dw = autodiff.value_and_grad @loss(%x, %w) wrt [1] : (tensor<4xf64>, tensor<4xf64>) -> (f64, tensor<4xf64>)
  func.return %l, %dw : f64, tensor<4xf64>
}
func.func @scale(%x: tensor<4xf64>, %s: f64) -> tensor<4xf64> {
  %b = tensor.splat %s : tensor<4xf64>
  %y = tensor.mul %x, %b : tensor<4xf64>
  func.return %y : tensor<4xf64>
}
"""

X = np.arange(4.0)
W = np.array([0.5, -1.0, 0.25, 2.0])


def irt_run(*args: str, cwd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from irtoolkit.cli.run import main; main()", *args],
        capture_output=True, text=True, cwd=cwd, timeout=120,
    )


@pytest.fixture()
def workdir(tmp_path):
    (tmp_path / "prog.mlir").write_text(PROGRAM)
    np.save(tmp_path / "x.npy", X)
    np.save(tmp_path / "w.npy", W)
    np.save(tmp_path / "x32.npy", X.astype(np.float32))
    np.save(tmp_path / "x5.npy", np.arange(5.0))
    np.save(tmp_path / "two.npy", np.array(2.0))
    np.save(tmp_path / "itwo.npy", np.array(2, dtype=np.int64))
    np.save(tmp_path / "obj.npy", np.array([1, "a"], dtype=object))
    np.savez(tmp_path / "arch.npz", a=X)
    (tmp_path / "arch_as.npy").write_bytes((tmp_path / "arch.npz").read_bytes())
    (tmp_path / "junk.npy").write_text("not numpy")
    return tmp_path


def _expected_main():
    t = np.tanh(X * W)
    return t.sum(), X * (1 - t * t)


def _has_interpreter() -> bool:
    try:
        from irtoolkit.interpreter import interpret_function  # noqa: F401
    except ImportError:
        return False
    return True


def _has_jit() -> bool:
    try:
        from irtoolkit.runtime import compile_module  # noqa: F401
        import irtoolkit.runtime.jit  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.parametrize("mode", ["interpret", "jit"])
def test_run_end_to_end(workdir, mode):
    if mode == "interpret" and not _has_interpreter():
        pytest.skip("irtoolkit.interpreter not available yet")
    if mode == "jit" and not _has_jit():
        pytest.skip("irtoolkit.runtime JIT not available yet")
    flags = ["--interpret"] if mode == "interpret" else []
    proc = irt_run("prog.mlir", *flags, "-i", "x.npy", "-i", "w.npy", "-o", "out.npz", cwd=str(workdir))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("result0 = ") and lines[1].startswith("result1 = array(")
    value, grad = _expected_main()
    with np.load(workdir / "out.npz") as data:
        assert sorted(data.files) == ["result0", "result1"]
        np.testing.assert_allclose(data["result0"], value, rtol=1e-12)
        np.testing.assert_allclose(data["result1"], grad, rtol=1e-12)
        assert data["result0"].shape == ()


def test_interpret_scalar_input_and_entry(workdir):
    if not _has_interpreter():
        pytest.skip("irtoolkit.interpreter not available yet")
    proc = irt_run("prog.mlir", "--interpret", "-e", "scale", "-i", "x.npy", "-i", "two.npy",
                   "-o", "s.npz", cwd=str(workdir))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "result0 = array([0., 2., 4., 6.])"
    with np.load(workdir / "s.npz") as data:
        np.testing.assert_array_equal(data["result0"], 2 * X)


def test_interpret_with_pipeline(workdir):
    if not _has_interpreter():
        pytest.skip("irtoolkit.interpreter not available yet")
    proc = irt_run("prog.mlir", "--interpret", "-p", "inline,symbol-dce", "-e", "scale",
                   "-i", "x.npy", "-i", "itwo.npy", cwd=str(workdir))
    assert proc.returncode == 0, proc.stderr
    assert "array([0., 2., 4., 6.])" in proc.stdout


BAD_INPUTS = [
    (["-i", "x.npy"], "'@main' takes 2 argument(s) (tensor<4xf64>, tensor<4xf64>), 1 input(s) given"),
    (["-i", "x.npy", "-i", "w.npy", "-i", "w.npy"], "3 input(s) given"),
    (["-i", "x.npy", "-i", "x5.npy"],
     "input 1 ('x5.npy'): expected tensor<4xf64> (float64 array of shape (4,)), got a float64 array of shape (5,)"),
    (["-i", "x32.npy", "-i", "w.npy"],
     "input 0 ('x32.npy'): expected tensor<4xf64> (float64 array of shape (4,)), got a float32 array"),
    (["-i", "two.npy", "-i", "w.npy"], "input 0 ('two.npy'): expected tensor<4xf64>"),
    (["-i", "missing.npy", "-i", "w.npy"], "cannot read input 0 'missing.npy': no such file"),
    (["-i", "junk.npy", "-i", "w.npy"], "cannot read input 0 'junk.npy': not an .npy file"),
    (["-i", "obj.npy", "-i", "w.npy"], "cannot read input 0 'obj.npy': not a valid .npy file"),
    (["-i", "arch_as.npy", "-i", "w.npy"], "expected an .npy array, got an .npz archive"),
    (["-e", "nope"], "no function '@nope' in 'prog.mlir' (functions: @loss, @main, @scale)"),
    (["-e", "scale", "-i", "x.npy", "-i", "x.npy"],
     "input 1 ('x.npy'): expected a scalar f64 (a 0-d array), got a float64 array of shape (4,)"),
    (["-p", "no-such-pass", "-i", "x.npy", "-i", "w.npy"], "'no-such-pass' does not refer to a registered pass or pipeline"),
]


def run_in_process(monkeypatch, capsys, cwd, *args: str) -> tuple[int, str, str]:
    """Call irt-run's main() in this process (fast); (exit code, stdout, stderr)."""
    from irtoolkit.cli.run import main

    monkeypatch.chdir(cwd)
    with pytest.raises(SystemExit) as exc:
        main(list(args))
    out, err = capsys.readouterr()
    return exc.value.code, out, err


@pytest.mark.parametrize(("args", "message"), BAD_INPUTS)
def test_bad_inputs_are_diagnostics(workdir, monkeypatch, capsys, args, message):
    (workdir / "out.npz").write_bytes(b"previous")
    code, out, err = run_in_process(monkeypatch, capsys, workdir, "prog.mlir", "--interpret",
                                    *args, "-o", "out.npz")
    assert code == 1
    assert err.startswith(("error: ", "<pass-pipeline>:1:"))
    assert message in err
    assert "Traceback" not in err
    assert out == ""
    assert (workdir / "out.npz").read_bytes() == b"previous"  # untouched on failure


@pytest.mark.parametrize(("args", "message"), BAD_INPUTS)
def test_cached_program_gives_the_same_diagnostics(workdir, monkeypatch, capsys, tmp_path,
                                                    args, message):
    """Once compiled, irt-run loads a program from the compile cache without parsing
    it, checking inputs against the cached signature: same diagnostics, same results."""
    from irtoolkit.runtime import clear_cache

    monkeypatch.setenv("IRT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("IRT_NO_CACHE", raising=False)
    clear_cache()
    code, out, _ = run_in_process(monkeypatch, capsys, workdir, "prog.mlir", "-i", "x.npy", "-i", "w.npy")
    assert code == 0
    clear_cache()  # as a new process: the disk cache only
    import irtoolkit.parsing

    parsed = []
    monkeypatch.setattr(irtoolkit.parsing, "parse_module",
                        lambda *a, _p=irtoolkit.parsing.parse_module: parsed.append(1) or _p(*a))
    code2, out2, _ = run_in_process(monkeypatch, capsys, workdir, "prog.mlir", "-i", "x.npy", "-i", "w.npy")
    assert (code2, out2, parsed) == (0, out, [])
    code, out, err = run_in_process(monkeypatch, capsys, workdir, "prog.mlir", *args)
    assert code == 1 and message in err and out == "", err
    clear_cache()


def test_bad_input_subprocess_jit_mode(workdir):
    """The same checks happen before compiling, in a real process, without a traceback."""
    proc = irt_run("prog.mlir", "-i", "x32.npy", "-i", "w.npy", cwd=str(workdir))
    assert proc.returncode == 1
    assert "input 0 ('x32.npy'): expected tensor<4xf64>" in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_internal_error_has_no_traceback(workdir, monkeypatch, capsys):
    import irtoolkit.cli.run as run_mod

    def boom(*args, **kwargs):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(run_mod, "execute", boom)
    code, out, err = run_in_process(monkeypatch, capsys, workdir, "prog.mlir", "--interpret",
                                    "-i", "x.npy", "-i", "w.npy")
    assert code == 1
    assert err.startswith("error: internal error: RuntimeError: kaboom")
    assert "Traceback" not in err
    code, out, err = run_in_process(monkeypatch, capsys, workdir, "prog.mlir", "--interpret", "--debug",
                                    "-i", "x.npy", "-i", "w.npy")
    assert code == 1
    assert "Traceback" in err and "kaboom" in err


def test_missing_program_and_parse_error(workdir, monkeypatch, capsys):
    code, _, err = run_in_process(monkeypatch, capsys, workdir, "nope.mlir", "--interpret")
    assert code == 1
    assert "error: cannot open input file 'nope.mlir'" in err
    (workdir / "bad.mlir").write_text("func.func @main() {\n  %x = arith.addf %y, %y : f64\n}\n")
    code, _, err = run_in_process(monkeypatch, capsys, workdir, "bad.mlir", "--interpret")
    assert code == 1
    assert err.startswith("bad.mlir:2:")
    assert "Traceback" not in err


def test_usage_errors(workdir, monkeypatch, capsys):
    code, _, err = run_in_process(monkeypatch, capsys, workdir)
    assert code == 1
    assert "error: Missing argument 'FILE'" in err
    code, out, _ = run_in_process(monkeypatch, capsys, workdir, "--help")
    assert code == 0
    assert "--interpret" in out and "-i, --input INPUT" in out


def test_signature_checks_in_process():
    """Unit checks of the input conversion (no subprocess)."""
    from xdsl.dialects.builtin import DYNAMIC_INDEX, Float64Type, IndexType, TensorType, i1

    from irtoolkit.cli.run import convert_input
    from irtoolkit.diagnostics import DiagnosticError

    t = TensorType(Float64Type(), [DYNAMIC_INDEX, 3])
    out = convert_input(0, "a.npy", np.ones((5, 3)), t)
    assert out.shape == (5, 3)
    with pytest.raises(DiagnosticError, match=r"shape \(\?, 3\)"):
        convert_input(0, "a.npy", np.ones((5, 4)), t)
    assert convert_input(0, "s.npy", np.array(3), IndexType()) == 3
    assert isinstance(convert_input(0, "s.npy", np.array(3), Float64Type()), np.float64)
    with pytest.raises(DiagnosticError, match="expected a scalar index"):
        convert_input(0, "s.npy", np.array(3.5), IndexType())
    assert convert_input(0, "b.npy", np.array(True), i1) is np.True_ or convert_input(
        0, "b.npy", np.array(True), i1
    ) == np.bool_(True)
    with pytest.raises(DiagnosticError, match="expected a scalar i1"):
        convert_input(0, "b.npy", np.array(1.0), i1)


def test_output_to_unwritable_place(workdir, monkeypatch, capsys):
    if not _has_interpreter():
        pytest.skip("irtoolkit.interpreter not available yet")
    target = os.path.join("no", "such", "dir", "out.npz")
    code, _, err = run_in_process(monkeypatch, capsys, workdir, "prog.mlir", "--interpret", "-e", "scale",
                                  "-i", "x.npy", "-i", "two.npy", "-o", target)
    assert code == 1
    assert "error: cannot write output file" in err
    assert "Traceback" not in err
