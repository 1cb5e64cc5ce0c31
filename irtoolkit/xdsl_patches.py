"""The few places where irtoolkit changes xDSL 0.74's own code (it is pinned).

Each patch keeps xDSL's behaviour and fixes a measured problem; ``apply()``
installs them once (the parser and the verifier call it). Tested in
``test/test_xdsl_patches.py``.

* The string-literal regex backtracks exponentially on an unterminated string
  (``(a+)*`` shape); the possessive form accepts the same strings.
* ``IsolatedFromAbove.verify`` asks ``is_ancestor`` (a walk up the parents) for
  every operand nested in the op: quadratic in the nesting depth (10,000 nested
  ``loop.if``: minutes). The same check with the set of values defined inside
  is linear.
* ``MLIRLexer.lex`` builds a 15-entry dict and slices the input through three
  helper calls for every token; the common tokens (punctuation, ``->``, bare
  and ``%`` identifiers) are lexed here directly, into the same tokens, and
  everything else (numbers, strings, ``@``/``#``/``!``/``^`` identifiers, end of
  input, errors) by xDSL's code, as are subclasses' tokens. About 2x faster lexing.
* In ``dense<0xFF800000> : tensor<f32>`` a hex literal is the bit pattern of the
  float (MLIR's rule, and how xDSL itself prints inf and NaN); xDSL reads it as
  the integer 4286578688 converted to float.
* ``Operation.walk`` is a generator that ``yield from``s one generator per
  nesting level, so each op it yields passes through as many frames as it is
  deep: quadratic in the nesting depth (3,000 nested ``loop.if`` through
  ``ad,lower-to-llvm``: minutes, found by the fuzzer). The same walk with a
  stack of iterators, in the same order and as lazily, is linear.
* ``Operation.get_trait`` (and ``has_trait``, which asks it) tests every trait
  of the op with ``isinstance`` on each call; the passes and the verifier ask
  it several times per op (ConstantLike, IsTerminator, Pure ...). The answers
  are remembered per set of traits (an op class's ``OpTraits``; a new set, e.g.
  after ``add_trait``, starts afresh); so are ``get_traits_of_type``'s (the
  memory-effect traits, asked for every op by dead-code elimination), and so
  is dead-code elimination's ``would_be_trivially_dead`` when the traits alone
  decide it (``Pure`` ops, ops of unknown effects).
* Region dead-code elimination (after each canonicalization sweep) visits
  every op through three method calls and a generator (``is_live``,
  ``set_live``, ``any`` over its uses); one loop makes the same visits and
  verdicts.
* ``tensor<42 x i32>`` is MLIR (spaces around ``x``); xDSL gives a trailing ``x``
  back by stepping one character back, which loses an ``x`` followed by a space.
* Building an op (``irdl_op_init``) classifies each operand, result type,
  region and successor argument with ``isinstance(arg, Sequence)``, an ABC
  check (``__instancecheck__`` runs in Python), and ``IRDLOperation.__post_init__``
  scans all the op's property and attribute definitions for defaults; the
  passes build many thousands of ops (op construction was a sixth of
  ``ad,lower-to-llvm``'s time). The Sequence check's answer depends on the
  argument's type alone and is remembered per type; the defaults are listed
  once per op class; ``_unknown_loc`` no longer imports on every call. An op
  of a definition without regions and with single successors if any (branches;
  variadic and optional operands and results, segment sizes included) given
  values, lists of values, types and blocks is built straight into
  ``Operation``'s fields, as xDSL's builder would, the segment sizes' attribute made once per distinct sizes (xDSL's
  builder makes a ``DenseArrayBase`` per op: a third of building an
  ``llvm.call``); and so is any op without regions given to
  ``Operation.__init__`` (``create``, ``clone``, the parser). Same ops, same
  errors (anything else goes through xDSL's code). ``Operation.walk`` (above) gives out an op without regions
  without a frame of its own. ``SSAValue.get`` of a value without a type
  to check gives it back at once; ``replace_all_uses_with`` moves the uses
  without a view object and a slice per use. Together about half the cost of building
  an op.
* Building an attribute verifies it (a verification context and a constraint
  check per parameter, ~10-20 us); the lowerings build an ``IntegerAttr``, an
  ``IntegerType`` or a ``DenseArrayBase`` for nearly every op (an ``llvm.load``'s
  ordering, a GEP's indices and flags, constants), a handful of distinct ones.
  An ``IntegerAttr`` of a plain int and integer type, and a signless
  ``IntegerType``, equal to one built (and verified) before get the same
  immutable parameters without the normalization and the checks; integer
  ``DenseArrayBase.from_list`` gives the attribute made before for the same
  type and values; an attribute without parameters is not checked. Same
  attributes, same errors (a first construction, or a failing one, runs xDSL's code).
* ``Operation.clone`` of an op without regions builds it without operands,
  walks it and sets its operands again; it is cloned with its operands at
  once, as ``clone_without_regions`` does (the lowerings clone every scalar op).
* Ops, blocks, regions, SSA values and uses hash and compare by identity
  through Python methods (``return id(self)``, ``return self is other``; an
  IRDL op through IRDLOperation's own copies of them): a Python call for every
  dict or set look-up of an IR object, in every pass and in the verifier (a
  fifth of verify-each's time; canonicalize hashed every op ~20 times). ``object``'s own
  identity hash and equality are the same relation, in C.
* ``cse`` hashes an op (its attributes, properties, result types and
  operands) each time it wraps it in an ``OperationInfo`` and again on each
  side of every ``OperationInfo.__eq__``: an ``OperationInfo`` keeps its hash.
  (A look-up compares only keys whose stored hash is equal, and equal keys
  hash equally, so the verdicts are xDSL's.)
* ``BasePrinter.print_string`` goes through ``print(text, end="", file=...)``
  for every token printed; a piece of text without a newline is written to
  the stream directly.
"""

from __future__ import annotations

import operator
import re
from contextvars import ContextVar

from irtoolkit.classtest import ClassMemo

_APPLIED: list[bool] = []
#: what each patch replaced ("Class.method" -> xDSL's function), for the tests
ORIGINALS: dict[str, object] = {}


def _string_literal_regex() -> None:
    from xdsl.utils.mlir_lexer import MLIRLexer

    MLIRLexer._unescaped_characters_regex = re.compile(
        r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"'
    )


# Ops whose IsolatedFromAbove check the caller makes itself, in the walk it
# verifies them with (irtoolkit.verifier.verify_module): their trait's verify
# passes. None: every op is checked here.
ISOLATION_CHECKED_BY_WALK: ContextVar[set | None] = ContextVar("irt_isolation_by_walk", default=None)


