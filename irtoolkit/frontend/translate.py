"""Python source to IR: one ``func.func`` per (function, argument types).

The translator walks the function's AST with an environment from names to
values: SSA values (run-time tensors, loop indices) or Python objects
(compile-time ints, floats, tuples, shapes, functions). Control flow on
compile-time values runs now; on run-time values it becomes ``loop`` ops, with
SSA form built from the names each statement assigns: the names assigned in
an ``if`` and defined after it become ``loop.if`` results, the names a loop
body assigns that exist before it become ``iter_args``. Anything outside the
subset is a located error at the Python source, never a fallback to Python.
"""

from __future__ import annotations

import ast
import builtins
import operator
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IndexType, ModuleOp
from xdsl.ir import Attribute, Block, Region, SSAValue

from irtoolkit import numpy as inp
from irtoolkit.dialects import loop
from irtoolkit.frontend import indexing
from irtoolkit.frontend.api import flatten, is_traceable, rebuild, trace_rule
from irtoolkit.frontend.emitter import Emitter, Source, dtype_of, is_runtime, shape_of

if TYPE_CHECKING:
    from irtoolkit.frontend.api import Function

#: builtins usable inside @irt.function (on compile-time values, or mapped to the table)
_BUILTINS = {n: getattr(builtins, n) for n in
             ("range", "len", "float", "int", "bool", "tuple", "list", "min", "max", "abs", "isinstance", "print",
              "enumerate", "zip", "reversed")}

_CONSTANT_TYPES = (bool, int, float, str, type(None), np.ndarray, np.generic, np.dtype, type, slice,
                   types.ModuleType, type(Ellipsis))

_PY_OPS: dict[type, Callable] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
    ast.MatMult: operator.matmul, ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt,
    ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_,
    ast.IsNot: operator.is_not, ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
    ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_, ast.Invert: operator.invert,
}

_INDEX_OPS = {ast.Add: arith.AddiOp, ast.Sub: arith.SubiOp, ast.Mult: arith.MuliOp,
              ast.FloorDiv: arith.FloorDivSIOp, ast.Mod: None}

_INDEX_PREDICATES = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "slt", ast.LtE: "sle", ast.Gt: "sgt", ast.GtE: "sge"}

_UNSUPPORTED = {
    ast.Try: "'try' statements", ast.With: "'with' statements", ast.Raise: "'raise' statements",
    ast.Break: "'break' (a loop runs to its end; use a while loop's condition)",
    ast.Continue: "'continue'", ast.Global: "'global' declarations",
    ast.Nonlocal: "'nonlocal' declarations", ast.Delete: "'del' statements", ast.Import: "imports",
    ast.ImportFrom: "imports", ast.FunctionDef: "nested function definitions", ast.ClassDef: "class definitions",
    ast.AsyncFunctionDef: "async functions", ast.AsyncFor: "async loops", ast.AsyncWith: "async 'with'",
    ast.Assert: "'assert' statements", ast.Lambda: "lambdas", ast.Yield: "'yield'", ast.YieldFrom: "'yield from'",
    ast.Await: "'await'", ast.ListComp: "list comprehensions", ast.SetComp: "set comprehensions",
    ast.DictComp: "dict comprehensions", ast.GeneratorExp: "generator expressions", ast.Dict: "dicts",
    ast.Set: "sets", ast.JoinedStr: "f-strings", ast.NamedExpr: "':=' expressions", ast.Starred: "'*' here",
}
if hasattr(ast, "Match"):
    _UNSUPPORTED[ast.Match] = "'match' statements"
if hasattr(ast, "TryStar"):
    _UNSUPPORTED[ast.TryStar] = "'try' statements"


class Returned(Exception):
    """Raised by a ``return`` to stop translating the statements after it."""


class ModuleBuilder:
    """The module being built: one function per specialization, unique names,
    and the stack of functions being translated (a call into it is recursion)."""

    def __init__(self):
        self.module = ModuleOp([])
        self.specializations: dict[tuple, tuple[func.FuncOp, Any]] = {}
        self.stack: list[object] = []
        self._names: set[str] = set()

    def unique(self, name: str) -> str:
        candidate, n = name, 0
        while candidate in self._names:
            n += 1
            candidate = f"{name}_{n}"
        self._names.add(candidate)
        return candidate

    def add(self, fn: func.FuncOp) -> None:
        self.module.body.block.add_op(fn)


