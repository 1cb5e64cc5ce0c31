"""The xdsl.universe plugin: xdsl-opt sees `loop`, `autodiff` and our passes,
publishes no name xDSL already has, and keeps working for everyone."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

PROGRAM = """\
func.func @f(%x: f64, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = loop.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (f64) {
    %y = arith.mulf %acc, %acc : f64
    loop.yield %y : f64
  }
  func.return %r : f64
}
func.func @g(%x: f64) -> f64 {
  %s = autodiff.stop_gradient %x : f64
  %d = autodiff.grad @h(%s) : (f64) -> f64
  func.return %d : f64
}
func.func private @h(%x: f64) -> f64 {
  %y = arith.mulf %x, %x : f64
  func.return %y : f64
}
func.func private @unused() {
  func.return
}
"""


def _xdsl_opt() -> list[str]:
    exe = shutil.which("xdsl-opt")
    return [exe] if exe else [sys.executable, "-m", "xdsl.tools.xdsl_opt"]


def test_no_name_clashes_with_xdsl():
    from xdsl.dialects import get_all_dialects
    from xdsl.transforms import get_all_passes

    from irtoolkit.universe import UNIVERSE

    assert not set(UNIVERSE.all_dialects) & set(get_all_dialects())
    assert not set(UNIVERSE.all_passes) & set(get_all_passes())
    for name in ("tensor", "canonicalize", "cse", "dce", "reconcile-unrealized-casts"):
        assert name not in UNIVERSE.all_dialects and name not in UNIVERSE.all_passes


def test_published_names_and_factories():
    from irtoolkit.context import PASSES
    from irtoolkit.universe import UNIVERSE

    assert set(UNIVERSE.all_dialects) == {"loop", "autodiff", "stablehlo", "chlo", "sdy"}
    for name in ("symbol-dce", "inline", "ad", "lower-tensor-to-loop", "convert-loop-to-scf"):
        assert name in UNIVERSE.all_passes
    assert set(UNIVERSE.all_passes) <= set(PASSES)
    # entries are factories; loading one gives the registered class
    for name in ("symbol-dce", "inline"):
        cls = UNIVERSE.all_passes[name]()
        assert cls.name == name
    for name in ("loop", "autodiff"):
        try:
            dialect = UNIVERSE.all_dialects[name]()
        except ImportError:
            pytest.skip(f"dialect {name} not available yet")
        assert dialect.name == name


def test_multiverse_loads():
    from xdsl.universe import Universe

    multiverse = Universe.get_multiverse()  # raises on any clash
    assert "loop" in multiverse.all_dialects and "symbol-dce" in multiverse.all_passes
    assert "tensor" in multiverse.all_dialects  # still xDSL's


def test_xdsl_opt_runs_our_dialects_and_passes(tmp_path):
    pytest.importorskip("irtoolkit.dialects.loop")
    pytest.importorskip("irtoolkit.dialects.autodiff")
    path = tmp_path / "prog.mlir"
    path.write_text(PROGRAM)
    proc = subprocess.run([*_xdsl_opt(), str(path), "-p", "symbol-dce,convert-loop-to-scf"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "scf.for" in out and "loop.for" not in out
    assert "autodiff.grad @h(%s) : (f64) -> f64" in out
    assert "func.func private @h" in out  # referenced by autodiff.grad's callee
    assert "@unused" not in out


def test_xdsl_opt_still_works(tmp_path):
    proc = subprocess.run([*_xdsl_opt(), "--help"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "usage: xdsl-opt" in proc.stdout
    path = tmp_path / "plain.mlir"
    path.write_text('%0 = "test.op"() : () -> i32\n')
    proc = subprocess.run([*_xdsl_opt(), str(path), "-p", "cse"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert '"test.op"() : () -> i32' in proc.stdout
