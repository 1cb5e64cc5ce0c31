"""Module verification with located, MLIR-style messages.

Runs xDSL's verifiers op by op (so that the failing op is known) and the
checks that xDSL's verifiers of reused ops lack.
"""

from __future__ import annotations

from operator import attrgetter

from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.ir import BlockArgument, ErasedSSAValue, Operation, OpResult
from xdsl.traits import IsolatedFromAbove, IsTerminator, NoTerminator, SymbolOpInterface, SymbolTable
from xdsl.utils.exceptions import DiagnosticException, VerifyException

from irtoolkit import xdsl_patches
from irtoolkit.classtest import ClassMemo
from irtoolkit.dialects.func import verify_function
from irtoolkit.diagnostics import Diagnostic, DiagnosticError, location_of, op_error
from irtoolkit.dominance import DominanceChecker
from irtoolkit.xdsl_patches import ISOLATION_CHECKED_BY_WALK

xdsl_patches.apply()


def _check_subview(op: Operation) -> None:
    # xDSL 0.74 does not check that a subview has one offset, size and stride per dim
    rank = op.source.type.get_num_dims()
    for what in ("offsets", "sizes", "strides"):
        count = len(getattr(op, "static_" + what).get_values())
        if count != rank:
            raise VerifyException(f"expected {rank} {what} (one per source dim), got {count}")


def _check_memref_reassociation(op: Operation) -> None:
    # xDSL 0.74 does not check memref collapse/expand reassociations at all
    src, res = op.operands[0].type, op.results[0].type
    expanded, collapsed = (src, res) if op.name == "memref.collapse_shape" else (res, src)
    groups = [[e.value.data for e in g] for g in op.reassociation.data]
    flat = [d for g in groups for d in g]
    if collapsed.get_num_dims() == 0:
        if groups:
            raise VerifyException(f"a rank-0 collapsed type takes an empty reassociation, got {groups}")
        return
    if flat != list(range(expanded.get_num_dims())):
        raise VerifyException(
            f"reassociation {groups} must list the {expanded.get_num_dims()} expanded dims in order"
        )
    if len(groups) != collapsed.get_num_dims() or any(not g for g in groups):
        raise VerifyException(
            f"reassociation {groups} needs one non-empty group per collapsed dim ({collapsed.get_num_dims()})"
        )


def _check_scf_yields(op: Operation) -> None:
    # xDSL 0.74's scf.if/scf.for accept yields that do not match their results
    expected = [r.type for r in op.results]
    for region in op.regions:
        block = region.first_block
        term = None if block is None else block.last_op
        if term is None or term.name != "scf.yield":
            continue
        got = [v.type for v in term.operands]
        if got != expected:
            raise VerifyException(
                f"region yields {len(got)} value(s) of type(s) ({', '.join(map(str, got))}) "
                f"but the op has results of type(s) ({', '.join(map(str, expected))})"
            )


def _check_index_constant(op: Operation) -> None:
    # xDSL 0.74 bounds no `index` constant; index is 64 bits wide once lowered
    value = op.properties.get("value")
    if isinstance(value, IntegerAttr) and isinstance(value.type, IndexType):
        if not -(2**63) <= value.value.data < 2**64:
            raise VerifyException(f"index constant {value.value.data} does not fit in 64 bits")


# Checks that xDSL's own verifiers of reused ops lack.
_EXTRA_CHECKS = {
    "arith.constant": _check_index_constant,
    "memref.subview": _check_subview,
    "memref.collapse_shape": _check_memref_reassociation,
    "memref.expand_shape": _check_memref_reassociation,
    "scf.if": _check_scf_yields,
    "scf.for": _check_scf_yields,
    "func.func": verify_function,
}

# The extra checks that, like a signature-verified op's own verifier (see
# ``_signature_verified``), read only the op's operand and result types and
# properties: run once per signature with it, so that such ops (every
# `arith.constant`) stay on ``verify_module``'s quick path.
_SIGNATURE_EXTRA_CHECKS = frozenset(("arith.constant", "memref.subview", "memref.collapse_shape",
                                     "memref.expand_shape"))