#: the structure of a single returned value (a tuple's is a tuple of structures)
LEAF = "leaf"


def flatten_results(E: Emitter, value) -> tuple[list[SSAValue], Any]:
    """Returned value -> (run-time results, structure): ``LEAF`` for one value, a tuple
    of structures for a tuple, ``Static(None)`` for ``None``."""
    results, structure = flatten(value, lambda v: None if v is None else LEAF)
    return [E.as_tensor(v) for v in results], structure


def unflatten_results(values, structure):
    return rebuild(structure, iter(values))


def build_function(builder: ModuleBuilder, name: str, arg_types: list[Attribute], source: Source,
                   node: ast.AST, body: Callable[[Emitter, list[SSAValue]], Any],
                   public: bool = False) -> tuple[func.FuncOp, Any]:
    """A ``func.func`` whose body ``body(E, args)`` builds and returns the Python result."""
    block = Block(arg_types=arg_types)
    E = Emitter(source, block, node)
    value = body(E, list(block.args))
    results, structure = flatten_results(E, value)
    E.node = node
    E.emit(func.ReturnOp(*results), verify=False)  # verified with its function
    fn = func.FuncOp(name, (arg_types, [r.type for r in results]), Region(block),
                     visibility=None if public else "private")
    builder.add(fn)
    return fn, structure


def assigned_names(stmts: list[ast.stmt]) -> list[str]:
    """Names a block of statements (re)binds, in first-assignment order."""
    names: dict[str, None] = {}

    def target(t: ast.AST) -> None:
        if isinstance(t, ast.Name):
            names[t.id] = None
        elif isinstance(t, ast.Tuple | ast.List):
            for e in t.elts:
                target(e)
        elif isinstance(t, ast.Subscript):
            target(t.value)
        elif isinstance(t, ast.Starred):
            target(t.value)

    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    target(t)
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                target(node.target)
            elif isinstance(node, ast.For):
                target(node.target)
    return list(names)


def _same_constant(a, b) -> bool:
    try:
        return type(a) is type(b) and bool(np.all(a == b)) and np.shape(a) == np.shape(b)
    except Exception:  # noqa: BLE001 (incomparable objects are simply different)
        return False


