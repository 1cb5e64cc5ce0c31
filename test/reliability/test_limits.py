"""Limits: absurd sizes, deep nesting, long files, recursion through `ad`,
and outputs left untouched when a run fails.

Everything that could exhaust memory or crash runs in a subprocess with an
address-space limit, so a failure is a failed test and not a dead machine.
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

MEM_LIMIT = 4 * 1024**3  # bytes of address space for a child
DIAG_HEAD = re.compile(r"^(\S.*:\d+:\d+: )?error: ")


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEM_LIMIT, MEM_LIMIT))


class _Result:
    def __init__(self, res: dict):
        self.returncode = res.get("code")
        if res.get("signal"):
            self.returncode = -res["signal"]
        self.stdout, self.stderr = res.get("out", ""), res.get("err", "")


_WORKER = []


def run_tool(tool: str, *args: str, timeout: float = 120) -> _Result:
    """``irt-opt``/``irt-run`` with ``args``, in the fuzzing harness's worker: a
    persistent subprocess with a memory rlimit that calls the CLI's ``main``
    in-process (restarted after a crash), so a run costs no interpreter start-up."""
    if not _WORKER:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fuzz"))
        from fuzzlib import load

        _WORKER.append(load().Worker(timeout=timeout, mem_mb=MEM_LIMIT // 2**20))
    worker = _WORKER[0]
    worker.timeout = timeout
    return _Result(worker.cli(tool, list(args)))


@pytest.fixture(scope="module", autouse=True)
def _stop_worker():
    yield
    while _WORKER:
        _WORKER.pop().kill()


def run_python(code: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """A Python snippet (``sys.argv[1:]`` = args) in a memory-limited subprocess."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args], capture_output=True, text=True,
        timeout=timeout, preexec_fn=_limit_memory,
    )


def assert_clean_error(proc: subprocess.CompletedProcess, *words: str) -> None:
    """Exit 1 with an MLIR-style diagnostic first, no traceback, no signal."""
    assert proc.returncode == 1, f"exit {proc.returncode}\n{proc.stderr[-2000:]}"
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    first = proc.stderr.lstrip().split("\n", 1)[0]
    assert DIAG_HEAD.match(first), proc.stderr[:2000]
    low = proc.stderr.lower()
    if words:
        assert any(w in low for w in words), proc.stderr[:2000]


# ---------------------------------------------------------------------------
# absurd sizes

HUGE_SPLAT = """
func.func @main() -> tensor<100000000000xf32> {
  %c = arith.constant 1.0 : f32
  %t = tensor.splat %c : tensor<100000000000xf32>
  return %t : tensor<100000000000xf32>
}
"""

# (a reduction of a splat needs no buffer: the kernel reads the scalar; an insert does)
HUGE_REDUCE = """
func.func @main() -> f32 {
  %c = arith.constant 1.0 : f32
  %i = arith.constant 7 : index
  %e0 = tensor.empty() : tensor<100000000000xf32>
  %t = tensor.insert %c into %e0[%i] : tensor<100000000000xf32>
  %s = tensor.reduce_sum %t [0] : tensor<100000000000xf32> -> tensor<f32>
  %e = tensor.extract %s[] : tensor<f32>
  return %e : f32
}
"""

HUGE_DYNAMIC = """
func.func @main(%n: index) -> f64 {
  %c = arith.constant 1.0 : f64
  %i = arith.constant 7 : index
  %e0 = tensor.empty(%n) : tensor<?xf64>
  %t = tensor.insert %c into %e0[%i] : tensor<?xf64>
  %s = tensor.reduce_sum %t [0] : tensor<?xf64> -> tensor<f64>
  %e = tensor.extract %s[] : tensor<f64>
  return %e : f64
}
"""

SIZE_WORDS = ("alloc", "memory", "size", "large", "huge", "bytes")


@pytest.mark.parametrize("interpret", [True, False], ids=["interpret", "compile"])
@pytest.mark.parametrize("src", [HUGE_SPLAT, HUGE_REDUCE], ids=["splat", "reduce"])
def test_huge_static_tensor_is_a_clear_error(tmp_path, src, interpret):
    f = tmp_path / "huge.mlir"
    f.write_text(src)
    args = [str(f)] + (["--interpret"] if interpret else [])
    proc = run_tool("irt-run", *args)
    assert_clean_error(proc, *SIZE_WORDS)


