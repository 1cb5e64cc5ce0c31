"""The engine of the reference interpreter.

Values are numpy objects with the exact dtype of their IR type:

- scalars (``f16``/``f32``/``f64``, ``iN``, ``index``) are numpy scalars
  (``np.float32``, ``np.int64`` for ``index`` and ``i64``, ``np.bool_`` for ``i1``);
- tensors are ``np.ndarray`` (a 0-d tensor is a 0-d array), treated as
  immutable values: no rule writes into an array it did not create;
- memrefs are ``np.ndarray`` too, but mutable and aliased (views for subviews).

Per-op meaning lives in tables keyed by op class, filled by the dialect modules
(``arith.py``, ``math.py``, ...); an op declared elementwise
(``irtoolkit.dialects.elementwise``) needs no entry: its numpy meaning is its
rule (``elementwise.py``). A *rule* ``(interp, op, args) -> results``
returns a tuple with one value per result. A *specializer* ``make(op) -> rule``
runs once per op when its block is first entered, so that attributes
(predicates, constants, callees, widths) are decoded once, not per execution.
Terminators are classified once too: an *exit* terminator (``func.return``,
``loop.yield`` ...) hands its operands to whoever runs the region; a *branch*
rule ``(interp, op, args) -> (block, block_args)`` continues in another block.
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    BFloat16Type,
    MemRefType,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from irtoolkit.diagnostics import Diagnostic, DiagnosticError, op_error
from irtoolkit.types import numpy_dtype

Rule = Callable[["Interpreter", Operation, list[Any]], Sequence[Any]]
BranchRule = Callable[["Interpreter", Operation, list[Any]], tuple[int, Sequence[Any]]]

#: op class -> rule ``(interp, op, args) -> tuple of results``
RULES: dict[type[Operation], Rule] = {}
#: op class -> ``make(op) -> rule`` (decodes attributes once per op)
SPECIALIZERS: dict[type[Operation], Callable[[Operation], Rule]] = {}
#: terminator op class -> None (exit: the operands leave the region) or
#: ``make(op) -> branch rule``; a branch rule ``(interp, op, args) -> (successor index, block args)``
TERMINATORS: dict[type[Operation], Callable[[Operation], BranchRule] | None] = {}


def register(*classes: type[Operation]):
    """Decorator: ``fn(interp, op, args) -> tuple`` is the rule of ``classes``."""

    def deco(fn: Rule) -> Rule:
        for cls in classes:
            RULES[cls] = fn
        return fn

    return deco


def register_specialized(*classes: type[Operation]):
    """Decorator: ``make(op) -> rule`` builds the rule of each op of ``classes``."""

    def deco(make: Callable[[Operation], Rule]):
        for cls in classes:
            SPECIALIZERS[cls] = make
        return make

    return deco


def register_exit(*classes: type[Operation]) -> None:
    """Terminators whose operands are the results of the region they end."""
    for cls in classes:
        TERMINATORS[cls] = None


def register_branch(*classes: type[Operation]):
    """Decorator: ``make(op) -> rule``, the rule ``(interp, op, args) -> (successor index,
    successor arguments)`` (the index into ``op.successors``)."""

    def deco(make: Callable[[Operation], BranchRule]):
        for cls in classes:
            TERMINATORS[cls] = make
        return make

    return deco


_MISSING = object()

#: Python recursion limit while interpreting (each IR call level takes ~5 Python frames)
RECURSION_LIMIT = 20000


def _lookup(table: dict, cls: type) -> Any:
    """Entry of ``cls`` or of its nearest registered base class (subclassed upstream ops)."""
    for base in cls.__mro__:
        entry = table.get(base, _MISSING)
        if entry is not _MISSING:
            return entry
    return _MISSING


def has_rule(cls: type[Operation]) -> bool:
    """Whether the interpreter knows ops of class ``cls`` (a rule of its own, or a
    declared elementwise meaning: ``interpreter/elementwise.py``)."""
    load_rules()
    if any(_lookup(t, cls) is not _MISSING for t in (RULES, SPECIALIZERS, TERMINATORS)):
        return True
    from irtoolkit.dialects.elementwise import meaning_of

    return meaning_of(cls) is not None


_LOADED = False
RULE_MODULES = ("builtin_func", "arith", "math", "memref", "cf", "tensor", "tensor_indexed", "loop", "scf", "autodiff",
                "stablehlo",
                "printf")


def load_rules() -> None:
    """Import every rule module (each fills the tables on import)."""
    global _LOADED
    if _LOADED:
        return
    import importlib

    for name in RULE_MODULES:
        importlib.import_module(f"irtoolkit.interpreter.{name}")
    _LOADED = True


# ---------------------------------------------------------------------------
# Types


#: signed dtype -> unsigned dtype of the same width (for unsigned arithmetic)
UNSIGNED = {np.dtype(np.int8): np.dtype(np.uint8), np.dtype(np.int16): np.dtype(np.uint16),
            np.dtype(np.int32): np.dtype(np.uint32), np.dtype(np.int64): np.dtype(np.uint64)}
#: bit width of each integer dtype
BITS = {np.dtype(np.bool_): 1, np.dtype(np.int8): 8, np.dtype(np.int16): 16,
        np.dtype(np.int32): 32, np.dtype(np.int64): 64}


class UnsupportedType(Exception):
    pass


def dtype_of(t: Attribute) -> np.dtype:
    """The numpy dtype of a scalar type, or of the elements of a tensor/memref type."""
    dtype = numpy_dtype(t)
    if dtype is not None:
        return dtype
    if isinstance(t, (TensorType, MemRefType)):
        t = t.element_type
    if isinstance(t, BFloat16Type):
        raise UnsupportedType("bf16 has no numpy equivalent")
    raise UnsupportedType(f"type {t} is not supported by the interpreter")


def is_shaped(t: Attribute) -> bool:
    return isinstance(t, (TensorType, MemRefType))


def static_shape(t: TensorType | MemRefType) -> tuple[int | None, ...]:
    """The shape of ``t`` with ``None`` for dynamic dims."""
    return tuple(None if d == DYNAMIC_INDEX or d < 0 else d for d in t.get_shape())


def shape_with_dynamic(t: TensorType | MemRefType, dynamic: Sequence[Any]) -> tuple[int, ...]:
    """Shape of ``t`` with its dynamic dims filled, in order, from ``dynamic``."""
    it = iter(dynamic)
    return tuple(int(next(it)) if d is None else d for d in static_shape(t))


def wrap_int(value: int, dtype: np.dtype):
    """Python int -> numpy scalar of ``dtype``, wrapping modulo 2**bits like the hardware."""
    if dtype == np.bool_:
        return np.bool_(value & 1)
    bits = dtype.itemsize * 8
    value &= (1 << bits) - 1
    if dtype.kind == "i" and value >= 1 << (bits - 1):
        value -= 1 << bits
    return dtype.type(value)


def type_matches(value: Any, t: Attribute) -> str | None:
    """None if ``value`` is a valid runtime value of type ``t``, else what is wrong."""
    try:
        dt = dtype_of(t)
    except UnsupportedType:
        return None  # not checkable (e.g. llvm pointers): trust the rules
    if isinstance(t, (TensorType, MemRefType)):
        if not isinstance(value, np.ndarray):
            return f"expected an array for {t}, got {type(value).__name__}"
        if value.dtype != dt:
            return f"expected dtype {dt} for {t}, got {value.dtype}"
        shape = static_shape(t)
        if len(shape) != value.ndim or any(s is not None and s != v for s, v in zip(shape, value.shape)):
            return f"expected shape {_fmt_shape(shape)} for {t}, got {value.shape}"
        return None
    if not isinstance(value, np.generic) or isinstance(value, np.ndarray):
        return f"expected a numpy scalar for {t}, got {type(value).__name__}"
    if value.dtype != dt:
        return f"expected a {dt} scalar for {t}, got {value.dtype}"
    return None


def _fmt_shape(shape: Sequence[int | None]) -> str:
    return "(" + ", ".join("?" if s is None else str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


# ---------------------------------------------------------------------------
# The engine


class _CompiledBlock:
    """A block ready to run: values are slots (ints) of the function's frame (a list)."""

    __slots__ = ("args", "steps", "term", "term_operands", "branch", "succ")

    def __init__(self, args, steps, term, term_operands, branch):
        self.args = args  # slots of the block arguments
        self.steps = steps  # (rule, op, operand slots, result slots) per non-terminator op
        self.term = term  # the terminator op (None: the block just ends)
        self.term_operands = term_operands  # slots of its operands
        self.branch = branch  # None (exit) or rule (interp, op, args) -> (successor index, args)
        self.succ: tuple[_CompiledBlock, ...] = ()  # compiled successors of a branch


