"""``@irt.function``, ``irt.grad`` / ``value_and_grad`` / ``jvp`` / ``vjp`` /
``stop_gradient`` (SPEC §11): what is traced, specialized, compiled and cached.

Every *traceable* (a Python function under ``@irt.function``, a derivative of
one, a primitive such as ``irt.grad``) can be called two ways: from Python on
numpy arrays (it is specialized for the arguments' shapes and dtypes into a
module, compiled once per specialization and run), or from inside another
``@irt.function`` while that one is translated (it then emits IR: a
``func.call``, an ``autodiff`` op). Arguments are trees: run-time leaves
(numpy arrays and numpy scalars from Python, SSA values inside) and
compile-time leaves (Python numbers, strings, ...), in tuples.
"""

from __future__ import annotations

import ast
import functools
import inspect
import linecache
import textwrap
from collections import ChainMap
from collections.abc import Mapping
from typing import Any

import numpy as np

# ---------------------------------------------------------------------- argument trees


class Static:
    """A compile-time leaf of an argument tree (part of the specialization key)."""

    __slots__ = ("value", "key")

    def __init__(self, value):
        self.value = value
        if isinstance(value, np.ndarray):
            self.key = ("array", value.dtype.str, value.shape, value.tobytes())
        else:
            self.key = (type(value), value)
        hash(self.key)

    def __eq__(self, other):
        return isinstance(other, Static) and self.key == other.key

    def __hash__(self):
        return hash(self.key)


def flatten(value, runtime_spec) -> tuple[list, Any]:
    """(run-time leaves, spec tree): a tuple for a tuple, ``runtime_spec(leaf)`` for a
    run-time leaf (None if the leaf is compile-time), else a :class:`Static`."""
    if isinstance(value, tuple | list):
        leaves, specs = [], []
        for v in value:
            lv, sv = flatten(v, runtime_spec)
            leaves += lv
            specs.append(sv)
        return leaves, tuple(specs)
    spec = runtime_spec(value)
    if spec is None:
        try:
            return [], Static(value)
        except TypeError:
            raise TypeError(f"a {type(value).__name__} cannot be an argument of an @irt.function "
                            "(arrays, numbers and tuples of them)") from None
    return [value], spec


def leaf_types(spec) -> list:
    if isinstance(spec, tuple):
        return [t for s in spec for t in leaf_types(s)]
    return [] if isinstance(spec, Static) else [spec]


def rebuild(spec, leaves) -> Any:
    """The argument tree of ``spec`` with run-time leaves taken in order from the iterator ``leaves``."""
    if isinstance(spec, tuple):
        return tuple(rebuild(s, leaves) for s in spec)
    if isinstance(spec, Static):
        return spec.value
    return next(leaves)


def _python_spec(value):
    """The tensor type of a run-time argument passed from Python (None: compile-time)."""
    if isinstance(value, np.ndarray | np.generic):
        from xdsl.dialects.builtin import TensorType

        from irtoolkit.frontend.emitter import element_type

        return TensorType(element_type(value.dtype), np.shape(value))
    return None


def _traced_spec(E):
    from xdsl.ir import SSAValue

    def spec(value):
        if isinstance(value, SSAValue):
            return E.as_tensor(value).type
        return None
    return spec


def _traced_flatten(E, value):
    leaves, spec = flatten(value, _traced_spec(E))
    return [E.as_tensor(v) for v in leaves], spec


def _signature_spec(args) -> tuple:
    leaves, specs = flatten(tuple(args), _python_spec)
    return leaves, specs


# ---------------------------------------------------------------------- traceables


