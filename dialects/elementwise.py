"""How an elementwise op is declared: its meaning, stated once.

An *elementwise* op has one result; its operands and result have one shape
(or are all scalars), and element i of the result depends on element i of the
operands only. It is declared once, next to its class::

    @elementwise(float=math.TanOp)
    @irdl_op_definition
    class TanOp(UnaryElementwiseOp):
        name = "tensor.tan"

and every consumer derives what it needs from that declaration: constant
folding and the neutral-operand fold, the verifier (element types, hints),
the interpreter, the fused and unfused lowering (the scalar code of a
kernel), the JVP and VJP rules, and the cost models. This module holds data
and small builders only; the passes consume it.

A declaration (:class:`Elementwise`) gives, each optional:

``float``, ``integer``, ``i1``
    The scalar meaning for that element kind of the result: a scalar op class
    (the *counterpart*, built as ``cls(*scalars)``; its own declaration then
    supplies the defaults below) or a builder ``fn(B, *scalars) -> SSAValue``
    that emits scalar code through a :class:`ScalarBuilder`. An element kind
    without a meaning is rejected by the verifier.
``numpy``
    ``fn(*arrays) -> array``: the meaning in numpy, exact in the operands'
    dtype (numpy scalars or arrays; used by folding and by the interpreter).
    Write it with this module's :data:`np`, which imports numpy on first use.
``partials``
    ``fn(D, ins, outs, need) -> [∂out/∂in_i per operand]``, each an SSA value,
    :data:`ONE`, :data:`NEG_ONE` or ``None`` (zero), written against a
    :class:`DerivativeBuilder` (``need[i]``: operand i is differentiated).
``cost``
    A :class:`Cost` for the cost models (which recomputed values the reverse
    sweep stores, which loops run in parallel).
``unit``, ``commutative``
    The neutral right operand, exactly (``x + -0.0``, ``x - 0.0``, ``x * 1``:
    the sign of a float zero counts), also neutral on the left when
    ``commutative``.
``differentiable``
    False: results never carry derivatives (integer ops, compares).
``domain``
    ``(lo, hi)``, or one per operand: where the op is defined and smooth, for
    tests and program generators.

Left out, ``numpy``, ``partials``, ``cost`` and ``unit`` come from the
counterpart's declaration (``partials`` from the float counterpart's). The
scalar ``arith`` and ``math`` ops of xDSL are declared in ``scalar.py`` with
:func:`declare`. Ops whose meaning depends on attributes (``tensor.cmp``,
``tensor.convert``) subclass :class:`Elementwise` and override
:meth:`Elementwise.scalar_for` / :meth:`Elementwise.numpy_for`.

Declarations live in one table keyed by op class and are looked up along the
class's MRO (:func:`meaning_of`).
"""

from __future__ import annotations

import enum
import sys
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerType, TensorType
from xdsl.ir import Attribute, Operation, SSAValue

from irtoolkit.classtest import ClassMemo

# ---------------------------------------------------------------------------
# numpy, imported on first use


class _Deferred:
    """``np.<name>`` taken before numpy was imported: imports it on first use."""

    __slots__ = ("name", "_value")

    def __init__(self, name: str):
        self.name = name
        self._value: Any = None

    def resolve(self) -> Any:
        if self._value is None:
            import numpy

            self._value = getattr(numpy, self.name)
        return self._value

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolve()(*args, **kwargs)

    def __getattr__(self, attr: str) -> Any:  # np.maximum.reduce
        if attr.startswith("__"):
            # introspection does not import numpy: a class attribute
            # ``staticmethod(np.argmax)`` is asked for ``__name__``, ``__doc__``...
            # (copied when there) and by ABCMeta for ``__isabstractmethod__``
            raise AttributeError(attr)
        return getattr(self.resolve(), attr)


class _LazyNumpy:
    """numpy for declarations: ``np.tan`` costs nothing while numpy is not loaded
    (``import irtoolkit`` and parsing do not load it), and is numpy's own once it is."""

    def __getattr__(self, name: str) -> Any:
        module = sys.modules.get("numpy")
        if module is None:
            return _Deferred(name)
        value = getattr(module, name)
        setattr(self, name, value)
        return value