class _FunctionCode:
    __slots__ = ("nslots", "entry")

    def __init__(self, nslots: int, entry: _CompiledBlock):
        self.nslots = nslots
        self.entry = entry


class InterpreterError(Exception):
    pass


def _missing_rule(op: Operation) -> Rule:
    def rule(interp, op, args):
        raise op_error(op, "has no interpreter rule")

    return rule


class Interpreter:
    """Runs functions of one module.

    A function is compiled on its first call: every value gets a slot in the
    function's frame (a list), every op its rule, every block a dispatch list.
    """

    def __init__(self, module: ModuleOp, check_types: bool = False):
        load_rules()
        self.module = module
        self.check_types = check_types
        #: the frame of the running function: slot -> value
        self.env: list[Any] = []
        self._codes: dict[int, _FunctionCode] = {}
        self._entries: dict[int, _CompiledBlock] = {}  # id(region) -> its compiled entry block
        self.functions: dict[str, Operation] = {}
        #: state shared by rules of one run (memref globals ...), keyed by the rule module
        self.state: dict[Any, Any] = {}
        from xdsl.dialects.func import FuncOp

        for op in module.walk():
            if isinstance(op, FuncOp):
                self.functions.setdefault(op.sym_name.data, op)

    # -- compilation ---------------------------------------------------------

    def _rule_for(self, op: Operation) -> Rule:
        cls = type(op)
        make = _lookup(SPECIALIZERS, cls)
        if make is not _MISSING:
            try:
                return make(op)
            except DiagnosticError:
                raise
            except UnsupportedType as err:
                raise op_error(op, f"cannot be interpreted: {err}") from None
            except (ValueError, MemoryError) as err:  # a constant numpy cannot hold
                raise op_error(op, _describe(err)) from None
        rule = _lookup(RULES, cls)
        if rule is not _MISSING:
            return rule
        from irtoolkit.dialects.elementwise import meaning_of

        if meaning_of(cls) is not None:
            from irtoolkit.interpreter.elementwise import make_rule

            try:
                return make_rule(op)
            except UnsupportedType as err:
                raise op_error(op, f"cannot be interpreted: {err}") from None
        return _missing_rule(op)  # an error when (and only if) the op is reached

    def _compile_function(self, func: Operation) -> _FunctionCode:
        slots: dict[SSAValue, int] = {}

        def slot(v: SSAValue) -> int:
            s = slots.get(v)
            if s is None:
                s = slots[v] = len(slots)
            return s

        blocks: dict[Block, _CompiledBlock] = {}
        pending: list[_CompiledBlock] = []

        def compile_region(region: Region) -> None:
            for block in region.blocks:
                steps = []
                term = None
                term_operands: tuple[int, ...] = ()
                branch = None
                for op in block.ops:
                    for inner in op.regions:
                        compile_region(inner)
                    kind = _lookup(TERMINATORS, type(op))
                    if kind is not _MISSING:
                        term, term_operands = op, tuple(slot(v) for v in op.operands)
                        branch = None if kind is None else kind(op)
                        break
                    steps.append((self._rule_for(op), op, tuple(slot(v) for v in op.operands),
                                  tuple(slot(r) for r in op.results)))
                cb = _CompiledBlock(tuple(slot(a) for a in block.args), tuple(steps), term,
                                    term_operands, branch)
                blocks[block] = cb
                if branch is not None:
                    pending.append(cb)
            if region.blocks.first is not None:
                self._entries[id(region)] = blocks[region.blocks.first]

        compile_region(func.body)
        for cb in pending:
            cb.succ = tuple(blocks[b] for b in cb.term.successors)
        code = _FunctionCode(len(slots), blocks[func.body.blocks.first])
        self._codes[id(func)] = code
        return code

    # -- execution -----------------------------------------------------------

    def run_region(self, region: Region, args: Sequence[Any] = ()) -> tuple[Operation | None, list[Any]]:
        """Run ``region`` (of the running function) from its entry block with ``args``.

        Follows branches between blocks; returns the exit terminator and its operand values.
        """
        cb = self._entries.get(id(region))
        if cb is None:
            raise InterpreterError("region is not part of a function being interpreted")
        return self._run_from(cb, args)

    def _run_from(self, cb: _CompiledBlock, args: Sequence[Any]) -> tuple[Operation | None, list[Any]]:
        env = self.env
        run_steps = self._run_steps_checked if self.check_types else self._run_steps
        while True:
            if len(args) != len(cb.args):
                raise InterpreterError(f"block expects {len(cb.args)} arguments, got {len(args)}")
            for a, v in zip(cb.args, args):
                env[a] = v
            run_steps(cb.steps, env)
            vals = [env[v] for v in cb.term_operands]
            branch = cb.branch
            if branch is None:
                return cb.term, vals
            try:
                index, args = branch(self, cb.term, vals)
            except DiagnosticError:
                raise
            except Exception as err:
                raise op_error(cb.term, _describe(err)) from None
            cb = cb.succ[index]

    def run_single_block(self, region: Region, args: Sequence[Any] = ()) -> list[Any]:
        """Run a region and return the operands of its exit terminator."""
        return self.run_region(region, args)[1]

    def _run_steps(self, steps, env) -> None:
        op = None
        try:
            for rule, op, ins, outs in steps:
                res = rule(self, op, [env[v] for v in ins])
                for o, r in zip(outs, res):
                    env[o] = r
        except DiagnosticError:
            raise
        except RecursionError:
            raise op_error(op, "at run time: maximum recursion depth exceeded") from None
        except Exception as err:
            raise op_error(op, _describe(err)) from None

    def _run_steps_checked(self, steps, env) -> None:
        for rule, op, ins, outs in steps:
            try:
                res = rule(self, op, [env[v] for v in ins])
            except DiagnosticError:
                raise
            except Exception as err:
                raise op_error(op, _describe(err)) from err
            if len(res) != len(outs):
                raise op_error(op, f"interpreter rule returned {len(res)} values for {len(outs)} results")
            for o, result, r in zip(outs, op.results, res):
                problem = type_matches(r, result.type)
                if problem is not None:
                    raise op_error(op, f"interpreter rule produced a wrong value: {problem}")
                env[o] = r

    # -- functions -----------------------------------------------------------

    def lookup_function(self, name: str) -> Operation:
        func = self.functions.get(name.removeprefix("@"))
        if func is None:
            raise DiagnosticError(Diagnostic(f"no function named '{name}' in the module"))
        return func

    def call_function(self, func: Operation, args: Sequence[Any]) -> list[Any]:
        """Run ``func`` on runtime values (no conversion, no checks) in a fresh frame."""
        code = self._codes.get(id(func))
        if code is None:
            if not func.body.blocks:
                raise DiagnosticError(Diagnostic(f"function '@{func.sym_name.data}' has no body (external)"))
            code = self._compile_function(func)
        saved = self.env
        self.env = [None] * code.nslots
        try:
            return self._run_from(code.entry, args)[1]
        finally:
            self.env = saved

    def call(self, name: str, *args: Any) -> Any:
        """Call function ``name`` with user values: checked and converted as in SPEC §9."""
        name = name.removeprefix("@")
        func = self.lookup_function(name)
        ftype = func.function_type
        inputs = list(ftype.inputs.data)
        if len(args) != len(inputs):
            raise ArgumentError(Diagnostic(
                f"function '@{name}' takes {len(inputs)} argument(s), {len(args)} given"))
        values = [convert_argument(a, t, i, name) for i, (a, t) in enumerate(zip(args, inputs))]
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, RECURSION_LIMIT))  # deep func.call recursion in the IR
        try:
            with np.errstate(all="ignore"):
                results = self.call_function(func, values)
        finally:
            sys.setrecursionlimit(limit)
        outputs = list(ftype.outputs.data)
        converted = tuple(convert_result(r, t, i, name) for i, (r, t) in enumerate(zip(results, outputs)))
        if not converted:
            return None
        if len(converted) == 1:
            return converted[0]
        return converted