def _verify_structure(op: Operation, block_counts: dict[int, int]) -> None:
    """xDSL's structural checks of ``Operation.verify`` (the terminator one is
    ``_verify_terminates``), without its per-op block counting.

    xDSL counts a region's blocks (a linked-list walk) for every terminator,
    which makes verification quadratic in the number of blocks; the counts are
    computed once per region here.
    """
    if ErasedSSAValue in map(type, op._operands):  # (it has no subclasses)
        raise VerifyException("an operand is an erased value")
    if op._successors:
        block = op.parent
        region = None if block is None else block.parent
        if block is None or region is None or block.last_op is not op:
            raise VerifyException("an op with successors must terminate its block")
        if any(succ.parent is not region for succ in op.successors):
            raise VerifyException("branches to a block of a different region")


def _verify_terminates(op: Operation, block_counts: dict[int, int]) -> None:
    """The last op of a block that needs a terminator is one."""
    block = op.parent
    region = None if block is None else block.parent
    if region is None or block.last_op is not op:
        return
    n_blocks = block_counts.get(id(region))
    if n_blocks is None:
        n_blocks = block_counts[id(region)] = len(region.blocks)
    if op.has_trait(IsTerminator):
        return
    parent_op = region.parent
    if n_blocks > 1 or (parent_op is not None and not parent_op.has_trait(NoTerminator)):
        # mlir-opt's words, at the last op: the block lacks a terminator (the op is fine)
        raise DiagnosticError(Diagnostic(f"block with no terminator, has '{op.name}'", location_of(op)))


def _verify_empty_blocks(op: Operation) -> None:
    for region in op.regions:
        first = region.first_block
        if first is None:
            continue
        if first.next_block is None:
            if first.first_op is None and not op.has_trait(NoTerminator):
                raise VerifyException("empty block: expect at least a terminator")
            continue
        # every block of a multi-block region ends in a terminator
        if any(block.first_op is None for block in region.blocks):
            raise VerifyException("empty block: expect at least a terminator")


def _verify_dominance(op: Operation, dominance: DominanceChecker, visible: set | None) -> None:
    for i, value in enumerate(op._operands):
        if visible is not None and value in visible:
            continue  # defined before `op` in its block or an enclosing one
        if not dominance.properly_dominates(value, op):
            raise VerifyException(f"operand #{i} does not dominate this use")


_TYPE_ONLY: frozenset[str] | None = None


def _audited_by_name(name: str) -> bool:
    """Ops whose own verifier (ours, or xDSL's that ours extend) was read and
    looks at nothing but the op's operand and result types, properties and
    attributes: ``arith``, ``math`` and the elementwise ``tensor`` ops."""
    global _TYPE_ONLY
    if _TYPE_ONLY is None:
        from irtoolkit.dialects.tensor import ELEMENTWISE_OPS

        _TYPE_ONLY = frozenset(cls.name for cls in ELEMENTWISE_OPS)
    return name.startswith(("arith.", "math.")) or name in _TYPE_ONLY


def _local_traits() -> tuple[type, ...]:
    """Trait classes whose ``verify`` reads only the op's own types and
    properties (the others, e.g. IsTerminator, HasParent, IsolatedFromAbove,
    look around the op)."""
    from xdsl.interfaces import _HasFolderInterfaceTrait  # its verify checks nothing
    from xdsl.traits import SameOperandsAndResultType

    return (SameOperandsAndResultType, _HasFolderInterfaceTrait)


def _symbol_use_check(trait) -> object | None:
    """For a trait that resolves a symbol -- the answer depends on the module,
    not the op alone, so it runs on every op even when the op's signature is
    known good -- how it is checked then: ``check(op, symbols)``, ``symbols``
    being the symbol tables met by this verification. By name, so that the
    dialect need not be imported to ask."""
    cls = type(trait)
    return _SYMBOL_USE_CHECKS.get((cls.__module__, cls.__qualname__))


