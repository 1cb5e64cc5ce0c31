"""``inline``: replace ``func.call``s by the body of their callee.

Inlined: calls to functions defined in the module (with a body) whose body is
a single block ending in ``func.return``. Left alone (never wrong code):
calls to declarations, to multi-block functions, to functions that are part
of a call cycle (recursion), and to functions with a custom derivative rule
(``autodiff.custom_vjp``/``custom_jvp``: inlining would lose the rule) or a
``noinline`` attribute. Calls in inlined bodies are inlined in turn, to a
fixpoint. Nothing is removed besides the calls: ``symbol-dce`` does that.
Inlined ops keep their own locations.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from irtoolkit.pipeline import option

_NO_INLINE_ATTRS = ("autodiff.custom_vjp", "autodiff.custom_jvp", "noinline")


def _functions(module: ModuleOp) -> dict[str, func.FuncOp]:
    return {f.sym_name.data: f for f in module.body.block.ops if isinstance(f, func.FuncOp)}


def _calls(op: Operation) -> list[func.CallOp]:
    return [c for c in op.walk() if isinstance(c, func.CallOp)]


def _inlinable_body(f: func.FuncOp) -> bool:
    blocks = list(f.body.blocks)
    if len(blocks) != 1:
        return False
    last = blocks[0].last_op
    if not isinstance(last, func.ReturnOp):
        return False
    return not any(name in f.attributes or name in f.properties for name in _NO_INLINE_ATTRS)


def _cyclic(functions: dict[str, func.FuncOp]) -> set[str]:
    """Functions on a cycle of the call graph (self-recursion included)."""
    return cyclic_nodes({
        name: {c.callee.root_reference.data for c in _calls(f)} & functions.keys()
        for name, f in functions.items()
    })


def cyclic_nodes(graph: dict[str, set[str]]) -> set[str]:
    """The nodes of ``graph`` (node -> successors, all nodes as keys) on a cycle,
    self-loops included: Tarjan's strongly connected components, iteratively."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    cyclic: set[str] = set()
    counter = 0
    for root in graph:
        if root in index:
            continue
        work: list[tuple[str, list[str]]] = [(root, sorted(graph[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, succs = work[-1]
            if succs:
                nxt = succs.pop()
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(graph[nxt])))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == node:
                        break
                if len(component) > 1 or node in graph[node]:
                    cyclic.update(component)
    return cyclic


def inline_call(call: func.CallOp, callee: func.FuncOp) -> None:
    """Replace ``call`` by a copy of ``callee``'s single-block body."""
    block = callee.body.block
    mapping: dict[SSAValue, SSAValue] = dict(zip(block.args, call.arguments, strict=True))
    parent = call.parent_block()
    assert parent is not None
    ret = block.last_op
    assert isinstance(ret, func.ReturnOp)
    created: set[SSAValue] = set()
    for op in block.ops:
        if op is ret:
            break
        clone = op.clone(mapping)
        created.update(clone.results)
        parent.insert_op_before(clone, call)
    results = [mapping.get(v, v) for v in ret.arguments]
    for old, new in zip(call.results, results, strict=True):
        if old.name_hint and new in created:
            new.name_hint = old.name_hint  # the caller's name reads better
        old.replace_all_uses_with(new)
    parent.erase_op(call)


def inline_module(module: ModuleOp, max_rounds: int = 64) -> int:
    """Inline to a fixpoint; returns the number of calls inlined."""
    functions = _functions(module)
    cyclic = _cyclic(functions)
    candidates = {
        name: f
        for name, f in functions.items()
        if name not in cyclic and not f.is_declaration and _inlinable_body(f)
    }
    total = 0
    for _ in range(max_rounds):
        changed = 0
        for call in _calls(module):
            if call.parent is None:
                continue
            if call.callee.nested_references.data:
                continue
            callee = candidates.get(call.callee.root_reference.data)
            if callee is None or callee.is_ancestor(call):
                continue
            if [a.type for a in callee.body.block.args] != [v.type for v in call.arguments]:
                continue
            inline_call(call, callee)
            changed += 1
        total += changed
        if not changed:
            break
    return total


@dataclass(frozen=True)
class InlinePass(ModulePass):
    """Inline calls to functions defined in the module."""

    name = "inline"

    max_iterations: int = option(
        64, "rounds of inlining (calls exposed by inlining are inlined in the next round)", minimum=0)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.max_iterations < 0:
            raise ValueError("max-iterations must be non-negative")
        inline_module(op, self.max_iterations)