_USER_ERRORS = (IndexError, ValueError, ArithmeticError, InterpreterError, UnsupportedType, MemoryError)


def _describe(err: Exception) -> str:
    """A failing rule's exception as a message: run-time errors of the program
    (out of bounds, bad shapes, arrays too large for memory ...) vs. errors in
    the interpreter itself."""
    text = str(err) or type(err).__name__
    if isinstance(err, MemoryError):
        text = "out of memory" + (f" ({text})" if str(err) else "")
    if isinstance(err, _USER_ERRORS):
        return f"at run time: {text}"
    return f"interpreter internal error ({type(err).__name__}): {text}"


# ---------------------------------------------------------------------------
# Arguments and results


class ArgumentError(DiagnosticError, TypeError):
    """Arguments that do not match the function's signature (as the JIT's ArgumentError)."""


def _arg_error(fname: str, index: int, t: Attribute, msg: str) -> ArgumentError:
    return ArgumentError(Diagnostic(f"function '@{fname}' argument {index} (of type {t}): {msg}"))


def _describe_value(v: Any) -> str:
    if isinstance(v, np.ndarray):
        return f"{v.dtype} array of shape {v.shape}"
    if isinstance(v, np.generic):
        return f"numpy {v.dtype} scalar"
    return type(v).__name__