@pytest.mark.parametrize("interpret", [True, False], ids=["interpret", "compile"])
def test_huge_dynamic_size_through_api(interpret):
    """A run-time size of 1e11 elements: an exception in Python, not a crash."""
    proc = run_python(f"""
        import sys, numpy as np, irtoolkit as irt
        m = irt.parse(sys.argv[1])
        try:
            if {interpret}:
                irt.interpret(m, "main", 100_000_000_000)
            else:
                irt.compile(m)["main"](100_000_000_000)
        except Exception as e:
            print("raised", type(e).__name__, str(e)[:200])
        else:
            print("no error")
    """, HUGE_DYNAMIC)
    assert proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr[-1500:]}"
    assert proc.stdout.startswith("raised"), proc.stdout + proc.stderr[-1500:]


@pytest.mark.parametrize("interpret", [True, False], ids=["interpret", "compile"])
def test_negative_dynamic_size_is_an_error(interpret):
    """The runtime checks what the verifier cannot: a size of -3 is an error."""
    proc = run_python(f"""
        import sys, irtoolkit as irt
        m = irt.parse(sys.argv[1])
        try:
            r = irt.interpret(m, "main", -3) if {interpret} else irt.compile(m)["main"](-3)
        except Exception as e:
            print("raised", type(e).__name__, str(e)[:200])
        else:
            print("no error", r)
    """, HUGE_DYNAMIC)
    assert proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr[-1500:]}"
    assert proc.stdout.startswith("raised"), proc.stdout + proc.stderr[-1500:]


def test_huge_shape_parses_and_lowers(tmp_path):
    """Only running it needs memory: parsing and lowering must not allocate it."""
    f = tmp_path / "huge.mlir"
    f.write_text(HUGE_REDUCE)
    proc = run_tool("irt-opt", str(f), "-p", "lower-to-llvm", "-o", os.devnull)
    assert proc.returncode == 0, proc.stderr[-2000:]


# ---------------------------------------------------------------------------
# deep nesting


def nested_ifs(depth: int) -> str:
    opens = "".join("  loop.if %c {\n" for _ in range(depth))
    closes = "".join("  }\n" for _ in range(depth))
    return (f"func.func @main(%x: f64) -> f64 {{\n  %c = arith.constant true\n{opens}"
            f"  %z = arith.addf %x, %x : f64\n{closes}  func.return %x : f64\n}}\n")


def nested_ifs_with_results(depth: int, foldable: bool = False) -> str:
    """``depth`` nested ifs with a result each. ``foldable``: the condition is unknown
    and both branches yield %x, so each if folds only once the one nested in it has."""
    if foldable:
        s = "func.func @main(%x: f64, %c: i1) -> f64 {\n"
        innermost = "  loop.yield %x : f64\n"
    else:
        s = "func.func @main(%x: f64) -> f64 {\n  %c = arith.constant true\n"
        innermost = "  %y = arith.mulf %x, %x : f64\n  loop.yield %y : f64\n"
    s += "".join(f"  %r{i} = loop.if %c -> (f64) {{\n" for i in range(depth)) + innermost
    for i in reversed(range(depth)):
        s += "  } else {\n  loop.yield %x : f64\n  }\n"
        if i:
            s += f"  loop.yield %r{i} : f64\n"
    return s + "  func.return %r0 : f64\n}\n"


@pytest.mark.parametrize("pipeline", [None, "ad,lower-to-llvm"])
def test_moderate_nesting_works(tmp_path, pipeline):
    f = tmp_path / "nest.mlir"
    f.write_text(nested_ifs_with_results(60))
    args = [str(f), "-o", os.devnull] + (["-p", pipeline] if pipeline else [])
    proc = run_tool("irt-opt", *args)
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_moderate_nesting_interprets_and_differentiates():
    grad_main = """
func.func @main(%x: f64) -> f64 {
  %d = autodiff.grad @g(%x) : (f64) -> f64
  return %d : f64
}
"""
    proc = run_python("""
        import sys, irtoolkit as irt
        src, grad = sys.argv[1], sys.argv[2]
        print(float(irt.interpret(irt.parse(src), "main", 3.0)))
        print(float(irt.interpret(irt.parse(grad), "main", 3.0)))
        print(float(irt.compile(irt.parse(grad))["main"](3.0)))
    """, nested_ifs_with_results(40),
        nested_ifs_with_results(40).replace("func.func @main", "func.func @g") + grad_main)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["9.0", "6.0", "6.0"], proc.stdout


