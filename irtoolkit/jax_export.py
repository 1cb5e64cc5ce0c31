"""``irt.from_jax``: a JAX function as an irtoolkit module, through StableHLO (SPEC §10)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
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


def with_grad(module: ModuleOp, wrt: Sequence[int], name: str = "grad_main",
              filename: str = "<string>") -> ModuleOp:
    """``module`` with ``@<name>`` added: ``autodiff.grad`` of its ``@main`` (an imported
    loss, one scalar result) with respect to the argument positions ``wrt``; a new
    module, parsed as ``filename``."""
    import io

    from xdsl.printer import Printer

    from irtoolkit.parsing import parse_module

    main = next(op for op in module.body.block.ops
                if getattr(op, "sym_name", None) is not None and op.sym_name.data == "main")
    ins = [str(t) for t in main.function_type.inputs.data]
    outs = ", ".join(ins[i] for i in wrt)
    args = ", ".join(f"%a{i}" for i in range(len(ins)))
    grads = ", ".join(f"%g{i}" for i in range(len(wrt)))
    params = ", ".join(f"%a{i}: {t}" for i, t in enumerate(ins))
    text = (f"func.func @{name}({params}) -> ({outs}) {{\n"
            f"  {grads} = autodiff.grad @main({args}) wrt {list(wrt)} : ({', '.join(ins)}) -> ({outs})\n"
            f"  func.return {grads} : {outs}\n}}\n")
    out = io.StringIO()
    Printer(stream=out).print_op(module)
    return parse_module(out.getvalue().rstrip().removesuffix("}") + text + "}\n", filename)