def _lookup_symbol(op: Operation, name, symbols: dict) -> Operation | None:
    """xDSL's ``SymbolTable.lookup_symbol``, with each symbol table read once
    per verification (a table's ops are scanned for every lookup in xDSL), and
    the symbol-table op around the ops of a block found once (``symbols`` holds
    both: symbol-table op -> its symbols, block -> its symbol-table op)."""
    if name.nested_references:
        return SymbolTable.lookup_symbol(op, name)
    block = None if op.has_trait(SymbolTable) else op.parent
    anchor = op if block is None else symbols.get(block)
    if anchor is None:  # the first op of its block asked: the symbol table above the block
        anchor = block.parent_op()
        while anchor is not None and not anchor.has_trait(SymbolTable):
            anchor = anchor.parent_op()
        if anchor is None:
            raise ValueError(f"Operation {op} has no SymbolTable ancestor")
        symbols[block] = anchor
    table = symbols.get(anchor)
    if table is None:  # by the names' text: a StringAttr hashes through Python, a str in C
        table = symbols[anchor] = {}
        for o in anchor.regions[0].block.ops:
            sym = o.get_trait(SymbolOpInterface)
            if sym is not None and (sym_name := sym.get_sym_attr_name(o)) is not None:
                table.setdefault(sym_name.data, o)  # the first one, as xDSL's scan
    return table.get(name.root_reference.data)


def _check_llvm_callee(op: Operation, symbols: dict) -> None:
    """``llvm.call``'s CallOpSymbolUserOpInterface check, same verdicts and words."""
    global _LLVM_FUNC
    if _LLVM_FUNC is None:  # (an import statement costs ~1 us a call; this runs on every call op)
        from xdsl.dialects.llvm import FuncOp as _LLVM_FUNC
    callee = op.properties.get("callee")  # (op.callee, without its descriptor's Python call)
    if callee is None:
        return
    # the verdict depends on the callee's name and the block of the call only
    # (the symbol table above it): told once per verification for each pair
    memo = None if callee.nested_references.data else (op.parent, callee.root_reference.data)
    if memo is not None and symbols.get(memo) is _GOOD_CALLEE:
        return
    found = _lookup_symbol(op, callee, symbols)
    if not found:
        raise VerifyException(f"'{callee}' could not be found in symbol table")
    if not isinstance(found, _LLVM_FUNC):
        raise VerifyException(f"'{callee}' must reference an 'llvm.func', but found '{found.name}'")
    if memo is not None:
        symbols[memo] = _GOOD_CALLEE


_GOOD_CALLEE = object()  # in the symbols of a verification: (block, callee name) -> this, when it checked


_LLVM_FUNC: type | None = None  # xDSL's llvm.func, imported at the first llvm.call checked
_SYMBOL_USE_CHECKS = {("xdsl.dialects.llvm", "CallOpSymbolUserOpInterface"): _check_llvm_callee}


# xDSL's own ``verify_`` methods (0.74), by module and qualified name, that
# were read and look at the op's types and properties only.
_AUDITED_CUSTOM_VERIFIERS = frozenset(("xdsl.dialects.llvm", f"{op}.verify_")
                                      for op in ("CallIntrinsicOp", "GEPOp", "ICmpOp", "ShuffleVectorOp"))


def _custom_verifier(cls: type) -> tuple[str, str] | None | bool:
    """The hand-written ``verify_`` that an IRDL op class runs after the checks
    of its definition, by module and qualified name: None when there is none,
    False when it cannot be told."""
    fn = getattr(cls, "verify_", None)
    code = getattr(fn, "__code__", None)
    if code is None or fn.__qualname__ != "get_accessors_from_op_def.<locals>.verify_":
        return False  # not the verifier irdl_op_definition generates
    if "custom_verify" not in code.co_freevars:
        return None
    custom = fn.__closure__[code.co_freevars.index("custom_verify")].cell_contents
    if custom is Operation.verify_:
        return None  # the base class's, which checks nothing
    return (getattr(custom, "__module__", ""), getattr(custom, "__qualname__", ""))


# op class -> None (its verification is not a function of its signature) or
# the symbol-use traits to run on every op of that class
_SIGNATURE_VERIFIED: dict[type, tuple | None] = {}


