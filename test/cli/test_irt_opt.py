"""irt-opt edge cases that lit cannot express well: internal errors, --debug,
interrupts, encodings, permissions, broken pipes, start-up cost, the
--verify-diagnostics engine and --emit llvm."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap

import pytest

SMALL = "func.func @f(%x: f64) -> f64 {\n  %y = arith.mulf %x, %x : f64\n  func.return %y : f64\n}\n"


def run_opt(monkeypatch, capsys, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
    from irtoolkit.cli.opt import main

    if stdin is not None:
        import io

        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    with pytest.raises(SystemExit) as exc:
        main(list(args))
    out, err = capsys.readouterr()
    return exc.value.code, out, err


@pytest.fixture()
def small(tmp_path):
    path = tmp_path / "small.mlir"
    path.write_text(SMALL)
    return path


def test_ok_and_stdin(monkeypatch, capsys, small):
    code, out, err = run_opt(monkeypatch, capsys, str(small))
    assert (code, err) == (0, "")
    assert "arith.mulf %x, %x : f64" in out
    code, out2, err = run_opt(monkeypatch, capsys, "-", stdin=SMALL)
    assert (code, out2) == (0, out)


def test_internal_error_without_traceback(monkeypatch, capsys, small):
    import irtoolkit.cli.opt as opt

    def boom(*args, **kwargs):
        raise RuntimeError("printer exploded")

    monkeypatch.setattr(opt, "print_module", boom)
    code, out, err = run_opt(monkeypatch, capsys, str(small))
    assert code == 1
    assert err.startswith("error: internal error: RuntimeError: printer exploded")
    assert "Traceback" not in err and out == ""
    code, out, err = run_opt(monkeypatch, capsys, "--debug", str(small))
    assert code == 1
    assert "Traceback (most recent call last)" in err and "printer exploded" in err


def test_internal_error_outside_chunks(monkeypatch, capsys, small):
    import irtoolkit.cli.opt as opt

    def boom(*args, **kwargs):
        raise ValueError("reader exploded")

    monkeypatch.setattr(opt, "read_text", boom)
    code, _, err = run_opt(monkeypatch, capsys, str(small))
    assert code == 1
    assert err.startswith("error: internal error: ValueError: reader exploded")
    assert "Traceback" not in err


def test_pass_crash_is_a_diagnostic(monkeypatch, capsys, small):
    from irtoolkit.passes.transforms import symbol_dce

    def boom(module):
        raise KeyError("oops")

    monkeypatch.setattr(symbol_dce, "symbol_dce", boom)
    code, _, err = run_opt(monkeypatch, capsys, "-p", "symbol-dce", str(small))
    assert code == 1
    assert "error: pass 'symbol-dce' failed: KeyError" in err
    assert "Traceback" not in err
    code, _, err = run_opt(monkeypatch, capsys, "--debug", "-p", "symbol-dce", str(small))
    assert "Traceback" in err


def test_keyboard_interrupt_exits_quietly(monkeypatch, capsys, small):
    import irtoolkit.cli.opt as opt

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(opt, "read_text", interrupted)
    code, out, err = run_opt(monkeypatch, capsys, str(small))
    assert code == 130
    assert "Traceback" not in err


def test_not_utf8(monkeypatch, capsys, tmp_path):
    path = tmp_path / "latin1.mlir"
    path.write_bytes(b"// caf\xe9\n")
    code, _, err = run_opt(monkeypatch, capsys, str(path))
    assert code == 1
    assert "not valid UTF-8" in err


def test_empty_input_is_an_empty_module(monkeypatch, capsys):
    code, out, _ = run_opt(monkeypatch, capsys, "-", stdin="// nothing here\n")
    assert code == 0
    assert out == "builtin.module {\n}\n"


def test_output_keeps_permissions(monkeypatch, capsys, small, tmp_path):
    out_path = tmp_path / "out.mlir"
    out_path.write_text("old")
    os.chmod(out_path, 0o640)
    code, out, _ = run_opt(monkeypatch, capsys, str(small), "-o", str(out_path))
    assert code == 0 and out == ""
    assert "arith.mulf" in out_path.read_text()
    assert stat.S_IMODE(os.stat(out_path).st_mode) == 0o640
    assert sorted(os.listdir(tmp_path)) == ["out.mlir", "small.mlir"]


def test_output_new_file_gets_umask_mode(monkeypatch, capsys, small, tmp_path):
    out_path = tmp_path / "fresh.mlir"
    old = os.umask(0o022)
    try:
        code, _, _ = run_opt(monkeypatch, capsys, str(small), "-o", str(out_path))
    finally:
        os.umask(old)
    assert code == 0
    assert stat.S_IMODE(os.stat(out_path).st_mode) == 0o644


def test_split_chunks_line_offsets():
    from irtoolkit.cli.opt import split_chunks

    text = "a\n// -----\nb\nc\n  // -----  \nd\n// -----// not a marker\n"
    assert split_chunks(text) == [("a\n", 0), ("b\nc\n", 2), ("d\n// -----// not a marker\n", 5)]
    assert split_chunks("") == [("", 0)]


def test_single_dash_rewriting():
    from irtoolkit.cli.common import rewrite_single_dash

    known = {"--pass-pipeline", "--split-input-file"}
    assert rewrite_single_dash(["-pass-pipeline=x", "-p", "cse", "-split-input-file", "-o", "f"], known) == [
        "--pass-pipeline=x", "-p", "cse", "--split-input-file", "-o", "f"]
    assert rewrite_single_dash(["--", "-split-input-file"], known) == ["--", "-split-input-file"]
    assert rewrite_single_dash(["-unknown-flag"], known) == ["-unknown-flag"]


def test_broken_pipe_is_quiet(tmp_path):
    big = tmp_path / "big.mlir"
    body = "".join(f"  %v{i} = arith.addf %x, %x : f64\n" for i in range(3000))
    big.write_text(f"func.func @f(%x: f64) {{\n{body}  func.return\n}}\n")
    proc = subprocess.run(
        f"'{sys.executable}' -c 'from irtoolkit.cli.opt import main; main()' '{big}' | head -n 1",
        shell=True, capture_output=True, text=True, timeout=120,
    )
    assert proc.stdout == "builtin.module {\n"
    assert "Traceback" not in proc.stderr
    assert "BrokenPipe" not in proc.stderr


def test_fast_start_imports_lazily():
    """--version and --show-dialects import no xDSL (--list-passes and --help do:
    the options they list are the passes' dataclass fields)."""
    code = textwrap.dedent(
        """
        import sys
        from irtoolkit.cli.opt import main
        for args in (["--version"], ["--show-dialects"]):
            try:
                main(args)
            except SystemExit as e:
                assert e.code == 0, (args, e.code)
        heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("xdsl", "numpy", "llvmlite"))
        assert not heavy, heavy
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_small_file_loads_no_backend(small):
    """irt-opt on a file that needs no lowering loads neither LLVM nor the JIT, nor
    numpy (the tensor dialect's folds import it when they run) or xDSL's llvm dialect
    (the printer's direct path asks for it by op name) (its start-up time is measured
    by `python -m bench`, not here)."""
    probe = ("import sys\nfrom irtoolkit.cli.opt import main\n"
             "try:\n    main([sys.argv[1]])\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
             "print(sorted(m for m in ('llvmlite', 'irtoolkit.runtime', 'irtoolkit.passes.ad', 'numpy', "
             "'xdsl.dialects.llvm') if m in sys.modules), file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", probe, str(small)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "[]", proc.stderr


# --- the --verify-diagnostics engine ---------------------------------------


def test_expectation_parsing():
    from irtoolkit.diagnostics_check import parse_expectations

    text = textwrap.dedent(
        """\
        op1 // expected-error {{same line}}
        // expected-warning @+2 {{two below}}
        // expected-note @-2 {{two above}}
        op4
        // expected-remark @above {{above}}
        // expected-error @below {{below}}
        // expected-error @below {{also below}}
        op8
        // expected-error @unknown {{anywhere}}
        // expected-error-re {{value {{[0-9]+}} bad}}
        """
    )
    exps = parse_expectations(text, "f.mlir", line_offset=10)
    got = [(e.severity, e.message, e.line, e.location.line, e.location.col) for e in exps]
    assert got == [
        ("error", "same line", 11, 11, 8),
        ("warning", "two below", 14, 12, 4),
        ("note", "two above", 11, 13, 4),
        ("remark", "above", 14, 15, 4),
        ("error", "below", 18, 16, 4),
        ("error", "also below", 18, 17, 4),
        ("error", "anywhere", None, 19, 4),
        ("error", "value {{[0-9]+}} bad", 20, 20, 4),
    ]
    assert exps[-1].matches("value 42 bad") and not exps[-1].matches("value x bad")


def test_check_matching_rules():
    from irtoolkit.diagnostics import Diagnostic, Location
    from irtoolkit.diagnostics_check import check, parse_expectations

    text = "op // expected-error {{needle}}\n// expected-error @unknown {{floating}}\nop3\n"
    exps = parse_expectations(text, "f.mlir")
    diags = [
        Diagnostic("a needle in a haystack", Location("f.mlir", 1, 1),
                   notes=[Diagnostic("a note", Location("f.mlir", 3, 1), "note")]),
        Diagnostic("floating error"),
    ]
    failures = check(exps, diags)
    assert [f.message for f in failures] == ["unexpected note: a note"]
    assert failures[0].location == Location("f.mlir", 3, 1)

    exps = parse_expectations("op // expected-error {{needle}}\n", "f.mlir")
    failures = check(exps, [Diagnostic("needle", Location("other.mlir", 1, 1))])
    assert [f.message for f in failures] == ["unexpected error: needle", 'expected error "needle" was not produced']


def test_malformed_regex_directive():
    from irtoolkit.diagnostics import DiagnosticError
    from irtoolkit.diagnostics_check import parse_expectations

    with pytest.raises(DiagnosticError, match="invalid regex"):
        parse_expectations("// expected-error-re {{a {{[}} b}}\n", "f.mlir")


# --- --emit llvm ---------------------------------------------------------------


def test_emit_llvm(monkeypatch, capsys, small, tmp_path):
    code, out, err = run_opt(monkeypatch, capsys, "--emit", "llvm", str(small))
    assert code == 0, err
    assert "define double @" in out and "fmul" in out
    out_path = tmp_path / "out.ll"
    code, out, err = run_opt(monkeypatch, capsys, "--emit=llvm", str(small), "-o", str(out_path))
    assert code == 0 and out == ""
    assert "define double @" in out_path.read_text()


def test_emit_llvm_missing_runtime_is_a_diagnostic(monkeypatch, capsys, small):
    import irtoolkit.runtime as runtime

    monkeypatch.delattr(runtime, "llvm_ir")
    code, out, err = run_opt(monkeypatch, capsys, "--emit", "llvm", str(small))
    assert code == 1
    assert "error: LLVM emission unavailable" in err


def test_the_tools_exit_without_the_last_full_collection():
    """The IR left at exit (all in cycles) is not walked by the interpreter's
    final collection: a finalizer in a cycle does not run at exit once a tool
    has run, and does without the tools (the check can fail)."""
    program = textwrap.dedent("""
        import gc, sys
        gc.disable()
        class Cycle:
            def __del__(self):
                print("collected at exit", flush=True)
        c = Cycle(); c.me = c; del c
        if sys.argv[1] == "tool":
            from irtoolkit.cli.common import run_guarded
            run_guarded(lambda: 0, False, "irt-opt")
    """)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    outs = [subprocess.run([sys.executable, "-c", program, mode], capture_output=True, text=True,
                           cwd=root, check=True).stdout for mode in ("tool", "plain")]
    assert outs == ["", "collected at exit\n"]


def test_irt_opt_runs_without_cyclic_collections(monkeypatch, capsys, tmp_path):
    """A compile is one short burst of allocation: the collector, which would
    rescan the growing IR again and again, waits until irt-opt is done (then
    one collection)."""
    import gc

    src = tmp_path / "chain.mlir"
    src.write_text("func.func @f(%x: f64) -> f64 {\n" + "".join(
        f"  %v{i} = arith.mulf {'%x' if i == 0 else f'%v{i - 1}'}, %x : f64\n" for i in range(300))
        + "  func.return %v299 : f64\n}\n")
    run_opt(monkeypatch, capsys, str(src), "-p", "canonicalize,cse")  # (imports)
    starts: list[int] = []

    def count(phase, info):
        if phase == "start":
            starts.append(info["generation"])

    gc.callbacks.append(count)
    try:
        code, out, _ = run_opt(monkeypatch, capsys, str(src), "--print-op-generic", "-p", "canonicalize,cse")
    finally:
        gc.callbacks.remove(count)
    assert code == 0 and "arith.mulf" in out
    assert len(starts) <= 1 and gc.isenabled()