def convert_argument(value: Any, t: Attribute, index: int, fname: str) -> Any:
    """Check a user argument against its declared type and make it a runtime value.

    Accepts what the JIT accepts: arrays of the exact dtype (other array-likes
    if they cast within their kind), real numbers for float scalars, integers
    (and bools) that fit for integer scalars.
    """
    try:
        dt = dtype_of(t)
    except UnsupportedType as err:
        raise _arg_error(fname, index, t, str(err)) from None
    if isinstance(t, (TensorType, MemRefType)):
        shape = static_shape(t)
        if not isinstance(value, np.ndarray):
            if isinstance(t, MemRefType):
                raise _arg_error(fname, index, t, f"expected a numpy array, got {_describe_value(value)}")
            try:
                arr = np.asarray(value)
            except Exception:  # noqa: BLE001
                raise _arg_error(fname, index, t, f"expected an array, got {_describe_value(value)}") from None
            if arr.dtype == object or not np.can_cast(arr.dtype, dt, "same_kind"):
                raise _arg_error(fname, index, t, f"expected dtype {dt}, got {_describe_value(value)}")
            value = arr.astype(dt)
        if value.dtype != dt:
            raise _arg_error(fname, index, t, f"expected dtype {dt}, got {_describe_value(value)}")
        if value.ndim != len(shape) or any(s is not None and s != v for s, v in zip(shape, value.shape)):
            raise _arg_error(fname, index, t, f"expected shape {_fmt_shape(shape)}, got {_describe_value(value)}")
        if isinstance(t, TensorType):
            view = value.view()
            view.flags.writeable = False  # value semantics: nobody writes into a tensor
            return view
        return value  # memrefs alias the caller's buffer
    # scalars
    if isinstance(value, np.ndarray):
        if value.ndim != 0:
            raise _arg_error(fname, index, t, f"expected a scalar, got {_describe_value(value)}")
        value = value[()]
    if dt == np.bool_:
        if isinstance(value, (bool, np.bool_, int, np.integer)):
            return np.bool_(bool(value))
        raise _arg_error(fname, index, t, f"expected a bool, got {_describe_value(value)}")
    if dt.kind in "iu":
        if not isinstance(value, (bool, np.bool_, int, np.integer)):
            raise _arg_error(fname, index, t, f"expected an integer, got {_describe_value(value)}")
        info = np.iinfo(dt)
        if not info.min <= int(value) <= info.max:
            raise _arg_error(fname, index, t, f"value {int(value)} does not fit in {dt}")
        return dt.type(int(value))
    # floats
    if isinstance(value, (str, bytes, complex, np.complexfloating)) or not isinstance(
        value, (bool, int, float, np.bool_, np.integer, np.floating)
    ):
        raise _arg_error(fname, index, t, f"expected a float, got {_describe_value(value)}")
    return dt.type(value)