def _isolated_from_above_verify(self, op) -> None:
    """xDSL's check, linearly: every operand of an op nested in ``op`` (not
    looking inside nested isolated ops, which check themselves) is a value
    defined inside ``op`` -- a block argument of a nested block or a result of
    a nested op. A value defined in a region met on the way down (the usual
    case: the user's block, or another block of its CFG region) is inside,
    answered at once; the set of values defined inside is built only when
    another value is met. The ops are followed by their links (no iterator
    object per block)."""
    from xdsl.ir import BlockArgument, OpResult
    from xdsl.traits import IsolatedFromAbove
    from xdsl.utils.exceptions import VerifyException

    walked = ISOLATION_CHECKED_BY_WALK.get()
    if walked is not None and op in walked:
        return
    inside: set | None = None
    pending = list(op.regions)
    met = set(pending)  # regions nested in `op`
    while pending:
        region = pending.pop()
        block = region._first_block
        while block is not None:
            child = block._first_op
            while child is not None:
                for operand in child._operands:
                    kind = type(operand)  # (the fields, not the `owner` property: a frame per operand)
                    home = (operand.op.parent if kind is OpResult
                            else operand.block if kind is BlockArgument else None)
                    if home is block or (home is not None and home.parent in met):
                        continue
                    if inside is None:
                        inside = _values_defined_inside(op)
                    if operand not in inside:
                        raise VerifyException(
                            "Operation using value defined out of its "
                            f"IsolatedFromAbove parent: {child}"
                        )
                if child.regions and not child.has_trait(IsolatedFromAbove):
                    pending.extend(child.regions)
                    met.update(child.regions)
                child = child._next_op
            block = block._next_block


def _values_defined_inside(op) -> set:
    inside: set = set()
    pending = list(op.regions)
    while pending:
        region = pending.pop()
        for block in region.blocks:
            inside.update(block.args)
            for child in block.ops:
                inside.update(child.results)
                if child.regions:
                    pending.extend(child.regions)
    return inside


def _linear_isolated_from_above() -> None:
    from xdsl.traits import IsolatedFromAbove

    ORIGINALS["IsolatedFromAbove.verify"] = IsolatedFromAbove.verify
    IsolatedFromAbove.verify = _isolated_from_above_verify  # type: ignore[method-assign]


def _trait_memo(cls) -> dict | None:
    """The answers remembered for ``cls``'s current set of traits (keys: a
    trait asked for, or ``(list, trait type)`` for ``get_traits_of_type``);
    None when ``cls.traits`` is not xDSL's OpTraits."""
    holder = cls.traits
    state = getattr(holder, "__dict__", None)
    current = None if state is None else state.get("_traits")
    memo = None if state is None else state.get("_irt_trait_memo")
    if memo is not None and memo[0] is current and current is not None:
        return memo[1]  # the common case: read without calling the `traits` property
    current = getattr(holder, "traits", None)
    if type(current) is not frozenset:  # not xDSL's OpTraits
        return None
    memo = holder._irt_trait_memo = (current, {})
    return memo[1]


def _cached_get_trait(cls, trait):
    """xDSL's ``Operation.get_trait``, remembered per set of traits. (The
    remembered answer is read here directly: the passes ask several traits of
    every op, ~1 us each through ``_trait_memo``.)"""
    state = getattr(cls.traits, "__dict__", None)
    memo = None if state is None else state.get("_irt_trait_memo")
    if memo is not None and memo[0] is state.get("_traits"):
        try:
            return memo[1][trait]
        except (KeyError, TypeError):
            pass
    return _remembered_trait(cls, trait)


def _remembered_trait(cls, trait):
    memo = _trait_memo(cls)
    if memo is None:
        return _XDSL_GET_TRAIT(cls, trait)
    try:
        return memo[trait]
    except KeyError:
        found = memo[trait] = _XDSL_GET_TRAIT(cls, trait)
        return found
    except TypeError:  # an unhashable trait instance
        return _XDSL_GET_TRAIT(cls, trait)


def _cached_has_trait(cls, trait, *, value_if_unregistered: bool = True) -> bool:
    """xDSL's ``Operation.has_trait`` (``get_trait(trait) is not None``; the
    same fast path, without a second classmethod call, unless ``get_trait``
    was overridden)."""
    plain = _PLAIN_GET_TRAIT.get(cls)
    if plain is None:
        plain = _PLAIN_GET_TRAIT[cls] = getattr(cls.get_trait, "__func__", None) is _cached_get_trait
    if not plain:
        return cls.get_trait(trait) is not None
    state = getattr(cls.traits, "__dict__", None)
    memo = None if state is None else state.get("_irt_trait_memo")
    if memo is not None and memo[0] is state.get("_traits"):
        try:
            return memo[1][trait] is not None
        except (KeyError, TypeError):
            pass
    return _remembered_trait(cls, trait) is not None


#: op class -> whether its ``get_trait`` is ``_cached_get_trait`` (not overridden)
_PLAIN_GET_TRAIT: dict[type, bool] = {}


def _cached_get_traits_of_type(cls, trait_type) -> list:
    """xDSL's ``Operation.get_traits_of_type``, remembered per set of traits (a
    new list each call, as xDSL's)."""
    memo = _trait_memo(cls)
    if memo is None:
        return _XDSL_GET_TRAITS_OF_TYPE(cls, trait_type)
    key = (list, trait_type)
    found = memo.get(key)
    if found is None:
        found = memo[key] = tuple(_XDSL_GET_TRAITS_OF_TYPE(cls, trait_type))
    return list(found)


_XDSL_GET_TRAIT = None
_XDSL_GET_TRAITS_OF_TYPE = None
_XDSL_WOULD_BE_TRIVIALLY_DEAD = None
_DEAD_IF_UNUSED = object()  # the _trait_memo key of would_be_trivially_dead's verdict
_VARIES = object()  # the verdict depends on the op, not only on its class
_CONSTANT_EFFECTS: tuple = ()  # get_effects functions of the traits whose effects are constants


def _would_be_trivially_dead(op) -> bool:
    """xDSL's ``would_be_trivially_dead``: remembered per set of traits when the
    answer follows from them alone (no memory-effect trait, or only ones with
    fixed effects such as ``Pure``); asked of every op by the greedy rewriter's
    and the region DCE's sweeps."""
    memo = _trait_memo(type(op))
    if memo is None:
        return _XDSL_WOULD_BE_TRIVIALLY_DEAD(op)
    verdict = memo.get(_DEAD_IF_UNUSED)
    if verdict is None:
        verdict = memo[_DEAD_IF_UNUSED] = _class_verdict(type(op))
    return _XDSL_WOULD_BE_TRIVIALLY_DEAD(op) if verdict is _VARIES else verdict


