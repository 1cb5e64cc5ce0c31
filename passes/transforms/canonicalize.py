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
from xdsl.ir import Operation, Region, SSAValue
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.transforms.canonicalize import CanonicalizationRewritePattern, CanonicalizePass
from xdsl.folder import Folder
from xdsl.traits import ConstantLike, HasFolder
from xdsl.transforms import dead_code_elimination
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


class _ChangeTrackingWalker(PatternRewriteWalker):
    """xDSL's walker, whose sweeps after the first visit only the ops near a change.

    xDSL sweeps every op again after a sweep (and its region DCE) changed
    anything, until a sweep changes nothing; on a program of 10^4 ops the first
    sweep typically changes a few and the second, visiting all, changes none.
    Here a later sweep visits, in the same (walk) order, only the ops the
    previous sweep rewrote, or it or DCE inserted (with the ops nested in them),
    modified or left with changed operands or uses, their users, the producers
    of their operands and the ops they are nested in: the ops whose patterns or
    folds can see a difference, the others having come out of a sweep unchanged.
    The output is the full sweeps' (test/passes/transforms/test_canonicalize_sweeps.py)."""

    def rewrite_region(self, region: Region) -> bool:
        changed_ops: set[Operation] = set()
        pattern = self.pattern
        self.pattern = _NoteRewritten(pattern, changed_ops)
        try:
            return self._rewrite_region(region, changed_ops)
        finally:
            self.pattern = pattern

    def _rewrite_region(self, region: Region, changed_ops: set[Operation]) -> bool:
        listener = self._get_rewriter_listener()
        inserted_bodies: list[Operation] = []  # ops inserted with a body, nested ops unheard of

        def note_insertion(op: Operation) -> None:
            changed_ops.add(op)
            if op.regions:
                inserted_bodies.append(op)

        listener.operation_insertion_handler.append(note_insertion)
        listener.operation_modification_handler.append(changed_ops.add)
        listener.operation_removal_handler.append(lambda op: _note_removal(op, changed_ops))
        listener.operation_replacement_handler.append(lambda op, _: _note_users(op, changed_ops))

        self._populate_worklist(region)
        changed = self._process_worklist(listener)
        changed |= region_dce(region, listener)
        result = changed
        while changed:
            near = _neighbourhood(changed_ops)
            for op in inserted_bodies:
                if op.parent is not None:
                    near.update(op.walk())
            changed_ops.clear()
            inserted_bodies.clear()
            # (the order of _populate_worklist: a stack, so the walk reversed)
            for op in region.walk(reverse=not self.walk_reverse, region_first=not self.walk_regions_first):
                if op in near:
                    self._worklist.push(op)
            changed = self._process_worklist(listener)
            if changed:  # (else the IR is as the last DCE left it: nothing dead)
                region_dce(region, listener)
        return result


@dataclass(frozen=True, eq=False)
class _NoteRewritten(RewritePattern):
    """``pattern``, noting in ``into`` each op it rewrote: another pattern may match the
    op next (the greedy applier stops at the first that acts, and the listener does
    not hear of every change a pattern makes to the op, such as ops moved out of
    its body)."""

    pattern: RewritePattern
    into: set[Operation]

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        self.pattern.match_and_rewrite(op, rewriter)
        if rewriter.has_done_action:
            self.into.add(op)


def _note_users(op: Operation, into: set[Operation]) -> None:
    for result in op.results:
        for use in result.uses:
            into.add(use.operation)


def _note_ancestors(op: Operation, into: set[Operation]) -> None:
    parent = op.parent_op()
    while parent is not None:  # (a loop whose body lost its last op may fold now)
        into.add(parent)
        parent = parent.parent_op()


def _note_removal(op: Operation, into: set[Operation]) -> None:
    _note_ancestors(op, into)
    for operand in op.operands:
        owner = operand.owner
        if isinstance(owner, Operation):
            into.add(owner)
            if _at_most_two_uses(operand):
                # the other user now has the value alone (patterns ask for one use;
                # a constant used by thousands gives none of them anything to see)
                for use in operand.uses:
                    into.add(use.operation)


def _at_most_two_uses(value: SSAValue) -> bool:
    use = value.first_use
    for _ in range(2):
        if use is None:
            return True
        use = use._next_use
    return use is None


def _neighbourhood(ops: set[Operation]) -> set[Operation]:
    """``ops`` still in the IR, their users, the producers of their operands and the
    ops they are nested in."""
    near: set[Operation] = set()
    for op in ops:
        if op.parent is None:
            continue  # erased (or detached)
        near.add(op)
        _note_ancestors(op, near)
        _note_users(op, near)
        for operand in op.operands:
            if isinstance(operand.owner, Operation):
                near.add(operand.owner)
    return near


@dataclass(frozen=True)
class Canonicalize(CanonicalizePass):
    """Fold constants and apply canonicalization patterns (arith/math on tensors become tensor ops)."""

    name = "canonicalize"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        _ChangeTrackingWalker(canonicalization_pattern(ctx)).rewrite_module(op)


def canonicalization_pattern(ctx: Context) -> GreedyRewritePatternApplier:
    """What `canonicalize` applies to each op: folds, then the ops' canonicalization
    patterns and ours."""
    return _Applier([CanonicalizationRewritePattern(), LiftScalarOpOnTensors()], ctx=ctx, folding_enabled=True)


class _Applier(GreedyRewritePatternApplier):
    """xDSL's applier (dead ops erased, then folds, then the patterns), with what it
    asks of every op's class answered once per class and one folder for all ops
    (it imported a function, made a folder and looked up two traits per op)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if self.dce_enabled and dead_code_elimination.is_trivially_dead(op):
            rewriter.erase(op)
            return
        if self.folding_enabled and _folds(type(op), op):
            folded = self._folder().try_fold(op)
            if folded is not None:
                rewriter.replace(op, new_ops=folded[1], new_results=folded[0])
                return
        for pattern in self.rewrite_patterns:
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                return

    def _folder(self) -> Folder:
        folder = self.__dict__.get("_folder_")
        if folder is None:
            if self.ctx is None:
                raise ValueError("Context is required for folding")
            folder = self.__dict__["_folder_"] = Folder(self.ctx)
        return folder


def _folds(cls: type, op: Operation) -> bool:
    """Are ops of class ``cls`` (``op`` one) folded: a folder, and not a constant (whose
    fold would be materialised as itself again)."""
    try:
        return _FOLDS[cls]
    except KeyError:
        found = _FOLDS[cls] = (op.has_trait(HasFolder, value_if_unregistered=False)
                               and not op.has_trait(ConstantLike, value_if_unregistered=True))
        return found


_FOLDS: dict[type, bool] = {}

