"""Rule tables of the `ad` pass, keyed by op class.

Each differentiable op class has a JVP rule and a VJP rule; each
non-differentiable one is listed in ``NONDIFF`` (its results carry no
derivative: compares, integer and index ops, ``tensor.empty``, ...). Ops with
regions (``loop.*``) and calls are handled by the driver, and listed in
``STRUCTURAL``. A test enumerates the loaded dialects and fails when an op is
in none of these tables.

Signatures (``None`` is a symbolic zero everywhere):

``jvp(E, op, ins, outs, tangents) -> [tangent | None per result]``
    ``ins``/``outs`` are the primal operands/results in the generated code,
    ``tangents`` one per operand.
``vjp(E, op, ins, outs, adjoints, need) -> [adjoint | Contribution | None per operand]``
    ``adjoints`` one per result, ``need[i]`` tells whether operand i wants
    its adjoint (it is active); a rule may return a :class:`Contribution`,
    a sparse update that the adjoint map adds into an accumulator in place.

The inputs of an op are its operands, then (for an op with regions, such as
``tensor.pad``) the values its regions capture from outside
(:func:`rule_inputs`): ``ins``, ``tangents`` and ``need`` list them all, so
that a rule sees every value its result depends on. A rule returns ``None``
for an input only where the derivative is zero; where it cannot produce one
for an active input it raises a located error (``op_error``), never a
silent zero.

Elementwise ops have no entry here: their rules are generated from the
partial derivatives of their declaration (``irtoolkit/dialects/elementwise.py``;
``partials(E, ins, outs, need) -> [∂out/∂in_i | ONE | NEG_ONE | None]``), and
an op declared ``differentiable=False`` is non-differentiable. An explicit
entry takes precedence over a declaration.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from xdsl.ir import Operation, SSAValue

from irtoolkit.dialects.elementwise import NEG_ONE, ONE, declared_partials, meaning_of

JVP: dict[type, Callable[..., list]] = {}
VJP: dict[type, Callable[..., list]] = {}
NONDIFF: set[type] = set()  # results never carry derivatives
PRIMAL_ONLY: set[type] = set()  # side effects (prints): run once, in the primal code, never replayed
STRUCTURAL: set[type] = set()  # handled by the driver (regions, calls, terminators)
UNSUPPORTED: dict[type, str] = {}  # known, not differentiable: a located error when active


class Contribution:
    """A sparse adjoint contribution: ``materialize`` into zeros, or ``add_into`` an accumulator."""

    def materialize(self, E, zeros: SSAValue) -> SSAValue:  # pragma: no cover - interface
        raise NotImplementedError

    def add_into(self, E, acc: SSAValue) -> SSAValue:  # pragma: no cover - interface
        raise NotImplementedError


class ElementContribution(Contribution):
    """``adjoint[idx] += value`` (the adjoint of ``tensor.extract``)."""

    def __init__(self, value: SSAValue, indices: list[SSAValue]):
        self.value, self.indices = value, indices

    def materialize(self, E, zeros):
        return E.insert(self.value, zeros, self.indices)

    def add_into(self, E, acc):
        old = E.extract(acc, self.indices)
        return E.insert(E.add(old, self.value), acc, self.indices)


class SliceContribution(Contribution):
    """``adjoint[slice] += value`` (the adjoint of ``tensor.extract_slice``)."""

    def __init__(self, value: SSAValue, offsets, sizes, strides):
        self.value, self.offsets, self.sizes, self.strides = value, offsets, sizes, strides

    def materialize(self, E, zeros):
        return E.insert_slice(self.value, zeros, self.offsets, self.sizes, self.strides)

    def add_into(self, E, acc):
        old = E.extract_slice(acc, self.offsets, self.sizes, self.strides, self.value.type)
        return E.insert_slice(E.add(old, self.value), acc, self.offsets, self.sizes, self.strides)


def derivatives(cls: type, jvp: Callable | None = None, vjp: Callable | None = None) -> None:
    """Register the JVP and/or the VJP rule of ``cls`` (signatures in the module doc)."""
    if jvp is not None:
        JVP[cls] = jvp
    if vjp is not None:
        VJP[cls] = vjp


def captured_values(op: Operation) -> list[SSAValue]:
    """Values used in the regions of ``op`` and defined outside it, in order of first use."""
    seen: dict[SSAValue, None] = {}
    for inner in op.walk():
        if inner is op:
            continue
        for v in inner.operands:
            if not op.is_ancestor(v.owner):
                seen.setdefault(v, None)
    return list(seen)


def rule_inputs(op: Operation) -> list[SSAValue]:
    """What a rule of ``op`` differentiates with respect to: operands, then captured values."""
    if not op.regions:
        return list(op.operands)
    return [*op.operands, *captured_values(op)]


def register(cls: type, jvp: Callable, vjp: Callable) -> None:
    derivatives(cls, jvp, vjp)


def nondiff(*classes: type) -> None:
    NONDIFF.update(classes)


def primal_only(*classes: type) -> None:
    PRIMAL_ONLY.update(classes)


def unsupported(cls: type, reason: str) -> None:
    UNSUPPORTED[cls] = reason


def structural(*classes: type) -> None:
    STRUCTURAL.update(classes)


def _apply_partial(E, p, v: SSAValue) -> SSAValue:
    if p is ONE:
        return v
    if p is NEG_ONE:
        return E.neg(v)
    return E.mul(v, p)


@functools.cache  # (one rule per declaration, not one per op differentiated)
def jvp_from_partials(partials: Callable) -> Callable:
    """The JVP rule of an elementwise op with these partial derivatives."""

    def jvp(E, op, ins, outs, tangents):
        need = [t is not None for t in tangents]
        ps = partials(E, ins, outs, need)
        total = None
        for p, t in zip(ps, tangents):
            if t is None or p is None:
                continue
            total = E.accumulate(total, _apply_partial(E, p, t))
        return [total]

    return jvp


@functools.cache
def vjp_from_partials(partials: Callable) -> Callable:
    """The VJP rule of an elementwise op with these partial derivatives."""

    def vjp(E, op, ins, outs, adjoints, need):
        (a,) = adjoints
        ps = partials(E, ins, outs, need)
        return [
            _apply_partial(E, p, a) if (n and p is not None) else None
            for p, n in zip(ps, need)
        ]

    return vjp


def linear_unary(cls: type, apply: Callable, transpose: Callable) -> None:
    """A linear op of one differentiated operand: ``apply(E, op, t)``, ``transpose(E, op, a, ins)``."""

    def jvp(E, op, ins, outs, tangents):
        t = tangents[0]
        return [None if t is None else apply(E, op, t, ins, outs)] + [None] * (len(outs) - 1)

    def vjp(E, op, ins, outs, adjoints, need):
        a = adjoints[0]
        res: list[Any] = [None] * len(ins)
        if a is not None and need[0]:
            res[0] = transpose(E, op, a, ins, outs)
        return res

    register(cls, jvp, vjp)


_LOADED = False


def load_rules() -> None:
    """Import every rule module (once)."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    from irtoolkit.passes.ad import (  # noqa: F401
        rules_arith,
        rules_conv,
        rules_func,
        rules_indexed,
        rules_math,
        rules_tensor,
    )