def _class_verdict(cls):
    from xdsl.traits import IsTerminator, MemoryEffect, MemoryEffectKind, SymbolOpInterface

    if cls.has_trait(IsTerminator) or cls.has_trait(SymbolOpInterface):
        return False
    effect_traits = cls.get_traits_of_type(MemoryEffect)
    if not effect_traits:
        return False  # unknown effects
    effects = set()
    for trait in effect_traits:
        get = getattr(type(trait).get_effects, "__func__", None)
        if get not in _CONSTANT_EFFECTS:
            return _VARIES
        effects.update(trait.get_effects(None))
    # (a fixed ALLOC effect names no value of the op: not dead, as in xDSL)
    return all(e.kind == MemoryEffectKind.READ for e in effects)


def _remembered_traits() -> None:
    global _XDSL_GET_TRAIT, _XDSL_GET_TRAITS_OF_TYPE
    from xdsl.ir import Operation

    ORIGINALS["Operation.get_trait"] = Operation.__dict__["get_trait"]
    ORIGINALS["Operation.has_trait"] = Operation.__dict__["has_trait"]
    ORIGINALS["Operation.get_traits_of_type"] = Operation.__dict__["get_traits_of_type"]
    _XDSL_GET_TRAIT = Operation.__dict__["get_trait"].__func__
    _XDSL_GET_TRAITS_OF_TYPE = Operation.__dict__["get_traits_of_type"].__func__
    Operation.get_trait = classmethod(_cached_get_trait)  # type: ignore[method-assign]
    Operation.has_trait = classmethod(_cached_has_trait)  # type: ignore[method-assign]
    Operation.get_traits_of_type = classmethod(_cached_get_traits_of_type)  # type: ignore[method-assign]

    global _XDSL_WOULD_BE_TRIVIALLY_DEAD, _CONSTANT_EFFECTS
    from xdsl import traits
    from xdsl.transforms import dead_code_elimination

    _CONSTANT_EFFECTS = tuple(cls.get_effects.__func__ for cls in (
        traits.NoMemoryEffect, traits.MemoryReadEffect, traits.MemoryWriteEffect,
        traits.MemoryAllocEffect, traits.MemoryFreeEffect))
    ORIGINALS["would_be_trivially_dead"] = _XDSL_WOULD_BE_TRIVIALLY_DEAD = \
        dead_code_elimination.would_be_trivially_dead
    dead_code_elimination.would_be_trivially_dead = _would_be_trivially_dead


def _propagate_region_liveness(self, region) -> None:
    """xDSL's ``LiveSet.propagate_region_liveness`` and ``propagate_op_liveness``
    in one loop: the same visits in the same order (blocks in post order, each
    one's ops last first, nested regions before their op), the same verdicts,
    without three method calls and a generator per op (region DCE runs this
    over every op at least twice after each canonicalization sweep)."""
    first = region.first_block
    if first is None:
        return
    live = self._live_ops
    dead_if_unused = _would_be_trivially_dead
    for block in _POST_ORDER_ITERATOR(first):
        op = block._last_op
        while op is not None:
            if op.regions:
                for nested in op.regions:
                    self.propagate_region_liveness(nested)
            if op not in live:
                used = not dead_if_unused(op)
                if not used:
                    for result in op.results:
                        use = result.first_use
                        while use is not None:
                            if use.operation in live:
                                used = True
                                break
                            use = use._next_use
                        if used:
                            break
                if used:
                    self.changed = True
                    live.add(op)
            op = op._prev_op


_POST_ORDER_ITERATOR = None


def _cheaper_liveness() -> None:
    global _POST_ORDER_ITERATOR
    from xdsl.ir.post_order import PostOrderIterator
    from xdsl.transforms.dead_code_elimination import LiveSet

    _POST_ORDER_ITERATOR = PostOrderIterator
    ORIGINALS["LiveSet.propagate_region_liveness"] = LiveSet.propagate_region_liveness
    LiveSet.propagate_region_liveness = _propagate_region_liveness  # type: ignore[method-assign]


def _nested_blocks(op, reverse: bool):
    """The blocks directly inside ``op``'s regions, in xDSL's walk order (read lazily)."""
    for region in reversed(op.regions) if reverse else op.regions:
        yield from reversed(region.blocks) if reverse else region.blocks


def _operation_walk(self, *, reverse: bool = False, region_first: bool = False):
    """xDSL's ``Operation.walk`` (same order, same laziness), one frame deep: the ops of
    a block are given out by following its list, each op's neighbour read before the op
    is given out, as xDSL's block iterators do (so the walker may erase the op it was
    given); an op without regions (most of them) costs no frame and no call of its own."""
    if not region_first:
        yield self
    if self.regions:
        # one level per op whose regions are being walked: [op, its blocks, the next op
        # of the current block (None: go to the next block)]
        stack = [[self, _nested_blocks(self, reverse), None]]
        while stack:
            level = stack[-1]
            child = level[2]
            if child is None:
                block = next(level[1], None)
                if block is None:
                    stack.pop()
                    if region_first:
                        yield level[0]
                    continue
                child = block.last_op if reverse else block.first_op
            while child is not None:
                following = child._prev_op if reverse else child._next_op
                if child.regions:
                    level[2] = following
                    if not region_first:
                        yield child
                    stack.append([child, _nested_blocks(child, reverse), None])
                    break
                yield child
                child = following
            else:
                level[2] = None
    elif region_first:
        yield self


def _linear_walk() -> None:
    from xdsl.ir import Operation

    ORIGINALS["Operation.walk"] = Operation.walk
    Operation.walk = _operation_walk  # type: ignore[method-assign]


def _hex_float_literals() -> None:
    """In `dense<0xFF800000> : tensor<f32>` the hex literal is the bit pattern of
    the float (MLIR's rule, and how xDSL itself prints inf and NaN); xDSL 0.74
    reads it as the integer 4286578688 converted to float."""
    from xdsl.dialects.builtin import AnyFloat
    from xdsl.parser.attribute_parser import AttrParser

    element = AttrParser._TensorLiteralElement
    to_type = element.to_type

    def hex_aware_to_type(self, parser, type):
        text = self.span.text
        if isinstance(type, AnyFloat) and text[:2] in ("0x", "0X") and isinstance(self.value, int):
            raw = self.value.to_bytes(type.compile_time_size, "little")
            return next(type.iter_unpack(raw))
        return to_type(self, parser, type)

    ORIGINALS["_TensorLiteralElement.to_type"] = to_type
    element.to_type = hex_aware_to_type