class Translator:
    """Translates one specialization of one Python function."""

    def __init__(self, fn: Function, builder: ModuleBuilder, E: Emitter, env: dict[str, Any]):
        self.fn = fn
        self.builder = builder
        self.E = E
        self.env = env
        self.in_control = 0  # depth of run-time control flow (no return inside)
        self.result = None
        # names with no value after a run-time if or loop (assigned on one branch only,
        # or first assigned inside a loop) -> why: using them is an error, not a global
        self.undefined_after: dict[str, str] = {}
        self.weak_names: set[str] = set()  # numbers carried by the loop being built
        self.scope = fn.scope()  # globals and closure, read once per translation

    # ================================================================ statements
    def run(self, body: list[ast.stmt]):
        try:
            self.block(body)
        except Returned:
            pass
        return self.result

    def block(self, stmts: list[ast.stmt]) -> None:
        for stmt in stmts:
            self.E.node = stmt
            self.stmt(stmt)

    def stmt(self, s: ast.stmt) -> None:
        method = getattr(self, "stmt_" + type(s).__name__, None)
        if method is None:
            what = _UNSUPPORTED.get(type(s), f"'{type(s).__name__}' statements")
            raise self.E.error(f"{what}: not supported in @irt.function", s)
        method(s)

    def stmt_Pass(self, s: ast.Pass) -> None:
        pass

    def stmt_Expr(self, s: ast.Expr) -> None:
        if isinstance(s.value, ast.Constant):  # docstrings
            return
        self.expr(s.value)

    def stmt_Return(self, s: ast.Return) -> None:
        if self.in_control:
            raise self.E.error("'return' inside a loop or inside an 'if' on a tensor is not supported "
                               "(assign a variable and return it after)", s)
        self.result = self.expr(s.value) if s.value is not None else None
        raise Returned

    def stmt_Assign(self, s: ast.Assign) -> None:
        value = self.expr(s.value)
        for t in s.targets:
            self.assign(t, value)

    def stmt_AnnAssign(self, s: ast.AnnAssign) -> None:
        if s.value is not None:
            self.assign(s.target, self.expr(s.value))

    def stmt_AugAssign(self, s: ast.AugAssign) -> None:
        load = ast.copy_location(type(s.target)(**{f: getattr(s.target, f) for f in s.target._fields}), s.target)
        load.ctx = ast.Load()
        current = self.expr(load)
        self.E.node = s
        self.assign(s.target, self.binop(s.op, current, self.expr(s.value), s))

    def assign(self, t: ast.AST, value) -> None:
        self.E.node = t
        if isinstance(t, ast.Name):
            if is_runtime(value) and value.name_hint is None:
                value.name_hint = t.id  # the IR reads like the Python
            self.env[t.id] = value
            self.undefined_after.pop(t.id, None)
        elif isinstance(t, ast.Tuple | ast.List):
            if not isinstance(value, tuple | list):
                raise self.E.error("only a tuple can be unpacked", t)
            if len(value) != len(t.elts):
                raise self.E.error(f"cannot unpack {len(value)} values into {len(t.elts)} names", t)
            for target, v in zip(t.elts, value):
                self.assign(target, v)
        elif isinstance(t, ast.Subscript):
            if not isinstance(t.value, ast.Name):
                raise self.E.error("only a variable can be assigned by index (x[i] = v)", t)
            x = self.expr(t.value)
            if not is_runtime(x):
                raise self.E.error(f"'{t.value.id}' is not a tensor: only tensors can be assigned by index", t)
            index = self.expr(t.slice)
            self.E.node = t
            self.env[t.value.id] = indexing.setitem(self.E, x, index, value)
        else:
            raise self.E.error(f"cannot assign to {type(t).__name__}", t)

    # ---------------------------------------------------------------- if
    def stmt_If(self, s: ast.If) -> None:
        cond = self.expr(s.test)
        if not is_runtime(cond):
            self.block(s.body if cond else s.orelse)
            return
        self.E.node = s.test
        c = self.E.condition(cond)
        names = assigned_names(s.body + s.orelse)
        then_block, then_env = self.sub_block(s.body, [], {})
        else_block, else_env = self.sub_block(s.orelse, [], {})
        outs, then_vals, else_vals, result_types = [], [], [], []
        for name in names:
            if name not in then_env or name not in else_env:
                if name in then_env or name in else_env:
                    self.env.pop(name, None)
                    self.undefined_after[name] = "is assigned on one branch of an 'if' on a tensor only"
                continue
            a, b = then_env[name], else_env[name]
            if not is_runtime(a) and not is_runtime(b) and _same_constant(a, b):
                self.env[name] = a
                continue
            a, b = self.unify(name, a, b, then_block, else_block, s)
            outs.append(name)
            then_vals.append(a)
            else_vals.append(b)
            result_types.append(a.type)
        self.E.node = s
        then_block.add_op(loop.YieldOp(*then_vals))
        else_block.add_op(loop.YieldOp(*else_vals))
        else_region = Region(else_block) if result_types or s.orelse else None  # no empty else
        op = self.E.emit(loop.IfOp(c, result_types, Region(then_block), else_region))
        results = op.results if not isinstance(op, SSAValue) else [op]
        for name, r in zip(outs, results):
            self.env[name] = r
            r.name_hint = name

    def unify(self, name: str, a, b, block_a: Block, block_b: Block, node: ast.AST):
        """``a`` and ``b`` (the values of ``name`` at the end of two paths) as run-time
        values of one type, converted at the end of their own blocks."""
        for v in (a, b):
            if not is_runtime(v) and not isinstance(v, bool | int | float | np.ndarray | np.generic):
                raise self.E.error(f"variable '{name}' is a {type(v).__name__} on one path and differs on "
                                   "the other: only tensors and numbers may depend on a tensor condition", node)
        Ea = Emitter(self.E.source, block_a, node)
        Eb = Emitter(self.E.source, block_b, node)
        ta = Ea.as_tensor(a) if is_runtime(a) else None
        tb = Eb.as_tensor(b) if is_runtime(b) else None
        if ta is None and tb is None:
            dtype = self.E.result_dtype(a, b)
            ta, tb = Ea.as_tensor(a, dtype), Eb.as_tensor(b, dtype)
        elif ta is None:
            ta = Ea.broadcast_to(Ea.as_tensor(a, dtype_of(tb)), shape_of(tb))
        elif tb is None:
            tb = Eb.broadcast_to(Eb.as_tensor(b, dtype_of(ta)), shape_of(ta))
        if ta.type != tb.type:
            raise self.E.error(f"variable '{name}' has type {ta.type} on one branch and {tb.type} on the other", node)
        return ta, tb

    def bind_args(self, block: Block, bind: dict[str, int]) -> None:
        for name, pos in bind.items():
            self.env[name] = block.args[pos]
            block.args[pos].name_hint = name
            if name in self.weak_names:
                self.E.weak.add(block.args[pos])

    def sub_block(self, stmts: list[ast.stmt], arg_types: list[Attribute], bind: dict[str, int],
                  arg_names: tuple[str, ...] = ()) -> tuple[Block, dict[str, Any]]:
        """Translate ``stmts`` into a new block; ``bind`` maps names to block argument positions."""
        block = Block(arg_types=arg_types)
        saved = self.E.block, self.env, self.undefined_after
        self.E.block = block
        self.env = dict(self.env)
        self.undefined_after = dict(self.undefined_after)
        self.bind_args(block, bind)
        self.in_control += 1
        try:
            self.block(stmts)
            return block, self.env
        finally:
            self.in_control -= 1
            self.E.block, self.env, self.undefined_after = saved

    # ---------------------------------------------------------------- loops
    def carried(self, body: list[ast.stmt], exclude: tuple[str, ...] = ()) -> list[str]:
        return [n for n in assigned_names(body) if n in self.env and n not in exclude]

    def loop_inits(self, names: list[str], node: ast.AST, hints: dict[str, Attribute]) -> list[SSAValue]:
        inits = []
        self.E.node = node
        for name in names:
            v = self.env[name]
            if not is_runtime(v) and not isinstance(v, bool | int | float | np.ndarray | np.generic):
                raise self.E.error(f"variable '{name}' ({type(v).__name__}) is reassigned in a loop: "
                                   "only tensors and numbers can change from one iteration to the next", node)
            hint = hints.get(name)
            if not is_runtime(v) and hint is not None:
                from irtoolkit.types import numpy_dtype

                v = self.E.broadcast_to(self.E.as_tensor(v, numpy_dtype(hint)), hint.get_shape())
            inits.append(self.E.as_tensor(v))
        return inits

    def with_carried(self, names: list[str], node: ast.AST, body: list[ast.stmt],
                     build: Callable[[list[SSAValue]], tuple[Any, list]]):
        """Build a loop carrying ``names``: ``build(inits) -> (op, yielded types)``. A number
        carried into a loop that becomes a tensor of another type there is retried once
        with that type (``acc = 0.0`` then ``acc = acc + x``)."""
        hints: dict[str, Attribute] = {}
        for attempt in range(2):
            self.weak_names = {n for n in names if isinstance(self.env[n], bool | int | float) and n not in hints}
            inits = self.loop_inits(names, node, hints)
            op, yielded = build(inits)
            mismatched = {n: y for n, i, y in zip(names, inits, yielded) if i.type != y}
            if not mismatched:
                break
            if attempt or any(is_runtime(self.env[n]) for n in mismatched):
                n, y = next(iter(mismatched.items()))
                t = inits[names.index(n)].type
                raise self.E.error(f"variable '{n}' has type {t} before the loop and {y} after an iteration", node)
            hints = mismatched
        self.E.node = node
        self.E.emit(op)
        for name in assigned_names(body):
            if name not in names and name not in self.env:
                self.undefined_after[name] = "is first assigned inside a loop on tensors (assign it before the loop)"
        results = list(op.results)
        for name, r in zip(names, results):
            self.env[name] = r
            r.name_hint = name
        return results

    def yield_values(self, env: dict[str, Any], names: list[str], block: Block, node: ast.AST) -> list[SSAValue]:
        E = Emitter(self.E.source, block, node)
        return [E.as_tensor(env[n]) if n in env else E.as_tensor(self.env[n]) for n in names]

    def stmt_For(self, s: ast.For) -> None:
        if s.orelse:
            raise self.E.error("'for ... else' is not supported", s)
        it = s.iter
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" \
                and self.lookup(it.func) is builtins.range:
            bounds = [self.expr(a) for a in it.args]
            if it.keywords or not 1 <= len(bounds) <= 3:
                raise self.E.error("range takes 1 to 3 positional arguments", it)
            if all(not is_runtime(b) for b in bounds):
                r = range(*bounds)
                if len(r) <= 1:  # tiny: no loop
                    for i in r:
                        self.assign(s.target, i)
                        self.block(s.body)
                    return
                lb, ub, step = r.start, r.stop, r.step
                if step < 0:
                    raise self.E.error("a range with a negative step is not supported", it)
            else:
                lb, ub, step = ([0] + bounds + [1])[-3:] if len(bounds) == 1 else (bounds + [1])[:3]
                if is_runtime(step):
                    raise self.E.error("the step of a range must be a compile-time integer", it)
            return self.for_range(s, lb, ub, step)
        seq = self.expr(it)
        if is_runtime(seq):
            raise self.E.error("'for' over a tensor is not supported: loop over range(n) and index", it)
        if not isinstance(seq, tuple | list | range):
            raise self.E.error(f"'for' over {type(seq).__name__} is not supported (range or a tuple)", it)
        for item in seq:  # compile-time sequence: unrolled
            self.assign(s.target, item)
            self.block(s.body)

    def for_range(self, s: ast.For, lb, ub, step) -> None:
        if not isinstance(s.target, ast.Name):
            raise self.E.error("the loop variable of a range must be a name", s.target)
        self.E.node = s.iter
        lbv, ubv, stepv = (self.E.index_value(b) for b in (lb, ub, step))
        names = self.carried(s.body, exclude=(s.target.id,))

        def build(inits):
            types_ = [v.type for v in inits]
            bind = {s.target.id: 0, **{n: i + 1 for i, n in enumerate(names)}}
            block, env = self.sub_block(s.body, [IndexType(), *types_], bind)
            yielded = self.yield_values(env, names, block, s)
            block.add_op(loop.YieldOp(*yielded))
            return loop.ForOp(lbv, ubv, stepv, inits, Region(block)), [y.type for y in yielded]

        self.with_carried(names, s, s.body, build)
        self.env.pop(s.target.id, None)
        self.undefined_after[s.target.id] = "is the variable of a loop.for (it has no value after the loop)"

    def stmt_While(self, s: ast.While) -> None:
        if s.orelse:
            raise self.E.error("'while ... else' is not supported", s)
        cond = self.expr(s.test)
        if not is_runtime(cond):
            for _ in range(10000):  # compile-time condition: unrolled
                if not cond:
                    return
                self.block(s.body)
                cond = self.expr(s.test)
                if is_runtime(cond):
                    raise self.E.error("this condition is a compile-time value before the loop and a tensor "
                                       "after an iteration; make it a tensor before the loop", s.test)
            raise self.E.error("a 'while' on a compile-time condition ran 10000 times at compile time", s)
        names = self.carried(s.body)

        def build(inits):
            types_ = [v.type for v in inits]
            bind = {n: i for i, n in enumerate(names)}
            before = Block(arg_types=types_)
            saved = self.E.block, self.env
            self.E.block, self.env = before, dict(self.env)
            self.bind_args(before, bind)
            try:
                c = self.expr(s.test)
                self.E.node = s.test
                c = self.E.condition(c)
            finally:
                self.E.block, self.env = saved
            before.add_op(loop.ConditionOp(c, *before.args))
            after, env = self.sub_block(s.body, types_, bind)
            yielded = self.yield_values(env, names, after, s)
            after.add_op(loop.YieldOp(*yielded))
            return loop.WhileOp(inits, types_, Region(before), Region(after)), [y.type for y in yielded]

        self.with_carried(names, s, s.body, build)

    # ================================================================ expressions
    def expr(self, e: ast.expr):
        self.E.node = e
        method = getattr(self, "expr_" + type(e).__name__, None)
        if method is None:
            what = _UNSUPPORTED.get(type(e), f"'{type(e).__name__}' expressions")
            raise self.E.error(f"{what}: not supported in @irt.function", e)
        value = method(e)
        self.E.node = e
        return value

    def expr_Constant(self, e: ast.Constant):
        return e.value

    def lookup(self, e: ast.Name):
        name = e.id
        if name in self.env:
            return self.env[name]
        if name in self.undefined_after:
            raise self.E.error(f"'{name}' {self.undefined_after[name]}, so it has no value here", e)
        scope = self.scope
        if name in scope:
            value = scope[name]
        elif name in _BUILTINS:
            value = _BUILTINS[name]
        else:
            raise self.E.error(f"name '{name}' is not defined", e)
        return self.check_static(value, name, e)

    def check_static(self, value, name: str, e: ast.AST):
        if isinstance(value, _CONSTANT_TYPES) or is_traceable(value) or isinstance(value, inp.NumpyFunction) \
                or trace_rule(value) is not None:
            return value
        if isinstance(value, tuple | list):
            return tuple(self.check_static(v, name, e) for v in value)
        if isinstance(value, builtins.type(builtins.len)) and value in _BUILTINS.values():
            return value
        if isinstance(value, np.ufunc) or (callable(value) and (getattr(value, "__module__", None) or "").startswith("numpy")):
            return value  # numpy's own functions: on compile-time values only (checked at the call)
        if callable(value):
            raise self.E.error(f"'{name}' is a Python function, not an @irt.function: decorate it with "
                               "@irt.function (or use irtoolkit.numpy)", e)
        raise self.E.error(f"'{name}' is a {type(value).__name__}: only tensors, numbers, tuples, numpy arrays "
                           "and @irt.functions can be used in @irt.function", e)

    def print(self, args: list, kwargs: dict, e: ast.AST) -> None:
        """``print(...)`` prints when the program runs (``printf.print_format``; compile-time
        values become text of the format)."""
        from xdsl.dialects import printf

        if set(kwargs) - {"sep", "end"}:
            raise self.E.error("print takes sep= and end= only", e)
        parts, values = [], []
        for a in args:
            if is_runtime(a) or isinstance(a, np.ndarray):
                parts.append("{}")
                values.append(a if is_runtime(a) and isinstance(a.type, IndexType) else self.E.as_tensor(a))
            else:
                text = str(a)
                if "{" in text or "}" in text:
                    raise self.E.error("print: printf.print_format cannot print braces", e)
                parts.append(text)
        text = kwargs.get("sep", " ").join(parts) + kwargs.get("end", "\n")
        self.E.emit(printf.PrintFormatOp(text, *values))

    def expr_Name(self, e: ast.Name):
        return self.lookup(e)

    def expr_Tuple(self, e: ast.Tuple):
        return tuple(self.expr(x) for x in e.elts)

    expr_List = expr_Tuple

    def expr_Slice(self, e: ast.Slice):
        return slice(*(self.expr(p) if p is not None else None for p in (e.lower, e.upper, e.step)))

    def expr_Attribute(self, e: ast.Attribute):
        base = self.expr(e.value)
        self.E.node = e
        if is_runtime(base):
            return self.tensor_attribute(base, e.attr, e)
        if isinstance(base, types.ModuleType) or isinstance(base, np.ndarray | np.generic | np.dtype | type):
            if not hasattr(base, e.attr):
                raise self.E.error(f"'{getattr(base, '__name__', type(base).__name__)}' has no attribute '{e.attr}'", e)
            return self.check_static(getattr(base, e.attr), e.attr, e)
        raise self.E.error(f"attribute '{e.attr}' of a {type(base).__name__} is not supported", e)

    def tensor_attribute(self, x: SSAValue, attr: str, e: ast.AST):
        x = self.E.as_tensor(x)
        shape = tuple(x.type.get_shape())
        if attr == "shape":
            return shape
        if attr == "ndim":
            return len(shape)
        if attr == "size":
            return int(np.prod(shape))
        if attr == "dtype":
            return dtype_of(x)
        if attr == "T":
            return inp.transpose.emit(self.E, x)
        if attr in inp.METHODS:
            return BoundMethod(x, inp.METHODS[attr])
        raise self.E.error(f"tensors have no attribute '{attr}' in @irt.function", e)

    def expr_Subscript(self, e: ast.Subscript):
        base = self.expr(e.value)
        index = self.expr(e.slice)
        self.E.node = e
        if is_runtime(base):
            return indexing.getitem(self.E, self.E.as_tensor(base), index)
        if is_runtime(index) or (isinstance(index, tuple) and any(is_runtime(i) for i in index)):
            if isinstance(base, np.ndarray):
                return indexing.getitem(self.E, self.E.as_tensor(base), index)
            raise self.E.error("a tuple cannot be indexed by a tensor or a loop variable "
                               "(use a tensor, or loop over the tuple)", e)
        try:
            return base[index]
        except (IndexError, TypeError, KeyError) as err:
            raise self.E.error(str(err), e) from None

    def binop(self, op: ast.operator, a, b, node: ast.AST):
        self.E.node = node
        if not is_runtime(a) and not is_runtime(b):
            try:
                return _PY_OPS[type(op)](a, b)
            except Exception as err:  # noqa: BLE001 (a Python error at compile time, reported there)
                raise self.E.error(f"{type(err).__name__}: {err}", node) from None
        if self.is_index(a) and self.is_index(b) and type(op) in _INDEX_OPS:
            return self.index_binop(op, a, b)
        name = inp.OPERATORS.get(type(op).__name__)
        if name is None:
            raise self.E.error(f"operator '{type(op).__name__}' is not supported on tensors", node)
        return inp.TABLE[name].emit(self.E, a, b)

    @staticmethod
    def is_index(v) -> bool:
        return (isinstance(v, int) and not isinstance(v, bool)) or (is_runtime(v) and isinstance(v.type, IndexType))

    def index_binop(self, op: ast.operator, a, b) -> SSAValue:
        """Arithmetic on loop indices stays in ``index`` (``x[i + 1]``, ``i % 50``), with Python's
        floor division and modulo."""
        x, y = self.E.index_value(a), self.E.index_value(b)
        if isinstance(op, ast.Mod):  # a - floor(a / b) * b
            q = self.E.emit(arith.FloorDivSIOp(x, y))
            return self.E.emit(arith.SubiOp(x, self.E.emit(arith.MuliOp(q, y))))
        return self.E.emit(_INDEX_OPS[type(op)](x, y))

    def expr_BinOp(self, e: ast.BinOp):
        return self.binop(e.op, self.expr(e.left), self.expr(e.right), e)

    def expr_UnaryOp(self, e: ast.UnaryOp):
        v = self.expr(e.operand)
        self.E.node = e
        if not is_runtime(v):
            return _PY_OPS[type(e.op)](v)
        if isinstance(e.op, ast.UAdd):
            return v
        if isinstance(e.op, ast.USub | ast.Invert):
            return inp.TABLE[inp.OPERATORS[type(e.op).__name__]].emit(self.E, v)
        raise self.E.error(f"'{type(e.op).__name__}' on a tensor is not supported", e)

    def expr_Compare(self, e: ast.Compare):
        left = self.expr(e.left)
        rights = [self.expr(c) for c in e.comparators]
        self.E.node = e
        if not is_runtime(left) and not any(is_runtime(r) for r in rights):
            a = left
            for op, b in zip(e.ops, rights):
                if not _PY_OPS[type(op)](a, b):
                    return False
                a = b
            return True
        if len(e.ops) != 1:
            raise self.E.error("chained comparisons on tensors are not supported", e)
        if self.is_index(left) and self.is_index(rights[0]) and type(e.ops[0]) in _INDEX_PREDICATES:
            x, y = self.E.index_value(left), self.E.index_value(rights[0])  # loop indices: arith.cmpi
            return self.E.emit(arith.CmpiOp(x, y, _INDEX_PREDICATES[type(e.ops[0])]))
        name = inp.OPERATORS.get(type(e.ops[0]).__name__)
        if name is None:
            raise self.E.error(f"'{type(e.ops[0]).__name__}' on a tensor is not supported", e)
        return inp.TABLE[name].emit(self.E, left, rights[0])

    def expr_BoolOp(self, e: ast.BoolOp):
        value = None
        for v in e.values:
            value = self.expr(v)
            if is_runtime(value):
                raise self.E.error("'and' / 'or' on tensors is not supported: nest the 'if's", v)
            if isinstance(e.op, ast.And) and not value or isinstance(e.op, ast.Or) and value:
                return value
        return value

    def expr_IfExp(self, e: ast.IfExp):
        cond = self.expr(e.test)
        if not is_runtime(cond):
            return self.expr(e.body if cond else e.orelse)
        a, b = self.expr(e.body), self.expr(e.orelse)
        self.E.node = e
        return inp.where.emit(self.E, cond, a, b)

    def expr_Call(self, e: ast.Call):
        fn = self.expr(e.func)
        args: list = []
        for a in e.args:
            if isinstance(a, ast.Starred):
                v = self.expr(a.value)
                if is_runtime(v) or not isinstance(v, tuple):
                    raise self.E.error("only a tuple can be unpacked with '*'", a)
                args.extend(v)
            else:
                args.append(self.expr(a))
        kwargs = {}
        for k in e.keywords:
            if k.arg is None:
                raise self.E.error("'**' arguments are not supported", k)
            kwargs[k.arg] = self.expr(k.value)
        self.E.node = e
        return self.call(fn, args, kwargs, e)

    def call(self, fn, args: list, kwargs: dict, e: ast.AST):
        runtime = any(is_runtime(v) or (isinstance(v, tuple) and any(is_runtime(x) for x in v))
                      for v in [*args, *kwargs.values()])
        if isinstance(fn, BoundMethod):
            args = inp.method_args(fn.name, args)
            return inp.TABLE[fn.name].emit(self.E, fn.tensor, *args, **kwargs)
        if isinstance(fn, inp.NumpyFunction):
            if not runtime and fn.numpy is not None:
                return fn.numpy(*args, **kwargs)
            try:
                return fn.emit(self.E, *args, **kwargs)
            except TypeError as err:
                raise self.E.error(f"irtoolkit.numpy.{fn.name}: {err}", e) from None
        if is_traceable(fn):
            return fn.trace_call(self.E, self.builder, args, kwargs, e)
        if (rule := trace_rule(fn)) is not None:
            return rule(self.E, self.builder, args, kwargs, e)
        if fn is builtins.len and args and is_runtime(args[0]):
            shape = self.E.as_tensor(args[0]).type.get_shape()
            if not shape:
                raise self.E.error("len() of a 0-d tensor", e)
            return shape[0]
        if fn is builtins.abs and runtime:
            return inp.abs.emit(self.E, *args)
        if fn is builtins.print:
            return self.print(args, kwargs, e)
        if fn is builtins.range:
            raise self.E.error("range() is only supported as the sequence of a 'for' loop", e)
        if runtime:
            name = getattr(fn, "__name__", type(fn).__name__)
            raise self.E.error(f"'{name}' cannot take tensors in @irt.function"
                               + (f": use irtoolkit.numpy.{name}" if name in inp.TABLE else ""), e)
        try:
            return fn(*args, **kwargs)
        except Exception as err:  # noqa: BLE001 (a Python error at compile time, reported there)
            raise self.E.error(f"{type(err).__name__}: {err}", e) from None


class BoundMethod:
    """``x.sum`` before it is called: a table entry with the tensor as first argument."""

    def __init__(self, tensor: SSAValue, name: str):
        self.tensor = tensor
        self.name = name
