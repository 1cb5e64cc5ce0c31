"""The rule audit: no derivative rule assumes an input inactive (SPEC §6: never a silent zero).

Generated from the rule tables: for every op class with a JVP/VJP rule (and every class
marked non-differentiable that maps floats to floats: its zero derivative is checked too,
except ``stop_gradient``'s, which is its meaning), instances are taken
from the repository's programs (every ``.mlir`` under examples/, bench/ and test/, plus
``Inputs/rule_samples.mlir``); each becomes a small program ``@f`` whose arguments are the
instance's inputs (operands and the values its regions capture; integer constants are
copied) and whose loss sums ``r + r²/2`` over its float results. With every float input
active, then each one alone, reverse and forward mode must match central differences, or
the ``ad`` pass must report a located error at the instance, for the ops listed in
``LOCATED_ERRORS`` only. A rule with no instance anywhere fails the audit: add one to
``Inputs/rule_samples.mlir``.
"""

from __future__ import annotations

import glob
import os
import sys
from collections import defaultdict

import numpy as np
import pytest
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import Float64Type, IndexType, IntegerType, TensorType
from xdsl.ir import Block, Region

import irtoolkit as irt
from irtoolkit.diagnostics import DiagnosticError
from irtoolkit.passes.ad import rules
from irtoolkit.passes.ad.emit import DYN, Emitter, is_float_like

sys.path.insert(0, os.path.dirname(__file__))
from adcheck import add_grad, assert_close, fd_grad, fd_jvp  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
#: instances per op class (the simplest ones with distinct input types)
PER_OP = 2
#: op name -> what the located error says; these instances may fail, all others must not
LOCATED_ERRORS = {"tensor.pad": "padding value computed inside the region"}
#: input ranges tried in turn until the program is defined there (log, acosh, pow ...)
RANGES = ((0.2, 0.9), (1.1, 1.9), (-0.9, -0.2))
DYN_SIZE = 3
#: inputs with more elements are checked along random directions, not element by element
FD_ELEMENTS = 48
AUDIT_FILE = "audit.mlir"


def _corpus():
    """The classes with rules, and op class -> its instances in the repository's programs
    (with a float input and a float result), for those and the non-differentiable classes."""
    rules.load_rules()
    from irtoolkit.dialects import autodiff

    # the project's and xDSL's ops (a test may register an op of its own dialect)
    classes = {c for c in set(rules.JVP) | set(rules.VJP) if c.__module__.startswith(("irtoolkit.", "xdsl."))}
    walked = classes | (rules.NONDIFF - {autodiff.StopGradientOp})  # the zero is its meaning
    found = defaultdict(list)
    paths = [p for d in ("examples", "bench", "test") for p in glob.glob(os.path.join(ROOT, d, "**", "*.mlir"),
                                                                         recursive=True)]
    for path in sorted(set(paths)):
        for chunk in open(path).read().split("// -----"):
            if "expected-error" in chunk:
                continue
            try:
                module = irt.parse(chunk, os.path.relpath(path, ROOT))
            except Exception:  # noqa: BLE001 -- chunks of invalid-IR tests, unregistered dialects ...
                continue
            for op in module.walk():
                cls = next((c for c in type(op).__mro__ if c in walked), None)
                if cls is not None and _usable(op):
                    found[cls].append(op)
    return classes, found


def _usable(op) -> bool:
    """A float input and a float result; integer tensors (shapes, indices) are constants."""
    inputs = rules.rule_inputs(op)
    if not any(is_float_like(v.type) for v in inputs) or not any(is_float_like(r.type) for r in op.results):
        return False
    return all(is_float_like(v.type) or not isinstance(v.type, TensorType) or _is_i1(v.type.get_element_type())
               or isinstance(v.owner, arith.ConstantOp) for v in inputs)


def _is_i1(t) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 1