def test_canonicalize_folds_a_deep_if_cascade_in_one_sweep(tmp_path):
    # 300 levels took minutes when each fold waited for a new sweep of the module
    f = tmp_path / "cascade.mlir"
    f.write_text(nested_ifs_with_results(300, foldable=True))
    proc = run_tool("irt-opt", str(f), "-p", "canonicalize", timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "loop.if" not in proc.stdout and "func.return %x" in proc.stdout


@pytest.mark.parametrize("depth", [200, 1000])
@pytest.mark.parametrize("pipeline", [None, "ad,lower-to-llvm"])
def test_deep_nesting_works_or_is_a_clear_error(tmp_path, depth, pipeline):
    f = tmp_path / "nest.mlir"
    f.write_text(nested_ifs(depth))
    args = [str(f), "-o", os.devnull] + (["-p", pipeline] if pipeline else [])
    proc = run_tool("irt-opt", *args)
    if proc.returncode != 0:
        assert_clean_error(proc, "nest", "deep", "recursion")


@pytest.mark.parametrize("kind", ["dense", "type", "region"])
def test_deeply_nested_syntax_works_or_is_a_clear_error(tmp_path, kind):
    depth = 3000
    if kind == "dense":
        body = ("%0 = arith.constant dense<" + "[" * depth + "1.0" + "]" * depth + "> : tensor<1xf64>\n"
                "func.return\n")
        src = f"func.func @f() {{\n{body}}}\n"
    elif kind == "type":
        t = "f32"
        for _ in range(depth):
            t = f"tensor<2x{t}>"
        src = f"func.func @f(%a: {t}) {{\n  func.return\n}}\n"
    else:
        src = '"test.op"() ({\n' * depth + "}) : () -> ()\n" * depth
    f = tmp_path / "deep.mlir"
    f.write_text(src)
    proc = run_tool("irt-opt", str(f), "-o", os.devnull)
    # correct behaviour (deep programs get a deep stack) or a clean error
    if proc.returncode != 0:
        assert_clean_error(proc)


# ---------------------------------------------------------------------------
# long files


def long_chain(n: int, pad: int = 0) -> str:
    """``n`` chained tensor ops, each line with a ``pad``-character comment."""
    comment = " // " + "c" * pad if pad else ""
    lines = ["func.func @main(%x: tensor<4xf64>) -> tensor<4xf64> {"]
    prev = "%x"
    for i in range(n):
        op = ("tensor.add", "tensor.mul", "tensor.sub")[i % 3]
        lines.append(f"  %v{i} = {op} {prev}, %x : tensor<4xf64>{comment}")
        prev = f"%v{i}"
    lines.append(f"  return {prev} : tensor<4xf64>\n}}")
    return "\n".join(lines) + "\n"


def test_long_files_parse_linearly():
    """4x the ops must take < 6x the (CPU) time. The lines carry 500-character comments,
    so that work per op that grows with the file's size (locating an op by
    counting the newlines before it) shows at a size a test can afford:
    3k vs 12k ops (the measured 5k vs 20k ops without padding: see the report); the
    smaller size takes 0.2 s, so a busy machine's noise does not decide the ratio."""
    proc = run_python("""
        import time, sys
        sys.path.insert(0, %r)
        from test_limits import long_chain
        import irtoolkit as irt
        irt.parse(long_chain(200))  # warm up imports and caches
        def timed(n):
            text = long_chain(n, pad=500)
            t = time.process_time(); irt.parse(text); return time.process_time() - t
        print(min(timed(3000) for _ in range(2)), min(timed(12000) for _ in range(2)))
    """ % os.path.dirname(os.path.abspath(__file__)), timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    small, large = map(float, proc.stdout.split())
    assert large / small < 6.0, f"3k ops: {small:.2f} s, 12k ops: {large:.2f} s"


# ---------------------------------------------------------------------------
# recursion in call graphs through ad

RECURSIVE = {
    "self": """
        func.func @f(%x: f64) -> f64 {
          %y = func.call @f(%x) : (f64) -> f64
          return %y : f64
        }
        func.func @main(%x: f64) -> f64 {
          %g = autodiff.grad @f(%x) : (f64) -> f64
          return %g : f64
        }""",
    "mutual": """
        func.func @f(%x: f64) -> f64 {
          %y = func.call @g(%x) : (f64) -> f64
          return %y : f64
        }
        func.func @g(%x: f64) -> f64 {
          %y = func.call @f(%x) : (f64) -> f64
          %z = arith.mulf %y, %x : f64
          return %z : f64
        }
        func.func @main(%x: f64) -> f64 {
          %g = autodiff.vjp @f(%x) cotangents(%x) : (f64, f64) -> (f64, f64)
          return %g : f64
        }""",
    "grad-of-self": """
        func.func @f(%x: f64) -> f64 {
          %g = autodiff.grad @f(%x) : (f64) -> f64
          %z = arith.mulf %g, %x : f64
          return %z : f64
        }""",
    "guarded": """
        func.func @f(%x: f64) -> f64 {
          %c0 = arith.constant 0.0 : f64
          %c = arith.cmpf ogt, %x, %c0 : f64
          %r = loop.if %c -> (f64) {
            %one = arith.constant 1.0 : f64
            %xm = arith.subf %x, %one : f64
            %y = func.call @f(%xm) : (f64) -> f64
            %z = arith.mulf %y, %x : f64
            loop.yield %z : f64
          } else {
            %one = arith.constant 1.0 : f64
            loop.yield %one : f64
          }
          return %r : f64
        }
        func.func @main(%x: f64) -> (f64, f64) {
          %y, %t = autodiff.jvp @f(%x) tangents(%x) : (f64, f64) -> (f64, f64)
          return %y, %t : f64, f64
        }""",
}


@pytest.mark.parametrize("name", sorted(RECURSIVE))
def test_recursion_through_ad_is_a_located_diagnostic(tmp_path, name):
    f = tmp_path / "rec.mlir"
    f.write_text(textwrap.dedent(RECURSIVE[name]))
    proc = run_tool("irt-opt", str(f), "-p", "ad", "-o", os.devnull, timeout=60)
    if proc.returncode == 0:
        return  # differentiating recursion would be fine too
    assert_clean_error(proc)
    assert re.match(r"^\S+:\d+:\d+: error: ", proc.stderr), proc.stderr[:1000]


def test_recursive_function_without_ad_still_compiles(tmp_path):
    f = tmp_path / "rec.mlir"
    f.write_text(textwrap.dedent(RECURSIVE["guarded"]).split("func.func @main")[0])
    proc = run_tool("irt-opt", str(f), "-p", "lower-to-llvm", "-o", os.devnull)
    assert proc.returncode == 0, proc.stderr[-2000:]


# ---------------------------------------------------------------------------
# -o leaves an existing output untouched when a run fails

GOOD = """
func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {
  %y = tensor.exp %x : tensor<3xf64>
  return %y : tensor<3xf64>
}
"""
BAD_VERIFY = GOOD.replace("tensor.exp %x : tensor<3xf64>", "tensor.exp %x : tensor<4xf64>")
BAD_PASS = """
func.func @f(%x: f64) -> f64 {
  %y = func.call @f(%x) : (f64) -> f64
  return %y : f64
}
func.func @main(%x: f64) -> f64 {
  %g = autodiff.grad @f(%x) : (f64) -> f64
  return %g : f64
}
"""


@pytest.mark.parametrize("src,pipeline", [("garbage {", None), (BAD_VERIFY, None), (BAD_PASS, "ad"),
                                          (GOOD + "\n// -----\n" + BAD_VERIFY, "split")],
                         ids=["syntax", "verifier", "pass", "split-input-file"])
def test_irt_opt_failure_leaves_output_untouched(tmp_path, src, pipeline):
    f = tmp_path / "in.mlir"
    f.write_text(src)
    out = tmp_path / "out.mlir"
    out.write_text("PREVIOUS CONTENT\n")
    before = os.stat(out)
    args = [str(f), "-o", str(out)]
    if pipeline == "split":
        args.append("--split-input-file")
    elif pipeline:
        args += ["-p", pipeline]
    proc = run_tool("irt-opt", *args)
    assert proc.returncode == 1, proc.stderr
    assert out.read_text() == "PREVIOUS CONTENT\n"
    assert os.stat(out).st_ino == before.st_ino
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.mlir", "out.mlir"]  # no temp files left


@pytest.mark.parametrize("interpret", [True, False], ids=["interpret", "compile"])
@pytest.mark.parametrize("case", ["bad-input", "bad-program", "bad-pass"])
def test_irt_run_failure_leaves_output_untouched(tmp_path, case, interpret):
    import numpy as np

    f = tmp_path / "in.mlir"
    f.write_text({"bad-input": GOOD, "bad-program": BAD_VERIFY, "bad-pass": BAD_PASS}[case])
    x = tmp_path / "x.npy"
    np.save(x, np.ones(4) if case == "bad-input" else (np.float64(1.0) if case == "bad-pass" else np.ones(3)))
    out = tmp_path / "out.npz"
    out.write_bytes(b"PREVIOUS")
    args = [str(f), "-i", str(x), "-o", str(out)] + (["--interpret"] if interpret else [])
    proc = run_tool("irt-run", *args)
    assert_clean_error(proc)
    assert out.read_bytes() == b"PREVIOUS"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.mlir", "out.npz", "x.npy"]


def test_irt_run_success_replaces_output(tmp_path):
    import numpy as np

    f = tmp_path / "in.mlir"
    f.write_text(GOOD)
    x = tmp_path / "x.npy"
    np.save(x, np.zeros(3))
    out = tmp_path / "out.npz"
    out.write_bytes(b"PREVIOUS")
    proc = run_tool("irt-run", str(f), "-i", str(x), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert np.array_equal(np.load(out)["result0"], np.ones(3))
