"""Adding ops to irtoolkit from outside: the extension API.

A compiler that embeds irtoolkit defines its own ops as xDSL IRDL classes in a
``Dialect`` of its own, gives them their rules with the functions here, and
registers the dialect (:func:`register_dialect`); ``irtoolkit.parse``,
``compile``, ``interpret`` and the passes then treat them as their own, as
JAX does with ``Primitive`` + ``defjvp`` + ``register_lowering``. Nothing of
irtoolkit is edited, and every table is keyed by op class (a subclass inherits
the entries of its base).

An **elementwise** op needs one declaration; its interpreter rule, folding,
fused and unfused lowering, JVP, VJP and cost are derived from it::

    from xdsl.dialects import arith, math
    from xdsl.irdl import irdl_op_definition
    from irtoolkit import extend
    from irtoolkit.extend import np

    def softplus(B, x):                    # scalar code: B.emit1(op), B.const(value, type)
        one = B.const(1.0, x.type)
        return B.emit1(math.LogOp(B.emit1(arith.AddfOp(one, B.emit1(math.ExpOp(x))))))

    @extend.elementwise(float=softplus,
                        numpy=lambda x: np.log(1 + np.exp(x)),
                        partials=lambda D, ins, outs, need: [D.recip(D.add(D.const(1.0, ins[0]),
                                                                           D.exp(D.neg(ins[0]))))],
                        cost=extend.Cost.EXPENSIVE)
    @irdl_op_definition
    class SoftplusOp(extend.UnaryElementwiseOp):   # `%y = mydialect.softplus %x : tensor<4xf32>`
        name = "mydialect.softplus"

(``float=`` may also name a scalar op class, whose own declaration then gives
the numpy meaning, partials and cost: ``@extend.elementwise(float=math.TanOp)``.)

Give the dialect ``ConstantMaterialization()`` among its interfaces
(``Dialect("mydialect", ops, [], [extend.ConstantMaterialization()])``) so that
``canonicalize`` folds its ops on constants.

A **structural** op registers one rule per table:

- interpreter: ``@extend.interpreter_rule(MyOp)`` on ``fn(interp, op, args) ->
  tuple of results`` (numpy values in, numpy values out);
- lowering (``lower-tensor-to-loop``): ``@extend.lowering_rule(MyOp)`` on
  ``fn(L, op)``, where ``L`` is the bufferizing :class:`TensorLowering`, a
  :class:`KernelEmitter` with buffers: ``L.buf(v)`` / ``L.dims(v)`` (the buffer
  and sizes of an operand), ``L.fresh(result, dims)`` (the result's buffer),
  ``L.load`` / ``L.store``, ``L.emit1(op)``, ``L.const`` / ``L.index``,
  ``L.loop(lb, ub, inits, body)``, ``L.nest(dims, inits, body)``,
  ``L.for_each(dims, body)``; run-time checks in ``passes/lowering/checks.py``;
- derivatives: ``extend.derivatives(MyOp, jvp=..., vjp=...)`` with
  ``jvp(E, op, ins, outs, tangents) -> [tangent | None per result]`` and
  ``vjp(E, op, ins, outs, adjoints, need) -> [adjoint | None per operand]``
  (``E`` emits scalar or tensor code: ``E.add``, ``E.mul``, ``E.reduce_sum``,
  ``E.broadcast``, ``E.v(op)`` ...; None is a zero), or
  ``extend.nondifferentiable(MyOp)``.

The compile cache keys programs by their text and pipeline, not by the rules:
after changing a rule, clear it (``irtoolkit.runtime.clear_cache()``) or set
``IRT_NO_CACHE=1``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from irtoolkit.context import register_dialect
from irtoolkit.dialects.elementwise import (
    NEG_ONE,
    ONE,
    Cost,
    DerivativeBuilder,
    ElementKind,
    Elementwise,
    ScalarBuilder,
    declare,
    declare_cost,
    elementwise,
    meaning_of,
    np,
)
from irtoolkit.dialects.tensor import BinaryElementwiseOp, UnaryElementwiseOp
from irtoolkit.dialects.tensor import TensorConstantMaterialization as ConstantMaterialization
from irtoolkit.interpreter.core import register as interpreter_rule
from irtoolkit.interpreter.core import register_specialized as interpreter_rule_factory
from irtoolkit.passes.ad.rules import derivatives
from irtoolkit.passes.ad.rules import nondiff as nondifferentiable
from irtoolkit.passes.lowering.kernel import KernelEmitter
from irtoolkit.passes.lowering.tensor_to_loop import TensorLowering
from irtoolkit.passes.lowering.tensor_to_loop_rules import lowering_rule

Rule = Callable[..., Any]

__all__ = [
    "register_dialect", "ConstantMaterialization",
    "elementwise", "declare", "Elementwise", "ElementKind", "Cost", "ONE", "NEG_ONE", "np",
    "ScalarBuilder", "DerivativeBuilder", "meaning_of", "declare_cost",
    "UnaryElementwiseOp", "BinaryElementwiseOp",
    "interpreter_rule", "interpreter_rule_factory", "lowering_rule", "KernelEmitter", "TensorLowering",
    "derivatives", "nondifferentiable",
]