def _rank(op):
    """Simplest first: static shapes, f64, few inputs, small."""
    types = [v.type for v in rules.rule_inputs(op)] + [r.type for r in op.results]
    dynamic = any(isinstance(t, TensorType) and DYN in t.get_shape() for t in types)
    f32 = any("f32" in str(t) for t in types)
    return (dynamic, f32, len(types), len(str(op)))


def _signature(op):
    return tuple(str(v.type) for v in rules.rule_inputs(op)) + tuple(str(r.type) for r in op.results)


def _pick(instances):
    picked, seen = [], set()
    ranked = sorted(instances, key=_rank)
    if not ranked[0:1] or not _rank(ranked[0])[1]:  # f64 instances exist: f32 ones only add noise
        ranked = [op for op in ranked if not _rank(op)[1]]
    for op in ranked:
        sig = _signature(op)
        if sig not in seen:
            seen.add(sig)
            picked.append(op)
        if len(picked) == PER_OP:
            break
    return picked


CLASSES, CORPUS = _corpus()
CASES = [(cls, k) for cls in sorted(CORPUS, key=lambda c: c.name) for k in range(len(_pick(CORPUS[cls])))]


def test_every_rule_has_an_instance():
    missing = sorted(cls.name for cls in CLASSES if not CORPUS.get(cls))
    assert not missing, f"no instance of {missing} in the repository's programs: add one to Inputs/rule_samples.mlir"


# -- the program around an instance ----------------------------------------------------
def _loss_term(E: Emitter, r):
    q = E.add(r, E.scale(E.mul(r, r), 0.5))
    if isinstance(q.type, TensorType):
        q = E.full_reduce_to_scalar(q)
    return q if isinstance(q.type, Float64Type) else E.v(arith.ExtFOp(q, Float64Type()))


def program(op) -> str:
    """The text of ``@f`` around ``op``."""
    inputs = list(dict.fromkeys(rules.rule_inputs(op)))
    block = Block()
    E = Emitter(block)
    mapper = {}
    for v in inputs:
        owner = v.owner
        if not is_float_like(v.type) and isinstance(owner, arith.ConstantOp):
            mapper[v] = E.raw(owner.clone()).results[0]
        else:
            mapper[v] = block.insert_arg(v.type, len(block.args))
    clone = E.raw(op.clone(value_mapper=mapper))
    total = None
    for r in clone.results:
        if is_float_like(r.type):
            total = E.accumulate(total, _loss_term(E, r))
    E.op(func.ReturnOp(total))
    f = func.FuncOp("f", ([a.type for a in block.args], [Float64Type()]), Region(block))
    return str(f) + "\n"


def _as_f64(text: str) -> str | None:
    """The program in f64 when that is still valid IR (finite differences need it)."""
    if "f32" not in text:
        return text
    retyped = text.replace("f32", "f64")
    try:
        irt.parse(retyped)
    except Exception:  # noqa: BLE001 -- e.g. arith.extf f32 -> f64 has no f64 -> f64 form
        return None
    return retyped


def _value(t, rng, lo, hi, index, dyn):
    if isinstance(t, TensorType):
        shape = [dyn if d == DYN else d for d in t.get_shape()]
        et = t.get_element_type()
        if is_float_like(et):
            return rng.uniform(lo, hi, shape).astype(np.float32 if "f32" in str(et) else np.float64)
        if _is_i1(et):
            return rng.integers(0, 2, shape).astype(bool)
        return np.zeros(shape, dtype=np.int64)
    if is_float_like(t):
        return (np.float32 if "f32" in str(t) else np.float64)(rng.uniform(lo, hi))
    if isinstance(t, IndexType):
        return index
    if _is_i1(t):
        return True
    return np.int32(2) if "32" in str(t) else np.int64(2)