class Traceable:
    """Something callable from Python (compiled) and from traced code (IR)."""

    name = "fn"

    def __init__(self):
        self._compiled: dict[Any, tuple[Any, str, Any]] = {}
        self._modules: dict[Any, tuple[Any, str, Any]] = {}
        self._derivatives: dict[tuple, Traceable] = {}

    # -- inside a traced function
    def trace_call(self, E, builder, args: list, kwargs: dict, node: ast.AST):
        raise NotImplementedError

    def trace_body(self, E, builder, args: list, node: ast.AST):
        """The body of this traceable's own ``func.func`` (a specialization)."""
        return self.trace_call(E, builder, args, {}, node)

    def origin(self) -> tuple[Any, ast.AST]:
        """(Source, AST node) that locates code generated for this traceable."""
        raise NotImplementedError

    def specialize(self, builder, spec: tuple, E=None, public: bool = False):
        """The ``func.func`` of this traceable for argument spec ``spec`` (cached per module)."""
        from irtoolkit.frontend.translate import build_function

        key = (self, spec, public)
        if key in builder.specializations:
            return builder.specializations[key]
        source, node = self.origin()

        def body(E2, block_args):
            args = rebuild(spec, iter(block_args))
            return self.trace_body(E2, builder, list(args), node)

        result = build_function(builder, builder.unique(self.name), leaf_types(spec), source, node, body, public)
        builder.specializations[key] = result
        return result

    # -- from Python
    def bind(self, args, kwargs) -> tuple:
        if kwargs:
            raise TypeError(f"{self.name}: keyword arguments are not supported here")
        return tuple(args)

    def build(self, args, kwargs):
        """(module, entry name, structure, run-time leaves) for a call from Python."""
        from irtoolkit.frontend.translate import ModuleBuilder

        leaves, spec = _signature_spec(self.bind(args, kwargs))
        built = self._modules.get(spec)
        if built is None:
            builder = ModuleBuilder()
            fn, structure = self.specialize(builder, spec, None, public=True)
            built = self._modules[spec] = (builder.module, fn.sym_name.data, structure)
        return (*built, leaves, spec)

    def __call__(self, *args, **kwargs):
        from irtoolkit.frontend.translate import unflatten_results

        leaves, spec = _signature_spec(self.bind(args, kwargs))
        entry = self._compiled.get(spec)
        if entry is None:
            import irtoolkit

            module, name, structure, _, _ = self.build(args, kwargs)
            entry = self._compiled[spec] = (irtoolkit.compile(module), name, structure)
        exe, name, structure = entry
        out = exe[name](*leaves)
        return unflatten_results(out if isinstance(out, tuple) else (out,), structure)

    def interpret(self, *args, **kwargs):
        """Run on the reference interpreter instead of compiling (same results)."""
        import irtoolkit
        from irtoolkit.frontend.translate import unflatten_results

        module, name, structure, leaves, _ = self.build(args, kwargs)
        out = irtoolkit.interpret(module, name, *leaves)
        return unflatten_results(out if isinstance(out, tuple) else (out,), structure)

    def mlir(self, *args, **kwargs) -> str:
        """The IR this traceable compiles for these arguments."""
        from irtoolkit.printer import module_text

        return module_text(self.build(args, kwargs)[0])


def is_traceable(value) -> bool:
    return isinstance(value, Traceable)


def trace_rule(value):
    """How ``irt.grad`` & co. translate (None for anything else)."""
    try:
        return TRACE_RULES.get(value)
    except TypeError:  # unhashable
        return None