def _spaced_dimension_lists() -> None:
    """`tensor<42 x i32>` is MLIR (spaces around `x`); xDSL 0.74 gives a trailing
    `x` back by stepping one character back, which loses an `x` followed by a
    space. The same loop, giving the `x` back from where it started."""
    from xdsl.parser.attribute_parser import AttrParser
    from xdsl.utils.mlir_lexer import MLIRTokenKind

    dims_kinds = (MLIRTokenKind.INTEGER_LIT, MLIRTokenKind.QUESTION)

    def parse_dimension_list(self) -> list[int]:
        if self._current_token.kind not in dims_kinds:
            return []
        dims = [self.parse_shape_dimension()]
        while True:
            x_start = self._current_token.span.start
            if self._parse_optional_shape_delimiter() is None:
                break
            if self._current_token.kind not in dims_kinds:
                self._resume_from(x_start)
                break
            dims.append(self.parse_shape_dimension())
        return dims

    ORIGINALS["AttrParser.parse_dimension_list"] = AttrParser.parse_dimension_list
    AttrParser.parse_dimension_list = parse_dimension_list


def _fast_lexer() -> None:
    from xdsl.utils.lexer import Span, Token
    from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

    K = MLIRTokenKind
    single = {
        ":": K.COLON, ",": K.COMMA, "(": K.L_PAREN, ")": K.R_PAREN, "}": K.R_BRACE,
        "[": K.L_SQUARE, "]": K.R_SQUARE, "<": K.LESS, ">": K.GREATER, "=": K.EQUAL,
        "+": K.PLUS, "/": K.SLASH, "*": K.STAR, "?": K.QUESTION, "|": K.VERTICAL_BAR,
    }
    whitespace = MLIRLexer._whitespace_regex
    bare = re.compile(r"[a-zA-Z_][a-zA-Z0-9_$.]*")
    percent_suffix = MLIRLexer._suffix_id
    xdsl_lex = ORIGINALS["MLIRLexer.lex"] = MLIRLexer.lex

    def lex(self):
        if type(self) is not MLIRLexer:  # subclasses (the assembly-format lexer) lex their way
            return xdsl_lex(self)
        content = self.input.content
        pos = whitespace.match(content, self.pos).end()
        c = content[pos:pos + 1]
        kind = single.get(c)
        if kind is not None:
            self.pos = pos + 1
            return Token(kind, Span(pos, pos + 1, self.input))
        if c == "%":
            m = percent_suffix.match(content, pos + 1)
            if m is not None:
                self.pos = m.end()
                return Token(K.PERCENT_IDENT, Span(pos, self.pos, self.input))
        elif c == "-":
            if content[pos + 1:pos + 2] == ">":
                self.pos = pos + 2
                return Token(K.ARROW, Span(pos, pos + 2, self.input))
            self.pos = pos + 1
            return Token(K.MINUS, Span(pos, pos + 1, self.input))
        elif c == "{":
            if content[pos + 1:pos + 3] != "-#":
                self.pos = pos + 1
                return Token(K.L_BRACE, Span(pos, pos + 1, self.input))
        else:
            m = bare.match(content, pos)
            if m is not None:
                self.pos = m.end()
                return Token(K.BARE_IDENT, Span(pos, self.pos, self.input))
        self.pos = pos
        return xdsl_lex(self)

    MLIRLexer.lex = lex  # type: ignore[method-assign]


def _scalar_cmpi_equal_operands() -> None:
    """xDSL folds ``arith.cmpi p, %x, %x`` to an ``i1`` constant whatever the operand type;
    for a vector or tensor comparison that constant has the wrong type (found by the
    fuzzer: "invalid IR after canonicalize"). Scalars only."""
    from xdsl.dialects.builtin import ShapedType
    from xdsl.transforms.canonicalization_patterns import arith as patterns

    pattern = patterns.ApplyCmpiPredicateToEqualOperands
    fold = pattern.match_and_rewrite

    def scalar_only(self, op, rewriter):
        if not isinstance(op.result.type, ShapedType):
            fold(self, op, rewriter)

    pattern.match_and_rewrite = scalar_only


_SEQUENCE_BY_TYPE: dict[type, bool] = {list: True, tuple: True}


def _is_sequence(arg) -> bool:
    """``isinstance(arg, Sequence)``, remembered per type (an ABC's answer
    depends on the type only)."""
    kind = type(arg)
    try:  # (a subscript: no call for a known type)
        return _SEQUENCE_BY_TYPE[kind]
    except KeyError:
        from collections.abc import Sequence

        known = _SEQUENCE_BY_TYPE[kind] = isinstance(arg, Sequence)
        return known


def _build_arg_list(construct, args, arg_defs, error_prefix=""):
    """xDSL's ``irdl_build_arg_list`` (same result, same errors) with
    ``_is_sequence``."""
    if len(args) != len(arg_defs):
        from xdsl.irdl.operations import get_construct_name

        raise ValueError(
            f"Expected {len(arg_defs)} {get_construct_name(construct)}, but got {len(args)}"
        )
    if not args:
        return [], []
    OptionalDef, VariadicDef = _ARG_DEFINITION_KINDS
    res = []
    arg_sizes = []
    for arg_idx, ((arg_name, arg_def), arg) in enumerate(zip(arg_defs, args)):
        if arg is None:
            if not isinstance(arg_def, OptionalDef):
                raise ValueError(
                    error_prefix + f"passed None to a non-optional {construct} {arg_idx} '{arg_name}'"
                )
            arg_sizes.append(0)
        elif _is_sequence(arg):
            if not isinstance(arg_def, VariadicDef) and len(arg) != 1:
                raise ValueError(
                    error_prefix + f"passed Sequence to non-variadic {construct} {arg_idx} '{arg_name}'"
                )
            if isinstance(arg_def, OptionalDef) and len(arg) > 1:
                raise ValueError(
                    error_prefix + f"optional {construct} {arg_idx} '{arg_name}' "
                    "expects a list of size at most 1 or None, but "
                    f"got a list of size {len(arg)}"
                )
            res.extend(arg)
            arg_sizes.append(len(arg))
        else:
            res.append(arg)
            arg_sizes.append(1)
    return res, arg_sizes


_ARG_DEFINITION_KINDS: tuple = ()  # (OptionalDef, VariadicDef), set by _cheaper_op_construction
_VALUE_TYPES: dict[type, bool] = {}


def _is_value(arg) -> bool:
    """``isinstance(arg, SSAValue)``, remembered per type (in ``_VALUE_TYPES``)."""
    kind = arg.__class__
    try:  # (a subscript: no call for a known type)
        return _VALUE_TYPES[kind]
    except KeyError:
        is_value = _VALUE_TYPES[kind] = issubclass(kind, _SSA_VALUE[0])
        return is_value


def _build_operations_arg(operand):
    """xDSL's ``irdl_build_operations_arg`` with the SSAValue check remembered per type."""
    if operand is None:
        return []
    if _is_value(operand):
        return operand
    from xdsl.ir import Operation, SSAValue

    if isinstance(operand, Operation):
        return SSAValue.get(operand)
    return [SSAValue.get(op) for op in operand]


