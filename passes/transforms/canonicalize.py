"""`canonicalize`: xDSL's canonicalization, plus one rewrite of ours.

Scalar ``arith``/``math`` ops applied to tensors are valid (SPEC §2: upstream's
elementwise meaning); canonicalization rewrites each into the ``tensor`` op
declared with it as a counterpart (``math.exp`` on a tensor becomes
``tensor.exp``), so the rest of the pipeline sees one spelling. Ops without a
tensor counterpart (``math.isnan``, shifts, casts ...) stay as they are; the
lowering and the interpreter take them elementwise.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.transforms.canonicalize import CanonicalizationRewritePattern, CanonicalizePass
from xdsl.transforms.dead_code_elimination import region_dce
from xdsl.utils.exceptions import VerifyException

from irtoolkit.dialects.elementwise import ElementKind, counterpart, element_kind


def _has_tensor_counterpart(cls: type[Operation]) -> bool:
    """Whether op class ``cls`` has a tensor counterpart for some element kind
    (remembered per class: the pattern is tried on every op, nearly all of
    them tensor or other ops that have none)."""
    try:
        return _LIFTABLE[cls]
    except KeyError:
        found = _LIFTABLE[cls] = any(counterpart(cls, kind) is not None for kind in ElementKind)
        return found


_LIFTABLE: dict[type, bool] = {}


def _tensor_counterpart(op: Operation) -> type[Operation] | None:
    kind = element_kind(op.results[0].type)
    return None if kind is None else counterpart(type(op), kind)


class LiftScalarOpOnTensors(RewritePattern):
    """``%r = math.exp %x : tensor<4xf32>`` -> ``%r = tensor.exp %x : tensor<4xf32>``."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if not _has_tensor_counterpart(type(op)) or op.regions or len(op.results) != 1 or not op.operands:
            return
        if not all(isinstance(v.type, TensorType) for v in (*op.operands, op.results[0])):
            return
        target = _tensor_counterpart(op)
        if target is None:
            return
        new = target.create(operands=list(op.operands), result_types=[op.results[0].type])
        try:
            new.verify()
        except VerifyException:
            return  # e.g. an element type the tensor op does not take: leave the scalar spelling
        new.location = op.location
        rewriter.replace(op, new)


@dataclass(frozen=True)
class Canonicalize(CanonicalizePass):
    """Fold constants and apply canonicalization patterns (arith/math on tensors become tensor ops)."""

    name = "canonicalize"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        pattern = GreedyRewritePatternApplier(
            [CanonicalizationRewritePattern(), LiftScalarOpOnTensors()], ctx=ctx, folding_enabled=True
        )
        PatternRewriteWalker(pattern, post_walk_func=region_dce).rewrite_module(op)
