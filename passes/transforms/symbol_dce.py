"""``symbol-dce``: remove private symbols (functions, globals) that nothing uses.

A symbol of the module is live when it is public (no ``sym_visibility`` or
``"public"``) or referenced from a live symbol or from a non-symbol op of the
module. References are every ``SymbolRefAttr`` found anywhere in an op's
properties and attributes, however deeply nested (``func.call``'s callee,
``autodiff.grad``'s callee, ``{autodiff.custom_vjp = @f_vjp}``, arrays and
dictionaries of them ...). Private and nested symbols that are not live are erased.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, StringAttr, SymbolRefAttr
from xdsl.ir import Attribute, Data, Operation, ParametrizedAttribute
from xdsl.passes import ModulePass

_REMOVABLE = ("private", "nested")


def attribute_symbol_refs(attr: Attribute, out: set[str]) -> None:
    """Add the root names of all SymbolRefAttrs inside ``attr`` to ``out``."""
    stack: list[object] = [attr]
    while stack:
        a = stack.pop()
        if isinstance(a, SymbolRefAttr):
            out.add(a.root_reference.data)
        elif isinstance(a, ArrayAttr):
            stack.extend(a.data)
        elif isinstance(a, DictionaryAttr):
            stack.extend(a.data.values())
        elif isinstance(a, ParametrizedAttribute):
            stack.extend(p for p in a.parameters if isinstance(p, Attribute))
        elif isinstance(a, Data) and isinstance(a.data, (tuple, list)):
            stack.extend(x for x in a.data if isinstance(x, Attribute))


def op_symbol_refs(op: Operation) -> set[str]:
    """Root names of every symbol referenced by ``op`` or any op nested in it."""
    refs: set[str] = set()
    for nested in op.walk():
        for attr in (*nested.properties.values(), *nested.attributes.values()):
            attribute_symbol_refs(attr, refs)
    return refs


def symbol_name(op: Operation) -> str | None:
    name = op.properties.get("sym_name") or op.attributes.get("sym_name")
    return name.data if isinstance(name, StringAttr) else None


def visibility(op: Operation) -> str:
    vis = op.properties.get("sym_visibility") or op.attributes.get("sym_visibility")
    return vis.data if isinstance(vis, StringAttr) else "public"


def live_symbols(ops: Iterable[Operation]) -> set[str]:
    """Names of the symbols among ``ops`` that are public or (transitively) referenced."""
    ops = list(ops)
    symbols: dict[str, Operation] = {}
    roots: list[Operation] = []
    for op in ops:
        name = symbol_name(op)
        if name is None:
            roots.append(op)
        else:
            symbols[name] = op
            if visibility(op) not in _REMOVABLE:
                roots.append(op)
    live: set[str] = {n for n, op in symbols.items() if visibility(op) not in _REMOVABLE}
    work = list(roots)
    while work:
        op = work.pop()
        for ref in op_symbol_refs(op):
            if ref in symbols and ref not in live:
                live.add(ref)
                work.append(symbols[ref])
    return live


def symbol_dce(module: ModuleOp) -> list[str]:
    """Erase dead private symbols of ``module`` (and of nested modules); the erased names."""
    erased: list[str] = []
    block = module.body.block
    live = live_symbols(block.ops)
    for op in list(block.ops):
        name = symbol_name(op)
        if name is not None and name not in live and visibility(op) in _REMOVABLE:
            block.erase_op(op, safe_erase=False)
            erased.append(name)
    for op in list(block.ops):
        if isinstance(op, ModuleOp):
            erased.extend(symbol_dce(op))
    return erased


@dataclass(frozen=True)
class SymbolDCEPass(ModulePass):
    """Remove private functions and globals that nothing references."""

    name = "symbol-dce"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        symbol_dce(op)
