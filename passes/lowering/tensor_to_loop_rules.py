"""Per-op rules of `lower-tensor-to-loop`, one per op class (see ``lowering_rule``).

Each rule gets the bufferizing driver ``L`` (a :class:`TensorLowering`, which
is a ``KernelEmitter`` with buffers: ``L.buf``, ``L.dims``, ``L.fresh``,
``L.load``, ``L.store``, ``L.nest`` ...) and the original op; it emits
memref/loop/arith ops through ``L`` and maps every result with
``L.set_result`` (tensor results: fresh buffers owned by the current block,
unless said otherwise). Elementwise ops and reductions have no rule: they are
kernels by then (``kernel.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from xdsl.dialects import arith, memref
from xdsl.dialects import tensor as upstream
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue

from irtoolkit.diagnostics import op_error
from irtoolkit.dialects import tensor
from irtoolkit.dialects.elementwise import ElementKind, element_kind
from irtoolkit.passes.lowering.blas import lower_dot_gemm
from irtoolkit.passes.lowering.checks import (
    IN_BOUNDS,
    check_broadcastable,
    check_cmp,
    check_eq,
    check_in_bounds,
    check_nonnegative,
    constant_index,
    result_sizes,
    shape,
)
from irtoolkit.passes.lowering.dot_loops import lower_dot_loops

if TYPE_CHECKING:
    from irtoolkit.passes.lowering.tensor_to_loop import TensorLowering

Rule = Callable[["TensorLowering", Operation], None]
#: op class -> its rule (looked up along the class's MRO: a rule for xDSL's upstream
#: class serves our subclass too)
RULES: dict[type[Operation], Rule] = {}


def lowering_rule(*classes: type[Operation]) -> Callable[[Rule], Rule]:
    """Decorator: ``fn(L, op)`` lowers the ops of ``classes`` (public: ``irtoolkit.extend``)."""

    def deco(fn: Rule) -> Rule:
        for cls in classes:
            RULES[cls] = fn
        return fn

    return deco


def rule_of(op: Operation) -> Rule | None:
    for cls in type(op).__mro__:
        rule = RULES.get(cls)
        if rule is not None:
            return rule
    return None


# ---------------------------------------------------------------------------
# helpers


def elem(v: SSAValue) -> Attribute:
    t = v.type
    assert isinstance(t, TensorType)
    return t.get_element_type()


def int_list(attr: Attribute | None) -> list:
    """The integers of a dense array, an array of integer attributes (nested lists for
    nested arrays) or dense elements."""
    if attr is None:
        return []
    if isinstance(attr, DenseArrayBase):
        return [int(v) for v in attr.get_values()]
    if isinstance(attr, ArrayAttr):
        out: list = []
        for a in attr.data:
            if isinstance(a, IntegerAttr):
                out.append(a.value.data)
            elif isinstance(a, IntAttr):
                out.append(a.data)
            else:
                out.append(int_list(a))
        return out
    if isinstance(attr, DenseIntOrFPElementsAttr):
        return [int(v) for v in attr.get_values()]
    raise TypeError(f"expected a list of integers, got {attr}")


def prop(op: Operation, name: str) -> Attribute | None:
    value = op.properties.get(name)
    return op.attributes.get(name) if value is None else value


def _is_constant(L: TensorLowering, v: SSAValue) -> bool:
    return constant_index(L, v) is not None


def unsupported(op: Operation, what: str) -> Exception:
    return op_error(op, f"{what} is not supported by 'lower-tensor-to-loop'")


def virtual_splat(L: TensorLowering, res: SSAValue, scalar: SSAValue) -> bool:
    """A statically shaped splat read only by ``tensor.extract`` gets no buffer: the
    extracts read ``scalar`` (kernels read splats as scalars already)."""
    if DYNAMIC_INDEX in shape(res) or not res.uses:
        return False
    if not all(isinstance(u.operation, upstream.ExtractOp) and u.index == 0 for u in res.uses):
        return False
    L.splats[res] = scalar
    return True


# ---------------------------------------------------------------------------
# structured ops
# ---------------------------------------------------------------------------


@lowering_rule(tensor.MatmulOp, tensor.DotOp)
def lower_dot(L: TensorLowering, op: Operation) -> None:
    """Large float dots (a matmul is the dot `contract [1] x [0]`) call BLAS gemm
    (transposed operands folded into its flags, see :func:`plan_dots`); the others
    become loop nests (``dot_loops.py``)."""
    if op in L.gemm_dots:
        lower_dot_gemm(L, op)  # type: ignore[arg-type]
    else:
        lower_dot_loops(L, op)


@lowering_rule(tensor.AddOp)
def lower_accumulated_add(L: TensorLowering, op: Operation) -> None:
    """The adds kept out of kernels by :func:`plan_accumulations` (all others are
    kernels by now): the dot right before it added into its buffer already."""
    side = L.gemm_accumulate.get(op)
    if side is None:
        raise unsupported(op, "a 'tensor.add' that is no kernel")
    p = op.operands[side]
    taken = L.try_consume(p)
    assert taken, "the accumulating dot's result dies at its add"
    L.set_result(op.results[0], L.buf(p))


@lowering_rule(tensor.TransposeOp)
def lower_transpose(L: TensorLowering, op: Operation) -> None:
    if windows.defer_transpose(L, op):  # type: ignore[arg-type]
        return
    src, res = op.operands[0], op.results[0]
    perm = int_list(prop(op, "permutation"))
    sd = L.dims(src)
    dims = result_sizes(L, res, [sd[p] for p in perm])
    out = L.fresh(res, dims)
    b = L.buf(src)

    def body(ivs: list[SSAValue]) -> None:
        s_idx: list[SSAValue] = [None] * len(perm)  # type: ignore[list-item]
        for i, p in enumerate(perm):
            s_idx[p] = ivs[i]
        L.store(L.load(b, s_idx), out, ivs)

    L.for_each(dims, body)


@lowering_rule(tensor.BroadcastOp)
def lower_broadcast(L: TensorLowering, op: Operation) -> None:
    src, res = op.operands[0], op.results[0]
    bdims = int_list(prop(op, "dimensions"))
    sshape, rshape = shape(src), shape(res)
    sd = L.dims(src)
    known: list[SSAValue | None] = [None] * len(rshape)
    for i, d in enumerate(bdims):
        if sshape[i] != 1:
            known[d] = sd[i]
    dims = result_sizes(L, res, known, check=False)
    # each source dim is 1 (it expands) or the size of the result dim it maps to
    for i, d in enumerate(bdims):
        if sshape[i] == 1 or (sshape[i] != DYNAMIC_INDEX and rshape[d] != DYNAMIC_INDEX):
            continue
        if sd[i] is not dims[d]:
            check_broadcastable(L, op, sd[i], dims[d], i, d, maybe_one=sshape[i] == DYNAMIC_INDEX)
    out = L.fresh(res, dims)
    b = L.buf(src)

    def body(ivs: list[SSAValue]) -> None:
        idx = []
        for i, d in enumerate(bdims):
            if sshape[i] == 1:
                idx.append(L.index(0))
            elif sshape[i] == DYNAMIC_INDEX:
                # a dynamic operand dim of size 1 expands: index 0 then
                is1 = L.emit1(arith.CmpiOp(sd[i], L.index(1), "eq"))
                idx.append(L.emit1(arith.SelectOp(is1, L.index(0), ivs[d])))
            else:
                idx.append(ivs[d])
        L.store(L.load(b, idx), out, ivs)

    L.for_each(dims, body)


@lowering_rule(tensor.ArgMaxOp, tensor.ArgMinOp)
def lower_arg_extreme(L: TensorLowering, op: Operation) -> None:
    """A nest over the result; along the dim a loop carrying the best value and its
    index, replaced only by a strictly better element (so the first extreme wins)
    or, for floats, by the first NaN."""
    src, res = op.operands[0], op.results[0]
    axis: int = op.dim  # type: ignore[attr-defined]
    sd = L.dims(src)
    dims = result_sizes(L, res, [s for i, s in enumerate(sd) if i != axis])
    out = L.fresh(res, dims)
    b = L.buf(src)
    et = elem(src)
    is_max = isinstance(op, tensor.ArgMaxOp)
    start = L.const((tensor.ReduceMaxOp if is_max else tensor.ReduceMinOp).initial(et), et)
    kind = element_kind(et)

    def better(x: SSAValue, best: SSAValue) -> SSAValue:
        if kind is ElementKind.FLOAT:
            strict = L.emit1(arith.CmpfOp(x, best, "ogt" if is_max else "olt"))
            first_nan = L.emit1(arith.AndIOp(L.emit1(arith.CmpfOp(x, x, "uno")),
                                             L.emit1(arith.CmpfOp(best, best, "ord"))))
            return L.emit1(arith.OrIOp(strict, first_nan))
        if kind is ElementKind.I1:
            return L.emit1(arith.CmpiOp(x, best, "ugt" if is_max else "ult"))
        return L.emit1(arith.CmpiOp(x, best, "sgt" if is_max else "slt"))

    def body(ivs: list[SSAValue]) -> None:
        def step(k: list[SSAValue], carried: list[SSAValue]) -> list[SSAValue]:
            best, index = carried
            x = L.load(b, [*ivs[:axis], k[0], *ivs[axis:]])
            take = better(x, best)
            return [L.emit1(arith.SelectOp(take, x, best)), L.emit1(arith.SelectOp(take, k[0], index))]

        _, index = L.nest([sd[axis]], [start, L.index(0)], step)
        L.store(L.emit1(arith.IndexCastOp(index, elem(res))), out, ivs)

    L.for_each(dims, body)


@lowering_rule(tensor.IotaOp)
def lower_iota(L: TensorLowering, op: Operation) -> None:
    res = op.results[0]
    dims = result_sizes(L, res, [])
    out = L.fresh(res, dims)
    et = elem(res)
    axis: int = op.dim  # type: ignore[attr-defined]

    def body(ivs: list[SSAValue]) -> None:
        i = ivs[axis]
        if isinstance(et, IndexType):
            v = i
        elif isinstance(et, AnyFloat):
            v = L.emit1(arith.SIToFPOp(L.emit1(arith.IndexCastOp(i, i64)), et))
        else:
            v = L.emit1(arith.IndexCastOp(i, et))
        L.store(v, out, ivs)

    L.for_each(dims, body)


@lowering_rule(tensor.ReverseOp)
def lower_reverse(L: TensorLowering, op: Operation) -> None:
    src, res = op.operands[0], op.results[0]
    sd = L.dims(src)
    dims = result_sizes(L, res, sd)
    out = L.fresh(res, dims)
    b = L.buf(src)
    last = {d: L.emit1(arith.SubiOp(sd[d], L.index(1))) for d in int_list(prop(op, "dimensions"))}

    def body(ivs: list[SSAValue]) -> None:
        idx = [L.emit1(arith.SubiOp(last[d], iv)) if d in last else iv for d, iv in enumerate(ivs)]
        L.store(L.load(b, idx), out, ivs)

    L.for_each(dims, body)


# ---------------------------------------------------------------------------
# upstream tensor ops
# ---------------------------------------------------------------------------


def _check_sizes(L: TensorLowering, op: Operation, sizes: Sequence[SSAValue | None]) -> None:
    for i, v in enumerate(sizes):
        if v is not None:
            check_nonnegative(L, op, v, f"size of dim {i} is negative (size vs 0)")


@lowering_rule(upstream.EmptyOp)
def lower_empty(L: TensorLowering, op: Operation) -> None:
    res = op.results[0]
    dyn = iter([L.val(v) for v in op.operands])
    known = [next(dyn) if s == DYNAMIC_INDEX else None for s in shape(res)]
    _check_sizes(L, op, known)
    L.fresh(res, result_sizes(L, res, known))


@lowering_rule(upstream.SplatOp)
def lower_splat(L: TensorLowering, op: Operation) -> None:
    res = op.results[0]
    x = L.val(op.operands[0])
    if virtual_splat(L, res, x):
        return
    dyn = iter([L.val(v) for v in op.operands[1:]])
    known = [next(dyn) if s == DYNAMIC_INDEX else None for s in shape(res)]
    _check_sizes(L, op, known)
    dims = result_sizes(L, res, known)
    out = L.fresh(res, dims)
    L.for_each(dims, lambda ivs: L.store(x, out, ivs))


@lowering_rule(upstream.ExtractOp)
def lower_extract(L: TensorLowering, op: Operation) -> None:
    t = op.operands[0]
    if t in L.splats:
        if IN_BOUNDS not in op.attributes:
            check_in_bounds(L, op, [L.val(v) for v in op.operands[1:]], [L.index(d) for d in shape(t)])
        L.set_result(op.results[0], L.splats[t])
        return
    idx = [L.val(v) for v in op.operands[1:]]
    if IN_BOUNDS not in op.attributes:
        check_in_bounds(L, op, idx, L.dims(t))
    L.set_result(op.results[0], L.load(L.buf(t), idx))


@lowering_rule(upstream.InsertOp)
def lower_insert(L: TensorLowering, op: Operation) -> None:
    scalar, dest = op.operands[0], op.operands[1]
    idx = [L.val(v) for v in op.operands[2:]]
    if IN_BOUNDS not in op.attributes:
        check_in_bounds(L, op, idx, L.dims(dest))
    x = L.val(scalar)
    b = L.buf(dest) if L.try_consume(dest) else L.copy_value(dest)
    L.store(x, b, idx)
    L.set_result(op.results[0], b)


@lowering_rule(upstream.FromElementsOp)
def lower_from_elements(L: TensorLowering, op: Operation) -> None:
    res = op.results[0]
    shp = shape(res)
    out = L.fresh(res, result_sizes(L, res, []))
    for n, v in enumerate(op.operands):
        idx = []
        rem = n
        for s in reversed(shp):
            idx.append(rem % s)
            rem //= s
        L.store(L.val(v), out, [L.index(i) for i in reversed(idx)])


def _slice_params(L: TensorLowering, op: Operation) -> tuple[list[SSAValue], list[SSAValue | int], list[SSAValue]]:
    """(offsets, sizes, strides) of an extract/insert_slice, as index values
    (sizes stay ints where static)."""

    offs, sizes, strides = tensor.slice_params(op)
    as_val = lambda x: L.index(x) if isinstance(x, int) else L.val(x)  # noqa: E731
    return ([as_val(o) for o in offs], [n if isinstance(n, int) else L.val(n) for n in sizes],
            [as_val(s) for s in strides])


def _check_slice(L: TensorLowering, op: Operation, offs: list[SSAValue], sizes: list[SSAValue | int],
                 strides: list[SSAValue], big: list[SSAValue]) -> None:
    """Every slice dim lies in the big tensor (as the interpreter checks): size
    and offset >= 0, end <= dim size with end = offset + (size - 1) * stride + 1
    (0 when size is 0: an empty slice may start anywhere). Nothing is emitted
    for a dim whose offset, size, stride and size of the big tensor are all
    static (the verifier checks it)."""
    for d, (o, n, st, b) in enumerate(zip(offs, sizes, strides, big)):
        if isinstance(n, int) and _is_constant(L, o) and _is_constant(L, st) and _is_constant(L, b):
            continue
        if not isinstance(n, int):
            check_nonnegative(L, op, n, f"slice size of dim {d} is negative (size vs 0)")
        check_nonnegative(L, op, o, f"slice offset of dim {d} is negative (offset vs 0)")
        if isinstance(n, int) and n == 0:
            continue
        nv = L.index(n) if isinstance(n, int) else n
        last = L.index_add(o, L.index_mul(L.emit1(arith.SubiOp(nv, L.index(1))), st))
        end = L.emit1(arith.AddiOp(last, L.index(1)))
        if not isinstance(n, int):
            is0 = L.emit1(arith.CmpiOp(nv, L.index(0), "eq"))
            end = L.emit1(arith.SelectOp(is0, L.index(0), end))
        check_cmp(L, op, "ule", end, b, f"slice out of bounds in dim {d} (slice end vs dim size)")


def _kept_dims(sizes: Sequence[SSAValue | int], small_shape: Sequence[int]) -> list[int]:
    """Which slice dims appear in the (possibly rank-reduced) slice tensor."""
    if len(small_shape) == len(sizes):
        return list(range(len(sizes)))
    kept: list[int] = []
    j = 0
    for i, s in enumerate(sizes):
        if j < len(small_shape) and (s == small_shape[j] or not isinstance(s, int) or small_shape[j] == DYNAMIC_INDEX):
            # prefer dropping unit dims when more dims remain than needed
            remaining_sizes = len(sizes) - i
            remaining_small = len(small_shape) - j
            if s == 1 and remaining_sizes > remaining_small:
                continue
            kept.append(i)
            j += 1
        elif s != 1:
            raise ValueError("slice sizes do not match the slice type")
    return kept


def _big_index(offs, strides, kept, ivs, L: TensorLowering) -> list[SSAValue]:
    idx = list(offs)
    for k, d in enumerate(kept):
        idx[d] = L.index_add(offs[d], L.index_mul(ivs[k], strides[d]))
    return idx


def _slice(L: TensorLowering, op: Operation, small: SSAValue, big: SSAValue):
    """(offsets, sizes, strides, kept dims) of an extract/insert_slice of ``small`` in
    ``big``, its bounds checked."""
    offs, sizes, strides = _slice_params(L, op)
    kept = _kept_dims(sizes, shape(small))
    _check_slice(L, op, offs, sizes, strides, L.dims(big))
    return offs, sizes, strides, kept


@lowering_rule(upstream.ExtractSliceOp)
def lower_extract_slice(L: TensorLowering, op: Operation) -> None:
    src, res = op.operands[0], op.results[0]
    offs, sizes, strides, kept = _slice(L, op, res, src)
    known = [sizes[d] if isinstance(sizes[d], SSAValue) else None for d in kept]
    dims = result_sizes(L, res, known)
    out = L.fresh(res, dims)
    b = L.buf(src)
    L.for_each(dims, lambda ivs: L.store(L.load(b, _big_index(offs, strides, kept, ivs, L)), out, ivs))


@lowering_rule(upstream.InsertSliceOp)
def lower_insert_slice(L: TensorLowering, op: Operation) -> None:
    src, dest = op.operands[0], op.operands[1]
    offs, sizes, strides, kept = _slice(L, op, src, dest)
    sd = L.dims(src)
    for k, d in enumerate(kept):
        n = sizes[d]
        check_eq(L, op, sd[k], L.index(n) if isinstance(n, int) else n,
                 f"source dim {k} does not match the slice size at run time (source size vs slice size)")
    sb = L.buf(src)
    in_place = src is not dest and L.try_consume(dest)
    b = L.buf(dest) if in_place else L.copy_value(dest)
    dims = L.dims_of_buf(sb)
    L.for_each(dims, lambda ivs: L.store(L.load(sb, ivs), b, _big_index(offs, strides, kept, ivs, L)))
    L.set_result(op.results[0], b)


def _reassociation(op: Operation) -> list[list[int]]:
    return [list(g) for g in int_list(prop(op, "reassociation"))]  # type: ignore[arg-type]


def _reshape_copy(L: TensorLowering, op: Operation, dims: list[SSAValue],
                  src_index: Callable[[list[SSAValue]], list[SSAValue]]) -> None:
    res = op.results[0]
    out = L.fresh(res, dims)
    b = L.buf(op.operands[0])
    L.for_each(dims, lambda ivs: L.store(L.load(b, src_index(ivs)), out, ivs))


@lowering_rule(upstream.CollapseShapeOp)
def lower_collapse_shape(L: TensorLowering, op: Operation) -> None:
    src, res = op.operands[0], op.results[0]
    groups = _reassociation(op)
    sd = L.dims(src)
    known: list[SSAValue | None] = []
    for g in groups:
        consts = [constant_index(L, sd[d]) for d in g]
        if None not in consts:  # static group: a constant (no run-time check)
            n = 1
            for c in consts:
                n *= c  # type: ignore[operator]
            known.append(L.index(n))
            continue
        size = sd[g[0]]
        for d in g[1:]:
            size = L.emit1(arith.MuliOp(size, sd[d]))
        known.append(size)
    dims = result_sizes(L, res, known)

    def src_index(ivs: list[SSAValue]) -> list[SSAValue]:
        idx: list[SSAValue] = [None] * len(sd)  # type: ignore[list-item]
        for g, r in zip(groups, ivs):
            rem = r
            for d in reversed(g[1:]):
                idx[d] = L.emit1(arith.RemUIOp(rem, sd[d]))
                rem = L.emit1(arith.DivUIOp(rem, sd[d]))
            idx[g[0]] = rem
        for d in range(len(sd)):  # unit dims not in any group (rank-0 collapse)
            if idx[d] is None:
                idx[d] = L.index(0)
        return idx

    _reshape_copy(L, op, dims, src_index)


@lowering_rule(upstream.ExpandShapeOp)
def lower_expand_shape(L: TensorLowering, op: Operation) -> None:
    src, res = op.operands[0], op.results[0]
    groups = _reassociation(op)
    rshape = shape(res)
    dyn = iter([L.val(v) for v in op.operands[1:]])
    static = int_list(prop(op, "static_output_shape")) or list(rshape)
    known: list[SSAValue | None] = [next(dyn, None) if s == DYNAMIC_INDEX else None for s in static]
    sd = L.dims(src)
    # a group with exactly one dynamic dim: it is the source size / the product of the others
    for g, s in zip(groups, sd):
        missing = [d for d in g if rshape[d] == DYNAMIC_INDEX and known[d] is None]
        if len(missing) == 1:
            prod = L.index(1)
            for d in g:
                if d != missing[0]:
                    prod = L.emit1(arith.MuliOp(prod, known[d] if rshape[d] == DYNAMIC_INDEX else L.index(rshape[d])))  # type: ignore[arg-type]
            check_cmp(L, op, "ne", prod, L.index(0),
                      f"cannot infer result dim {missing[0]}: the other sizes of its group multiply to 0")
            known[missing[0]] = L.emit1(arith.DivUIOp(s, prod))
    dims = result_sizes(L, res, known)
    # each source dim is the product of its group of result dims
    for j, (g, s) in enumerate(zip(groups, sd)):
        if _is_constant(L, s) and all(rshape[d] != DYNAMIC_INDEX for d in g):
            continue
        for d in g:
            if rshape[d] == DYNAMIC_INDEX:
                check_nonnegative(L, op, dims[d], f"result size of dim {d} is negative (size vs 0)")
        prod = L.index(1)
        for d in g:
            prod = L.index_mul(prod, dims[d])
        check_eq(L, op, prod, s, f"reassociation group {j} does not match source dim {j} at run time "
                                 "(product of result sizes vs source size)")

    def src_index(ivs: list[SSAValue]) -> list[SSAValue]:
        idx = []
        for g in groups:
            acc = ivs[g[0]]
            for d in g[1:]:
                acc = L.emit1(arith.AddiOp(L.emit1(arith.MuliOp(acc, dims[d])), ivs[d]))
            idx.append(acc)
        return idx

    _reshape_copy(L, op, dims, src_index)


@lowering_rule(upstream.DimOp)
def lower_dim(L: TensorLowering, op: Operation) -> None:
    src, i = op.operands[0], op.operands[1]
    from xdsl.dialects import memref

    L.set_result(op.results[0], L.emit1(memref.DimOp(L.buf(src), L.val(i))))


@lowering_rule(upstream.CastOp)
def lower_cast(L: TensorLowering, op: Operation) -> None:
    src, res = op.operands[0], op.results[0]
    if not isinstance(res.type, TensorType):
        raise unsupported(op, "casting to an unranked tensor")
    sd = L.dims(src)
    dims = result_sizes(L, res, sd)
    out = L.fresh(res, dims)
    b = L.buf(src)
    L.for_each(dims, lambda ivs: L.store(L.load(b, ivs), out, ivs))


@lowering_rule(upstream.ConcatOp)
def lower_concat(L: TensorLowering, op: Operation) -> None:
    res = op.results[0]
    axis = prop(op, "dim")
    axis = axis.value.data if isinstance(axis, IntegerAttr) else int(axis)  # type: ignore[arg-type]
    first = op.operands[0]
    fd = L.dims(first)
    total = fd[axis]
    for j, v in enumerate(op.operands[1:], 1):
        vd = L.dims(v)
        for k in range(len(fd)):
            if k != axis:
                check_eq(L, op, fd[k], vd[k], f"operand shapes differ at run time: dim {k} of "
                                              f"operand #0 vs operand #{j}")
        total = L.emit1(arith.AddiOp(total, vd[axis]))
    known = list(fd)
    known[axis] = total
    dims = result_sizes(L, res, known)
    out = L.fresh(res, dims)
    offset = L.index(0)
    for v in op.operands:
        b = L.buf(v)
        vd = L.dims_of_buf(b)

        def body(ivs: list[SSAValue], b=b, offset=offset) -> None:
            idx = list(ivs)
            idx[axis] = L.emit1(arith.AddiOp(ivs[axis], offset))
            L.store(L.load(b, ivs), out, idx)

        L.for_each(vd, body)
        offset = L.emit1(arith.AddiOp(offset, vd[axis]))


def fill_from_region(L: TensorLowering, op: Operation, out: SSAValue, dims: Sequence[SSAValue]) -> None:
    """Store into ``out``, at each index of ``dims``, the scalar that the single-block
    region of ``op`` (`tensor.pad`, `tensor.generate`) yields for it: the region's ops
    are cloned into the loop nest, its arguments being the indices. The region must
    compute scalars only."""
    region_block = op.regions[0].blocks.first
    assert region_block is not None
    inner_ops = list(region_block.ops)
    for o in op.regions[0].walk():
        if any(isinstance(v.type, TensorType) for v in (*o.operands, *o.results)):
            raise unsupported(op, f"a '{op.name}' region using tensors")
    # values from outside the region, used inside it
    outer: dict[SSAValue, SSAValue] = {}
    for o in op.regions[0].walk():
        for v in o.operands:
            if v in L.vmap and v not in outer:
                outer[v] = L.vmap[v]

    def fill(ivs: list[SSAValue]) -> None:
        mapper: dict[SSAValue, SSAValue] = dict(outer)
        mapper.update(zip(region_block.args, ivs))
        for o in inner_ops[:-1]:
            new = o.clone(value_mapper=mapper)
            L.emit(new)
            mapper.update(zip(o.results, new.results))
        y = inner_ops[-1].operands[0]
        L.store(mapper.get(y, y), out, ivs)

    L.for_each(dims, fill)


@lowering_rule(upstream.PadOp)
def lower_pad(L: TensorLowering, op: Operation) -> None:
    """Fill the result with the region's value at each index, then copy the
    source in at offset ``low``."""
    src, res = op.operands[0], op.results[0]

    def mix(static: list[int], dyn) -> list[SSAValue]:
        it = iter(dyn)
        return [L.val(next(it)) if x == DYNAMIC_INDEX else L.index(x) for x in static]

    low = mix(int_list(prop(op, "static_low")), op.low)  # type: ignore[attr-defined]
    high = mix(int_list(prop(op, "static_high")), op.high)  # type: ignore[attr-defined]
    for d, (lo, hi) in enumerate(zip(low, high)):  # negative padding would write out of bounds
        check_nonnegative(L, op, lo, f"low padding of dim {d} is negative (padding vs 0)")
        check_nonnegative(L, op, hi, f"high padding of dim {d} is negative (padding vs 0)")
    sd = L.dims(src)
    known = [L.index_add(L.index_add(d, lo), hi) for d, lo, hi in zip(sd, low, high)]
    dims = result_sizes(L, res, known)
    out = L.fresh(res, dims)
    fill_from_region(L, op, out, dims)
    b = L.buf(src)
    L.for_each(sd, lambda ivs: L.store(L.load(b, ivs), out, [L.index_add(i, lo) for i, lo in zip(ivs, low)]))


@lowering_rule(arith.ConstantOp)
def lower_dense_constant(L: TensorLowering, op: Operation) -> None:
    res = op.results[0]
    value = op.properties.get("value")
    if value is None:  # not `or`: a dense constant of no elements is falsy
        value = op.attributes.get("value")
    if not isinstance(value, DenseIntOrFPElementsAttr):
        raise unsupported(op, f"constant {value}")
    et = elem(res)
    shp = shape(res)
    n = 1
    for s in shp:
        n *= s
    if n == 0:  # no element to store (and xDSL's `is_splat` fails on no values)
        L.fresh(res, result_sizes(L, res, []))
        return
    raw = getattr(getattr(value, "data", None), "data", None)
    if isinstance(raw, bytes) and n > 1 and len(raw) % n == 0 and len(raw) >= n:
        # a splat stored element by element (1e6 equal values): compare the bytes, do
        # not unpack them
        w = len(raw) // n
        if raw == raw[:w] * n:
            values = [next(iter(value.iter_values()))]
        else:
            values = list(value.get_values())
    else:
        values = list(value.get_values())
    if len(values) == 1 and n != 1 or value.is_splat() and len(set(values)) <= 1:
        x = L.const(_pyval(values[0], et), et)
        if virtual_splat(L, res, x):
            return
        dims = result_sizes(L, res, [])
        out = L.fresh(res, dims)
        L.for_each(dims, lambda ivs: L.store(x, out, ivs))
        return
    threshold = L.options.global_threshold
    if threshold >= 0 and n > threshold:
        L.set_result(res, L.global_constant(value, res.type), owned=False)
        return
    out = L.fresh(res, result_sizes(L, res, []))
    for k, v in enumerate(values):
        idx = []
        rem = k
        for s in reversed(shp):
            idx.append(rem % s)
            rem //= s
        L.store(L.const(_pyval(v, et), et), out, [L.index(i) for i in reversed(idx)])


def _pyval(v: object, et: Attribute) -> int | float:
    if isinstance(et, AnyFloat):
        return float(v)  # type: ignore[arg-type]
    if isinstance(et, IntegerType) and et.width.data == 1:
        return 1 if v in (True, 1, -1) else 0
    return int(v)  # type: ignore[call-overload]


@lowering_rule(upstream.ReshapeOp)
def lower_reshape(L: TensorLowering, op: Operation) -> None:
    """Row-major reshape: result element k is source element k."""
    src, shp, res = op.operands[0], op.operands[1], op.results[0]
    sb, hb = L.buf(src), L.buf(shp)
    known: list[SSAValue | None] = []
    for i, s in enumerate(shape(res)):
        if s == DYNAMIC_INDEX:
            v = L.load(hb, [L.index(i)])
            if not isinstance(v.type, IndexType):
                v = L.emit1(arith.IndexCastOp(v, IndexType()))
            known.append(v)
        else:
            known.append(None)
    for i, v in enumerate(known):
        if v is not None:
            check_nonnegative(L, op, v, f"result size of dim {i} is negative (size vs 0)")
    dims = result_sizes(L, res, known)
    sd = L.dims_of_buf(sb)
    if any(not _is_constant(L, d) for d in (*dims, *sd)):
        n_res, n_src = L.index(1), L.index(1)
        for d in dims:
            n_res = L.index_mul(n_res, d)
        for d in sd:
            n_src = L.index_mul(n_src, d)
        check_eq(L, op, n_res, n_src, "element counts differ at run time (result vs source)")

    def src_index(ivs: list[SSAValue]) -> list[SSAValue]:
        lin = L.index(0)
        for iv, d in zip(ivs, dims):
            lin = L.index_add(L.index_mul(lin, d), iv)
        idx: list[SSAValue] = []
        for d in reversed(sd[1:]):
            idx.append(L.emit1(arith.RemUIOp(lin, d)))
            lin = L.emit1(arith.DivUIOp(lin, d))
        if sd:
            idx.append(lin)
        return list(reversed(idx))

    _reshape_copy(L, op, dims, src_index)


# rules of other modules register themselves on import
from irtoolkit.passes.lowering import indexed  # noqa: E402,F401
from irtoolkit.passes.lowering import windows  # noqa: E402,F401  (conv and pooling: their own module)