def _signature_verified(cls: type) -> tuple | None:
    """Whether the verification of an op of class ``cls`` (xDSL's checks of its
    definition, its traits and its own verifier) is a function of its
    signature -- class, operand and result types, properties and attributes --
    except for its symbol-use traits, returned with their checks (then: a
    tuple of (trait, check) pairs, maybe empty)."""
    try:
        return _SIGNATURE_VERIFIED[cls]
    except KeyError:
        pass
    from xdsl.irdl import IRDLOperation
    from xdsl.traits import OpTrait

    verdict = None
    if isinstance(cls, type) and issubclass(cls, IRDLOperation):
        op_def = cls.get_irdl_definition()
        local = _local_traits()
        if op_def.regions or op_def.successors:
            pass
        elif _audited_by_name(cls.name):
            verdict = ()
        elif (all(type(t).verify is OpTrait.verify or isinstance(t, local) or _symbol_use_check(t)
                  for t in op_def.traits)
              and (custom := _custom_verifier(cls)) is not False
              and (custom is None or custom in _AUDITED_CUSTOM_VERIFIERS)):
            verdict = tuple((t, _symbol_use_check(t)) for t in op_def.traits if _symbol_use_check(t))
    _SIGNATURE_VERIFIED[cls] = verdict
    return verdict


def _signature(op: Operation) -> tuple:
    """What the verification of an op of a ``_signature_verified`` class depends on
    (``verify_module`` builds it inline, the same way)."""
    return (type(op), *map(_TYPE_OF, op._operands), None, *map(_TYPE_OF, op.results), None,
            *op.properties.items(), None, *op.attributes.items())


_TYPE_OF = attrgetter("_type")


def _quick_checks(cls: type) -> tuple | None:
    """Whether ``verify_module`` may verify an op of class ``cls`` that has no
    regions or successors and does not end its block by its signature alone
    (then: the symbol-use checks that still run on it, see
    ``_signature_verified``): signature-verified, and no extra check but
    one of ``_SIGNATURE_EXTRA_CHECKS``."""
    checks = _signature_verified(cls)
    name = getattr(cls, "name", None)
    if name in _EXTRA_CHECKS and name not in _SIGNATURE_EXTRA_CHECKS:
        checks = None
    return checks


_QUICK = ClassMemo(_quick_checks)


# An op's signature in the form that is the cheapest to compare with an op:
# (its class, its operands' and results' types, copies of its properties and
# attributes), the properties and attributes compared as dicts (the same
# attribute objects by identity), not flattened into a new tuple as
# ``_signature`` does. Kept in the __dict__ of an op that verified (when
# ``remember``: verify-each verifies it again after the next pass), and in
# ``passed`` under the class for the op of that class that verified last
# (the ops a pass makes are alike: a new op is compared with it first).
# Each op keeps a state of its own, made of its own type and attribute
# objects: compared with the op again, they are the same objects (compared
# in C), where another op's equal ones are compared by their dataclass
# ``__eq__`` (in Python, recursive): with shared states, half the unchanged
# ops after `ad` on the scaling program compared their types that way.
_VERIFIED_STATE = "_irt_verified_state"


def _state_of(op: Operation, types: tuple) -> tuple:
    return (type(op), types, dict(op.properties), dict(op.attributes))


def _types_of(op: Operation) -> tuple:
    return tuple(map(_TYPE_OF, op._operands + op.results))


# Marks the keys of ``passed`` that are a signature told by the identities
# of its objects (``_identity_key``).
_BY_IDENTITY = object()


def _identity_key(op: Operation, types: tuple) -> tuple:
    """``op``'s signature (its class, operand and result types, properties and
    attributes) by the ids of its type and attribute objects: the ops a pass
    builds share them (the 10k scaling program's ~43k ops have 24 to 375
    such keys after each pass), and ids hash and compare in C, where a
    signature's attributes hash by their dataclass ``__hash__`` (Python,
    recursive) and compare by ``__eq__`` when they are equal but not the
    same objects."""
    properties, attributes = op.properties, op.attributes
    return (_BY_IDENTITY, type(op), len(op._operands), *map(id, types), None, *properties,
            *map(id, properties.values()), None, *attributes, *map(id, attributes.values()))