#: numpy, imported when a declared meaning first runs
np: Any = _LazyNumpy()


def resolve(fn: Any) -> Any:
    """``fn`` itself, or the numpy function a deferred ``np.<name>`` stands for."""
    return fn.resolve() if isinstance(fn, _Deferred) else fn


# ---------------------------------------------------------------------------
# element kinds, costs, partial markers


class ElementKind(enum.Enum):
    FLOAT = "float"
    INTEGER = "integer"  # signless integers wider than 1 bit, and index
    I1 = "i1"

    # hashed by identity in C (the members are singletons, equal only to themselves):
    # Enum's hash(self._name_) is a Python call each time a kernel looks a kind up
    __hash__ = object.__hash__


_TENSOR, _BY_WIDTH, _NO_KIND = object(), object(), object()


def _kind_of_class(cls: type) -> object:
    if issubclass(cls, TensorType):
        kind = _TENSOR
    elif issubclass(cls, AnyFloat):
        kind = ElementKind.FLOAT
    elif issubclass(cls, IntegerType):
        kind = _BY_WIDTH
    elif issubclass(cls, IndexType):
        kind = ElementKind.INTEGER
    else:
        kind = _NO_KIND
    return kind


#: type class -> its ElementKind, or one of the markers above; asked for nearly
#: every op by the passes, where the isinstance tests against AnyFloat's many
#: classes (abstract base classes: each test a Python call) were a hot spot
_KIND_OF_CLASS = ClassMemo(_kind_of_class)


def element_kind(t: Attribute) -> ElementKind | None:
    """The kind of a scalar type or of the elements of a tensor type."""
    kind = _KIND_OF_CLASS[type(t)]
    if kind is _TENSOR:
        t = t.element_type  # type: ignore[attr-defined]  # (TensorType.get_element_type, without the call)
        kind = _KIND_OF_CLASS[type(t)]
    if kind is _BY_WIDTH:
        return ElementKind.I1 if t.width.data == 1 else ElementKind.INTEGER  # type: ignore[attr-defined]
    return None if kind is _NO_KIND else kind  # type: ignore[return-value]


class Cost(enum.IntEnum):
    """What one element of an op costs, roughly, in simple scalar operations."""

    CHEAP = 1  # add, mul, compare, select, convert
    MEDIUM = 4  # divide, square root
    EXPENSIVE = 20  # transcendental functions, power


class _Marker:
    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


#: a partial derivative that is 1 (the tangent or adjoint passes unchanged)
ONE = _Marker("ONE")
#: a partial derivative that is -1
NEG_ONE = _Marker("NEG_ONE")


class ScalarBuilder(Protocol):
    """What a scalar builder (``float=fn`` ...) may use to emit scalar code."""

    def emit1(self, op: Operation) -> SSAValue:
        """Insert ``op`` (one result) at the current point; its result."""
        ...

    def const(self, value: int | float, type: Attribute) -> SSAValue:
        """A scalar constant of ``type``."""
        ...