class Function(Traceable):
    """A Python function under ``@irt.function``, translated from its source."""

    def __init__(self, py, dynamic=None):
        super().__init__()
        if dynamic is not None:
            raise NotImplementedError("irt.function(dynamic=...) is not implemented: shapes are static")
        functools.update_wrapper(self, py)
        self.py = py
        self.name = py.__name__
        self._parsed = None

    def __repr__(self) -> str:
        return f"<irt.function {self.py.__qualname__}>"

    def scope(self) -> Mapping[str, Any]:
        """The closure's variables over the globals (read when a specialization is built)."""
        closure = {}
        for name, cell in zip(self.py.__code__.co_freevars, self.py.__closure__ or ()):
            try:
                closure[name] = cell.cell_contents
            except ValueError:  # a closure variable not bound yet
                pass
        return ChainMap(closure, self.py.__globals__)

    def origin(self):
        return self.parsed()[1], self.parsed()[0]

    def parsed(self):
        if self._parsed is None:
            from irtoolkit.frontend.emitter import Source

            filename = inspect.getsourcefile(self.py) or "<unknown>"
            try:
                lines, first = inspect.getsourcelines(self.py)
            except OSError as err:
                raise TypeError(f"@irt.function reads the function's source, and {self.name}'s cannot be "
                                f"read ({err}): define it in a file") from None
            text = "".join(lines)
            dedented = textwrap.dedent(text)
            indent = len(lines[0]) - len(lines[0].lstrip()) if dedented != text else 0
            Source.register(filename, "".join(linecache.getlines(filename)) or None)
            tree = ast.parse(dedented)
            fdef = tree.body[0]
            if not isinstance(fdef, ast.FunctionDef):
                raise TypeError(f"@irt.function needs a 'def' function, not {self.name}")
            self._parsed = (fdef, Source(filename, first, indent))
        return self._parsed

    def bind(self, args, kwargs) -> tuple:
        fdef, source = self.parsed()
        a = fdef.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
            from irtoolkit.diagnostics import Diagnostic, DiagnosticError

            raise DiagnosticError(Diagnostic("@irt.function takes positional parameters only "
                                             "(no *args, **kwargs or keyword-only parameters)",
                                             source.location(fdef)))
        bound = inspect.signature(self.py).bind(*args, **kwargs)
        bound.apply_defaults()
        return tuple(bound.arguments.values())

    def trace_body(self, E, builder, args, node):
        from irtoolkit.frontend.translate import Translator

        fdef, _ = self.parsed()
        builder.stack.append(self)
        try:
            params = [p.arg for p in fdef.args.args]
            for param, value in zip(params, args):
                if hasattr(value, "name_hint") and value.name_hint is None:
                    value.name_hint = param
            return Translator(self, builder, E, dict(zip(params, args))).run(fdef.body)
        finally:
            builder.stack.pop()

    def trace_call(self, E, builder, args, kwargs, node):
        from xdsl.dialects import func

        from irtoolkit.frontend.translate import unflatten_results

        if self in builder.stack:
            raise E.error(f"recursive call to @irt.function '{self.name}': recursion is not supported "
                          "(write it as a loop)", node)
        try:
            values = self.bind(args, kwargs)
        except TypeError as err:
            raise E.error(f"{self.name}: {err}", node) from None
        leaves, spec = _traced_flatten(E, values)
        fn, structure = self.specialize(builder, spec, E)
        E.node = node
        call = E.emit(func.CallOp(fn.sym_name.data, leaves, list(fn.function_type.outputs.data)), verify=False)
        results = [call] if not isinstance(call, func.CallOp) else list(call.results)
        return unflatten_results(results, structure)


def function(fn=None, *, dynamic=None):
    """``@irt.function``: translate a Python function from its source into IR, compiled
    once per argument shapes and dtypes when called (``f.mlir(*args)`` prints the IR,
    ``f.interpret(*args)`` runs it on the interpreter). ``dynamic`` (dynamic dims) is
    not implemented: every shape is static."""
    if fn is None:
        return lambda f: Function(f, dynamic)
    return Function(fn, dynamic)


# ---------------------------------------------------------------------- derivatives


def _argnums_tuple(argnums) -> tuple[int, ...]:
    return (argnums,) if isinstance(argnums, int) else tuple(argnums)


