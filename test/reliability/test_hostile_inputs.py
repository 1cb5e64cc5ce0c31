"""The hostile inputs of issue 15 (compiler side), each through the command
line tools as a user runs them: a located diagnostic and exit 1, or the right
result -- never a signal, a hang, a traceback or an empty message.

Runs in the fuzzing harness's worker (a persistent process with a memory
limit, restarted after a crash), so a regression is a failed test, not a dead
machine.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fuzz"))
from fuzzlib import load  # noqa: E402

DIAG = re.compile(r"^(?P<loc>\S.*:\d+:\d+: )?error: (?P<msg>.+)$")


@pytest.fixture(scope="module")
def worker():
    w = load().Worker(timeout=120.0, mem_mb=4096)
    yield w
    w.kill()


def _tool(worker, tool: str, *args: str, timeout: float = 120.0) -> dict:
    worker.timeout = timeout
    res = worker.cli(tool, list(args))
    assert not res.get("signal") and not res.get("hang"), res
    assert "Traceback" not in res["err"] and "internal error" not in res["err"], res["err"][-3000:]
    return res


def _diagnostic(res: dict, where: str | None, *words: str) -> str:
    """Exit 1 with one ``[file:line:col: ]error: message`` first, located at
    ``where`` (``"file:line:col"``; None: unlocated) and naming ``words``."""
    assert res["code"] == 1, res
    first = res["err"].lstrip().split("\n", 1)[0]
    m = DIAG.match(first)
    assert m and m["msg"].strip(), res["err"][:2000]
    if where is not None:
        assert m["loc"] == f"{where}: ", first
    for w in words:
        assert w in first, first
    return first


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _npy(tmp_path: Path, name: str, value) -> str:
    path = tmp_path / name
    np.save(path, value)
    return str(path)


SPLAT = """func.func @main(%n: index) -> tensor<?xf64> {
  %c = arith.constant 1.0 : f64
  %t = tensor.splat %c[%n] : tensor<?xf64>
  return %t : tensor<?xf64>
}
"""

EMPTY = """func.func @main() -> tensor<2305843009213693952xf64> {
  %t = tensor.empty() : tensor<2305843009213693952xf64>
  return %t : tensor<2305843009213693952xf64>
}
"""


# ---------------------------------------------------------------------------
# item 3: sizes whose byte count wraps around 2^64


@pytest.mark.parametrize("interpret", [False, True])
def test_dynamic_size_whose_byte_count_wraps(worker, tmp_path, interpret):
    src = _write(tmp_path, "splat.mlir", SPLAT)
    n = _npy(tmp_path, "n.npy", np.int64(2**61))
    res = _tool(worker, "irt-run", src, "-i", n, *(["--interpret"] if interpret else []))
    _diagnostic(res, f"{src}:3:3")
    ok = _tool(worker, "irt-run", src, "-i", _npy(tmp_path, "five.npy", np.int64(5)))
    assert ok["code"] == 0 and "1., 1., 1., 1., 1." in ok["out"], ok


def test_static_size_that_cannot_be_allocated(worker, tmp_path):
    src = _write(tmp_path, "empty.mlir", EMPTY)
    for args in (["irt-run", src], ["irt-opt", src, "-p", "lower-to-llvm"]):
        res = _tool(worker, *args)
        _diagnostic(res, f"{src}:2:3", "cannot be allocated", "2^63")


def test_sizes_beyond_64_bits_are_invalid_dimensions(worker, tmp_path):
    src = _write(tmp_path, "big.mlir", EMPTY.replace("2305843009213693952", "18446744073709551616"))
    res = _tool(worker, "irt-opt", src, "-p", "lower-to-llvm")
    _diagnostic(res, f"{src}:1:29", "invalid dimension")


# ---------------------------------------------------------------------------
# item 4 and issue 14 item 5: integer division, shifts, float to int


DIV = """func.func @main(%a: i64, %b: i64) -> i64 {
  %r = arith.OP %a, %b : i64
  return %r : i64
}
"""


@pytest.mark.parametrize("op,a,b", [("divsi", 7, 0), ("divsi", -2**63, -1), ("remsi", 7, 0),
                                    ("divui", 7, 0), ("floordivsi", 7, 0), ("ceildivui", 7, 0)])
@pytest.mark.parametrize("interpret", [False, True])
def test_integer_division_traps_are_located_errors(worker, tmp_path, op, a, b, interpret):
    src = _write(tmp_path, f"{op}.mlir", DIV.replace("OP", op))
    args = [src, "-i", _npy(tmp_path, "a.npy", np.int64(a)), "-i", _npy(tmp_path, "b.npy", np.int64(b))]
    res = _tool(worker, "irt-run", *args, *(["--interpret"] if interpret else []))
    word = "division by zero" if b == 0 else "signed division overflow"
    _diagnostic(res, f"{src}:2:3", f"'arith.{op}' op {word}")


# ---------------------------------------------------------------------------
# item 6: loop.for with a step of 0 or less

LOOP = """func.func @main(%n: index, %s: index) -> index {
  %c0 = arith.constant 0 : index
  %r = loop.for %i = %c0 to %n step %s iter_args(%a = %c0) -> (index) {
    %b = arith.addi %a, %i : index
    loop.yield %b : index
  }
  return %r : index
}
"""


@pytest.mark.parametrize("step", [0, -1])
@pytest.mark.parametrize("interpret", [False, True])
def test_zero_or_negative_dynamic_step_is_an_error(worker, tmp_path, step, interpret):
    src = _write(tmp_path, "loop.mlir", LOOP)
    args = [src, "-i", _npy(tmp_path, "n.npy", np.int64(10)), "-i", _npy(tmp_path, "s.npy", np.int64(step))]
    res = _tool(worker, "irt-run", *args, *(["--interpret"] if interpret else []), timeout=60)
    _diagnostic(res, f"{src}:3:3", "step must be positive", f"{step} vs 0")


# ---------------------------------------------------------------------------
# item 9: splat constants


@pytest.mark.parametrize("n", ["100000000", "1000000000", "2305843009213693952"])
def test_splat_constants_are_not_materialized(worker, tmp_path, n):
    # returned, so it must be stored (a reduction of it would be fused into one loop)
    src = _write(tmp_path, "splat.mlir", f"""func.func @main() -> tensor<{n}xf64> {{
  %c = arith.constant dense<1.0> : tensor<{n}xf64>
  return %c : tensor<{n}xf64>
}}
""")
    res = _tool(worker, "irt-opt", src, timeout=60)
    assert res["code"] == 0 and f"dense<1.000000e+00> : tensor<{n}xf64>" in res["out"], res
    res = _tool(worker, "irt-opt", src, "-p", "lower-to-llvm", "-o", os.devnull, timeout=120)
    if n.startswith("23"):
        _diagnostic(res, f"{src}:2:3", "cannot be allocated")
    else:
        assert res["code"] == 0, res


# ---------------------------------------------------------------------------
# item 11


def test_float_literal_without_a_point(worker, tmp_path):
    src = _write(tmp_path, "inf.mlir", "func.func @f() -> f64 {\n  %c = arith.constant 1e999999 : f64\n"
                                       "  return %c : f64\n}\n")
    _diagnostic(_tool(worker, "irt-opt", src), f"{src}:2:23", "a float literal needs a '.'")


def test_attribute_error_points_at_the_attribute(worker, tmp_path):
    src = _write(tmp_path, "attr.mlir", 'func.func @f() attributes {x = #llvm.linkage<"x">} {\n  return\n}\n')
    _diagnostic(_tool(worker, "irt-opt", src), f"{src}:1:32", "linkage 'x' is unknown")


def test_endless_device_input(worker):
    _diagnostic(_tool(worker, "irt-opt", "/dev/zero", timeout=30), "/dev/zero:1:1", "NUL byte")


def test_npy_header_claiming_more_than_the_file_holds(worker, tmp_path):
    src = _write(tmp_path, "f.mlir", DIV.replace("OP", "addi"))
    header = np.lib.format.header_data_from_array_1_0(np.zeros(3))
    header["shape"] = (10**13,)
    big = tmp_path / "big.npy"
    with open(big, "wb") as f:
        np.lib.format.write_array_header_1_0(f, header)
        f.write(b"\0" * 24)
    res = _tool(worker, "irt-run", src, "-i", str(big), "-i", str(big))
    _diagnostic(res, None, "claims 10000000000000 elements")


@pytest.mark.parametrize("tool", ["irt-opt", "irt-run"])
def test_file_name_that_is_not_utf8(worker, tmp_path, tool):
    name = os.fsdecode(str(tmp_path).encode() + b"/bad\xff.mlir")
    Path(name).write_text(DIV.replace("OP", "divsi"))
    shown = os.fsdecode(str(tmp_path).encode()) + "/bad\\xff.mlir"
    if tool == "irt-opt":
        res = _tool(worker, "irt-opt", name, "-p", "lower-to-llvm", "--emit", "llvm")
        assert res["code"] == 0, res
        res = _tool(worker, "irt-opt", name, "--print-debuginfo")
        assert res["code"] == 0 and "bad\\\\xff.mlir" in res["out"], res
    else:
        args = ["-i", _npy(tmp_path, "a.npy", np.int64(1)), "-i", _npy(tmp_path, "z.npy", np.int64(0))]
        _diagnostic(_tool(worker, "irt-run", name, *args), f"{shown}:2:3", "division by zero")


def test_output_through_a_symlink_replaces_the_target(worker, tmp_path):
    src = _write(tmp_path, "f.mlir", DIV.replace("OP", "addi"))
    target = tmp_path / "target.mlir"
    target.write_text("old\n")
    link = tmp_path / "link.mlir"
    link.symlink_to(target)
    res = _tool(worker, "irt-opt", src, "-o", str(link))
    assert res["code"] == 0, res
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert "arith.addi" in target.read_text()