def _inputs(module, rng):
    """Arguments at which ``@f`` is defined: the first range, index value and size of the
    dynamic dimensions that work."""
    f = module.body.block.first_op
    types = list(f.function_type.inputs.data)
    static = {d for op in f.walk() for r in op.results if isinstance(r.type, TensorType)
              for d in r.type.get_shape() if d != DYN}
    for lo, hi in RANGES:
        for index in (1, 0):
            for dyn in [DYN_SIZE, *sorted(static - {DYN_SIZE})]:
                args = [_value(t, rng, lo, hi, index, dyn) for t in types]
                try:
                    y = irt.interpret(module, "f", *args)
                except Exception:  # noqa: BLE001 -- out of bounds for this index value ...
                    continue
                if np.all(np.isfinite(y)):
                    return args
    raise AssertionError("no inputs found where the program is defined; give the op a simpler instance "
                         "in Inputs/rule_samples.mlir")


def _lowered(text):
    m = irt.parse(text, AUDIT_FILE)
    irt.run_pipeline(m, "ad")
    return m


def _check(text, types, args, wrt, f32):
    """Reverse and forward mode of ``@f`` w.r.t. ``wrt`` vs central differences."""
    eps, rtol = (1e-2, 2e-2) if f32 else (1e-6, 1e-6)
    m = _lowered(add_grad(text, "f", types, wrt))

    def run(name, *a):
        out = irt.interpret(m, name, *a)
        return out if isinstance(out, tuple) else (out,)

    got = run("__d", *args)
    if sum(np.size(args[i]) for i in wrt) <= FD_ELEMENTS:
        for g, w in zip(got, fd_grad(m, "f", args, wrt, eps=eps, run=run)):
            assert_close(g, w, rtol=rtol)
    else:  # large inputs (convolutions, pooling): the VJP along two random directions
        for seed in (1, 2):
            rng = np.random.default_rng(seed)
            dirs = [rng.standard_normal(np.shape(args[i])) for i in wrt]
            (want,) = fd_jvp(m, "f", args, wrt, dirs, eps=eps, run=lambda name, *a: (run(name, *a)[0],))
            assert_close(sum(float(np.sum(np.asarray(g) * d)) for g, d in zip(got, dirs)), want, rtol=rtol)
    mj = _lowered(add_grad(text, "f", types, wrt, "jvp", ["f64"]))
    rng = np.random.default_rng(0)
    tangents = [np.asarray(rng.standard_normal(np.shape(args[i])), dtype=np.asarray(args[i]).dtype)
                for i in wrt]
    tangents = [t if np.ndim(args[i]) else t[()] for t, i in zip(tangents, wrt)]
    _, dy = irt.interpret(mj, "__d", *args, *tangents)
    (want,) = fd_jvp(mj, "f", args, wrt, tangents, eps=eps,
                     run=lambda name, *a: (irt.interpret(mj, name, *a),))
    assert_close(dy, want, rtol=rtol)


@pytest.mark.parametrize(("cls", "k"), CASES, ids=[f"{c.name}-{k}" for c, k in CASES])
def test_rule_against_finite_differences(cls, k):
    op = _pick(CORPUS[cls])[k]
    text = program(op)
    f64 = _as_f64(text)
    f32 = f64 is None
    text = text if f32 else f64
    module = irt.parse(text)
    types = [str(t) for t in module.body.block.first_op.function_type.inputs.data]
    floats = [i for i, t in enumerate(module.body.block.first_op.function_type.inputs.data) if is_float_like(t)]
    args = _inputs(module, np.random.default_rng(k))
    line = 1 + next(i for i, t in enumerate(text.splitlines()) if f" {op.name} " in t)
    for wrt in [floats] + ([[i] for i in floats] if len(floats) > 1 else []):
        try:
            _check(text, types, args, wrt, f32)
        except DiagnosticError as e:
            want = LOCATED_ERRORS.get(cls.name)
            assert want is not None and want in e.message, f"{cls.name} w.r.t. {wrt}: {e}"
            assert (e.location.file, e.location.line) == (AUDIT_FILE, line), str(e)