def _by_class(table, op: Operation | type, answer: Callable[[Any, type], Any]):
    """``answer(table, cls)`` for the class ``cls`` of ``op``, remembered per class (the
    driver asks for every op; the key holds the table's identity and size, as the
    tables only grow, and tests substitute whole tables)."""
    cls = op if isinstance(op, type) else type(op)
    key = (id(table), len(table), cls)
    try:
        return _BY_CLASS[key]
    except KeyError:
        load_rules()
        found = _BY_CLASS[key] = answer(table, cls)
        return found


_BY_CLASS: dict[tuple[int, int, type], Any] = {}


def _nearest_entry(table: dict, cls: type):
    return next((table[c] for c in cls.__mro__ if c in table), None)


def _in_table(table: set[type], cls: type) -> bool:
    return any(c in table for c in cls.__mro__)


def _lookup(table, op: Operation | type):
    """The entry of the class of ``op`` or of its nearest base in ``table``."""
    return _by_class(table, op, _nearest_entry)


def _rule(table, from_partials: Callable, op: Operation | type):
    rule = _lookup(table, op)
    if rule is None:
        partials = declared_partials(op if isinstance(op, type) else type(op))
        if partials is not None:
            rule = from_partials(partials)
    return rule


def jvp_rule(op: Operation | type):
    """The JVP rule of an op (or op class): registered, or generated from its declaration."""
    return _rule(JVP, jvp_from_partials, op)


def vjp_rule(op: Operation | type):
    """The VJP rule of an op (or op class): registered, or generated from its declaration."""
    return _rule(VJP, vjp_from_partials, op)


def no_rule_message(op: Operation | type) -> str:
    """Why an active op has no derivative: its registered reason, or the generic words."""
    reason = _lookup(UNSUPPORTED, op)
    if reason:
        return f"cannot be differentiated: {reason}"
    return "cannot be differentiated (no derivative rule for this op)"


def _listed(table: set[type], op: Operation | type) -> bool:
    """Whether the class of ``op`` or one of its bases is in ``table``."""
    return _by_class(table, op, _in_table)


def is_nondiff(op: Operation | type) -> bool:
    if _listed(NONDIFF, op):
        return True
    meaning = meaning_of(op)
    return meaning is not None and not meaning.differentiable


def is_primal_only(op: Operation | type) -> bool:
    return _listed(PRIMAL_ONLY, op)


def is_structural(op: Operation | type) -> bool:
    return _listed(STRUCTURAL, op)