#: id(op definition) -> (the definition, its construction plan or None): the
#: kind of each operand and result definition (_SINGLE, _VARIADIC, _OPTIONAL),
#: the segment sizes its options add, as (of operands?, as a property?)
#: pairs, the number of successors, and whether every operand and result
#: definition is single (no segments); None for a definition with regions or
#: successors or another option (SameVariadicSize ...), which xDSL's builder makes
_PLANS: dict[int, tuple[object, tuple | None]] = {}
_SINGLE, _VARIADIC, _OPTIONAL = 0, 1, 2
#: operand or result segment sizes -> their DenseArrayBase (an immutable
#: attribute, shared as xDSL shares default values)
_SEGMENT_SIZES: dict[tuple[int, ...], object] = {}


def _construction_plan(op_def) -> tuple | None:
    entry = _PLANS.get(id(op_def))
    if entry is None or entry[0] is not op_def:
        from xdsl.irdl.operations import (AttrSizedOperandSegments, AttrSizedResultSegments,
                                          AttrSizedSegments, OptionalDef, SameVariadicSize,
                                          VariadicDef)

        def kind(d) -> int:
            return _OPTIONAL if isinstance(d, OptionalDef) else _VARIADIC if isinstance(d, VariadicDef) else _SINGLE

        segments = []
        # successors: each definition a single block (branches), else xDSL's builder
        plain = not op_def.regions and all(kind(d) == _SINGLE for _, d in op_def.successors)
        for option in op_def.options:  # (xDSL's builder ignores the other options)
            if isinstance(option, (AttrSizedOperandSegments, AttrSizedResultSegments)):
                segments.append((isinstance(option, AttrSizedOperandSegments), option.as_property,
                                 option.attribute_name))
            elif isinstance(option, (AttrSizedSegments, SameVariadicSize)):
                plain = False  # sizes shared between definitions: xDSL's builder works them out
        plan = None
        if plain:
            operand_kinds = tuple(kind(d) for _, d in op_def.operands)
            result_kinds = tuple(kind(d) for _, d in op_def.results)
            plan = (operand_kinds, result_kinds, tuple(segments), len(op_def.successors),
                    not segments and all(k == _SINGLE for k in (*operand_kinds, *result_kinds)))
        entry = _PLANS[id(op_def)] = (op_def, plan)
    return entry[1]


def _segment_sizes(sizes: list[int]):
    key = tuple(sizes)
    attr = _SEGMENT_SIZES.get(key)
    if attr is None:
        from xdsl.dialects.builtin import DenseArrayBase, i32

        attr = _SEGMENT_SIZES[key] = DenseArrayBase.from_list(i32, key)
    return attr


def _irdl_op_init(self, op_def, *, operands, result_types, properties, attributes,
                  successors, regions):
    """xDSL's ``irdl_op_init``; an op of a definition without regions and
    successors (``_construction_plan``) given values (or lists of values for a
    variadic operand, None for an absent one) and types is built here, as
    xDSL's builder would (segment sizes included), straight to
    ``_init_simple_op``; anything else, errors included, through xDSL's builder."""
    plan = None if regions else _construction_plan(op_def)
    if plan is not None and ((not successors and not plan[3]) or _plain_successors(successors, plan[3])):
        built = _build_fast(operands, result_types, plan)
        if built is not None:
            values, types, operand_sizes, result_sizes = built
            props = {k: v for k, v in properties.items() if v is not None}
            attrs = {k: v for k, v in attributes.items() if v is not None}
            for of_operands, as_property, name in plan[2]:
                (props if as_property else attrs)[name] = _segment_sizes(
                    operand_sizes if of_operands else result_sizes)
            _init_simple_op(self, values, types, props, attrs, None, successors)
            return
    _XDSL_IRDL_OP_INIT(self, op_def, operands=operands, result_types=result_types,
                       properties=properties, attributes=attributes,
                       successors=successors, regions=regions)


def _build_fast(operands, result_types, plan):
    """(operand values, result types, operand sizes, result sizes) as xDSL's
    builder makes them, or None when anything is not plainly a value (a type)
    or a list of them where the definition allows it: xDSL's builder then
    decides (and raises its errors)."""
    operand_kinds, result_kinds = plan[0], plan[1]
    if len(operands) != len(operand_kinds) or len(result_types) != len(result_kinds):
        return None
    value_types = _VALUE_TYPES
    if plan[4]:
        # every definition single (most ops): the values and types as given, when they are
        # plainly that; the sizes are all 1 and no segment attribute asks for them. (The
        # loops below make the same lists with three calls an operand, two a result.)
        for arg in operands:
            if not value_types.get(type(arg)):
                return None
        for arg in result_types:
            if arg is None or type(arg) in (list, tuple) or _is_sequence(arg):
                return None
        return list(operands), list(result_types), (), ()
    values: list = []
    operand_sizes: list[int] = []
    for kind, arg in zip(operand_kinds, operands):
        if value_types.get(type(arg)):
            values.append(arg)
            operand_sizes.append(1)
        elif not kind:
            return None
        elif arg is None:
            operand_sizes.append(0)
        elif type(arg) in (list, tuple):
            if kind == _OPTIONAL and len(arg) > 1:
                return None
            for value in arg:
                if not value_types.get(type(value)):
                    return None
            values.extend(arg)
            operand_sizes.append(len(arg))
        else:
            return None
    types: list = []
    result_sizes: list[int] = []
    for kind, arg in zip(result_kinds, result_types):
        if arg is None:
            if kind != _OPTIONAL:
                return None
            result_sizes.append(0)
        elif type(arg) in (list, tuple):
            if not kind or (kind == _OPTIONAL and len(arg) > 1):
                return None
            types.extend(arg)
            result_sizes.append(len(arg))
        elif _is_sequence(arg):
            return None
        else:
            types.append(arg)
            result_sizes.append(1)
    return values, types, operand_sizes, result_sizes


def _plain_successors(successors, count: int) -> bool:
    """``successors`` is ``count`` blocks, one per (single) successor definition."""
    if len(successors) != count:
        return False
    block = _SIMPLE_OP_PARTS[4]
    for s in successors:
        if type(s) is not block:
            return False
    return True


def _init_simple_op(self, operands, result_types, properties: dict, attributes: dict,
                    location=None, successors=()) -> None:
    """``Operation.__init__`` of an op without regions: the same fields set in
    the same order, to the same values (``properties`` and ``attributes``: new
    dicts, the op's own from now on)."""
    OpResult, SSAValues, _, unknown = _SIMPLE_OP_PARTS[:4]
    values = SSAValues(operands)
    self._operands = values
    self._operand_uses = _used_by(self, values)
    self.results = SSAValues([OpResult(t, self, index) for index, t in enumerate(result_types)])
    self.properties = properties
    self.attributes = attributes
    self.location = unknown if location is None else location
    self._successors = tuple(successors)
    self._successor_uses = _used_by(self, self._successors) if successors else ()
    self.regions = ()
    self.__post_init__()


