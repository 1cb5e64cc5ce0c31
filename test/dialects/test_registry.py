"""Tests generated from the op registry, so that a new op is checked without editing them.

Completeness: every op of the compute dialects has an entry in every table that
must know it (interpreter, lowering, derivatives or an explicit non-differentiable
mark, folding where declared), and a declared op has one meaning only (no table
repeats what its declaration says).

Numerics, for every elementwise op the ``tensor`` dialect declares: the
interpreter against the declared numpy meaning, compiled code (fused and unfused)
against the interpreter on f32 and f64 (and integer and i1 types where declared),
constant folding against the interpreter, and JVP and VJP against finite
differences; the same on dynamic dims (`tensor<?xT>`) with 0, 1 and 5 elements.
Inputs come from each op's declared domain.
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.interfaces import HasFolderInterface

import irtoolkit as irt
from irtoolkit.context import dialect_factory
from irtoolkit.dialects import tensor as T
from irtoolkit.dialects.elementwise import ElementKind, meaning_of
from irtoolkit.interpreter import has_rule
from irtoolkit.interpreter.core import RULES as INTERPRETER_RULES
from irtoolkit.interpreter.core import SPECIALIZERS
from irtoolkit.passes.ad import rules as ad
from irtoolkit.passes.lowering.tensor_to_loop_rules import RULES as LOWERING_RULES
from irtoolkit.pipeline import run_pipeline

TENSOR_OPS = [c for c in T.Tensor.operations if c is not T.YieldOp]
SCALAR_OPS = [c for d in ("arith", "math") for c in dialect_factory(d)().operations]
DECLARED_TENSOR_OPS = [*T.UNARY_OPS, *T.BINARY_OPS, T.ClampOp]


def _in(table, cls) -> bool:
    return any(c in table for c in cls.__mro__)


# ---------------------------------------------------------------------------
# completeness


@pytest.mark.parametrize("cls", TENSOR_OPS + SCALAR_OPS, ids=lambda c: c.name)
def test_interpreter_rule(cls):
    assert has_rule(cls), f"{cls.name} has no interpreter rule and no declared meaning"


@pytest.mark.parametrize("cls", TENSOR_OPS, ids=lambda c: c.name)
def test_lowering_rule(cls):
    kernel = is_reduction_class(cls) or meaning_of(cls) is not None
    assert kernel or _in(LOWERING_RULES, cls), f"{cls.name} has no lowering"


def is_reduction_class(cls) -> bool:
    return hasattr(cls, "COMBINER")


@pytest.mark.parametrize("cls", TENSOR_OPS + SCALAR_OPS, ids=lambda c: c.name)
def test_derivative_rules_or_mark(cls):
    marked = ad.is_nondiff(cls) or ad.is_structural(cls) or _in(ad.UNSUPPORTED, cls)
    assert marked or (ad.jvp_rule(cls) and ad.vjp_rule(cls)), f"{cls.name}: no JVP/VJP and no mark"


@pytest.mark.parametrize("cls", DECLARED_TENSOR_OPS, ids=lambda c: c.name)
def test_declared_ops_fold(cls):
    assert issubclass(cls, HasFolderInterface)


@pytest.mark.parametrize("cls", [*DECLARED_TENSOR_OPS, *(c for c in SCALAR_OPS if meaning_of(c))],
                         ids=lambda c: c.name)
def test_one_meaning(cls):
    """What the declaration says is not said again in a table."""
    meaning = meaning_of(cls)
    assert not _in(INTERPRETER_RULES, cls) and not _in(SPECIALIZERS, cls), \
        f"{cls.name}: an interpreter rule besides its declared numpy meaning"
    if meaning.partials_for() is not None:
        assert not _in(ad.JVP, cls) and not _in(ad.VJP, cls), \
            f"{cls.name}: derivative rules besides its declared partials"


def test_reductions_declare_their_combiner():
    for cls in TENSOR_OPS:
        if is_reduction_class(cls):
            assert meaning_of(cls.COMBINER) is not None


def test_cost_of_is_remembered_per_class_until_a_declaration():
    """cost_of answers from a per-class memo; a later declare_cost (or declare) of a
    class, or of a base, is seen."""
    from irtoolkit.dialects import elementwise as E

    class Base(T.MatmulOp):
        pass

    class Derived(Base):
        pass

    assert E.cost_of(Derived) == E.cost_of(T.MatmulOp)
    try:
        E.declare_cost(Base, E.Cost.MEDIUM)
        assert E.cost_of(Derived) == E.Cost.MEDIUM
        E.declare_cost(Base, E.Cost.EXPENSIVE)
        assert E.cost_of(Derived) == E.Cost.EXPENSIVE
    finally:
        del E.COSTS[Base]
        E._BY_CLASS.clear()


@pytest.mark.parametrize("cls", DECLARED_TENSOR_OPS, ids=lambda c: c.name)
def test_scalar_counterparts_on_tensors_canonicalize_to_the_tensor_op(cls):
    """`math.tan` on tensors is valid (SPEC §2) and `canonicalize` makes it `tensor.tan`."""
    meaning = meaning_of(cls)
    float_op = meaning.counterpart(ElementKind.FLOAT)
    if float_op is None:
        return
    operands = ", ".join(["%x"] * len(_operand_names(cls)))
    text = f"func.func @f(%x: tensor<4xf64>) -> tensor<4xf64> {{\n" \
           f"  %y = {float_op.name} {operands} : tensor<4xf64>\n  return %y : tensor<4xf64>\n}}"
    module = irt.run_pipeline(irt.parse(text), "canonicalize")
    names = [op.name for op in module.walk()]
    assert cls.name in names and float_op.name not in names, names


# ---------------------------------------------------------------------------
# numerics

N = 7
FLOATS = {"f32": np.float32, "f64": np.float64}
INTS = {"i32": np.int32, "i1": np.bool_}
UNFUSED = "convert-scf-to-loop,canonicalize,cse,lower-tensor-to-loop,lower-loop-to-cf,convert-to-llvm"


def _operand_names(cls) -> list[str]:
    return ["a", "b", "c"][:len(cls.get_irdl_definition().operands)]


def _short(cls) -> str:
    return cls.name.split(".", 1)[1]


def _kinds(cls) -> list[str]:
    kinds = meaning_of(cls).element_kinds()
    out = [t for t in FLOATS if ElementKind.FLOAT in kinds]
    out += ["i32"] if ElementKind.INTEGER in kinds else []
    out += ["i1"] if ElementKind.I1 in kinds else []
    return out


def _inputs(cls, t: str, seed: int, n: int = N) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    names = _operand_names(cls)
    if t in INTS:
        if t == "i1":
            return [rng.integers(0, 2, n).astype(np.bool_) for _ in names]
        return [rng.integers(-1000, 1000, n).astype(np.int32) for _ in names]
    return [rng.uniform(lo, hi, n).astype(FLOATS[t]) for lo, hi in meaning_of(cls).domain(len(names))]


def _function(cls, t: str, size: int | str = N) -> str:
    """``@<op>_<type>`` on ``tensor<size x type>``; ``size="?"``: ``@<op>_<type>_dyn``."""
    tt = f"tensor<{size}x{t}>"
    names = _operand_names(cls)
    args = ", ".join(f"%{n}: {tt}" for n in names)
    operands = ", ".join(f"%{n}" for n in names)
    suffix = "_dyn" if size == "?" else ""
    return (f"func.func @{_short(cls)}_{t}{suffix}({args}) -> {tt} {{\n"
            f"  %y = {cls.name} {operands} : {tt}\n  return %y : {tt}\n}}\n")


CASES = [(cls, t) for cls in DECLARED_TENSOR_OPS for t in _kinds(cls)]
ALL_FUNCTIONS = "".join(_function(cls, t) + _function(cls, t, "?") for cls, t in CASES)


@pytest.fixture(scope="module")
def elementwise_module():
    return irt.parse(ALL_FUNCTIONS)


@pytest.fixture(scope="module")
def compiled(elementwise_module):
    return {"fused": irt.compile(elementwise_module), "unfused": irt.compile(elementwise_module, UNFUSED)}


def _ulps(t: str) -> float:
    return 16 * float(np.finfo(FLOATS[t]).eps)


def _close(got, want, t: str) -> None:
    if t in INTS:
        np.testing.assert_array_equal(got, want)
        return
    tol = _ulps(t)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(1.0, float(np.max(np.abs(want), initial=0.0))))


@pytest.mark.parametrize("cls,t", CASES, ids=lambda x: getattr(x, "name", x))
def test_interpreter_against_numpy_meaning(elementwise_module, cls, t):
    xs = _inputs(cls, t, 1)
    fn = f"{_short(cls)}_{t}"
    op = next(o for o in elementwise_module.walk() if isinstance(o, cls)
              and o.parent_op().sym_name.data == fn)
    with np.errstate(all="ignore"):
        want = meaning_of(cls).numpy_for(op)(*xs)
    np.testing.assert_array_equal(irt.interpret(elementwise_module, fn, *xs), want)


@pytest.mark.parametrize("way", ["fused", "unfused"])
@pytest.mark.parametrize("cls,t", CASES, ids=lambda x: getattr(x, "name", x))
def test_compiled_against_interpreter(elementwise_module, compiled, way, cls, t):
    xs = _inputs(cls, t, 2)
    fn = f"{_short(cls)}_{t}"
    _close(compiled[way][fn](*xs), irt.interpret(elementwise_module, fn, *xs), t)


@pytest.mark.parametrize("cls,t", CASES, ids=lambda x: getattr(x, "name", x))
def test_folding_against_interpreter(elementwise_module, cls, t):
    xs = _inputs(cls, t, 3)
    fn = f"{_short(cls)}_{t}"
    tt = f"tensor<{N}x{t}>"

    def dense(x):
        if t == "i1":
            return "dense<[" + ", ".join("true" if v else "false" for v in x) + "]>"
        return "dense<[" + ", ".join(repr(v.item()) for v in x) + "]>"

    consts = "".join(f"  %{n} = arith.constant {dense(x)} : {tt}\n" for n, x in zip(_operand_names(cls), xs))
    operands = ", ".join(f"%{n}" for n in _operand_names(cls))
    m = irt.parse(f"func.func @c() -> {tt} {{\n{consts}  %y = {cls.name} {operands} : {tt}\n"
                  f"  return %y : {tt}\n}}")
    run_pipeline(m, "canonicalize")
    assert not any(isinstance(o, cls) for o in m.walk()), "not folded"
    np.testing.assert_array_equal(irt.interpret(m, "c"), irt.interpret(elementwise_module, fn, *xs))


DIFFERENTIABLE = [cls for cls in DECLARED_TENSOR_OPS if meaning_of(cls).partials_for() is not None]


def _derivative_functions(cls, size: int | str = N) -> str:
    tt = f"tensor<{size}xf64>"
    names = _operand_names(cls)
    args = ", ".join(f"%{n}: {tt}" for n in names)
    operands = ", ".join(f"%{n}" for n in names)
    types = ", ".join([tt] * len(names))
    wrt = ", ".join(str(i) for i in range(len(names)))
    tangents = ", ".join(f"%t{n}" for n in names)
    s = _short(cls) + ("_dyn" if size == "?" else "")
    return f"""