class Derivative(Traceable):
    """``grad`` / ``value_and_grad`` / ``jvp`` / ``vjp`` of a traceable, as an autodiff op.

    ``grad`` and ``value_and_grad`` take the primal arguments; ``jvp`` takes
    ``(primals, tangents)`` as two tuples; ``vjp`` takes ``(primals, cotangents)``.
    """

    def __init__(self, kind: str, f: Traceable, argnums=0):
        super().__init__()
        if not is_traceable(f):
            raise TypeError(f"irt.{kind} needs an @irt.function (or a derivative of one), got {f!r}")
        self.kind = kind
        self.f = f
        self.argnums = argnums
        self.name = f"{f.name}_{kind}"

    def origin(self):
        return self.f.origin()

    def trace_call(self, E, builder, args, kwargs, node):
        from irtoolkit.dialects import autodiff
        from irtoolkit.frontend.translate import LEAF, unflatten_results

        if kwargs:
            raise E.error(f"irt.{self.kind}(...) takes positional arguments only", node)
        if self.kind in ("jvp", "vjp"):
            if len(args) != 2 or not all(isinstance(a, tuple) for a in args):
                raise E.error(f"irt.{self.kind} takes (primals, {'tangents' if self.kind == 'jvp' else 'cotangents'}) "
                              "as two tuples", node)
            primals, extra = args
        else:
            primals, extra = tuple(args), ()
        if isinstance(self.f, Function):
            try:
                primals = self.f.bind(primals, {})
            except TypeError as err:
                raise E.error(f"{self.f.name}: {err}", node) from None
        leaf_lists, specs = zip(*(_traced_flatten(E, p) for p in primals)) if primals else ((), ())
        leaves = [v for lv in leaf_lists for v in lv]
        fn, structure = self.f.specialize(builder, tuple(specs), E)
        positions, start = [], 0
        for i, lv in enumerate(leaf_lists):
            positions.append(list(range(start, start + len(lv))))
            start += len(lv)
        if self.kind in ("grad", "value_and_grad"):
            argnums = _argnums_tuple(self.argnums)
            for a in argnums:
                if not -len(primals) <= a < len(primals):
                    raise E.error(f"argnums {a} is out of range for {len(primals)} arguments", node)
            argnums = tuple(a % len(primals) for a in argnums)
        else:
            argnums = tuple(range(len(primals)))
        wrt = [p for a in argnums for p in positions[a]]
        for a in argnums:
            if not positions[a]:
                raise E.error(f"argument {a} of '{self.f.name}' is a compile-time value: it cannot be "
                              "differentiated (pass an array)", node)
        for p in wrt:
            from irtoolkit.frontend.emitter import is_float

            if not is_float(leaves[p]):
                raise E.error(f"argument {p} of '{self.f.name}' has type {leaves[p].type}: only float "
                              "tensors can be differentiated", node)
        E.node = node
        if self.kind in ("grad", "value_and_grad"):
            if structure != LEAF or fn.function_type.outputs.data[0].get_shape() != ():
                raise E.error(f"irt.{self.kind} needs '{self.f.name}' to return a single scalar (a 0-d tensor), "
                              f"it returns {', '.join(map(str, fn.function_type.outputs.data)) or 'nothing'}", node)
            cls = autodiff.GradOp if self.kind == "grad" else autodiff.ValueAndGradOp
            op = E.emit(cls(fn, leaves, wrt), verify=False)  # symbol uses: checked with the module
            results = list(op.results) if not hasattr(op, "type") else [op]
            value, grads = (results[0], results[1:]) if self.kind == "value_and_grad" else (None, results)
            it = iter(grads)
            per_arg = [rebuild(specs[a], it) for a in argnums]
            g = per_arg[0] if isinstance(self.argnums, int) else tuple(per_arg)
            return (value, g) if self.kind == "value_and_grad" else g
        extra_leaves, _ = _traced_flatten(E, extra)
        n_out = len(fn.function_type.outputs.data)
        if self.kind == "jvp":
            op = E.emit(autodiff.JvpOp(fn, leaves, extra_leaves, wrt), verify=False)
            results = list(op.results) if not hasattr(op, "type") else [op]
            return (unflatten_results(results[:n_out], structure), unflatten_results(results[n_out:], structure))
        op = E.emit(autodiff.VjpOp(fn, leaves, extra_leaves, wrt), verify=False)
        results = list(op.results) if not hasattr(op, "type") else [op]
        it = iter(results[n_out:])
        return tuple(rebuild(specs[a], it) for a in argnums)


def _static_call(make):
    def trace(E, builder, args, kwargs, node):
        try:
            return make(*args, **kwargs)
        except TypeError as err:
            raise E.error(str(err), node) from None
    return trace