class DerivativeBuilder(Protocol):
    """What ``partials`` may use. Every method emits scalar ops on scalar values and
    tensor ops on tensor values (``passes/ad/emit.py`` implements it)."""

    def const(self, value: float, like: SSAValue) -> SSAValue: ...
    def zeros(self, like: SSAValue) -> SSAValue: ...
    def add(self, a: SSAValue, b: SSAValue) -> SSAValue: ...
    def sub(self, a: SSAValue, b: SSAValue) -> SSAValue: ...
    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue: ...
    def div(self, a: SSAValue, b: SSAValue) -> SSAValue: ...
    def neg(self, a: SSAValue) -> SSAValue: ...
    def square(self, a: SSAValue) -> SSAValue: ...
    def recip(self, a: SSAValue) -> SSAValue: ...
    def scale(self, a: SSAValue, c: float) -> SSAValue: ...
    def sign(self, a: SSAValue) -> SSAValue: ...
    def cmp(self, predicate: str, a: SSAValue, b: SSAValue) -> SSAValue:
        """``predicate`` of ``tensor.cmp`` (eq ne lt le gt ge; ordered except ne)."""
        ...
    def select(self, cond: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue: ...

    def apply(self, scalar_op: type[Operation], *operands: SSAValue) -> SSAValue:
        """``scalar_op`` on scalars; on tensors, the elementwise op declared with it as
        its float counterpart (``D.exp(x)`` is ``D.apply(math.ExpOp, x)``)."""
        ...


Partials = Callable[..., list]
ScalarMeaning = type[Operation] | Callable[..., SSAValue]


# ---------------------------------------------------------------------------
# the declaration


def _is_op_class(x: object) -> bool:
    return isinstance(x, type) and issubclass(x, Operation)


class Elementwise:
    """The meaning of one elementwise op (see the module docstring for the fields)."""

    def __init__(
        self,
        *,
        float: ScalarMeaning | None = None,  # noqa: A002 -- the element kind's name
        integer: ScalarMeaning | None = None,
        i1: ScalarMeaning | None = None,
        numpy: Callable[..., Any] | None = None,
        partials: Partials | None = None,
        cost: Cost | None = None,
        unit: int | float | None = None,
        commutative: bool = False,
        differentiable: bool = True,
        domain: tuple[float, float] | Sequence[tuple[float, float]] | None = None,
    ):
        self.meanings: dict[ElementKind, ScalarMeaning] = {
            k: m for k, m in ((ElementKind.FLOAT, float), (ElementKind.INTEGER, integer),
                              (ElementKind.I1, i1)) if m is not None
        }
        #: element kind -> scalar_of_kind's answer, made once (kernels ask it per member)
        self._scalar_of_kind: dict[ElementKind, Callable[..., SSAValue] | None] = {}
        self.numpy = numpy
        self.partials = partials
        self._cost = cost
        self.unit = unit
        self.commutative = commutative
        self.differentiable = differentiable
        self._domain = domain

    def __repr__(self) -> str:
        kinds = ", ".join(f"{k.value}={getattr(m, 'name', getattr(m, '__name__', m))}"
                          for k, m in self.meanings.items())
        return f"Elementwise({kinds})"

    # -- element kinds -------------------------------------------------------

    def kind(self, op: Operation) -> ElementKind | None:
        """The element kind that selects the meaning of ``op``: its result's."""
        return element_kind(op.results[0].type)

    def element_kinds(self) -> frozenset[ElementKind]:
        """The kinds this op has a meaning for (all, for a scalar op declared alone)."""
        if not self.meanings:
            return frozenset(ElementKind)
        return frozenset(self.meanings)

    def counterpart(self, kind: ElementKind | None) -> type[Operation] | None:
        m = self.meanings.get(kind) if kind is not None else None
        return m if _is_op_class(m) else None

    def scalar_ops(self) -> tuple[type[Operation], ...]:
        """The scalar op classes this op applies elementwise."""
        return tuple(m for m in self.meanings.values() if _is_op_class(m))

    def _declaration_of(self, kind: ElementKind | None) -> Elementwise | None:
        c = self.counterpart(kind)
        return None if c is None else meaning_of(c)

    # -- what the consumers ask ------------------------------------------------

    def scalar_for(self, op: Operation) -> Callable[..., SSAValue] | None:
        """``fn(B, *scalars) -> SSAValue``: the scalar code of ``op``'s elements, or None
        when its element kind has no meaning."""
        if not self.meanings:  # a scalar op is its own meaning
            cls = type(op)
            return lambda B, *xs: B.emit1(cls(*xs))
        return self.scalar_of_kind(self.kind(op))

    def scalar_of_kind(self, kind: ElementKind | None) -> Callable[..., SSAValue] | None:
        """The scalar code for elements of that kind (see :meth:`scalar_for`), or None."""
        if kind is None:
            return None
        try:
            return self._scalar_of_kind[kind]
        except KeyError:
            pass
        m = self.meanings.get(kind)
        found = m
        if m is not None and _is_op_class(m):
            found = lambda B, *xs: B.emit1(m(*xs))  # type: ignore[operator]  # noqa: E731
        self._scalar_of_kind[kind] = found
        return found

    def numpy_for(self, op: Operation) -> Callable[..., Any] | None:
        """``fn(*arrays) -> array`` for ``op``'s element types, or None."""
        if self.numpy is not None:
            return resolve(self.numpy)
        decl = self._declaration_of(self.kind(op))
        return None if decl is None else decl.numpy_for(op)

    def numpy_of_kind(self, kind: ElementKind | None) -> Callable[..., Any] | None:
        """The numpy meaning for elements of that kind (see :meth:`numpy_for`), or None."""
        if self.numpy is not None:
            return resolve(self.numpy)
        decl = self._declaration_of(kind)
        return None if decl is None else decl.numpy_of_kind(kind)

    def partials_for(self, op: Operation | None = None) -> Partials | None:
        """The partial derivatives (of the float meaning), or None."""
        if not self.differentiable:
            return None
        if self.partials is not None:
            return self.partials
        decl = self._declaration_of(ElementKind.FLOAT)
        return None if decl is None else decl.partials_for(op)

    def unit_for(self, kind: ElementKind | None) -> tuple[int | float, bool] | None:
        """(neutral operand, also neutral on the left) for that element kind, or None."""
        if self.unit is not None:
            return self.unit, self.commutative
        decl = self._declaration_of(kind)
        return None if decl is None else decl.unit_for(kind)

    @property
    def cost(self) -> Cost:
        if self._cost is not None:
            return self._cost
        costs = [d.cost for d in map(meaning_of, self.scalar_ops()) if d is not None]
        return max(costs, default=Cost.CHEAP)

    def domain(self, arity: int) -> list[tuple[float, float]]:
        """One (lo, hi) interval per operand (see ``domain``)."""
        d = self._domain
        if d is None:
            decl = self._declaration_of(ElementKind.FLOAT)
            return decl.domain(arity) if decl is not None else [(-2.0, 2.0)] * arity
        if len(d) == 2 and not isinstance(d[0], tuple | list):
            return [tuple(d)] * arity  # type: ignore[list-item]
        return [tuple(x) for x in d]  # type: ignore[misc]


# ---------------------------------------------------------------------------
# the registry

#: op class -> its declaration
DECLARED: dict[type[Operation], Elementwise] = {}
#: (scalar op class, element kind) -> the first op declared with it as that kind's counterpart
_LIFTED: dict[tuple[type[Operation], ElementKind], type[Operation]] = {}
#: non-elementwise op class -> its cost
COSTS: dict[type[Operation], Cost] = {}
#: answers of meaning_of, counterpart, cost_of, lifted, declared_partials and declared_unit
#: by class, keyed (class, what was asked ...) (cleared by every
#: declaration: a later one may give a class, or one of its bases, a meaning or a cost)
_BY_CLASS: dict[tuple, Any] = {}


def declare(cls: type[Operation], meaning: Elementwise | None = None, **fields: Any) -> Elementwise:
    """Declare ``cls`` elementwise with ``meaning`` (or an :class:`Elementwise` of ``fields``)."""
    if meaning is None:
        meaning = Elementwise(**fields)
    elif fields:
        raise TypeError("give a declaration or its fields, not both")
    DECLARED[cls] = meaning
    _BY_CLASS.clear()
    for kind, scalar in meaning.meanings.items():
        if _is_op_class(scalar):
            _LIFTED.setdefault((scalar, kind), cls)
    return meaning


def elementwise(meaning: Elementwise | None = None, **fields: Any):
    """Class decorator: ``@elementwise(float=math.TanOp)`` declares the op below it."""

    def deco(cls):
        declare(cls, meaning, **fields)
        return cls

    return deco


def declare_cost(cls: type[Operation], cost: Cost) -> None:
    """The cost of a non-elementwise op (matmul, reductions) for the cost models."""
    COSTS[cls] = cost
    _BY_CLASS.clear()


_LOADED = False


def _load_builtin_declarations() -> None:
    global _LOADED
    if not _LOADED:
        _LOADED = True
        import irtoolkit.dialects.scalar  # noqa: F401
        import irtoolkit.dialects.tensor  # noqa: F401


def meaning_of(op: Operation | type[Operation]) -> Elementwise | None:
    """The declaration of ``op`` (an op or an op class), or of its nearest declared base."""
    try:  # an op whose class was asked about (asked of every op by the passes): no call
        return _BY_CLASS[type(op), None]  # (of an op class: its metaclass, never a key)
    except KeyError:
        pass
    _load_builtin_declarations()
    cls = op if isinstance(op, type) else type(op)
    try:
        return _BY_CLASS[cls, None]
    except KeyError:
        pass
    found = next((decl for base in cls.__mro__ if (decl := DECLARED.get(base)) is not None), None)
    _BY_CLASS[cls, None] = found
    return found


def is_elementwise(op: Operation | type[Operation]) -> bool:
    return meaning_of(op) is not None


def lifted(scalar_op: type[Operation], kind: ElementKind | None = None) -> type[Operation] | None:
    """The op declared with ``scalar_op`` as its counterpart for elements of ``kind``
    (``math.exp`` -> ``tensor.exp``; ``arith.andi`` -> ``tensor.mul`` on i1 but
    ``tensor.and`` on integers); any kind, floats first, when ``kind`` is None."""
    _load_builtin_declarations()
    if kind is not None:
        return _LIFTED.get((scalar_op, kind))
    try:  # (the derivative emitter asks for every op it emits; iterating an enum is slow)
        return _BY_CLASS[scalar_op, lifted]
    except KeyError:
        pass
    found = next((c for k in ElementKind if (c := _LIFTED.get((scalar_op, k))) is not None), None)
    _BY_CLASS[scalar_op, lifted] = found
    return found


def counterpart(op_class: type[Operation], kind: ElementKind) -> type[Operation] | None:
    """The op declared as the counterpart on elements of ``kind`` of ``op_class``
    or of its nearest base that has one (``math.exp`` -> ``tensor.exp``)."""
    try:
        return _BY_CLASS[op_class, kind]
    except KeyError:
        pass
    found = next((c for base in op_class.__mro__ if (c := lifted(base, kind)) is not None), None)
    _BY_CLASS[op_class, kind] = found
    return found


def declared_partials(op_class: type[Operation]) -> Partials | None:
    """``meaning_of(op_class).partials_for()``: the partial derivatives of the float
    meaning of ``op_class``, or None (remembered per class: the ad pass asks per op)."""
    try:
        return _BY_CLASS[op_class, declared_partials]
    except KeyError:
        pass
    meaning = meaning_of(op_class)
    found = None if meaning is None else meaning.partials_for()
    _BY_CLASS[op_class, declared_partials] = found
    return found


def declared_unit(op_class: type[Operation], kind: ElementKind | None) -> tuple[int | float, bool] | None:
    """``meaning_of(op_class).unit_for(kind)``: (neutral operand, also neutral on the
    left) of ``op_class`` on elements of ``kind``, or None (remembered per class and
    kind: the derivative emitter asks for every binary op it emits)."""
    try:
        return _BY_CLASS[op_class, declared_unit, kind]
    except KeyError:
        pass
    meaning = meaning_of(op_class)
    found = None if meaning is None else meaning.unit_for(kind)
    _BY_CLASS[op_class, declared_unit, kind] = found
    return found


def cost_of(op: Operation | type[Operation]) -> Cost:
    """The declared cost of ``op`` (elementwise or not); CHEAP when none is declared."""
    _load_builtin_declarations()
    cls = op if isinstance(op, type) else type(op)
    try:  # (the cost models ask once per op of a loop body)
        return _BY_CLASS[cls, Cost]
    except KeyError:
        pass
    found = Cost.CHEAP
    for base in cls.__mro__:
        decl = DECLARED.get(base)
        if decl is not None:
            found = decl.cost
            break
        cost = COSTS.get(base)
        if cost is not None:
            found = cost
            break
    _BY_CLASS[cls, Cost] = found
    return found


def declared_ops() -> dict[type[Operation], Elementwise]:
    """Every declared op class (the builtin ones and those added since)."""
    _load_builtin_declarations()
    return dict(DECLARED)


__all__ = [
    "Elementwise", "ElementKind", "Cost", "ONE", "NEG_ONE", "np", "resolve",
    "ScalarBuilder", "DerivativeBuilder", "declare", "elementwise", "declare_cost",
    "meaning_of", "is_elementwise", "lifted", "cost_of", "declared_ops", "element_kind",
    "declared_partials", "declared_unit",
]
