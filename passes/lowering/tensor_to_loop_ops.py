"""Per-op rules of `lower-tensor-to-loop`: one function per tensor op, keyed by op name.

Each rule gets the :class:`TensorLowering` driver ``L`` and the original op;
it emits memref/loop/arith/math ops through ``L`` and maps every result with
``L.set_result`` (tensor results: fresh buffers owned by the current block,
unless said otherwise). Elementwise ops are described once, by their scalar
semantics (:func:`scalar_binary`, :func:`scalar_unary`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xdsl.dialects import arith, math
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
    StringAttr,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue

from irtoolkit.diagnostics import op_error

if TYPE_CHECKING:
    from irtoolkit.passes.lowering.tensor_to_loop import TensorLowering

Rule = Callable[["TensorLowering", Operation], None]
RULES: dict[str, Rule] = {}


def rule(*names: str) -> Callable[[Rule], Rule]:
    def deco(fn: Rule) -> Rule:
        for n in names:
            RULES[n] = fn
        return fn

    return deco


def lower_tensor_op(L: TensorLowering, op: Operation) -> bool:
    """Apply the rule for ``op`` if there is one; False if ``op`` is not ours."""
    r = RULES.get(op.name)
    if r is None:
        if op.name == "arith.constant" and isinstance(op.results[0].type, TensorType):
            lower_dense_constant(L, op)
            return True
        return False
    r(L, op)
    return True


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def is_float(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


def is_bool(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 1


def int_list(attr: Attribute | None) -> list[int]:
    if attr is None:
        return []
    if isinstance(attr, DenseArrayBase):
        return [int(v) for v in attr.get_values()]
    if isinstance(attr, ArrayAttr):
        out = []
        for a in attr.data:
            if isinstance(a, IntegerAttr):
                out.append(a.value.data)
            elif isinstance(a, IntAttr):
                out.append(a.data)
            else:
                out.append(int_list(a))  # type: ignore[arg-type]
        return out
    if isinstance(attr, DenseIntOrFPElementsAttr):
        return [int(v) for v in attr.get_values()]
    raise TypeError(f"expected a list of integers, got {attr}")


def prop(op: Operation, *names: str) -> Attribute | None:
    for n in names:
        if n in op.properties:
            return op.properties[n]
        if n in op.attributes:
            return op.attributes[n]
    return None


def elem(v: SSAValue) -> Attribute:
    t = v.type
    assert isinstance(t, TensorType)
    return t.get_element_type()


def shape(v: SSAValue) -> tuple[int, ...]:
    t = v.type
    assert isinstance(t, TensorType)
    return tuple(t.get_shape())


# ---------------------------------------------------------------------------
# run-time checks (what the verifier could not check statically)
#
# Each check is ``arith.cmpi`` + ``cf.assert`` with a message naming the op
# (the assert inherits the op's location). Checks are emitted only where a
# compared value is not a constant, so static shapes stay check-free. A
# failing check raises ``RuntimeCheckError`` in compiled code (to_llvm/cf.py
# reports the two compared values) and a located diagnostic in the interpreter.
# ---------------------------------------------------------------------------


def _const(L: TensorLowering, v: SSAValue) -> int | None:
    """The value of an integer constant (of the pass or of the program), else None."""
    c = L.const_values.get(v)
    if c is not None:
        return c  # type: ignore[return-value]
    owner = v.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _is_const(L: TensorLowering, v: SSAValue) -> bool:
    return _const(L, v) is not None


def check_cmp(L: TensorLowering, op: Operation, pred: str, a: SSAValue, b: SSAValue, what: str) -> None:
    """Assert ``a <pred> b`` (index values) at run time, unless both are constants
    (then the verifier has checked it, or it holds)."""
    from xdsl.dialects import cf

    ca, cb = _const(L, a), _const(L, b)
    if ca is not None and cb is not None:
        ops = {"eq": ca == cb, "ne": ca != cb, "ult": 0 <= ca < cb if cb >= 0 else False,
               "ule": 0 <= ca <= cb if cb >= 0 else False, "sge": ca >= cb}
        if ops.get(pred, False):
            return
    ok = L.emit1(arith.CmpiOp(a, b, pred))
    L.emit(cf.AssertOp(ok, f"'{op.name}' op {what}"))


def check_eq(L: TensorLowering, op: Operation, a: SSAValue, b: SSAValue, what: str) -> None:
    if a is b:
        return
    check_cmp(L, op, "eq", a, b, what)


def check_nonnegative(L: TensorLowering, op: Operation, v: SSAValue, what: str) -> None:
    check_cmp(L, op, "sge", v, L.index(0), what)


#: a ``tensor.extract`` / ``tensor.insert`` with this (discardable, unit) attribute has
#: indices known to be in bounds (``tensor-fuse`` sets it on the ops of its nests, whose
#: shape checks run before the nest): no run-time bounds check is emitted for it
IN_BOUNDS = "irt.in_bounds"


def check_in_bounds(L: TensorLowering, op: Operation, idx: Sequence[SSAValue],
                    dims: Sequence[SSAValue]) -> None:
    """0 <= idx[k] < dims[k] (one unsigned compare per index)."""
    for k, (i, d) in enumerate(zip(idx, dims)):
        check_cmp(L, op, "ult", i, d, f"index out of bounds in dim {k} (index vs dim size)")


def result_dims(L: TensorLowering, res: SSAValue, known: Sequence[SSAValue | None],
                check: bool = True) -> list[SSAValue]:
    """Sizes of result ``res``: static ones from its type, dynamic ones from ``known``.

    With ``check``, a static result size whose ``known`` size is a run-time
    value is checked at run time against it."""
    out = []
    for i, s in enumerate(shape(res)):
        if s != DYNAMIC_INDEX:
            out.append(L.index(s))
            k = known[i] if check and i < len(known) else None
            if k is not None and not _is_const(L, k):
                check_eq(L, res.owner, k, out[-1],  # type: ignore[arg-type]
                         f"result dim {i} does not match the operands at run time "
                         "(operand size vs result type)")
        else:
            k = known[i] if i < len(known) else None
            if k is None:
                raise op_error(res.owner, f"cannot determine dynamic size #{i} of the result")  # type: ignore[arg-type]
            out.append(k)
    return out


def fresh(L: TensorLowering, res: SSAValue, dims: Sequence[SSAValue]) -> SSAValue:
    b = L.alloc(res.type, dims)
    L.set_result(res, b)
    return b


def unsupported(op: Operation, what: str) -> Exception:
    return op_error(op, f"{what} is not supported by 'lower-tensor-to-loop'")


# ---------------------------------------------------------------------------
# scalar semantics of the elementwise ops
# ---------------------------------------------------------------------------

_FLOAT_BIN = {
    "add": arith.AddfOp, "sub": arith.SubfOp, "mul": arith.MulfOp, "div": arith.DivfOp,
    "max": arith.MaximumfOp, "min": arith.MinimumfOp, "pow": math.PowFOp,
}
_INT_BIN = {
    "add": arith.AddiOp, "sub": arith.SubiOp, "mul": arith.MuliOp, "div": arith.DivSIOp,
    "max": arith.MaxSIOp, "min": arith.MinSIOp, "pow": math.IPowIOp,
}
# i1 is one-bit wrapping arithmetic (as arith.addi on i1 and the interpreter): add and
# sub are xor, mul is and; max/min read i1 as unsigned (or/and), as tensor.cmp does.
_BOOL_BIN = {"add": arith.XOrIOp, "mul": arith.AndIOp, "max": arith.OrIOp, "min": arith.AndIOp,
             "sub": arith.XOrIOp}


def scalar_binary(L: TensorLowering, kind: str, a: SSAValue, b: SSAValue, op: Operation) -> SSAValue:
    t = a.type
    if is_float(t):
        cls = _FLOAT_BIN[kind]
    elif is_bool(t):
        cls = _BOOL_BIN.get(kind)
        if cls is None:
            raise unsupported(op, f"'{kind}' on i1 tensors")
    else:
        cls = _INT_BIN[kind]
    return L.emit1(cls(a, b))


_FLOAT_UN = {
    "exp": math.ExpOp, "log": math.LogOp, "sqrt": math.SqrtOp, "tanh": math.TanhOp,
    "sin": math.SinOp, "cos": math.CosOp, "abs": math.AbsFOp,
}


def scalar_unary(L: TensorLowering, kind: str, x: SSAValue, op: Operation) -> SSAValue:
    t = x.type
    if is_float(t):
        if kind == "neg":
            return L.emit1(arith.NegfOp(x))
        if kind == "logistic":
            # 1 / (1 + exp(-x))
            e = L.emit1(math.ExpOp(L.emit1(arith.NegfOp(x))))
            one = L.const(1.0, t)
            return L.emit1(arith.DivfOp(one, L.emit1(arith.AddfOp(one, e))))
        return L.emit1(_FLOAT_UN[kind](x))
    if kind == "neg":
        return L.emit1(arith.SubiOp(L.const(0, t), x))
    if kind == "abs" and not is_bool(t):
        if isinstance(t, IndexType):
            neg = L.emit1(arith.SubiOp(L.const(0, t), x))
            return L.emit1(arith.MaxSIOp(x, neg))
        return L.emit1(math.AbsIOp(x))
    raise unsupported(op, f"'{kind}' on {t} tensors")


_CMPF = {"eq": "oeq", "ne": "une", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge"}
_CMPI = {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge"}
_CMPU = {"eq": "eq", "ne": "ne", "lt": "ult", "le": "ule", "gt": "ugt", "ge": "uge"}


def predicate_of(op: Operation) -> str:
    p = prop(op, "predicate")
    if isinstance(p, StringAttr):
        return p.data
    data = getattr(p, "data", None)
    if isinstance(data, str):
        return data
    if data is not None and hasattr(data, "value"):  # an enum
        return str(data.value)
    if isinstance(p, IntegerAttr):
        return ["eq", "ne", "lt", "le", "gt", "ge"][p.value.data]
    # last resort: the printed form
    return str(p).strip('"').split(".")[-1].strip("<>\" ")


def scalar_cmp(L: TensorLowering, pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
    t = a.type
    if is_float(t):
        return L.emit1(arith.CmpfOp(a, b, _CMPF[pred]))
    table = _CMPU if is_bool(t) else _CMPI
    return L.emit1(arith.CmpiOp(a, b, table[pred]))


def scalar_convert(L: TensorLowering, x: SSAValue, dst: Attribute) -> SSAValue:
    src = x.type
    if src == dst:
        return x
    if is_float(src) and is_float(dst):
        if dst.bitwidth > src.bitwidth:  # type: ignore[attr-defined]
            return L.emit1(arith.ExtFOp(x, dst))
        return L.emit1(arith.TruncFOp(x, dst))
    if is_float(src):  # float -> integer: truncate toward zero (bool: x != 0)
        if is_bool(dst):
            return L.emit1(arith.CmpfOp(x, L.const(0.0, src), "une"))
        if isinstance(dst, IndexType):
            return L.emit1(arith.IndexCastOp(L.emit1(arith.FPToSIOp(x, i64)), dst))
        return L.emit1(arith.FPToSIOp(x, dst))
    if is_float(dst):  # integer -> float
        if is_bool(src):
            return L.emit1(arith.UIToFPOp(x, dst))
        if isinstance(src, IndexType):
            x = L.emit1(arith.IndexCastOp(x, i64))
        return L.emit1(arith.SIToFPOp(x, dst))
    # integer/index -> integer/index
    if is_bool(dst):
        return L.emit1(arith.CmpiOp(x, L.const(0, src), "ne"))
    if isinstance(dst, IndexType) or isinstance(src, IndexType):
        if is_bool(src):
            x = L.emit1(arith.ExtUIOp(x, i64))
        return L.emit1(arith.IndexCastOp(x, dst))
    sw, dw = src.width.data, dst.width.data  # type: ignore[attr-defined]
    if dw > sw:
        return L.emit1((arith.ExtUIOp if sw == 1 else arith.ExtSIOp)(x, dst))
    return L.emit1(arith.TruncIOp(x, dst))


# ---------------------------------------------------------------------------
# elementwise ops
# ---------------------------------------------------------------------------

_BINARY = {"tensor.add": "add", "tensor.sub": "sub", "tensor.mul": "mul", "tensor.div": "div",
           "tensor.max": "max", "tensor.min": "min", "tensor.pow": "pow"}
_UNARY = {"tensor.neg": "neg", "tensor.exp": "exp", "tensor.log": "log", "tensor.sqrt": "sqrt",
          "tensor.tanh": "tanh", "tensor.sin": "sin", "tensor.cos": "cos", "tensor.abs": "abs",
          "tensor.logistic": "logistic"}


def _elementwise(L: TensorLowering, op: Operation, fn: Callable[[list[SSAValue]], SSAValue]) -> None:
    """One loop nest over the result shape; fn(loaded operand scalars) -> result scalar."""
    res = op.results[0]
    tensors = [v for v in op.operands if isinstance(v.type, TensorType)]
    real = [v for v in tensors if v not in L.splats]
    first_dims = L.dims(real[0]) if real and any(s == DYNAMIC_INDEX for s in shape(res)) else []
    _check_same_shapes(L, op, real, first_dims)
    dims = result_dims(L, res, first_dims)
    out = fresh(L, res, dims)
    srcs = [(None, L.splats[v]) if v in L.splats else (L.buf(v), None) for v in tensors]

    def body(ivs: list[SSAValue]) -> None:
        L.store(fn([x if b is None else L.load(b, ivs) for b, x in srcs]), out, ivs)

    L.for_each(dims, body)


def _check_same_shapes(L: TensorLowering, op: Operation, real: list[SSAValue],
                       first_dims: list[SSAValue]) -> None:
    """Elementwise operands (and the result type) agree in every dim that is
    dynamic somewhere; static shapes emit nothing."""
    res = op.results[0]
    shapes = [shape(v) for v in real]
    rshape = shape(res)
    if DYNAMIC_INDEX not in rshape and all(DYNAMIC_INDEX not in s for s in shapes):
        return
    number = {v: i for i, v in reversed(list(enumerate(op.operands)))}
    dims = {v: (first_dims if k == 0 and first_dims else L.dims(v)) for k, v in enumerate(real)}
    for k in range(len(rshape)):
        if all(s[k] != DYNAMIC_INDEX for s in shapes):
            continue  # equal (verified) and matching the result (verified)
        ref = real[0]
        for v in real[1:]:
            if v is ref or (shape(ref)[k] != DYNAMIC_INDEX and shape(v)[k] != DYNAMIC_INDEX):
                continue
            check_eq(L, op, dims[ref][k], dims[v][k],
                     f"operand shapes differ at run time: dim {k} of operand #{number[ref]} "
                     f"vs operand #{number[v]}")
        if rshape[k] != DYNAMIC_INDEX and shape(ref)[k] == DYNAMIC_INDEX:
            check_eq(L, op, dims[ref][k], L.index(rshape[k]),
                     f"operand shape differs from the result type at run time: dim {k} of "
                     f"operand #{number[ref]} vs the result")


# Ops that read a splat operand as the scalar it repeats (no buffer needed).
_SPLAT_READERS = {*_BINARY, *_UNARY, "tensor.cmp", "tensor.select", "tensor.convert", "tensor.extract"}


def virtual_splat(L: TensorLowering, res: SSAValue, scalar: SSAValue) -> bool:
    """A statically shaped splat whose every use reads it elementwise gets no
    buffer: its users read ``scalar`` directly."""
    if DYNAMIC_INDEX in shape(res) or not res.uses:
        return False
    for use in res.uses:
        user = use.operation
        if user.name not in _SPLAT_READERS:
            return False
        if user.name == "tensor.extract" and use.index != 0:
            return False
    L.splats[res] = scalar
    return True


@rule(*_BINARY)
def lower_binary(L: TensorLowering, op: Operation) -> None:
    kind = _BINARY[op.name]
    _elementwise(L, op, lambda xs: scalar_binary(L, kind, xs[0], xs[1], op))


@rule(*_UNARY)
def lower_unary(L: TensorLowering, op: Operation) -> None:
    kind = _UNARY[op.name]
    _elementwise(L, op, lambda xs: scalar_unary(L, kind, xs[0], op))


@rule("tensor.cmp")
def lower_cmp(L: TensorLowering, op: Operation) -> None:
    pred = predicate_of(op)
    if pred not in _CMPF:
        raise unsupported(op, f"predicate '{pred}'")
    _elementwise(L, op, lambda xs: scalar_cmp(L, pred, xs[0], xs[1]))


@rule("tensor.select")
def lower_select(L: TensorLowering, op: Operation) -> None:
    _elementwise(L, op, lambda xs: L.emit1(arith.SelectOp(xs[0], xs[1], xs[2])))


@rule("tensor.convert")
def lower_convert(L: TensorLowering, op: Operation) -> None:
    dst = elem(op.results[0])
    _elementwise(L, op, lambda xs: scalar_convert(L, xs[0], dst))


# ---------------------------------------------------------------------------
# structured ops
# ---------------------------------------------------------------------------


@rule("tensor.matmul")
def lower_matmul(L: TensorLowering, op: Operation) -> None:
    """Large float matmuls call BLAS gemm (transposed operands folded into its
    flags, see :func:`plan_matmuls`); the others become loop nests."""
    plan = matmul_plan(L, op)
    if plan is not None:
        _matmul_gemm(L, op, *plan)
    elif _small_static_matmul(L, op):
        _matmul_ijk(L, op)
    else:
        _matmul_ikj(L, op)


_CONTRACT = "contracting dimensions differ at run time (operand #0 vs operand #1)"


def _matmul_ijk(L: TensorLowering, op: Operation) -> None:
    """i-j-k nest with a scalar accumulator (small static matmuls: LLVM unrolls it)."""
    a, b = op.operands[0], op.operands[1]
    res = op.results[0]
    ra, rb = len(shape(a)), len(shape(b))
    da, db = L.dims(a), L.dims(b)
    check_eq(L, op, da[-1], db[0], _CONTRACT)
    # result dims: rows of a (if a is a matrix), columns of b (if b is a matrix)
    known: list[SSAValue | None] = []
    if ra == 2:
        known.append(da[0])
    if rb == 2:
        known.append(db[1])
    dims = result_dims(L, res, known)
    out = fresh(L, res, dims)
    K = da[-1]
    ba, bb = L.buf(a), L.buf(b)
    et = elem(res)
    zero = L.const(0.0 if is_float(et) else 0, et)

    def body(ivs: list[SSAValue]) -> None:
        i = [ivs[0]] if ra == 2 else []
        j = [ivs[-1]] if rb == 2 else []

        def inner(k: list[SSAValue], acc: list[SSAValue]) -> list[SSAValue]:
            x = L.load(ba, [*i, k[0]])
            y = L.load(bb, [k[0], *j])
            return [scalar_binary(L, "add", acc[0], scalar_binary(L, "mul", x, y, op), op)]

        (s,) = L.for_reduce([K], [zero], inner)
        L.store(s, out, ivs)

    L.for_each(dims, body)


def _matmul_ikj(L: TensorLowering, op: Operation) -> None:
    """C = 0, then i-k-j: the innermost loop runs along rows of B and C
    (contiguous: LLVM vectorizes it). Same summation order as i-j-k."""
    a, b = op.operands[0], op.operands[1]
    res = op.results[0]
    ra, rb = len(shape(a)), len(shape(b))
    if rb != 2:  # matrix-vector / dot: i-j-k is already contiguous along k
        _matmul_ijk(L, op)
        return
    da, db = L.dims(a), L.dims(b)
    check_eq(L, op, da[-1], db[0], _CONTRACT)
    known: list[SSAValue | None] = [da[0], db[1]] if ra == 2 else [db[1]]
    dims = result_dims(L, res, known)
    out = fresh(L, res, dims)
    ba, bb = L.buf(a), L.buf(b)
    et = elem(res)
    zero = L.const(0.0 if is_float(et) else 0, et)
    L.for_each(dims, lambda ivs: L.store(zero, out, ivs))
    N = dims[-1]

    def body(ivs: list[SSAValue]) -> None:
        i, k = ivs[:-1], ivs[-1]
        x = L.load(ba, [*i, k])

        def inner(jv: list[SSAValue]) -> None:
            c = L.load(out, [*i, jv[0]])
            y = L.load(bb, [k, jv[0]])
            L.store(scalar_binary(L, "add", c, scalar_binary(L, "mul", x, y, op), op), out, [*i, jv[0]])

        L.for_each([N], inner)

    L.for_each([*([da[0]] if ra == 2 else []), da[-1]], body)


# -- BLAS -------------------------------------------------------------------
#
# A matmul on f32/f64 whose static size M*N*K is at least the pass option
# ``blas_threshold`` (any dynamic size counts as large) lowers to
#
#   func.call @scipy_cblas_{s,d}gemm64_(%order, %transA, %transB, %M, %N, %K,
#       %alpha, %A, %lda, %B, %ldb, %beta, %C, %ldc)
#       : (i32, i32, i32, i64, i64, i64, T, i64, i64, i64, i64, T, i64, i64) -> ()
#
# on a private declaration added to the module (numpy's bundled OpenBLAS:
# row-major CBLAS with 64-bit integers; see irtoolkit/runtime/blas.py). The
# pointers are passed as i64 (`memref.extract_aligned_pointer_as_index` +
# `arith.index_cast`; same ABI as a pointer), leading dimensions are clamped
# to at least 1 (BLAS rejects 0 for empty operands), beta = 0 (C is
# overwritten, K = 0 gives zeros). Option ``blas``: true / false / unset (use
# BLAS if the library is found, else loop nests).

_GEMM = {"f32": "scipy_cblas_sgemm64_", "f64": "scipy_cblas_dgemm64_"}


def _float_name(t: Attribute) -> str | None:
    from xdsl.dialects.builtin import Float32Type, Float64Type

    if isinstance(t, Float32Type):
        return "f32"
    if isinstance(t, Float64Type):
        return "f64"
    return None


def _blas_enabled(L: TensorLowering) -> bool:
    choice = getattr(L.options, "blas", None)
    if choice is None:
        cached = getattr(L, "_blas_auto", None)
        if cached is None:
            from irtoolkit.runtime.blas import blas_available

            cached = blas_available()
            L._blas_auto = cached  # type: ignore[attr-defined]
        return cached
    return bool(choice)


def _small_static_matmul(L: TensorLowering, op: Operation) -> bool:
    """All sizes static and M*N*K below the ``blas_threshold`` option."""
    threshold = getattr(L.options, "blas_threshold", 4096)
    sizes = [*shape(op.operands[0]), *shape(op.operands[1])]
    if any(s == DYNAMIC_INDEX for s in sizes):
        return False
    n = 1
    for s in shape(op.results[0]):
        n *= s
    return n * shape(op.operands[0])[-1] < threshold


def _gemm_symbol(L: TensorLowering, op: Operation) -> str | None:
    """The gemm a matmul lowers to, or None for a loop nest."""
    name = _float_name(elem(op.results[0]))
    if name is None or any(_float_name(elem(v)) != name for v in op.operands[:2]):
        return None
    if _small_static_matmul(L, op) or not _blas_enabled(L):
        return None
    return _GEMM[name]


def plan_matmuls(L: TensorLowering, module: Operation) -> None:
    """Before lowering: decide which matmuls call BLAS and fold a 2-D
    `tensor.transpose [1, 0]` operand of those into the gemm's trans flags
    (the matmul then reads the transpose's source; a transpose left without
    uses is erased). The plans are kept in ``L.matmul_plans``: until the
    lowering, such a matmul has operands of transposed shapes."""
    plans: dict[Operation, tuple[str, bool, bool]] = {}
    L.matmul_plans = plans  # type: ignore[attr-defined]
    dead: list[Operation] = []
    for op in list(module.walk()):
        if op.name != "tensor.matmul" or len(op.operands) < 2:
            continue
        sym = _gemm_symbol(L, op)
        if sym is None:
            continue
        flags = [False, False]
        operands = list(op.operands)
        for k in (0, 1):
            v = operands[k]
            t = v.owner
            if (isinstance(t, Operation) and t.name == "tensor.transpose" and len(shape(v)) == 2
                    and int_list(prop(t, "permutation")) == [1, 0]):
                operands[k] = t.operands[0]
                flags[k] = True
                dead.append(t)
        if any(flags):
            op.operands = operands
        plans[op] = (sym, flags[0], flags[1])
    for t in dead:
        if t.parent is not None and not t.results[0].uses:
            t.detach()
            t.erase()


def matmul_plan(L: TensorLowering, op: Operation) -> tuple[str, bool, bool] | None:
    """(gemm symbol, transA, transB) if ``op`` calls BLAS, else None."""
    plans = getattr(L, "matmul_plans", None)
    if plans is not None:
        return plans.get(op)
    sym = _gemm_symbol(L, op)
    return None if sym is None else (sym, False, False)


def _as_i64(L: TensorLowering, d: SSAValue, at_least_1: bool = False,
            cache: dict | None = None) -> SSAValue:
    c = L.const_values.get(d)
    if c is not None:
        return L.const(max(int(c), 1) if at_least_1 else int(c), i64)
    cache = {} if cache is None else cache
    v = cache.get((d, False))
    if v is None:
        v = cache[(d, False)] = L.emit1(arith.IndexCastOp(d, i64))
    if at_least_1:
        w = cache.get((d, True))
        if w is None:
            w = cache[(d, True)] = L.emit1(arith.MaxSIOp(v, L.const(1, i64)))
        v = w
    return v


def _pointer(L: TensorLowering, buf: SSAValue) -> SSAValue:
    from xdsl.dialects import memref

    p = L.emit1(memref.ExtractAlignedPointerAsIndexOp.get(buf))
    return L.emit1(arith.IndexCastOp(p, i64))


def _declare_gemm(L: TensorLowering, sym: str, et: Attribute) -> None:
    from xdsl.dialects import func
    from xdsl.dialects.builtin import i32

    block = L.module.body.block
    for o in block.ops:
        if isinstance(o, func.FuncOp) and o.sym_name.data == sym:
            return
    decl = func.FuncOp.external(sym, [i32, i32, i32, i64, i64, i64, et, i64, i64, i64, i64, et, i64, i64], [])
    if L.loc is not None:
        decl.location = L.loc
    block.add_op(decl)
    L.taken_symbols.add(sym)


def _matmul_gemm(L: TensorLowering, op: Operation, sym: str, ta: bool, tb: bool) -> None:
    from xdsl.dialects import func
    from xdsl.dialects.builtin import i32

    from irtoolkit.runtime.blas import NO_TRANS, ROW_MAJOR, TRANS

    a, b = op.operands[0], op.operands[1]
    res = op.results[0]
    ra, rb = len(shape(a)), len(shape(b))
    da, db = L.dims(a), L.dims(b)
    one = L.index(1)
    # stored operands: a is M x K (K x M if ta), a vector is 1 x K;
    # b is K x N (N x K if tb), a vector is K x 1
    if ra == 2:
        M, K, lda = (da[1], da[0], da[1]) if ta else (da[0], da[1], da[1])
    else:
        M, K, lda = one, da[0], da[0]
    if rb == 2:
        N, ldb = (db[0], db[1]) if tb else (db[1], db[1])
    else:
        N, ldb = one, one
    check_eq(L, op, K, (db[1] if tb else db[0]) if rb == 2 else db[0], _CONTRACT)
    known: list[SSAValue | None] = ([M] if ra == 2 else []) + ([N] if rb == 2 else [])
    dims = result_dims(L, res, known)
    out = fresh(L, res, dims)
    et = elem(res)
    _declare_gemm(L, sym, et)
    c: dict = {}
    args = [
        L.const(ROW_MAJOR, i32), L.const(TRANS if ta else NO_TRANS, i32), L.const(TRANS if tb else NO_TRANS, i32),
        _as_i64(L, M, cache=c), _as_i64(L, N, cache=c), _as_i64(L, K, cache=c),
        L.const(1.0, et), _pointer(L, L.buf(a)), _as_i64(L, lda, True, c),
        _pointer(L, L.buf(b)), _as_i64(L, ldb, True, c),
        L.const(0.0, et), _pointer(L, out), _as_i64(L, N, True, c),
    ]
    L.emit(func.CallOp(sym, args, []))


@rule("tensor.transpose")
def lower_transpose(L: TensorLowering, op: Operation) -> None:
    src, res = op.operands[0], op.results[0]
    perm = int_list(prop(op, "permutation"))
    sd = L.dims(src)
    dims = result_dims(L, res, [sd[p] for p in perm])
    out = fresh(L, res, dims)
    b = L.buf(src)

    def body(ivs: list[SSAValue]) -> None:
        s_idx: list[SSAValue] = [None] * len(perm)  # type: ignore[list-item]
        for i, p in enumerate(perm):
            s_idx[p] = ivs[i]
        L.store(L.load(b, s_idx), out, ivs)

    L.for_each(dims, body)


@rule("tensor.broadcast")
def lower_broadcast(L: TensorLowering, op: Operation) -> None:
    src, res = op.operands[0], op.results[0]
    bdims = int_list(prop(op, "dimensions", "broadcast_dimensions"))
    sshape, rshape = shape(src), shape(res)
    sd = L.dims(src)
    known: list[SSAValue | None] = [None] * len(rshape)
    for i, d in enumerate(bdims):
        if sshape[i] != 1:
            known[d] = sd[i]
    # extra operands (dynamic result sizes), if the op has them
    extra = [v for v in op.operands[1:] if isinstance(v.type, IndexType)]
    if extra:
        it = iter(extra)
        for i, s in enumerate(rshape):
            if s == DYNAMIC_INDEX:
                known[i] = L.val(next(it))
                check_nonnegative(L, op, known[i], f"result size of dim {i} is negative (size vs 0)")
    dims = result_dims(L, res, known, check=False)
    # each source dim is 1 (it expands) or the size of the result dim it maps to
    for i, d in enumerate(bdims):
        if sshape[i] == 1 or (sshape[i] != DYNAMIC_INDEX and rshape[d] != DYNAMIC_INDEX):
            continue
        got = sd[i]
        if sshape[i] == DYNAMIC_INDEX:
            if got is dims[d]:
                continue
            is1 = L.emit1(arith.CmpiOp(got, L.index(1), "eq"))
            got = L.emit1(arith.SelectOp(is1, dims[d], got))
        check_eq(L, op, got, dims[d], f"cannot broadcast at run time: operand dim {i} is neither 1 "
                                      f"nor the size of result dim {d} (operand size vs result size)")
    out = fresh(L, res, dims)
    b = L.buf(src)

    def body(ivs: list[SSAValue]) -> None:
        idx = []
        for i, d in enumerate(bdims):
            if sshape[i] == 1:
                idx.append(L.index(0))
            elif sshape[i] == DYNAMIC_INDEX and rshape[d] != DYNAMIC_INDEX and False:
                idx.append(ivs[d])
            elif sshape[i] == DYNAMIC_INDEX:
                # a dynamic operand dim of size 1 expands: index 0 then
                is1 = L.emit1(arith.CmpiOp(sd[i], L.index(1), "eq"))
                idx.append(L.emit1(arith.SelectOp(is1, L.index(0), ivs[d])))
            else:
                idx.append(ivs[d])
        L.store(L.load(b, idx), out, ivs)

    L.for_each(dims, body)


# ---------------------------------------------------------------------------
# reductions: blocked, vectorizable float sums
# ---------------------------------------------------------------------------

#: elements per block of a float sum (see ``reduce_nest``)
SUM_BLOCK = 512
#: ``arith`` fast-math flags of the accumulating additions of a float sum: LLVM may
#: reassociate them (vectorize with partial sums; lower-loop-to-cf may split the loop
#: over threads). Nothing else is allowed (no nnan/ninf: NaN and Inf propagate).
REASSOC = "reassoc"


def _reassoc_flags():
    from xdsl.dialects.arith import FastMathFlagsAttr
    from xdsl.dialects.llvm import FastMathFlag

    return FastMathFlagsAttr([FastMathFlag(REASSOC)])


def accumulator_type(et: Attribute) -> Attribute:
    """The type a float sum of ``et`` accumulates in: f64 for f16/f32 (rounded once at
    the end), ``et`` otherwise."""
    from xdsl.dialects.builtin import Float16Type, Float32Type, f64

    if isinstance(et, Float16Type | Float32Type):
        return f64
    return et


def _for(E, lb: SSAValue, ub: SSAValue, inits: Sequence[SSAValue],
         body: Callable[[SSAValue, list[SSAValue]], Sequence[SSAValue]]) -> list[SSAValue]:
    """One loop.for [lb, ub) step 1 carrying ``inits``; body(iv, accs) -> new accs."""
    from xdsl.ir import Block

    from irtoolkit.dialects.loop import ForOp, YieldOp

    blk = Block(arg_types=[IndexType(), *(a.type for a in inits)])
    loop = ForOp(lb, ub, E.index(1), list(inits), blk)
    if not inits:  # the builder added the implicit yield: the body yields last
        blk.erase_op(blk.last_op)  # type: ignore[arg-type]
    E.emit(loop)
    with E.at(blk):
        new = body(blk.args[0], list(blk.args[1:]))
        E.emit(YieldOp(*new))
    return list(loop.results)


def _const_index(v: SSAValue) -> int | None:
    owner = v.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr) \
            and isinstance(v.type, IndexType):
        return owner.value.value.data
    return None


def blocked_sum(E, n: SSAValue, acc: SSAValue, term: Callable[[SSAValue], SSAValue]) -> SSAValue:
    """``acc + sum(term(i) for i in [0, n))`` for a float ``acc`` (terms converted to its
    type), vectorizable and accurate: blocks of ``SUM_BLOCK`` terms are summed by loops
    whose additions carry ``fastmath<reassoc>`` (LLVM keeps a vector of partial sums per
    block), block sums are added in order. Error ~ (SUM_BLOCK/lanes + n/SUM_BLOCK) ulps
    of sum(|terms|) instead of n for a sequential sum."""
    fm = _reassoc_flags()
    at = acc.type

    def add(a: SSAValue, i: SSAValue) -> SSAValue:
        x = term(i)
        if x.type != at:
            x = E.emit1(arith.ExtFOp(x, at))
        return E.emit1(arith.AddfOp(a, x, fm))

    cn = _const_index(n)
    if cn is not None and cn <= SUM_BLOCK:
        (s,) = _for(E, E.index(0), n, [acc], lambda i, a: [add(a[0], i)])
        return s
    B = E.index(SUM_BLOCK)
    if cn is not None:
        nb = E.index(-(-cn // SUM_BLOCK))
    else:  # ceil(n / B)
        nb = E.emit1(arith.DivUIOp(E.emit1(arith.AddiOp(n, E.index(SUM_BLOCK - 1))), B))
    zero = E.const(0.0, at)

    def block(b: SSAValue, t: list[SSAValue]) -> list[SSAValue]:
        lo = E.emit1(arith.MuliOp(b, B))
        hi = E.emit1(arith.AddiOp(lo, B))
        if cn is None or cn % SUM_BLOCK:
            hi = E.emit1(arith.MinUIOp(hi, n))
        (s,) = _for(E, lo, hi, [zero], lambda i, a: [add(a[0], i)])
        return [E.emit1(arith.AddfOp(t[0], s, fm))]

    (t,) = _for(E, E.index(0), nb, [acc], block)
    return t


def reduce_nest(E, kind: str, dims: Sequence[SSAValue], et: Attribute, op: Operation,
                term: Callable[[list[SSAValue]], SSAValue]) -> SSAValue:
    """The reduction (``kind`` "sum" or "max") of ``term(ivs)`` over the nest ``dims``,
    of element type ``et``. Float sums: the innermost dim is a ``blocked_sum`` (in f64
    for f16/f32), the outer dims add its results in order (reassociable too); other
    reductions: one sequential accumulator, outermost dim first."""
    if kind == "sum" and is_float(et) and dims:
        at = accumulator_type(et)
        fm = _reassoc_flags()
        zero = E.const(0.0, at)

        def rec(k: int, ivs: list[SSAValue], acc: SSAValue) -> SSAValue:
            if k == len(dims) - 1:
                return blocked_sum(E, dims[k], acc, lambda i: term([*ivs, i]))

            def body(iv: SSAValue, a: list[SSAValue]) -> list[SSAValue]:
                s = rec(k + 1, [*ivs, iv], zero)
                return [E.emit1(arith.AddfOp(a[0], s, fm))]

            (r,) = _for(E, E.index(0), dims[k], [acc], body)
            return r

        s = rec(0, [], zero)
        if at != et:
            s = E.emit1(arith.TruncFOp(s, et))
        return s
    if kind == "sum":
        init = E.const(0.0 if is_float(et) else 0, et)
    elif is_float(et):
        init = E.const(float("-inf"), et)
    elif is_bool(et):
        init = E.const(0, et)
    else:
        width = 64 if isinstance(et, IndexType) else et.width.data  # type: ignore[attr-defined]
        init = E.const(-(2 ** (width - 1)), et)
    binop = "add" if kind == "sum" else "max"

    def rec2(k: int, ivs: list[SSAValue], acc: SSAValue) -> SSAValue:
        if k == len(dims):
            return scalar_binary(E, binop, acc, term(ivs), op)
        (r,) = _for(E, E.index(0), dims[k], [acc], lambda iv, a: [rec2(k + 1, [*ivs, iv], a[0])])
        return r

    return rec2(0, [], init)


#: a sum over leading dims goes row by row (``leading_sum``) when the innermost kept
#: dim is dynamic or at least this long (shorter rows do not fill a vector)
ROW_SUM_MIN = 8


def row_by_row(src: SSAValue, rdims: Sequence[int], et: Attribute) -> bool:
    """Does a sum of ``src`` over ``rdims`` go row by row (``leading_sum``)?"""
    shape = src.type.get_shape()  # type: ignore[attr-defined]
    if not is_float(et) or not 0 < len(rdims) < len(shape) \
            or sorted(rdims) != list(range(len(rdims))):
        return False
    if shape[-1] != DYNAMIC_INDEX and shape[-1] < ROW_SUM_MIN:
        return False
    return _one_block([None if shape[i] == DYNAMIC_INDEX else shape[i] for i in rdims]) \
        or len(rdims) == 1


def _one_block(sizes: Sequence[int | None]) -> bool:
    """Do the rows of these reduced sizes (None: dynamic) fit in one SUM_BLOCK?"""
    count = 1
    for n in sizes:
        if n is None:
            return False
        count *= n
    return count <= SUM_BLOCK


@dataclass(frozen=True)
class Cells:
    """How ``leading_sum`` keeps its row accumulators: buffers (stores; the same
    value carried through loops) or tensors (inserts: a new value each time)."""

    new: Callable[[Attribute], SSAValue]  # an uninitialized accumulator of an element type
    get: Callable[[SSAValue, list[SSAValue]], SSAValue]
    put: Callable[[SSAValue, SSAValue, list[SSAValue]], SSAValue]  # (value, acc, ivs) -> acc
    free: Callable[[SSAValue], None]
    carried: bool  # loops carry the accumulators (tensors), or not (buffers)


def leading_sum(E, cells: Cells, term: Callable[[list[SSAValue]], SSAValue], sd: Sequence[SSAValue],
                r: int, et: Attribute, out: SSAValue | None = None) -> SSAValue:
    """The float sum of ``term(ivs)`` over the ``r`` leading dims of ``sd``, row by
    row: the kept dims are innermost, so the loads are contiguous and the additions
    vectorize across result elements (``reduce_nest`` over a leading dim walks
    columns, one strided scalar chain each). Every result element still adds its
    terms in index order, in blocks of ``SUM_BLOCK`` rows added in order, as
    ``blocked_sum`` does; f16/f32 accumulate in f64. The result is ``out`` (a
    fresh accumulator of ``et`` when None) with the sums put in."""
    at = accumulator_type(et)
    fm = _reassoc_flags()
    kdims = list(sd[r:])

    def loop(lo: SSAValue, hi: SSAValue, acc: SSAValue,
             body: Callable[[SSAValue, SSAValue], SSAValue]) -> SSAValue:
        if cells.carried:
            return _for(E, lo, hi, [acc], lambda i, a: [body(i, a[0])])[0]
        _for(E, lo, hi, [], lambda i, _: (body(i, acc), [])[1])
        return acc

    def each(acc: SSAValue, cell: Callable[[list[SSAValue], SSAValue], SSAValue]) -> SSAValue:
        def nest(k: int, ivs: list[SSAValue], a: SSAValue) -> SSAValue:
            if k == len(kdims):
                return cell(ivs, a)
            return loop(E.index(0), kdims[k], a, lambda i, c: nest(k + 1, [*ivs, i], c))
        return nest(0, [], acc)

    def zeros(acc: SSAValue) -> SSAValue:
        zero = E.const(0.0, at)
        return each(acc, lambda ivs, a: cells.put(zero, a, ivs))

    def add(a: SSAValue, ivs: list[SSAValue], x: SSAValue) -> SSAValue:
        return cells.put(E.emit1(arith.AddfOp(cells.get(a, ivs), x, fm)), a, ivs)

    def add_row(acc: SSAValue, row: list[SSAValue]) -> SSAValue:
        def cell(ivs: list[SSAValue], a: SSAValue) -> SSAValue:
            x = term([*row, *ivs])
            return add(a, ivs, x if x.type == at else E.emit1(arith.ExtFOp(x, at)))
        return each(acc, cell)

    def rows(k: int, row: list[SSAValue], acc: SSAValue) -> SSAValue:
        if k == r:
            return add_row(acc, row)
        return loop(E.index(0), sd[k], acc, lambda i, a: rows(k + 1, [*row, i], a))

    acc = zeros(out if out is not None and at == et else cells.new(at))
    if _one_block([_const_index(d) for d in sd[:r]]):
        acc = rows(0, [], acc)
    else:  # one reduced dim, in blocks of SUM_BLOCK rows
        n = _const_index(sd[0])
        B = E.index(SUM_BLOCK)
        nb = (E.index(-(-n // SUM_BLOCK)) if n is not None else
              E.emit1(arith.DivUIOp(E.emit1(arith.AddiOp(sd[0], E.index(SUM_BLOCK - 1))), B)))

        def block(k: SSAValue, a: SSAValue) -> SSAValue:
            lo = E.emit1(arith.MuliOp(k, B))
            hi = E.emit1(arith.MinUIOp(E.emit1(arith.AddiOp(lo, B)), sd[0]))
            part = loop(lo, hi, zeros(cells.new(at)), lambda i, p: add_row(p, [i]))
            total = each(a, lambda ivs, t: add(t, ivs, cells.get(part, ivs)))
            cells.free(part)
            return total

        acc = loop(E.index(0), nb, acc, block)
    if at == et:
        return acc
    res = each(out if out is not None else cells.new(et),
               lambda ivs, o: cells.put(E.emit1(arith.TruncFOp(cells.get(acc, ivs), et)), o, ivs))
    cells.free(acc)
    return res


def _reduce(L: TensorLowering, op: Operation, kind: str) -> None:
    src, res = op.operands[0], op.results[0]
    rdims = int_list(prop(op, "dimensions"))
    sd = L.dims(src)
    kept = [i for i in range(len(sd)) if i not in rdims]
    dims = result_dims(L, res, [sd[i] for i in kept])
    out = fresh(L, res, dims)
    b = L.buf(src)
    et = elem(res)
    if kind == "sum" and row_by_row(src, rdims, et):
        from xdsl.dialects.builtin import MemRefType

        shape = list(out.type.get_shape())  # type: ignore[attr-defined]
        cells = Cells(new=lambda t: L.alloc(MemRefType(t, shape), dims), get=L.load,
                      put=lambda v, buf, ivs: (L.store(v, buf, ivs), buf)[1], free=L.dealloc,
                      carried=False)
        leading_sum(L, cells, lambda idx: L.load(b, idx), sd, len(rdims), et, out)
        return

    def body(ivs: list[SSAValue]) -> None:
        def term(rivs: list[SSAValue]) -> SSAValue:
            idx: list[SSAValue] = [None] * len(sd)  # type: ignore[list-item]
            for i, v in zip(kept, ivs):
                idx[i] = v
            for i, v in zip(rdims, rivs):
                idx[i] = v
            return L.load(b, idx)

        s = reduce_nest(L, kind, [sd[i] for i in rdims], et, op, term)
        L.store(s, out, ivs)

    L.for_each(dims, body)


@rule("tensor.reduce_sum")
def lower_reduce_sum(L: TensorLowering, op: Operation) -> None:
    _reduce(L, op, "sum")


@rule("tensor.reduce_max")
def lower_reduce_max(L: TensorLowering, op: Operation) -> None:
    _reduce(L, op, "max")


# ---------------------------------------------------------------------------
# upstream tensor ops
# ---------------------------------------------------------------------------


def _check_sizes(L: TensorLowering, op: Operation, sizes: Sequence[SSAValue | None]) -> None:
    for i, v in enumerate(sizes):
        if v is not None:
            check_nonnegative(L, op, v, f"size of dim {i} is negative (size vs 0)")


@rule("tensor.empty")
def lower_empty(L: TensorLowering, op: Operation) -> None:
    res = op.results[0]
    dyn = iter([L.val(v) for v in op.operands])
    known = [next(dyn) if s == DYNAMIC_INDEX else None for s in shape(res)]
    _check_sizes(L, op, known)
    fresh(L, res, result_dims(L, res, known))


@rule("tensor.splat")
def lower_splat(L: TensorLowering, op: Operation) -> None:
    res = op.results[0]
    x = L.val(op.operands[0])
    if virtual_splat(L, res, x):
        return
    dyn = iter([L.val(v) for v in op.operands[1:]])
    known = [next(dyn) if s == DYNAMIC_INDEX else None for s in shape(res)]
    _check_sizes(L, op, known)
    dims = result_dims(L, res, known)
    out = fresh(L, res, dims)
    L.for_each(dims, lambda ivs: L.store(x, out, ivs))


@rule("tensor.extract")
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


@rule("tensor.insert")
def lower_insert(L: TensorLowering, op: Operation) -> None:
    scalar, dest = op.operands[0], op.operands[1]
    idx = [L.val(v) for v in op.operands[2:]]
    if IN_BOUNDS not in op.attributes:
        check_in_bounds(L, op, idx, L.dims(dest))
    x = L.val(scalar)
    b = L.buf(dest) if L.try_consume(dest) else L.copy_value(dest)
    L.store(x, b, idx)
    L.set_result(op.results[0], b)


@rule("tensor.from_elements")
def lower_from_elements(L: TensorLowering, op: Operation) -> None:
    res = op.results[0]
    shp = shape(res)
    out = fresh(L, res, result_dims(L, res, []))
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

    def mix(static: list[int], dyn: Sequence[SSAValue]) -> list[SSAValue | int]:
        it = iter(dyn)
        return [L.val(next(it)) if s == DYNAMIC_INDEX else s for s in static]

    offs = mix(int_list(prop(op, "static_offsets")), op.offsets)  # type: ignore[attr-defined]
    sizes = mix(int_list(prop(op, "static_sizes")), op.sizes)  # type: ignore[attr-defined]
    strides = mix(int_list(prop(op, "static_strides")), op.strides)  # type: ignore[attr-defined]
    as_val = lambda x: x if isinstance(x, SSAValue) else L.index(x)  # noqa: E731
    return [as_val(o) for o in offs], sizes, [as_val(s) for s in strides]


def _check_slice(L: TensorLowering, op: Operation, offs: list[SSAValue], sizes: list[SSAValue | int],
                 strides: list[SSAValue], big: list[SSAValue]) -> None:
    """Every slice dim lies in the big tensor (as the interpreter checks): size
    and offset >= 0, end <= dim size with end = offset + (size - 1) * stride + 1
    (0 when size is 0: an empty slice may start anywhere). Nothing is emitted
    for a dim whose offset, size, stride and size of the big tensor are all
    static (the verifier checks it)."""
    for d, (o, n, st, b) in enumerate(zip(offs, sizes, strides, big)):
        if isinstance(n, int) and _is_const(L, o) and _is_const(L, st) and _is_const(L, b):
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


@rule("tensor.extract_slice")
def lower_extract_slice(L: TensorLowering, op: Operation) -> None:
    src, res = op.operands[0], op.results[0]
    offs, sizes, strides = _slice_params(L, op)
    kept = _kept_dims(sizes, shape(res))
    _check_slice(L, op, offs, sizes, strides, L.dims(src))
    known = [sizes[d] if isinstance(sizes[d], SSAValue) else None for d in kept]
    dims = result_dims(L, res, known)
    out = fresh(L, res, dims)
    b = L.buf(src)
    L.for_each(dims, lambda ivs: L.store(L.load(b, _big_index(offs, strides, kept, ivs, L)), out, ivs))


@rule("tensor.insert_slice")
def lower_insert_slice(L: TensorLowering, op: Operation) -> None:
    src, dest = op.operands[0], op.operands[1]
    offs, sizes, strides = _slice_params(L, op)
    kept = _kept_dims(sizes, shape(src))
    _check_slice(L, op, offs, sizes, strides, L.dims(dest))
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
    out = fresh(L, res, dims)
    b = L.buf(op.operands[0])
    L.for_each(dims, lambda ivs: L.store(L.load(b, src_index(ivs)), out, ivs))


@rule("tensor.collapse_shape")
def lower_collapse_shape(L: TensorLowering, op: Operation) -> None:
    src, res = op.operands[0], op.results[0]
    groups = _reassociation(op)
    sd = L.dims(src)
    known: list[SSAValue | None] = []
    for g in groups:
        consts = [_const(L, sd[d]) for d in g]
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
    dims = result_dims(L, res, known)

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


@rule("tensor.expand_shape")
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
    dims = result_dims(L, res, known)
    # each source dim is the product of its group of result dims
    for j, (g, s) in enumerate(zip(groups, sd)):
        if _is_const(L, s) and all(rshape[d] != DYNAMIC_INDEX for d in g):
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


@rule("tensor.dim")
def lower_dim(L: TensorLowering, op: Operation) -> None:
    src, i = op.operands[0], op.operands[1]
    from xdsl.dialects import memref

    L.set_result(op.results[0], L.emit1(memref.DimOp(L.buf(src), L.val(i))))


@rule("tensor.cast")
def lower_cast(L: TensorLowering, op: Operation) -> None:
    src, res = op.operands[0], op.results[0]
    if not isinstance(res.type, TensorType):
        raise unsupported(op, "casting to an unranked tensor")
    sd = L.dims(src)
    dims = result_dims(L, res, sd)
    out = fresh(L, res, dims)
    b = L.buf(src)
    L.for_each(dims, lambda ivs: L.store(L.load(b, ivs), out, ivs))


@rule("tensor.concat")
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
    dims = result_dims(L, res, known)
    out = fresh(L, res, dims)
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


@rule("tensor.pad")
def lower_pad(L: TensorLowering, op: Operation) -> None:
    """Fill the result with the region's value at each index, then copy the
    source in at offset ``low``. The region must compute scalars only."""
    src, res = op.operands[0], op.results[0]
    region_block = op.regions[0].blocks.first
    assert region_block is not None
    inner_ops = list(region_block.ops)
    for o in op.regions[0].walk():
        if any(isinstance(v.type, TensorType) for v in (*o.operands, *o.results)):
            raise unsupported(op, "a 'tensor.pad' region using tensors")

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
    dims = result_dims(L, res, known)
    out = fresh(L, res, dims)
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
    b = L.buf(src)
    L.for_each(sd, lambda ivs: L.store(L.load(b, ivs), out, [L.index_add(i, lo) for i, lo in zip(ivs, low)]))


@rule("func.call", "printf.print_format")
def lower_call(L: TensorLowering, op: Operation) -> None:
    # arguments are borrowed by the callee (or the print); tensor results are fresh buffers we own
    new = type(op).create(
        operands=[L.val(v) for v in op.operands],
        result_types=[L_convert(r.type) for r in op.results],
        properties=dict(op.properties),
        attributes=dict(op.attributes),
    )
    L.emit(new)
    for o, n in zip(op.results, new.results):
        L.set_result(o, n)


def L_convert(t: Attribute) -> Attribute:
    from irtoolkit.passes.lowering.tensor_to_loop import convert_type

    return convert_type(t)


def lower_dense_constant(L: TensorLowering, op: Operation) -> None:
    res = op.results[0]
    value = op.properties.get("value") or op.attributes.get("value")
    if not isinstance(value, DenseIntOrFPElementsAttr):
        raise unsupported(op, f"constant {value}")
    et = elem(res)
    shp = shape(res)
    n = 1
    for s in shp:
        n *= s
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
        dims = result_dims(L, res, [])
        out = fresh(L, res, dims)
        L.for_each(dims, lambda ivs: L.store(x, out, ivs))
        return
    threshold = L.options.global_threshold
    if threshold >= 0 and n > threshold:
        L.set_result(res, L.global_constant(value, res.type), owned=False)
        return
    out = fresh(L, res, result_dims(L, res, []))
    for k, v in enumerate(values):
        idx = []
        rem = k
        for s in reversed(shp):
            idx.append(rem % s)
            rem //= s
        L.store(L.const(_pyval(v, et), et), out, [L.index(i) for i in reversed(idx)])


def _pyval(v: object, et: Attribute) -> int | float:
    if is_float(et):
        return float(v)  # type: ignore[arg-type]
    if is_bool(et):
        return 1 if v in (True, 1, -1) else 0
    return int(v)  # type: ignore[call-overload]




@rule("tensor.reshape")
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
    dims = result_dims(L, res, known)
    sd = L.dims_of_buf(sb)
    if any(not _is_const(L, d) for d in (*dims, *sd)):
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