def _used_by(op, used) -> tuple:
    """A use by ``op`` of each of ``used`` (values or blocks), in order, added to it."""
    Use = _SIMPLE_OP_PARTS[2]
    uses = tuple([Use(op, index) for index in range(len(used))])
    for item, use in zip(used, uses):
        item.add_use(use)
    return uses


def _operation_init(self, *, operands=(), result_types=(), properties={}, attributes={},  # noqa: B006
                    location=None, successors=(), regions=()) -> None:
    """xDSL's ``Operation.__init__`` (``create``, ``clone``, the parser); an op
    without regions is built by ``_init_simple_op``."""
    if regions:
        _XDSL_OPERATION_INIT(self, operands=operands, result_types=result_types,
                             properties=properties, attributes=attributes, location=location,
                             successors=successors, regions=regions)
        return
    _init_simple_op(self, operands, result_types, dict(properties), dict(attributes), location,
                    successors)


_XDSL_OPERATION_INIT = None
_XDSL_IRDL_OP_INIT = None
_SIMPLE_OP_PARTS: tuple = ()
_OPERATION: list = []  # xDSL's Operation class


def _ssa_value_get(arg, *, type=None):
    """xDSL's ``SSAValue.get``; a value asked for without a type check is given
    back at once (xDSL imports a helper and matches the argument against two
    abstract classes on every call)."""
    if type is None:
        return arg if _is_value(arg) else _XDSL_SSA_VALUE_GET(arg)
    return _XDSL_SSA_VALUE_GET(arg, type=type)


_XDSL_SSA_VALUE_GET = None
_SSA_VALUE: list = []  # xDSL's SSAValue class


def _replace_all_uses_with(self, value) -> None:
    """xDSL's ``SSAValue.replace_all_uses_with``: the same uses moved in the
    same order, each operand list rebuilt as ``OpOperands.__setitem__`` does,
    without a view object, a slice of ``SSAValues`` and a frame per use."""
    if value is self:
        return
    uses = []
    use = self.first_use
    while use is not None:
        uses.append(use)
        use = use._next_use
    SSAValues = _SIMPLE_OP_PARTS[1]
    for use in uses:
        op = use._operation
        operands = list(op._operands)
        operands[use._index].remove_use(use)
        value.add_use(use)
        operands[use._index] = value
        op._operands = SSAValues(operands)
    if value.name_hint is None:
        value.name_hint = self.name_hint
    assert self.first_use is None, "unexpected error in xdsl"


#: op class -> its (properties, attributes) defaults to fill in, as (name, value) pairs
_DEFAULTS: dict[type, tuple[tuple, tuple]] = {}


def _irdl_post_init(self) -> None:
    """``IRDLOperation.__post_init__``: the default properties and attributes
    the op lacks, from a list made once per op class."""
    cls = type(self)
    try:  # (a subscript: no call for a known class)
        defaults = _DEFAULTS[cls]
    except KeyError:
        from xdsl.irdl.operations import OptionalDef

        op_def = cls.get_irdl_definition()
        defaults = _DEFAULTS[cls] = tuple(
            tuple((name, d.default_value) for name, d in defs.items()
                  if not isinstance(d, OptionalDef) and d.default_value is not None)
            for defs in (op_def.properties, op_def.attributes))
    props, attrs = defaults
    for name, value in props:
        if name not in self.properties:
            self.properties[name] = value
    for name, value in attrs:
        if name not in self.attributes:
            self.attributes[name] = value
    # looked up now: xDSL's ImplicitBuilder replaces it while it is active
    _OPERATION[0].__post_init__(self)


def _cheaper_op_construction() -> None:
    from xdsl.dialects.builtin import UNKNOWN_LOC
    from xdsl.ir import core
    from xdsl.irdl import operations

    ORIGINALS["irdl_build_arg_list"] = operations.irdl_build_arg_list
    ORIGINALS["irdl_build_operations_arg"] = operations.irdl_build_operations_arg
    ORIGINALS["IRDLOperation.__post_init__"] = operations.IRDLOperation.__post_init__
    ORIGINALS["_unknown_loc"] = core._unknown_loc
    ORIGINALS["irdl_op_init"] = operations.irdl_op_init
    global _XDSL_IRDL_OP_INIT, _SIMPLE_OP_PARTS, _ARG_DEFINITION_KINDS
    _ARG_DEFINITION_KINDS = (operations.OptionalDef, operations.VariadicDef)
    _SIMPLE_OP_PARTS = (core.OpResult, core.SSAValues, core.Use, UNKNOWN_LOC, core.Block)
    _OPERATION.append(core.Operation)
    _XDSL_IRDL_OP_INIT = operations.irdl_op_init
    operations.irdl_op_init = _irdl_op_init
    operations.irdl_build_arg_list = _build_arg_list
    operations.irdl_build_operations_arg = _build_operations_arg
    operations.IRDLOperation.__post_init__ = _irdl_post_init  # type: ignore[method-assign]
    core._unknown_loc = lambda: UNKNOWN_LOC
    global _XDSL_SSA_VALUE_GET
    ORIGINALS["SSAValue.get"] = _XDSL_SSA_VALUE_GET = core.SSAValue.__dict__["get"].__func__
    _SSA_VALUE.append(core.SSAValue)
    core.SSAValue.get = staticmethod(_ssa_value_get)  # type: ignore[method-assign]
    ORIGINALS["SSAValue.replace_all_uses_with"] = core.SSAValue.replace_all_uses_with
    core.SSAValue.replace_all_uses_with = _replace_all_uses_with  # type: ignore[method-assign]
    global _XDSL_OPERATION_INIT
    ORIGINALS["Operation.__init__"] = _XDSL_OPERATION_INIT = core.Operation.__init__
    core.Operation.__init__ = _operation_init  # type: ignore[method-assign]


def _clone(self, value_mapper=None, block_mapper=None, *, clone_name_hints: bool = True,
           clone_operands: bool = True):
    """xDSL's ``Operation.clone``; an op without regions is cloned with its
    operands at once (``clone_without_regions``), where xDSL builds it without
    operands, walks it and sets them again: the same op, for half the work."""
    if self.regions:
        return _XDSL_CLONE(self, value_mapper, block_mapper, clone_name_hints=clone_name_hints,
                           clone_operands=clone_operands)
    return self.clone_without_regions(value_mapper, block_mapper, clone_name_hints=clone_name_hints,
                                      clone_operands=clone_operands)