def _signature_passed(op: Operation, types: tuple, passed: dict, remember: bool) -> bool | None:
    """Whether ``op``, whose operands' and results' types are ``types``, has a
    signature that verified before (None: it cannot be hashed), beside the
    one it keeps itself (``verify_module`` compares that first): the one of
    the last op of its class that verified, then any in ``passed`` (by the
    identities of its objects, then by their values)."""
    cls = type(op)
    last = passed.get(cls)
    if ((last is not None and last[1] == types and last[2] == op.properties and last[3] == op.attributes)
            or _identity_key(op, types) in passed):
        if remember:
            op.__dict__[_VERIFIED_STATE] = _state_of(op, types)
        return True
    try:
        known = _signature(op) in passed
    except TypeError:  # an unhashable attribute
        return None
    if known:
        _passed(op, types, passed, remember)
    return known


def _passed(op: Operation, types: tuple, passed: dict, remember: bool) -> None:
    """``op``'s signature verified: the last of its class, known by its objects'
    identities, and kept by the op when ``remember``."""
    properties, attributes = op.properties, op.attributes
    # (the objects themselves kept with it: their ids are not reused while it is known)
    passed[_identity_key(op, types)] = (types, tuple(properties.values()), tuple(attributes.values()))
    state = passed[type(op)] = _state_of(op, types)
    if remember:
        op.__dict__[_VERIFIED_STATE] = state


def _same_since_verified(op: Operation, types: tuple) -> bool:
    """Whether ``op``'s signature is the one it kept when it last verified."""
    return op.__dict__.get(_VERIFIED_STATE) == (type(op), types, op.properties, op.attributes)


def _own_verifier(op: Operation, passed: dict | None, symbols: dict, remember: bool = False) -> None:
    """``op.verify_()``, reduced to its symbol-use traits for an op whose
    verification is a function of its signature (see ``_signature_verified``)
    when that signature already passed (``passed``: the signatures seen)."""
    rerun = None if passed is None or op.regions else _signature_verified(type(op))
    if rerun is None:
        op.verify_()
        return
    types = _types_of(op)
    if not _same_since_verified(op, types):
        known = _signature_passed(op, types, passed, remember)
        if not known:
            op.verify_()
            if known is False:
                if op.name in _SIGNATURE_EXTRA_CHECKS:  # (verify_op runs it again: it passes)
                    _EXTRA_CHECKS[op.name](op)
                passed[_signature(op)] = True
                _passed(op, types, passed, remember)
            return
    for _trait, check in rerun:
        check(op, symbols)


def verify_op(
    op: Operation,
    block_counts: dict[int, int] | None = None,
    dominance: DominanceChecker | None = None,
    visible: set | None = None,
    passed: dict | None = None,
    symbols: dict | None = None,
    remember: bool = False,
) -> None:
    """Verify ``op`` alone (not its nested ops); raise a located DiagnosticError.

    ``visible``: values known to dominate ``op`` (see :func:`verify_module`);
    the others are checked with ``dominance``. ``passed``: signatures of ops
    already verified (see :func:`_own_verifier`); ``remember``: each op keeps the
    signature it verified with, for the next verification (verify-each)."""
    try:
        counts = {} if block_counts is None else block_counts
        _verify_structure(op, counts)
        _verify_dominance(op, dominance or DominanceChecker(), visible)
        _verify_empty_blocks(op)
        try:
            _own_verifier(op, passed, {} if symbols is None else symbols, remember)
        except (VerifyException, DiagnosticException, ValueError):
            raise
        except Exception as err:  # some xDSL verifiers (memref.load/store) raise bare Exceptions
            raise VerifyException(str(err)) from None
        if (extra := _EXTRA_CHECKS.get(op.name)) is not None:
            extra(op)
        # as mlir-opt: an op's own errors before its block's missing terminator
        _verify_terminates(op, counts)
        if op.name == "func.func" and any(k.startswith("autodiff.custom_") for k in op.attributes):
            from irtoolkit.dialects.autodiff import verify_function_attributes

            verify_function_attributes(op)
    except (VerifyException, DiagnosticException, ValueError) as err:
        msg = str(err.args[0]) if err.args else str(err)
        msg = msg.removeprefix("Operation does not verify: ")
        located = op_error(op, msg)
        # a verifier may attach notes, located at the op as mlir-opt's are
        located.diagnostics[0].notes.extend(Diagnostic(note, location_of(op), "note")
                                            for note in getattr(err, "notes", ()))
        raise located from None