def derivative(kind: str, f, argnums=0) -> Derivative:
    """The derivative of ``f``, one object per (kind, argnums): ``irt.grad(f)(x)`` called
    in a Python loop compiles once."""
    if not is_traceable(f):
        raise TypeError(f"irt.{kind} needs an @irt.function (or a derivative of one), got {f!r}")
    key = (kind, argnums if isinstance(argnums, int) else tuple(argnums))
    d = f._derivatives.get(key)
    if d is None:
        d = f._derivatives[key] = Derivative(kind, f, argnums)
    return d


def grad(f, argnums=0):
    """``irt.grad(f, argnums=0)``: the gradient of scalar-valued ``f`` with respect to
    argument ``argnums`` (a tuple of positions for several), as JAX's."""
    return derivative("grad", f, argnums)


def value_and_grad(f, argnums=0):
    """``irt.value_and_grad(f, argnums=0)``: ``f(*args)`` and its gradient, as JAX's."""
    return derivative("value_and_grad", f, argnums)


def jvp(f, primals, tangents):
    """``irt.jvp(f, primals, tangents) -> (out, tangent_out)``, as JAX's."""
    return derivative("jvp", f)(tuple(primals), tuple(tangents))


def _jvp_trace(E, builder, args, kwargs, node):
    if len(args) != 3 or kwargs:
        raise E.error("irt.jvp takes (f, primals, tangents)", node)
    f, primals, tangents = args
    if not is_traceable(f):
        raise E.error("irt.jvp needs an @irt.function", node)
    return derivative("jvp", f).trace_call(E, builder, [tuple(primals), tuple(tangents)], {}, node)


class _VjpFunction(Traceable):
    """The ``vjp_fn`` of ``irt.vjp(f, *primals)``: cotangents -> one cotangent per primal."""

    def __init__(self, f, primals):
        super().__init__()
        self.derivative = derivative("vjp", f)
        self.primals = tuple(primals)
        self.name = self.derivative.name

    def origin(self):
        return self.derivative.origin()

    def __call__(self, *cotangents):
        cts = cotangents[0] if len(cotangents) == 1 else cotangents
        cts = cts if isinstance(cts, tuple) else (cts,)
        return self.derivative(self.primals, cts)

    def trace_call(self, E, builder, args, kwargs, node):
        cts = args[0] if len(args) == 1 else tuple(args)
        cts = cts if isinstance(cts, tuple) else (cts,)
        return self.derivative.trace_call(E, builder, [self.primals, cts], {}, node)


def vjp(f, *primals):
    """``irt.vjp(f, *primals) -> (out, vjp_fn)``; ``vjp_fn(cotangent)`` gives one
    cotangent per primal, as JAX's."""
    return f(*primals), _VjpFunction(f, primals)


def _vjp_trace(E, builder, args, kwargs, node):
    if not args or kwargs or not is_traceable(args[0]):
        raise E.error("irt.vjp takes (f, *primals) with f an @irt.function", node)
    f, primals = args[0], tuple(args[1:])
    return f.trace_call(E, builder, list(primals), {}, node), _VjpFunction(f, primals)


def _stop_gradient_trace(E, builder, args, kwargs, node):
    from irtoolkit.dialects import autodiff

    if len(args) != 1 or kwargs:
        raise E.error("irt.stop_gradient takes one tensor", node)
    (x,) = args
    from xdsl.ir import SSAValue

    if not isinstance(x, SSAValue):
        return x
    return E.emit(autodiff.StopGradientOp(E.as_tensor(x)))


def stop_gradient(x):
    """``irt.stop_gradient(x)``: ``x``, with a zero derivative (``autodiff.stop_gradient``)."""
    return x


#: how each of the functions above translates inside an @irt.function
TRACE_RULES = {grad: _static_call(grad), value_and_grad: _static_call(value_and_grad),
               jvp: _jvp_trace, vjp: _vjp_trace, stop_gradient: _stop_gradient_trace}
