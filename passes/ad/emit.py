"""Emitting IR from derivative rules: an insertion point plus polymorphic helpers.

Rules are written once for scalars and tensors: ``E.mul(a, b)`` emits
``arith.mulf`` on scalars and ``tensor.mul`` on tensors, ``E.const(1.0, like)``
an ``arith.constant`` of the right type (a dense splat for static tensors, a
``tensor.splat`` for dynamic ones). Every op emitted takes the location of the
op being differentiated.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from irtoolkit.classtest import instance_test
from irtoolkit.dense import splat_dense
from irtoolkit.dialects.elementwise import ElementKind, element_kind, lifted

DYN = -(2**63)  # xDSL DYNAMIC_INDEX, as the parser produces for `?`


def is_float(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


def is_float_like(t: Attribute) -> bool:
    """f32/f64 scalars and tensors of them: the types that carry derivatives."""
    return element_kind(t) is ElementKind.FLOAT  # (by class: AnyFloat is many ABCs)


#: ``isinstance(t, TensorType)``, answered once per class (TensorType is an ABC)
is_tensor = instance_test(TensorType)


def elem_type(t: Attribute) -> Attribute:
    return t.get_element_type() if isinstance(t, TensorType) else t


def const_int(v: SSAValue) -> int | None:
    """The value of an integer/index ``arith.constant``, else None."""
    owner = v.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


@functools.cache  # (an import statement in a function costs ~1 us a call)
def _tensor():
    from irtoolkit.dialects import tensor

    return tensor


def _applying(scalar_op: type[Operation]):
    """The Emitter method that applies ``scalar_op`` (see ``Emitter.apply``)."""
    return lambda self, *operands: self.apply(scalar_op, *operands)


class Emitter:
    """Inserts ops at the end of ``block`` (or before ``before``), located at ``loc``."""

    def __init__(self, block: Block, before: Operation | None = None, loc=None):
        self.block = block
        self.before = before
        self.loc = loc

    def at(self, block: Block, before: Operation | None = None) -> Emitter:
        return Emitter(block, before, self.loc)

    def located(self, loc) -> Emitter:
        return Emitter(self.block, self.before, loc)

    # -- insertion -----------------------------------------------------------
    def op(self, op: Operation) -> Operation:
        if self.loc is not None:
            if op.regions:
                for nested in op.walk():
                    nested.location = self.loc
            else:
                op.location = self.loc
        if self.before is None:
            self.block.add_op(op)
        else:
            self.block.insert_op_before(op, self.before)
        return op

    def raw(self, op: Operation) -> Operation:
        """Insert ``op`` keeping its own location (clones of primal ops)."""
        if self.before is None:
            self.block.add_op(op)
        else:
            self.block.insert_op_before(op, self.before)
        return op

    def v(self, op: Operation) -> SSAValue:
        return self.op(op).results[0]

    # -- constants -----------------------------------------------------------
    def index(self, n: int) -> SSAValue:
        return self.v(arith.ConstantOp(IntegerAttr(n, IndexType())))

    def int_const(self, n: int, t: Attribute) -> SSAValue:
        return self.v(arith.ConstantOp(IntegerAttr(n, t)))

    def const(self, value: float, like: SSAValue | Attribute) -> SSAValue:
        """A constant of ``value`` with the type of ``like`` (a value, or a static type)."""
        t = like if isinstance(like, Attribute) else like.type
        if isinstance(t, TensorType):
            et = t.get_element_type()
            if DYN not in t.get_shape():
                if isinstance(et, (IntegerType, IndexType)):  # e.g. the zero cotangent of an integer result
                    value = int(value)
                return self.v(arith.ConstantOp(splat_dense(t, value)))  # one element, not one per entry
            assert not isinstance(like, Attribute), "dynamic shape needs a value"
            scalar = self.const(value, et)
            sizes = [self.dim(like, i) for i, d in enumerate(t.get_shape()) if d == DYN]
            return self.v(_tensor().SplatOp(scalar, sizes, t))
        if isinstance(t, (IntegerType, IndexType)):
            return self.v(arith.ConstantOp(IntegerAttr(int(value), t)))
        return self.v(arith.ConstantOp(FloatAttr(value, t)))

    def zeros(self, like: SSAValue | Attribute) -> SSAValue:
        return self.const(0.0, like)

    def dim(self, v: SSAValue, i: int) -> SSAValue:
        t = v.type
        assert isinstance(t, TensorType)
        if t.get_shape()[i] != DYN:
            return self.index(t.get_shape()[i])
        return self.v(_tensor().DimOp(v, self.index(i)))

    def empty(self, t: TensorType, dyn_sizes: Sequence[SSAValue] = ()) -> SSAValue:
        return self.v(_tensor().EmptyOp(list(dyn_sizes), t))

    # -- arithmetic (scalar or tensor): the DerivativeBuilder of dialects/elementwise.py --
    def emit1(self, op: Operation) -> SSAValue:
        return self.v(op)

    def apply(self, scalar_op: type[Operation], *operands: SSAValue) -> SSAValue:
        """``scalar_op`` on scalars; on tensors, the tensor op declared with it as its
        float counterpart. A neutral operand (``x + 0``, ``x * 1`` ...) emits nothing
        (``tensor.fold_neutral``, the rule canonicalization folds with)."""
        cls = scalar_op
        if is_tensor(operands[0].type):
            cls = lifted(scalar_op)
            if cls is None:
                raise NotImplementedError(f"no tensor op applies '{scalar_op.name}' elementwise")
        if len(operands) == 2:
            same = _tensor().fold_neutral(cls, operands[0], operands[1], operands[0].type)
            if same is not None:
                return same
        return self.v(cls(*operands))

    # the ops partial derivatives use most, by their scalar op (tensor op on tensors)
    add = _applying(arith.AddfOp)
    sub = _applying(arith.SubfOp)
    mul = _applying(arith.MulfOp)
    div = _applying(arith.DivfOp)
    maximum = _applying(arith.MaximumfOp)
    pow = _applying(math.PowFOp)
    neg = _applying(arith.NegfOp)
    exp = _applying(math.ExpOp)
    log = _applying(math.LogOp)
    sqrt = _applying(math.SqrtOp)
    tanh = _applying(math.TanhOp)
    sin = _applying(math.SinOp)
    cos = _applying(math.CosOp)

    def cmp(self, pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
        """pred in eq ne lt le gt ge (ordered, except ne)."""
        T = _tensor()
        if is_tensor(a.type):
            return self.v(T.CmpOp(pred, a, b))
        return self.v(arith.CmpfOp(a, b, T.FLOAT_PREDICATES[pred]))

    def select(self, c: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        if is_tensor(a.type):
            return self.v(_tensor().SelectOp(c, a, b))
        return self.v(arith.SelectOp(c, a, b))

    def square(self, a):
        return self.mul(a, a)

    def recip(self, a):
        return self.div(self.const(1.0, a), a)

    def sign(self, a):
        """-1, 0 or 1 (0 at 0, as numpy/JAX)."""
        zero, one = self.zeros(a), self.const(1.0, a)
        neg_one = self.const(-1.0, a)
        pos = self.select(self.cmp("gt", a, zero), one, zero)
        return self.select(self.cmp("lt", a, zero), neg_one, pos)

    def scale(self, a: SSAValue, c: float) -> SSAValue:
        return self.mul(a, self.const(c, a))

    def accumulate(self, a: SSAValue | None, b: SSAValue | None) -> SSAValue | None:
        """a + b where None is a symbolic zero."""
        if a is None:
            return b
        if b is None:
            return a
        return self.add(a, b)

    # -- index arithmetic -----------------------------------------------------
    iadd = _applying(arith.AddiOp)
    isub = _applying(arith.SubiOp)
    imul = _applying(arith.MuliOp)
    idiv = _applying(arith.DivSIOp)
    imax = _applying(arith.MaxSIOp)
    imin = _applying(arith.MinSIOp)

    def to_index(self, v: SSAValue) -> SSAValue:
        if isinstance(v.type, IndexType):
            return v
        return self.v(arith.IndexCastOp(v, IndexType()))

    def from_index(self, v: SSAValue, t: Attribute) -> SSAValue:
        if isinstance(t, IndexType):
            return v
        return self.v(arith.IndexCastOp(v, t))

    # -- tensor structure -----------------------------------------------------
    def broadcast(self, a: SSAValue, dims: Sequence[int], t: TensorType) -> SSAValue:
        return self.v(_tensor().BroadcastOp(a, list(dims), t))

    def reduce_sum(self, a: SSAValue, dims: Sequence[int]) -> SSAValue:
        return self.v(_tensor().ReduceSumOp(a, list(dims)))

    def transpose(self, a: SSAValue, perm: Sequence[int]) -> SSAValue:
        return self.v(_tensor().TransposeOp(a, list(perm)))

    def matmul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.v(_tensor().MatmulOp(a, b))

    def extract(self, t: SSAValue, idx: Sequence[SSAValue]) -> SSAValue:
        owner = t.owner
        if (isinstance(owner, _tensor().InsertOp) and len(owner.indices) == len(idx)
                and all(a is b for a, b in zip(owner.indices, idx))):
            return owner.scalar  # extract(insert(s, t, i), i) = s
        tt = t.type
        assert isinstance(tt, TensorType)
        return self.v(_tensor().ExtractOp(t, list(idx), tt.get_element_type()))

    def insert(self, s: SSAValue, t: SSAValue, idx: Sequence[SSAValue]) -> SSAValue:
        tt = t.type
        if isinstance(tt, TensorType) and tt.get_num_dims() == 0:
            return self.v(_tensor().FromElementsOp(s, result_type=tt))
        return self.v(_tensor().InsertOp(s, t, list(idx)))

    def extract_slice(self, src: SSAValue, offsets, sizes, strides, result_type) -> SSAValue:
        return self.v(_tensor().ExtractSliceOp(src, list(offsets), list(sizes), list(strides), result_type))

    def insert_slice(self, src: SSAValue, dest: SSAValue, offsets, sizes, strides) -> SSAValue:
        t = _tensor()
        return self.v(_slice_op(t.InsertSliceOp, [src, dest], offsets, sizes, strides, dest.type))

    def full_reduce_to_scalar(self, a: SSAValue) -> SSAValue:
        """Sum of all elements of tensor ``a`` as a scalar."""
        t = a.type
        assert isinstance(t, TensorType)
        s = self.reduce_sum(a, list(range(t.get_num_dims()))) if t.get_num_dims() else a
        return self.extract(s, [])


def _slice_op(cls, leading: list[SSAValue], offsets, sizes, strides, result_type) -> Operation:
    """Build extract/insert_slice from mixed static ints / SSA values."""
    from xdsl.dialects.builtin import DenseArrayBase, i64

    def split(xs):
        static, dyn = [], []
        for x in xs:
            if isinstance(x, int):
                static.append(x)
            else:
                static.append(-(2**63))
                dyn.append(x)
        return static, dyn

    so, do = split(offsets)
    sz, ds = split(sizes)
    st, dt = split(strides)
    return cls.build(
        operands=[*leading, do, ds, dt],
        result_types=[result_type],
        properties={
            "static_offsets": DenseArrayBase.from_list(i64, so),
            "static_sizes": DenseArrayBase.from_list(i64, sz),
            "static_strides": DenseArrayBase.from_list(i64, st),
        },
    )


