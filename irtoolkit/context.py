"""The one registry of irtoolkit: dialects, passes and named pipelines.

Everything is registered by name with a lazy factory (``"module:attribute"``),
so that importing irtoolkit stays cheap and a tool only pays for what it uses.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from xdsl.context import Context
    from xdsl.ir import Dialect
    from xdsl.passes import ModulePass


def _load(path: str) -> Any:
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


# Dialects the toolkit loads, by name. Ours replace xDSL's `func`, `tensor`, `arith`, `math`,
# `cf` and `scf` (subclasses of xDSL's ops, with upstream's syntax and checks). Other
# compilers add theirs with `register_dialect` (irtoolkit.extend).
DIALECTS: dict[str, Any] = {
    "builtin": "xdsl.dialects.builtin:Builtin",
    "func": "irtoolkit.dialects.func:Func",
    "arith": "irtoolkit.dialects.arith:Arith",
    "math": "irtoolkit.dialects.math:Math",
    "memref": "xdsl.dialects.memref:MemRef",
    "cf": "irtoolkit.dialects.cf:Cf",
    "scf": "irtoolkit.dialects.scf:Scf",
    "llvm": "xdsl.dialects.llvm:LLVM",
    "printf": "xdsl.dialects.printf:Printf",
    "tensor": "irtoolkit.dialects.tensor:Tensor",
    "loop": "irtoolkit.dialects.loop:Loop",
    "autodiff": "irtoolkit.dialects.autodiff:Autodiff",
    "stablehlo": "irtoolkit.dialects.stablehlo:StableHLO",
    "chlo": "irtoolkit.dialects.stablehlo:CHLO",
    "sdy": "irtoolkit.dialects.stablehlo:SDY",
}

# Dialects that are ours (published to xdsl-opt through the universe plugin,
# except `tensor`, whose name xDSL already owns).
OWN_DIALECTS = ("loop", "autodiff", "stablehlo", "chlo", "sdy")

# Passes by pipeline name: (factory path, one-line description).
PASSES: dict[str, tuple[str, str]] = {
    "ad": ("irtoolkit.passes.ad:AutodiffPass",
           "differentiate: replace autodiff ops by calls to generated derivative functions"),
    "convert-stablehlo-to-tensor": ("irtoolkit.passes.conversion.stablehlo_to_tensor:ConvertStablehloToTensorPass",
                                    "rewrite StableHLO (and chlo, sdy) ops into tensor, loop, arith and func ops"),
    "canonicalize": ("irtoolkit.passes.transforms.canonicalize:Canonicalize",
                     "fold constants and apply canonicalization patterns"),
    "cse": ("xdsl.transforms.common_subexpression_elimination:CommonSubexpressionElimination",
            "eliminate common subexpressions"),
    "dce": ("xdsl.transforms.dead_code_elimination:DeadCodeElimination",
            "remove operations whose results are unused and that have no side effects"),
    "symbol-dce": ("irtoolkit.passes.transforms.symbol_dce:SymbolDCEPass",
                   "remove private functions that nothing references (attribute references count)"),
    "inline": ("irtoolkit.passes.transforms.inline:InlinePass",
               "inline calls to functions defined in the module"),
    "convert-loop-to-scf": ("irtoolkit.passes.transforms.scf_interop:ConvertLoopToScfPass",
                            "translate loop ops to upstream scf ops"),
    "convert-scf-to-loop": ("irtoolkit.passes.transforms.scf_interop:ConvertScfToLoopPass",
                            "translate upstream scf ops to loop ops"),
    "loop-invariant-code-motion": ("irtoolkit.passes.transforms.licm:LoopInvariantCodeMotion",
                                   "hoist pure loop-invariant ops out of loop bodies"),
    "tensor-fuse": ("irtoolkit.passes.transforms.fusion:TensorFusePass",
                    "fuse chains of elementwise and reduction ops into one loop nest"),
    "lower-tensor-to-loop": ("irtoolkit.passes.lowering.tensor_to_loop:LowerTensorToLoopPass",
                             "bufferize: tensors to memrefs, tensor ops to loop nests"),
    "lower-loop-to-cf": ("irtoolkit.passes.lowering.loop_to_cf:LowerLoopToCfPass",
                         "structured loop ops to blocks and branches"),
    "convert-func-to-llvm": ("irtoolkit.passes.lowering.to_llvm.func:ConvertFuncToLLVMPass",
                             "func ops to the llvm dialect"),
    "convert-arith-to-llvm": ("irtoolkit.passes.lowering.to_llvm.arith:ConvertArithToLLVMPass",
                              "arith ops (and index) to the llvm dialect"),
    "convert-math-to-llvm": ("irtoolkit.passes.lowering.to_llvm.math:ConvertMathToLLVMPass",
                             "math ops to llvm intrinsics and libm calls"),
    "convert-cf-to-llvm": ("irtoolkit.passes.lowering.to_llvm.cf:ConvertCfToLLVMPass",
                           "cf branches to the llvm dialect"),
    "convert-memref-to-llvm": ("irtoolkit.passes.lowering.to_llvm.memref:ConvertMemrefToLLVMPass",
                               "memrefs to descriptors, malloc/free, GEP, load/store"),
    "convert-printf-to-llvm": ("irtoolkit.passes.lowering.to_llvm.printf:ConvertPrintfToLLVMPass",
                               "printf.print_format to calls of the runtime's print"),
    "expand-vector-math": ("irtoolkit.passes.lowering.to_llvm.vector_math:ExpandVectorMathPass",
                           "replace llvm math intrinsics by vectorizable polynomial code and define its libm helpers"),
    "define-parallel-dispatchers": ("irtoolkit.passes.lowering.to_llvm.parallel:DefineParallelDispatchersPass",
                                    "give the thread dispatchers of outlined parallel loops their bodies (pthreads)"),
    "add-jit-interface": ("irtoolkit.passes.lowering.to_llvm.jit_interface:AddJitInterfacePass",
                          "entry points, guarded malloc and check handling for the JIT (run by irt-run and irtoolkit.compile)"),
    "convert-to-llvm": ("irtoolkit.passes.lowering.to_llvm:ConvertToLLVMPass",
                        "func, arith, math, cf, memref and printf to the llvm dialect"),
    "reconcile-unrealized-casts": ("irtoolkit.passes.lowering.to_llvm:ReconcileCastsPass",
                                   "remove pairs of unrealized conversion casts that cancel"),
}

# Named pipelines expand to pass pipelines.
PIPELINES: dict[str, tuple[str, str]] = {
    "lower-to-llvm": ("convert-scf-to-loop,canonicalize,cse,tensor-fuse,lower-tensor-to-loop,lower-loop-to-cf,"
                      "convert-to-llvm,expand-vector-math,define-parallel-dispatchers",
                      "everything from the tensor level to the llvm dialect"),
}

# The passes of a named pipeline whose options it takes and forwards to them
# (`lower-to-llvm{blas=false}` reaches lower-tensor-to-loop); names must not clash.
PIPELINE_OPTIONS: dict[str, tuple[str, ...]] = {
    "lower-to-llvm": ("tensor-fuse", "lower-tensor-to-loop", "lower-loop-to-cf"),
}

DEFAULT_COMPILE_PIPELINE = "convert-stablehlo-to-tensor,ad,lower-to-llvm"


def dialect_factory(name: str) -> Callable[[], Dialect]:
    entry = DIALECTS[name]
    if isinstance(entry, str):
        return lambda: _load(entry)
    if hasattr(entry, "operations"):  # a Dialect
        return lambda: entry
    return entry


def register_dialect(dialect: Dialect | Callable[[], Dialect], name: str | None = None) -> None:
    """Make a dialect of another compiler known to every context made from now on
    (``irtoolkit.context()``, ``parse``, ``compile``, ``interpret``, the passes):
    an xDSL ``Dialect``, or a factory returning one (then give its ``name``)."""
    if name is None:
        name = dialect.name  # type: ignore[union-attr]
    DIALECTS[name] = dialect  # type: ignore[assignment]


def pass_class(name: str) -> type[ModulePass]:
    """The pass class registered under ``name`` (KeyError if unknown)."""
    return _load(PASSES[name][0])


def available_passes() -> dict[str, str]:
    """Pass and pipeline names with their descriptions, for --list-passes."""
    table = {name: desc for name, (_, desc) in PASSES.items()}
    table.update({name: desc for name, (_, desc) in PIPELINES.items()})
    return dict(sorted(table.items()))


def context() -> Context:
    """An xDSL Context with every dialect irtoolkit knows, loaded lazily."""
    from xdsl.context import Context

    ctx = Context()
    for name in DIALECTS:
        ctx.register_dialect(name, dialect_factory(name))
    return ctx


# Importing this submodule rebinds `irtoolkit.context` from the public function
# to the module; making the module callable keeps `irtoolkit.context()` working.
class _CallableModule(__import__("types").ModuleType):
    def __call__(self) -> Context:
        return context()


__import__("sys").modules[__name__].__class__ = _CallableModule