def verify_module(module: ModuleOp, signatures: dict | None = None) -> None:
    """Verify every op of ``module``, outermost first, reporting the first failure.

    Linear in the size of the module however deeply it nests: the ops are
    walked with an explicit stack (xDSL's nested generators cost the depth per
    op), and the values defined so far in the current block and the enclosing
    ones are kept in a set, so that the usual use (of a value defined above, in
    structured control flow) is checked in O(1); only uses across the blocks of
    a CFG region ask the dominator tree, which walks up to the defining region.
    Ops whose verification is a function of their signature run it once per
    distinct signature; ``signatures`` (a dict the caller keeps, e.g. across
    the passes of a pipeline) holds the ones that passed (and, under each op
    class, the last of its signatures that passed).
    An op's ``verify_regions_`` (MLIR's `verifyRegions`: checks that need the
    nested ops verified first, e.g. `tensor.generate`'s terminator) runs when
    the walk leaves the op."""
    try:
        _walk(module, signatures, fold_isolation=True)
    except DiagnosticError:
        # the first error as the plain walk meets it: there, an op's
        # IsolatedFromAbove check runs with its other checks, before its body
        _walk(module, signatures, fold_isolation=False)
        raise


def _walk(module: ModuleOp, signatures: dict | None, fold_isolation: bool) -> None:
    """``verify_module``'s walk. ``fold_isolation``: the IsolatedFromAbove
    checks (each a walk of the op's body in xDSL's trait) are made by this
    walk: inside an isolated op, the values visible are the ones defined
    inside it, and an operand not visible (a use across the blocks of a CFG
    region, or an error) is looked up from its definition to the innermost
    isolated op around its user. An error may then be met in another order
    than the plain walk's (an isolated op's violation at its user, not at the
    op): ``verify_module`` then walks again without."""
    block_counts: dict[int, int] = {}
    dominance = DominanceChecker()
    visible: set = set()
    passed: dict = {} if signatures is None else signatures
    symbols: dict = {}  # symbol-table op -> its symbols by name, read once (and _check_llvm_callee's verdicts)
    remember = signatures is not None  # verified again later: each op keeps its signature
    walked: set | None = set() if fold_isolation else None
    token = ISOLATION_CHECKED_BY_WALK.set(walked)
    try:
        if walked is not None and module.has_trait(IsolatedFromAbove):
            walked.add(module)
        verify_op(module, block_counts, dominance, visible, passed, symbols, remember)
        _walk_body(module, block_counts, dominance, visible, passed, symbols, remember, walked)
    finally:
        ISOLATION_CHECKED_BY_WALK.reset(token)


