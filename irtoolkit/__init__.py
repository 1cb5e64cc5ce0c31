"""irtoolkit: an MLIR-like multi-level compiler toolkit on xDSL.

The public API (SPEC §9). Submodules are imported on first use so that
``import irtoolkit`` and the command-line tools start fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from irtoolkit.diagnostics import DiagnosticError

if TYPE_CHECKING:
    from xdsl.context import Context
    from xdsl.dialects.builtin import ModuleOp

__version__ = "0.1.0"

__all__ = ["DiagnosticError", "context", "parse", "run_pipeline", "compile", "interpret", "preload",
           "function", "grad", "value_and_grad", "jvp", "vjp", "stop_gradient", "from_jax"]

_FRONTEND = ("function", "grad", "value_and_grad", "jvp", "vjp", "stop_gradient")


def __getattr__(name: str) -> Any:
    # the Python frontend (SPEC §11) loads on first use, keeping `import irtoolkit` light
    if name in _FRONTEND:
        from irtoolkit.frontend import api

        return getattr(api, name)
    raise AttributeError(f"module 'irtoolkit' has no attribute {name!r}")


def context() -> Context:
    """An xDSL Context with every dialect irtoolkit knows."""
    from irtoolkit.context import context as make_context

    return make_context()


def parse(text: str, filename: str = "<string>") -> ModuleOp:
    """Parse and verify ``text``; a DiagnosticError carries the located error."""
    from irtoolkit.parsing import parse_module

    return parse_module(text, filename)


def run_pipeline(module: ModuleOp, pipeline: str) -> ModuleOp:
    """Run a pass pipeline on ``module`` in place (verifying after each pass)."""
    from irtoolkit.pipeline import run_pipeline as run

    return run(module, pipeline)


def compile(module: ModuleOp | str, pipeline: str | None = None, filename: str = "<string>") -> Any:
    """Lower ``module`` (default pipeline ``convert-stablehlo-to-tensor,ad,lower-to-llvm``) and JIT-compile it.

    Returns an executable: ``exe["main"](*arrays)``. The module is left unchanged.
    ``module`` may also be MLIR text (parsed as ``filename``): a program compiled
    before, by this or another process, then loads from the compile cache
    without being parsed.
    """
    if isinstance(module, str):
        from irtoolkit.runtime import compile_source

        return compile_source(module, filename, pipeline)
    from irtoolkit.runtime import compile_module

    return compile_module(module, pipeline)


def preload(pipeline: str | None = None) -> None:
    """Load the compiler now (xDSL's dialects, the passes of ``pipeline``, LLVM,
    and one small compile that takes each stage through its first use: about
    0.6 s) instead of during the first ``parse``/``compile``. A process
    that needs its first compile to be quick calls it at start-up, as importing
    JAX loads XLA; the command-line tools and cache hits need not."""
    import importlib
    import pkgutil

    import irtoolkit.passes
    from irtoolkit import runtime
    from irtoolkit.context import DEFAULT_COMPILE_PIPELINE, DIALECTS, dialect_factory
    from irtoolkit.parsing import parse_module
    from irtoolkit.pipeline import build_passes

    for name in DIALECTS:
        dialect_factory(name)()
    build_passes(pipeline or DEFAULT_COMPILE_PIPELINE)
    # what the passes import on first use
    for info in pkgutil.walk_packages(irtoolkit.passes.__path__, "irtoolkit.passes."):
        importlib.import_module(info.name)
    importlib.import_module("xdsl.transforms.canonicalization_patterns.arith")
    parse_module("func.func @f() {\n  func.return\n}\n", "<preload>")
    runtime.preload()
    _warm_up()


# A small program whose compile and first call take every stage of the compiler
# through its first use in the process (what each builds once: rule and
# signature tables, pattern sets, LLVM's pass pipelines, code generation
# threads), so that the first real compile does not pay for it.
_WARM_UP_PROGRAM = """
func.func @loss(%w: tensor<4x4xf32>, %x: tensor<4x1xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %h = loop.for %i = %c0 to %c2 step %c1 iter_args(%v = %x) -> (tensor<4x1xf32>) {
    %y = tensor.matmul %w, %v : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
    %s = tensor.reduce_sum %y [0, 1] : tensor<4x1xf32> -> tensor<f32>
    %se = tensor.extract %s[] : tensor<f32>
    %pos = arith.cmpf ogt, %se, %zero : f32
    %n = loop.if %pos -> (tensor<4x1xf32>) {
      %t = tensor.tanh %y : tensor<4x1xf32>
      loop.yield %t : tensor<4x1xf32>
    } else {
      %e = tensor.exp %y : tensor<4x1xf32>
      %m = tensor.mul %e, %v : tensor<4x1xf32>
      loop.yield %m : tensor<4x1xf32>
    }
    loop.yield %n : tensor<4x1xf32>
  }
  %s = tensor.reduce_sum %h [0, 1] : tensor<4x1xf32> -> tensor<f32>
  %r = tensor.extract %s[] : tensor<f32>
  func.return %r : f32
}
func.func @grad(%w: tensor<4x4xf32>, %x: tensor<4x1xf32>) -> tensor<4x4xf32> {
  %g = autodiff.grad @loss(%w, %x) wrt [0] : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  func.return %g : tensor<4x4xf32>
}
"""


def _warm_up() -> None:
    """Compile and call ``_WARM_UP_PROGRAM`` once, past the compile caches (it is
    neither looked up nor stored: its executable is dropped)."""
    import numpy as np

    from irtoolkit.parsing import parse_module
    from irtoolkit.runtime.caches import _compile_fresh
    from irtoolkit.runtime.executable import default_opt

    exe = _compile_fresh(parse_module(_WARM_UP_PROGRAM, "<preload>"), None, default_opt())
    exe["grad"](np.eye(4, dtype=np.float32), np.ones((4, 1), dtype=np.float32))


def interpret(module: ModuleOp, name: str, *args: Any) -> Any:
    """Run function ``name`` of ``module`` on the reference interpreter."""
    from irtoolkit.interpreter import interpret_function

    return interpret_function(module, name, *args)


def from_jax(f: Any, *example_args: Any) -> ModuleOp:
    """Export ``f`` with JAX (``jax.jit(f).lower(*example_args)``) and convert its
    StableHLO: a module whose ``@main`` is ``f``. ImportError without JAX."""
    from irtoolkit.jax_export import from_jax as export

    return export(f, *example_args)