def _clone_without_regions(self, value_mapper=None, block_mapper=None, *,
                           clone_name_hints: bool = True, clone_operands: bool = True):
    """xDSL's ``Operation.clone_without_regions``; an op without regions (of a class
    that keeps xDSL's ``create``) is built by ``_init_simple_op`` as ``create`` would,
    without xDSL's generator expressions, ``result_types`` tuple and keyword hops."""
    cls = type(self)
    if self.regions or not _PLAIN_CREATE[cls]:
        return _XDSL_CLONE_WITHOUT_REGIONS(self, value_mapper, block_mapper,
                                           clone_name_hints=clone_name_hints,
                                           clone_operands=clone_operands)
    if value_mapper is None:
        value_mapper = {}
    if clone_operands:
        get = value_mapper.get
        operands = tuple([get(operand, operand) for operand in self._operands])
    else:
        operands = ()
    successors = self._successors
    if successors:
        successors = [block_mapper.get(s, s) for s in successors] if block_mapper else list(successors)
    results = self.results
    cloned = cls.__new__(cls)
    _init_simple_op(cloned, operands, [r.type for r in results], self.properties.copy(),
                    self.attributes.copy(), self.location, successors)
    for result, cloned_result in zip(results, cloned.results, strict=True):
        value_mapper[result] = cloned_result
        if clone_name_hints:
            name = result.name_hint
            if name is not None:  # (a new result's name is None)
                cloned_result.name_hint = name
    return cloned


#: op class -> whether it has xDSL's ``Operation.create``
_PLAIN_CREATE = ClassMemo(lambda cls: getattr(cls.create, "__func__", None) is _XDSL_CREATE)


_XDSL_CLONE = None
_XDSL_CLONE_WITHOUT_REGIONS = None
_XDSL_CREATE = None


def _cheaper_clone() -> None:
    global _XDSL_CLONE, _XDSL_CLONE_WITHOUT_REGIONS, _XDSL_CREATE
    from xdsl.ir import Operation

    ORIGINALS["Operation.clone"] = _XDSL_CLONE = Operation.clone
    Operation.clone = _clone  # type: ignore[method-assign]
    ORIGINALS["Operation.clone_without_regions"] = _XDSL_CLONE_WITHOUT_REGIONS = Operation.clone_without_regions
    _XDSL_CREATE = Operation.__dict__["create"].__func__
    Operation.clone_without_regions = _clone_without_regions  # type: ignore[method-assign]


def _direct_printing() -> None:
    """``BasePrinter.print_string`` writes each piece of text with
    ``print(text, end="", file=stream)``; text without a newline (nearly every
    piece: names, punctuation, types) is written to the stream directly, with
    the same column bookkeeping."""
    import sys

    from xdsl.utils.base_printer import BasePrinter

    xdsl_print_string = ORIGINALS["BasePrinter.print_string"] = BasePrinter.print_string

    def print_string(self, text: str, *, indent: int | None = None) -> None:
        if type(text) is not str or "\n" in text:
            return xdsl_print_string(self, text, indent=indent)
        self._current_column += len(text)
        stream = self.stream
        (sys.stdout if stream is None else stream).write(text)

    BasePrinter.print_string = print_string  # type: ignore[method-assign]


# (value, width, signedness) of an IntegerAttr built and verified before -> its IntAttr;
# width of a signless IntegerType built before -> (its IntAttr, its SignednessAttr);
# (width, signedness, values) -> a DenseArrayBase of an integer type. Emptied when full:
# a program with many distinct constants does not grow them without bound.
_INTEGER_VALUES: dict = {}
_INTEGER_WIDTHS: dict = {}
_INTEGER_ARRAYS: dict = {}
_REMEMBERED_MAX = 1 << 16
_XDSL_INTEGER_ATTR_INIT = None
_XDSL_INTEGER_TYPE_INIT = None
_XDSL_DENSE_FROM_LIST = None
_INTEGER_CLASSES: tuple = ()  # xDSL's (IntegerType, Signedness.SIGNLESS)


def _remember(table: dict, key, value) -> None:
    """``table[key] = value``, the table emptied first when full."""
    if len(table) >= _REMEMBERED_MAX:
        table.clear()
    table[key] = value


def _integer_type_init(self, data, signedness=None) -> None:
    """``IntegerType.__init__``: a signless type of a width built before gets the
    same (immutable) parameters without being verified again."""
    integer_type, signless = _INTEGER_CLASSES
    if signedness is None:
        signedness = signless
    if type(data) is int and signedness is signless:
        params = _INTEGER_WIDTHS.get(data)
        if params is not None:
            object.__setattr__(self, "width", params[0])
            object.__setattr__(self, "signedness", params[1])
            return
        _XDSL_INTEGER_TYPE_INIT(self, data, signedness)
        _remember(_INTEGER_WIDTHS, data, (self.width, self.signedness))
        return
    _XDSL_INTEGER_TYPE_INIT(self, data, signedness)


def _integer_attr_init(self, value, value_type, *, truncate_bits: bool = False) -> None:
    """``IntegerAttr.__init__``: a plain int of an integer type (not index) that
    was built and verified before gets the same normalized value without the
    normalization and the verification."""
    integer_type = _INTEGER_CLASSES[0]
    if type(value_type) is int:
        value_type = integer_type(value_type)
    if type(value) is int and type(value_type) is integer_type and not truncate_bits:
        key = (value, value_type.width.data, value_type.signedness.data)
        data = _INTEGER_VALUES.get(key)
        if data is not None:
            object.__setattr__(self, "value", data)
            object.__setattr__(self, "type", value_type)
            return
        _XDSL_INTEGER_ATTR_INIT(self, value, value_type)
        _remember(_INTEGER_VALUES, key, self.value)
        return
    _XDSL_INTEGER_ATTR_INIT(self, value, value_type, truncate_bits=truncate_bits)


def _dense_array_from_list(data_type, data):
    """``DenseArrayBase.from_list``: integer arrays are remembered (the same
    immutable attribute for the same type and values; GEP indices, segment sizes)."""
    if (type(data_type) is _INTEGER_CLASSES[0] and type(data) in (list, tuple)
            and all(type(v) is int for v in data)):
        key = (data_type.width.data, data_type.signedness.data, tuple(data))
        found = _INTEGER_ARRAYS.get(key)
        if found is None:
            found = _XDSL_DENSE_FROM_LIST(data_type, data)
            _remember(_INTEGER_ARRAYS, key, found)
        return found
    return _XDSL_DENSE_FROM_LIST(data_type, data)


def _param_attr_def_verify(self, attr) -> None:
    """``ParamAttrDef.verify``: nothing to check for an attribute without
    parameters (``UnitAttr``, pointer types), where xDSL makes a verification context."""
    if self.parameters:
        _XDSL_PARAM_ATTR_DEF_VERIFY(self, attr)


_XDSL_PARAM_ATTR_DEF_VERIFY = None