func.func @loss_{s}({args}, %w: {tt}) -> f64 {{
  %y = {cls.name} {operands} : {tt}
  %p = tensor.mul %y, %w : {tt}
  %r = tensor.reduce_sum %p [0] : {tt} -> tensor<f64>
  %e = tensor.extract %r[] : tensor<f64>
  return %e : f64
}}
func.func @grad_{s}({args}, %w: {tt}) -> ({types}) {{
  %g:{len(names)} = autodiff.grad @loss_{s}({operands}, %w) wrt [{wrt}] : ({types}, {tt}) -> ({types})
  return {", ".join(f"%g#{i}" for i in range(len(names)))} : {types}
}}
func.func @jvp_{s}({args}, %w: {tt}, {", ".join(f"%t{n}: {tt}" for n in names)}) -> f64 {{
  %y, %dy = autodiff.jvp @loss_{s}({operands}, %w) tangents({tangents}) wrt [{wrt}] : ({types}, {tt}, {types}) -> (f64, f64)
  return %dy : f64
}}
""".replace("%g:1 =", "%g =").replace("%g#0 :", "%g :")


@pytest.fixture(scope="module")
def derivative_module():
    """The derivative functions of every op, differentiated once (`irt.interpret` would
    run `ad` on the whole module at each finite-difference evaluation)."""
    return irt.run_pipeline(irt.parse("".join(_derivative_functions(cls) for cls in DIFFERENTIABLE)), "ad")


@pytest.mark.parametrize("cls", DIFFERENTIABLE, ids=lambda c: c.name)
def test_jvp_and_vjp_against_finite_differences(derivative_module, cls):
    s = _short(cls)
    xs = _inputs(cls, "f64", 4)
    rng = np.random.default_rng(5)
    w = rng.uniform(-1, 1, N)
    ts = [rng.uniform(-1, 1, N) for _ in xs]

    def loss(*ys):
        return float(irt.interpret(derivative_module, f"loss_{s}", *ys, w))

    eps = 1e-6
    grads = irt.interpret(derivative_module, f"grad_{s}", *xs, w)
    grads = grads if isinstance(grads, tuple) else (grads,)
    for k, (x, g) in enumerate(zip(xs, grads)):
        fd = np.zeros(N)
        for i in range(N):
            d = np.zeros(N)
            d[i] = eps
            up = [y + d if j == k else y for j, y in enumerate(xs)]
            down = [y - d if j == k else y for j, y in enumerate(xs)]
            fd[i] = (loss(*up) - loss(*down)) / (2 * eps)
        np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-7, err_msg=f"VJP of operand {k}")
    up = [x + eps * t for x, t in zip(xs, ts)]
    down = [x - eps * t for x, t in zip(xs, ts)]
    fd_dir = (loss(*up) - loss(*down)) / (2 * eps)
    assert irt.interpret(derivative_module, f"jvp_{s}", *xs, w, *ts) == pytest.approx(fd_dir, rel=1e-5, abs=1e-7)


# ---------------------------------------------------------------------------
# dynamic dims, sizes 0 and 1


@pytest.mark.parametrize("n", [0, 1, 5])
@pytest.mark.parametrize("cls,t", CASES, ids=lambda x: getattr(x, "name", x))
def test_dynamic_sizes(elementwise_module, compiled, cls, t, n):
    """`tensor<?xT>`, run on 0, 1 and 5 elements: the interpreter against the numpy
    meaning, compiled code (fused and unfused) against the interpreter."""
    xs = _inputs(cls, t, 6 + n, n)
    fn = f"{_short(cls)}_{t}_dyn"
    want = irt.interpret(elementwise_module, fn, *xs)
    assert want.shape == (n,)
    op = next(o for o in elementwise_module.walk() if isinstance(o, cls)
              and o.parent_op().sym_name.data == fn)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(want, meaning_of(cls).numpy_for(op)(*xs))
    for way in ("fused", "unfused"):
        got = compiled[way][fn](*xs)
        assert got.shape == (n,) and got.dtype == want.dtype
        _close(got, want, t)


@pytest.fixture(scope="module")
def dynamic_derivative_module():
    """Differentiated once, as `derivative_module`."""
    return irt.run_pipeline(irt.parse("".join(_derivative_functions(cls, "?") for cls in DIFFERENTIABLE)), "ad")


@pytest.fixture(scope="module")
def dynamic_derivatives_compiled(dynamic_derivative_module):
    return irt.compile(dynamic_derivative_module)


@pytest.mark.parametrize("n", [0, 1, 3])
@pytest.mark.parametrize("cls", DIFFERENTIABLE, ids=lambda c: c.name)
def test_gradients_on_dynamic_sizes(dynamic_derivative_module, dynamic_derivatives_compiled, cls, n):
    """grad on `tensor<?xf64>` with 0, 1 and 3 elements against central finite
    differences (interpreted), and compiled against interpreted."""
    s = f"{_short(cls)}_dyn"
    xs = _inputs(cls, "f64", 10 + n, n)
    w = np.random.default_rng(3).uniform(-1, 1, n)
    grads = irt.interpret(dynamic_derivative_module, f"grad_{s}", *xs, w)
    grads = grads if isinstance(grads, tuple) else (grads,)
    got = dynamic_derivatives_compiled[f"grad_{s}"](*xs, w)
    for g, h in zip(grads, got if isinstance(got, tuple) else (got,)):
        np.testing.assert_allclose(h, g, rtol=1e-12, atol=1e-14)

    def loss(*ys):
        return float(irt.interpret(dynamic_derivative_module, f"loss_{s}", *ys, w))

    eps = 1e-6
    for k, g in enumerate(grads):
        assert g.shape == (n,)
        fd = np.zeros(n)
        for i in range(n):
            d = np.zeros(n)
            d[i] = eps
            fd[i] = (loss(*(y + d if j == k else y for j, y in enumerate(xs)))
                     - loss(*(y - d if j == k else y for j, y in enumerate(xs)))) / (2 * eps)
        np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-7, err_msg=f"operand {k}")