def convert_result(value: Any, t: Attribute, index: int, fname: str) -> Any:
    """Runtime value -> what the user gets: a fresh array for tensors, a numpy scalar."""
    try:
        dt = dtype_of(t)
    except UnsupportedType:
        return value
    if isinstance(t, TensorType):
        arr = np.array(value, dtype=dt, copy=True, order="C")
        if np.asarray(value).dtype != dt:
            raise InterpreterError(
                f"internal error: result {index} of '@{fname}' has dtype {np.asarray(value).dtype}, "
                f"expected {dt}")
        return arr
    if isinstance(t, MemRefType):
        return value
    if isinstance(value, np.ndarray):
        value = value[()]
    return dt.type(value)


def module_has_autodiff(module: ModuleOp) -> bool:
    """Whether ``module`` holds autodiff ops that the `ad` pass must expand first."""
    for op in module.walk():
        name = op.name
        if name.startswith("autodiff.") and name != "autodiff.stop_gradient":
            return True
    return False


def module_has_stablehlo(module: ModuleOp) -> bool:
    """Whether ``module`` holds StableHLO (or chlo, sdy) ops, which are converted first."""
    return any(op.name.startswith(("stablehlo.", "chlo.", "sdy.")) for op in module.walk())


def interpret_function(module: ModuleOp, name: str, *args: Any, check_types: bool = False) -> Any:
    """Run function ``name`` of ``module`` on numpy values (SPEC §9).

    Arguments: numpy arrays of the declared shape and dtype, Python or numpy
    scalars for scalar arguments. Results: numpy arrays (0-d for a 0-d tensor),
    numpy scalars; a tuple when there are several, the value when one, None
    when none. StableHLO is converted and autodiff ops are expanded (by
    convert-stablehlo-to-tensor and `ad`) on a copy of the module.
    ``check_types`` validates every value an op produces against its IR type.
    """
    return Interpreter(_expanded(module), check_types=check_types).call(name, *args)


# module -> (its text when expanded, the expanded copy). Calling a function of
# one module many times (finite differences, a training loop) expands it once;
# the printed text detects a module changed in place since.
_EXPANDED: weakref.WeakKeyDictionary[ModuleOp, tuple[str, ModuleOp]] = weakref.WeakKeyDictionary()


def _expanded(module: ModuleOp) -> ModuleOp:
    passes = [name for name, needed in (("convert-stablehlo-to-tensor", module_has_stablehlo(module)),
                                        ("ad", module_has_autodiff(module))) if needed]
    if not passes:
        return module
    text = str(module)
    cached = _EXPANDED.get(module)
    if cached is not None and cached[0] == text:
        return cached[1]
    from irtoolkit.pipeline import run_pipeline

    expanded = module.clone()
    run_pipeline(expanded, ",".join(passes))
    _EXPANDED[module] = (text, expanded)
    return expanded