def _cheaper_attribute_construction() -> None:
    global _XDSL_INTEGER_ATTR_INIT, _XDSL_INTEGER_TYPE_INIT, _XDSL_DENSE_FROM_LIST, _INTEGER_CLASSES
    global _XDSL_PARAM_ATTR_DEF_VERIFY
    from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, IntegerType, Signedness
    from xdsl.irdl.attributes import ParamAttrDef

    ORIGINALS["ParamAttrDef.verify"] = _XDSL_PARAM_ATTR_DEF_VERIFY = ParamAttrDef.verify
    ParamAttrDef.verify = _param_attr_def_verify  # type: ignore[method-assign]

    _INTEGER_CLASSES = (IntegerType, Signedness.SIGNLESS)
    ORIGINALS["IntegerAttr.__init__"] = _XDSL_INTEGER_ATTR_INIT = IntegerAttr.__init__
    ORIGINALS["IntegerType.__init__"] = _XDSL_INTEGER_TYPE_INIT = IntegerType.__init__
    ORIGINALS["DenseArrayBase.from_list"] = _XDSL_DENSE_FROM_LIST = DenseArrayBase.from_list
    IntegerAttr.__init__ = _integer_attr_init  # type: ignore[method-assign]
    IntegerType.__init__ = _integer_type_init  # type: ignore[method-assign]
    DenseArrayBase.from_list = staticmethod(_dense_array_from_list)  # type: ignore[method-assign]


def _identity_in_c() -> None:
    from xdsl.ir.core import SSAValue, Use, _IRNode
    from xdsl.irdl.operations import IRDLOperation

    # (IRDLOperation defines the same identity methods again over _IRNode's)
    for cls in (_IRNode, SSAValue, Use, IRDLOperation):
        if (cls.__hash__.__code__.co_names != ("id",)
                or cls.__eq__.__code__.co_code != _IDENTITY_EQ.__code__.co_code):
            continue  # not the identity methods this replaces
        ORIGINALS[f"{cls.__name__}.__hash__"] = cls.__hash__
        ORIGINALS[f"{cls.__name__}.__eq__"] = cls.__eq__
        cls.__hash__ = object.__hash__  # type: ignore[method-assign, assignment]
        cls.__eq__ = object.__eq__  # type: ignore[method-assign, assignment]


def _IDENTITY_EQ(self, other: object) -> bool:
    return self is other


def _operation_info_hash(self) -> int:
    """xDSL's ``OperationInfo.__hash__`` (the same fields), computed once per
    OperationInfo: its ``__eq__`` hashes both sides again, and a dict look-up
    that meets an equal hash compares."""
    state = self.__dict__
    found = state.get("_irt_hash")
    if found is None:
        op = self.op
        found = state["_irt_hash"] = hash((
            self.name,
            sum(map(hash, op.attributes.items())),
            sum(map(hash, op.properties.items())),
            hash(tuple(map(_RESULT_TYPE, op.results))),
            hash(op._operands),
        ))
    return found


_RESULT_TYPE = operator.attrgetter("_type")


def _cse_hash_once() -> None:
    from xdsl.transforms.common_subexpression_elimination import KnownOps, OperationInfo

    ORIGINALS["OperationInfo.__hash__"] = OperationInfo.__hash__
    OperationInfo.__hash__ = _operation_info_hash  # type: ignore[method-assign]
    _OPERATION_INFO.append(OperationInfo)
    ORIGINALS["KnownOps.get"] = KnownOps.get
    ORIGINALS["KnownOps.__setitem__"] = KnownOps.__setitem__
    KnownOps.get = _known_ops_get  # type: ignore[method-assign]
    KnownOps.__setitem__ = _known_ops_setitem  # type: ignore[method-assign]


# CSE looks an op up (``get``) and, not found, enters it (``__setitem__``)
# right after, with nothing changed in between: the entry reuses the key the
# look-up made, and so its hash (a third of the pass's time: attribute and
# type hashes are Python dataclass hashes, recursive) is computed once.
_LAST_LOOKED_UP = "_irt_last_looked_up"
_OPERATION_INFO: list[type] = []  # xDSL's OperationInfo (imported when patched)


def _known_ops_get(self, k, default=None):
    info = self.__dict__[_LAST_LOOKED_UP] = _OPERATION_INFO[0](k)
    return self._known_ops.get(info, default)


def _known_ops_setitem(self, k, v) -> None:
    info = self.__dict__.pop(_LAST_LOOKED_UP, None)
    if info is None or info.op is not k:
        info = _OPERATION_INFO[0](k)
    self._known_ops[info] = v


def apply() -> None:
    if _APPLIED:
        return
    _APPLIED.append(True)
    _string_literal_regex()
    _linear_isolated_from_above()
    _linear_walk()
    _remembered_traits()
    _cheaper_liveness()
    _fast_lexer()
    _hex_float_literals()
    _spaced_dimension_lists()
    _scalar_cmpi_equal_operands()
    _cheaper_op_construction()
    _cheaper_attribute_construction()
    _cheaper_clone()
    _direct_printing()
    _identity_in_c()
    _cse_hash_once()
    _cheaper_block_append()


# ---------------------------------------------------------------------------
# Block.add_op: appending an op without regions links it directly

def _block_add_op(self, operation) -> None:
    """xDSL's ``Block.add_op``: the same checks, errors and links. xDSL goes through
    ``insert_op_after`` and ``_attach_op`` (whose ancestor check walks up from the
    block: an op without regions cannot contain it), seven calls an op; the kernels
    and lowerings append every op they make."""
    if operation.parent:
        raise ValueError("Can't add to a block an operation already attached to a block.")
    if operation.regions and operation.is_ancestor(self):
        raise ValueError("Can't add an operation to a block contained in the operation.")
    operation.parent = self
    last = self._last_op
    if last is None:
        self._first_op = operation
    else:
        # (last._insert_next_op(operation), last being the last op: no next to relink)
        operation._prev_op = last
        operation._next_op = None
        last._next_op = operation
    self._last_op = operation


def _cheaper_block_append() -> None:
    from xdsl.ir.core import Block

    ORIGINALS["Block.add_op"] = Block.add_op
    Block.add_op = _block_add_op  # type: ignore[method-assign]


# ---------------------------------------------------------------------------
# building an op of a class without regions and successors, as ``create`` does

def build_simple_op(cls, operands, result_types):
    """``cls.create(operands=operands, result_types=result_types)`` for an op class
    without regions and successors (its default properties and attributes filled in
    by its ``__post_init__``), straight to ``_init_simple_op``: the kernels build a
    scalar op per member this way once they have seen that the class's own
    constructor makes the same op (``kernel._builds_simply``). ``apply()`` must have
    run (the parser and the pipelines run it)."""
    op = cls.__new__(cls)
    _init_simple_op(op, operands, result_types, {}, {})
    return op