def _walk_body(module, block_counts, dominance, visible, passed, symbols, remember, walked) -> None:
    # frames: [op, its regions' blocks (iterator), the next op of the current
    # block (None at its end: the ops are followed by their links, not an
    # iterator object), values the current block made visible, its last op,
    # the values visible around the op when it is isolated (then: its own
    # set of visible values inside) or None]
    stack: list[list] = [[module, _blocks_of(module), None, [], None, None]]
    isolated = [module]  # (fold: the isolated ops around the current op, innermost last)
    quick = _QUICK
    verified_state = _VERIFIED_STATE
    type_of = _TYPE_OF
    while stack:
        frame = stack[-1]
        op = frame[2]
        if op is None:
            if frame[3]:
                visible.difference_update(frame[3])  # leaving the block
            block = next(frame[1], None)
            if block is None:
                stack.pop()
                owner = frame[0]
                if frame[5] is not None:  # leaving an isolated op
                    visible = frame[5]
                    isolated.pop()
                if hasattr(owner, "verify_regions_"):
                    _verify_regions(owner)
                if stack and owner.results:  # its results dominate what follows it
                    visible.update(owner.results)
                    if stack[-1][3] is not None:
                        stack[-1][3].extend(owner.results)
                continue
            if frame[5] is not None:
                # a block of an isolated op: only its own values (and those of the
                # blocks in it) are visible in it, and none once it is left, so
                # they go in a set of its own instead of being listed per op to
                # be taken out of a shared one
                visible = set(block.args)
                frame[3] = None
            else:
                frame[3] = list(block.args)
                visible.update(frame[3])
            frame[2] = block._first_op
            frame[4] = block._last_op
            continue
        # the ops of the block up to the next one with regions, in one loop
        made_visible, last = frame[3], frame[4]
        while op is not None:
            # the usual op -- no regions or successors, not ending its block, its
            # operands defined above it, a signature that verified -- passes
            # verify_op's checks by those facts alone; any other goes through them
            # (each field read once: this runs on every op)
            cls = type(op)
            checks = quick[cls]
            operands = op._operands
            results = op.results
            regions = op.regions
            if (checks is None or op is last or regions or op._successors
                    or (not visible.issuperset(operands)
                        and not _operands_dominate(op, visible, dominance, walked, isolated))
                    # (_same_since_verified, inline) or, when not, the signature verified before
                    # (one tuple comparison: the fewest bytecodes)
                    or (op.__dict__.get(verified_state)
                        != (cls, types := tuple(map(type_of, operands + results)), op.properties,
                            op.attributes)
                        and not _signature_passed(op, types, passed, remember))):
                if walked is not None:
                    if not visible.issuperset(operands):
                        _check_defined_inside(op, isolated[-1])
                    if regions and op.has_trait(IsolatedFromAbove):
                        walked.add(op)
                verify_op(op, block_counts, dominance, visible, passed, symbols, remember)
            elif checks:  # (llvm.call's callee)
                try:
                    for _trait, check in checks:
                        check(op, symbols)
                except Exception:  # raised again by verify_op's run of the same check, located
                    verify_op(op, block_counts, dominance, visible, passed, symbols, remember)
                    raise
            if regions:
                frame[2] = op._next_op
                if walked is not None and op in walked:  # an isolated op: what is visible inside
                    stack.append([op, _blocks_of(op), None, [], None, visible])
                    visible = set()
                    isolated.append(op)
                else:
                    stack.append([op, _blocks_of(op), None, [], None, None])
                break
            if results:
                visible.update(results)
                if made_visible is not None:
                    made_visible.extend(results)
            op = op._next_op
        else:
            frame[2] = None


def _operands_dominate(op: Operation, visible: set, dominance: DominanceChecker, walked: set | None,
                       isolated: list[Operation]) -> bool:
    """Whether the operands of ``op`` that ``visible`` lacks (uses across the
    blocks of a CFG region) are defined where they dominate it: verify_op's
    dominance check, so that such an op stays on the quick path. When the
    walk folds the IsolatedFromAbove checks (``walked``), the operands are
    checked first to be defined inside the innermost isolated op around
    ``op`` (last of ``isolated``), as on the walk's other path."""
    if walked is not None:
        _check_defined_inside(op, isolated[-1])
    return all(value in visible or dominance.properly_dominates(value, op) for value in op._operands)


def _check_defined_inside(op: Operation, isolated: Operation) -> None:
    """Each operand of ``op`` is defined inside ``isolated`` (the innermost
    IsolatedFromAbove op around ``op``); raised, when one is not, as a
    diagnostic at ``isolated`` with xDSL's words (``verify_module`` walks
    again and reports the error the plain walk meets first)."""
    for operand in op._operands:
        kind = type(operand)
        block = operand.op.parent if kind is OpResult else operand.block if kind is BlockArgument else None
        while block is not None:
            owner = block.parent_op()
            if owner is isolated:
                break
            block = None if owner is None else owner.parent
        else:
            raise op_error(isolated, f"Operation using value defined out of its IsolatedFromAbove parent: {op}")


def _blocks_of(op: Operation):
    return (block for region in op.regions for block in region.blocks)


def _verify_regions(op: Operation) -> None:
    try:
        op.verify_regions_()
    except VerifyException as err:
        raise op_error(op, str(err.args[0]) if err.args else str(err)) from None
