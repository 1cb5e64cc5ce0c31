"""``irt.from_jax``: a JAX function as an irtoolkit module, through StableHLO (SPEC §10)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp


def from_jax(f: Callable[..., Any], *example_args: Any) -> ModuleOp:
    """Export ``f`` with ``jax.jit(f).lower(*example_args).as_text()`` and convert the
    StableHLO to tensor/loop IR; ``f`` becomes ``@main`` (the arguments' shapes and
    dtypes are those of ``example_args``)."""
    try:
        import jax
    except ImportError:
        raise ImportError("irt.from_jax needs JAX, which is not installed here "
                          "(pip install jax jaxlib); without it, export with "
                          "jax.jit(f).lower(*args).as_text() where JAX is, and parse the text") from None
    from irtoolkit.parsing import parse_module
    from irtoolkit.pipeline import run_pipeline

    name = getattr(f, "__name__", "f")
    text = jax.jit(f).lower(*example_args).as_text()
    module = parse_module(text, f"<jax:{name}>")
    return run_pipeline(module, "convert-stablehlo-to-tensor")
