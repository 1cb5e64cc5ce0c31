"""Run-time checks: what the verifier could not check statically.

Each check is ``arith.cmpi`` + ``cf.assert`` with a message naming the op,
located at the op (a failing check raises ``RuntimeCheckError`` in compiled
code, where ``to_llvm/cf.py`` reports the two compared values, and a located
diagnostic in the interpreter). Checks are emitted only where a compared value
is not a constant, so static shapes stay check-free. They are emitted through
a ``KernelEmitter`` at its insertion point: inline by the bufferizing rules,
before the nest by a kernel.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from xdsl.dialects import arith, cf, memref
from xdsl.dialects import tensor as upstream
from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerAttr, TensorType
from xdsl.ir import Attribute, Operation, SSAValue

from irtoolkit.diagnostics import op_error

if TYPE_CHECKING:
    from irtoolkit.passes.lowering.kernel import KernelEmitter

#: a ``tensor.extract`` / ``tensor.insert`` with this (discardable, unit) attribute has
#: indices known to be in bounds (a kernel's shape checks run before its nest): no
#: run-time bounds check is emitted for it, which keeps the loop free of ``cf.assert``
#: (vectorizable, and splittable over threads by ``lower-loop-to-cf``)
IN_BOUNDS = "irt.in_bounds"


def in_bounds(op: Operation) -> Operation:
    """``op`` (an extract or insert) marked :data:`IN_BOUNDS`."""
    from xdsl.dialects.builtin import UnitAttr

    op.attributes[IN_BOUNDS] = UnitAttr()
    return op


def shape(v: SSAValue) -> tuple[int, ...]:
    t = v.type
    assert isinstance(t, TensorType)
    return tuple(t.get_shape())


def element(v: SSAValue) -> Attribute:
    """The element type of a tensor value."""
    t = v.type
    assert isinstance(t, TensorType)
    return t.get_element_type()


def constant_index(E: KernelEmitter, v: SSAValue) -> int | None:
    """The value of an integer constant (of the emitter or of the program), else None."""
    c = E.const_values.get(v)
    if c is not None:
        return c  # type: ignore[return-value]
    owner = v.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def check_cmp(E: KernelEmitter, op: Operation, pred: str, a: SSAValue, b: SSAValue, what: str) -> None:
    """Assert ``a <pred> b`` (index values) at run time, located at ``op``, unless both
    are constants (then the verifier has checked it, or it holds)."""
    ca, cb = constant_index(E, a), constant_index(E, b)
    if ca is not None and cb is not None:
        holds = {"eq": ca == cb, "ne": ca != cb, "ult": 0 <= ca < cb if cb >= 0 else False,
                 "ule": 0 <= ca <= cb if cb >= 0 else False, "sge": ca >= cb}
        if holds.get(pred, False):
            return
    with E.located(op.location):
        ok = E.emit1(arith.CmpiOp(a, b, pred))
        E.emit(cf.AssertOp(ok, f"'{op.name}' op {what}"))


def check_eq(E: KernelEmitter, op: Operation, a: SSAValue, b: SSAValue, what: str) -> None:
    if a is not b:
        check_cmp(E, op, "eq", a, b, what)


def check_nonnegative(E: KernelEmitter, op: Operation, v: SSAValue, what: str) -> None:
    if isinstance(v.owner, memref.DimOp | upstream.DimOp):
        return  # the size of a buffer or tensor
    check_cmp(E, op, "sge", v, E.index(0), what)


def check_in_bounds(E: KernelEmitter, op: Operation, idx: Sequence[SSAValue],
                    dims: Sequence[SSAValue]) -> None:
    """0 <= idx[k] < dims[k] (one unsigned compare per index)."""
    for k, (i, d) in enumerate(zip(idx, dims)):
        check_cmp(E, op, "ult", i, d, f"index out of bounds in dim {k} (index vs dim size)")


def result_sizes(E: KernelEmitter, res: SSAValue, known: Sequence[SSAValue | None],
                 check: bool = True) -> list[SSAValue]:
    """Sizes of result ``res``: static ones from its type, dynamic ones from ``known``.

    With ``check``, a static result size whose ``known`` size is a run-time
    value is checked at run time against it."""
    out = []
    for i, s in enumerate(shape(res)):
        if s != DYNAMIC_INDEX:
            out.append(E.index(s))
            k = known[i] if check and i < len(known) else None
            if k is not None and constant_index(E, k) is None:
                check_eq(E, res.owner, k, out[-1],  # type: ignore[arg-type]
                         f"result dim {i} does not match the operands at run time "
                         "(operand size vs result type)")
        else:
            k = known[i] if i < len(known) else None
            if k is None:
                raise op_error(res.owner, f"cannot determine dynamic size #{i} of the result")  # type: ignore[arg-type]
            out.append(k)
    return out


def check_same_shapes(E: KernelEmitter, op: Operation, operands: Sequence[SSAValue],
                      sizes: Callable[[SSAValue], Sequence[SSAValue]]) -> None:
    """The tensor ``operands`` of an elementwise ``op`` (and its result type) agree in
    every dim that is dynamic somewhere; ``sizes(v)`` gives an operand's sizes. Static
    shapes emit nothing."""
    res = op.results[0]
    shapes = [shape(v) for v in operands]
    rshape = shape(res)
    if DYNAMIC_INDEX not in rshape and all(DYNAMIC_INDEX not in s for s in shapes):
        return
    number = {v: i for i, v in reversed(list(enumerate(op.operands)))}
    dims = {v: sizes(v) for v in operands}
    for k in range(len(rshape)):
        if all(s[k] != DYNAMIC_INDEX for s in shapes):
            continue  # equal (verified) and matching the result (verified)
        ref = operands[0]
        for v in operands[1:]:
            if v is ref or (shape(ref)[k] != DYNAMIC_INDEX and shape(v)[k] != DYNAMIC_INDEX):
                continue
            check_eq(E, op, dims[ref][k], dims[v][k],
                     f"operand shapes differ at run time: dim {k} of operand #{number[ref]} "
                     f"vs operand #{number[v]}")
        if rshape[k] != DYNAMIC_INDEX and shape(ref)[k] == DYNAMIC_INDEX:
            check_eq(E, op, dims[ref][k], E.index(rshape[k]),
                     f"operand shape differs from the result type at run time: dim {k} of "
                     f"operand #{number[ref]} vs the result")


def check_broadcastable(E: KernelEmitter, op: Operation, got: SSAValue, want: SSAValue,
                        operand_dim: int, result_dim: int, maybe_one: bool = True) -> None:
    """A broadcast's operand dim (``got``, run-time) is the result's size ``want``, or
    (``maybe_one``: the operand dim is dynamic) 1."""
    if maybe_one:
        with E.located(op.location):
            is1 = E.emit1(arith.CmpiOp(got, E.index(1), "eq"))
            got = E.emit1(arith.SelectOp(is1, want, got))
    check_eq(E, op, got, want, f"cannot broadcast at run time: operand dim {operand_dim} is neither "
                               f"1 nor the size of result dim {result_dim} (operand size vs result size)")
