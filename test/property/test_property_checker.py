"""The property tests' own machinery: the error-bound model is sound (it covers other
summation orders and perturbed operands) and not loose (a 1-ulp error in an exact
result, or a few-ulp error in a reduction, is caught); the generator is deterministic,
well-typed and covers what the properties claim."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import irtoolkit as irt
import propcheck as pc
import propgen as pg

RNG = np.random.default_rng(1)


def _seq_sum(x, dt):
    acc = dt(0)
    for v in x:
        acc = dt(acc + v)
    return acc


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 2, 3, 7, 33, 200])
def test_reduce_sum_bound_covers_other_orders_and_is_tight(dt, n):
    name = "f32" if dt == np.float32 else "f64"
    for _ in range(20):
        x = (RNG.standard_normal(n) * 10 ** RNG.uniform(-3, 3, n)).astype(dt)
        r, e = pg.reduce_sum_model(x, np.zeros(n), (0,), name)
        for other in (_seq_sum(x, dt), _seq_sum(x[::-1], dt), np.sum(x.astype(np.float64)).astype(dt)):
            assert abs(float(other) - float(r)) <= float(e), (n, other, r, e)
        if n <= 2:
            assert e == 0  # one or two terms: every order rounds the same
        else:
            assert e <= (n - 1) * np.finfo(dt).eps * np.sum(np.abs(x.astype(np.float64))) * 1.02 + 1e-300


def test_matmul_bound_covers_a_naive_loop():
    for k in (1, 2, 5, 17):
        a = RNG.standard_normal((3, k)).astype(np.float32)
        b = RNG.standard_normal((k, 4)).astype(np.float32)
        r, e = pg.matmul_model(a, np.zeros(a.shape), b, np.zeros(b.shape), "f32")
        naive = np.zeros((3, 4), np.float32)
        for i in range(3):
            for j in range(4):
                naive[i, j] = _seq_sum([np.float32(a[i, q] * b[q, j]) for q in range(k)][::-1], np.float32)
        assert np.all(np.abs(naive.astype(np.float64) - r) <= e)
        if k == 1:
            assert np.all(e == 0)


def test_conv_model_is_a_convolution_and_its_bound_covers_a_float32_loop():
    """conv_np against the definition (a direct sum, strides, padding, dilations, groups);
    the bilinear bound covers float32 sums in reversed order."""
    x = RNG.standard_normal((1, 5, 4)).astype(np.float32)
    w = RNG.standard_normal((2, 2, 6)).astype(np.float32)
    stride, pads, ld, rd, g = (2,), ((1, 1),), (1,), (2,), 2
    f = pg.conv_np(stride, pads, ld, rd, g)
    r, e = pg.bilinear_model(f, 2 * 2, x, np.zeros(x.shape), w, np.zeros(w.shape), "f32")
    xp = np.pad(x, ((0, 0), (1, 1), (0, 0)))
    assert r.shape == (1, 3, 6)
    for o in range(3):
        for fo in range(6):
            grp = fo // 3
            terms = [np.float32(xp[0, o * 2 + q * 2, grp * 2 + c] * w[q, c, fo]) for q in range(2) for c in range(2)]
            assert abs(float(_seq_sum(terms[::-1], np.float32)) - float(r[0, o, fo])) <= e[0, o, fo]


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "tanh", "sin", "cos", "logistic", "neg", "abs"])
def test_unary_bound_covers_perturbed_operands(name):
    x = RNG.uniform(0.1, 3.0, 50)
    err = np.abs(x) * 1e-6
    r, e = pg.unary_model(name, x, err, "f64")
    f = {"logistic": lambda z: 1 / (1 + np.exp(-z)), "neg": np.negative}.get(name) or getattr(np, name)
    for s in (-1, 1):  # operands anywhere inside their error boxes (0.999: our own rounding of x + err)
        assert np.all(np.abs(f(x + s * 0.999 * err) - r) <= e)
    _, e0 = pg.unary_model(name, x, np.zeros(50), "f64")
    if name in ("neg", "abs", "sqrt"):
        assert np.all(e0 == 0)  # correctly rounded (or exact) on exact operands
    else:
        assert np.all(e0 <= pg.TRANS_ULPS * np.spacing(np.abs(r)) * 1.01)


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "pow", "max", "min"])
def test_binary_bound_covers_perturbed_operands(name):
    a, b = RNG.uniform(0.5, 3.0, 50), RNG.uniform(0.5, 3.0, 50)
    ea, eb = a * 1e-7, b * 1e-7
    r, e = pg.binary_model(name, a, ea, b, eb, "f64")
    f = pg.BINARY_NP[name]
    for sa in (-1, 1):
        for sb in (-1, 1):
            assert np.all(np.abs(f(a + sa * 0.999 * ea, b + sb * 0.999 * eb) - r) <= e)


def test_compare_catches_one_ulp_in_an_exact_result_and_accepts_within_bound():
    w = np.array([1.0, 2.0, np.nan], np.float32)
    pc.compare(w.copy(), w, np.zeros(3), "same")
    with pytest.raises(pc.Mismatch):
        pc.compare(np.nextafter(w, np.float32(np.inf)), w, np.zeros(3), "1 ulp")
    with pytest.raises(pc.Mismatch):
        pc.compare(np.array([1.0, 2.0, 0.0], np.float32), w, np.zeros(3), "NaN lost")
    pc.compare(np.array([1.0, 2.0 + 2.4e-7, np.nan], np.float32), w, np.array([0, 3e-7, 0]), "within")
    with pytest.raises(pc.Mismatch):
        pc.compare(w.astype(np.float64), w, np.zeros(3), "dtype")


def test_a_wrong_interpreter_result_is_caught(monkeypatch):
    """A 1-ulp error in an exact op (tensor.add) is caught within a few programs."""
    from xdsl.dialects import arith

    from irtoolkit.dialects.elementwise import meaning_of

    add = np.add  # the meaning of tensor.add on floats is arith.addf's
    monkeypatch.setattr(meaning_of(arith.AddfOp), "numpy",
                        lambda a, b: np.nextafter(add(a, b), np.asarray(np.inf, dtype=add(a, b).dtype)))
    caught = False
    for k in range(40):
        p = pg.generate(pg.RandomChooser(k), "diff", name="f")
        if not p.tags["tensor.add"]:
            continue
        args = p.inputs(k)
        got = irt.interpret(irt.parse(p.text), "f", *args)
        got = got if isinstance(got, tuple) else (got,)
        model, _ = p.evaluate(args)
        try:
            for g, (mv, me) in zip(got, model):
                pc.compare(g, mv, me, "interp vs model")
        except pc.Mismatch:
            caught = True
            break
    assert caught


def test_generator_is_deterministic_well_typed_and_varied():
    texts = [pg.generate(pg.RandomChooser(k), "diff", name=f"p{k}").text for k in range(60)]
    assert texts == [pg.generate(pg.RandomChooser(k), "diff", name=f"p{k}").text for k in range(60)]
    m = irt.parse("\n".join(texts))  # parses and verifies
    assert len(list(m.ops)) == 60
    tags = Counter()
    for k in range(200):
        tags.update(pg.generate(pg.RandomChooser(k), "diff").tags)
    for op in ("loop.for", "loop.if", "loop.while", "tensor.matmul", "tensor.reduce_sum", "tensor.reduce_max",
               "tensor.broadcast", "tensor.transpose", "tensor.extract_slice", "tensor.insert_slice",
               "tensor.select", "tensor.convert", "tensor.splat", "math.powf", "arith.divf", "tensor.logistic"):
        assert tags[op] > 0, op
    g = pg.generate(pg.RandomChooser(3), "grad", name="g")
    assert g.text.count("-> (f64)") == 1 and "f32" not in g.text


def _ops_generated(mode, programs=300):
    tags = Counter()
    for k in range(programs):
        tags.update(pg.generate(pg.RandomChooser(k), mode).tags)
    return {op for op, n in tags.items() if n}


def test_every_registered_tensor_op_is_generated_or_listed_with_a_reason():
    """An op added to the `tensor` dialect fails this test until the generator makes it
    (from the registry, or with a builder of its own) or NOT_GENERATED says why not."""
    registered = set(pg.registered_tensor_ops())
    generated = _ops_generated("diff") | _ops_generated("grad")
    assert set(pg.NOT_GENERATED) <= registered, set(pg.NOT_GENERATED) - registered
    assert not generated & set(pg.NOT_GENERATED), f"generated, yet listed: {generated & set(pg.NOT_GENERATED)}"
    missing = registered - generated - set(pg.NOT_GENERATED)
    assert not missing, f"registered ops neither generated nor listed in propgen.NOT_GENERATED: {sorted(missing)}"


def test_gradient_programs_use_the_differentiable_structural_ops():
    generated = _ops_generated("grad")
    for kind in pg.STRUCTURAL:
        op = "tensor." + kind
        assert op in generated, op


def test_shrink_minimizes_a_choice_sequence():
    # "fails" while the program has a matmul: the shrunk program is small and still has one
    def fails(vals):
        return pg.generate(pg.ReplayChooser(vals), "diff").tags["tensor.matmul"] > 0

    rec = next(r for r in (pg.RecordingChooser(pg.RandomChooser(k)) for k in range(100))
               if pg.generate(r, "diff").tags["tensor.matmul"] > 0 and len(r.log) > 100)
    vals = [v for v, _ in rec.log]
    small = pg.shrink(vals, fails, budget=300)
    assert fails(small) and len(small) < len(vals)


def _cancelling_program():
    """exp(x) * (1e8 + 1) - exp(x) * 1e8: the derivative exp(x) is 1e-8 of its paths."""
    g = pg.Gen(pg.RandomChooser(0), "grad", name="c")
    x = pg.V("%arg0", "s", (), "f64", -1.0, 1.0)
    e = g.unary("exp", x, force=True)
    big = [g.binary("mul", e, g.scalar_const("f64", c), force=True) for c in (1e8 + 1, 1e8)]
    return g.build([x], [g.binary("sub", *big, force=True)])


def test_path_magnitude_bounds_the_derivative_and_explains_cancellation():
    """Forward and reverse mode differ by far more than 1e-12 of the derivative here (their
    roundings scale with the paths, 2e8 exp(x)), within the model's 2 L eps P."""
    p = _cancelling_program()
    x, v = np.float64(0.3), np.float64(1.0)
    m = irt.parse(pc.derivative_text(p))
    irt.run_pipeline(m, "ad")
    g = irt.interpret(m, "c_g", x)
    _, dy = irt.interpret(m, "c_j", x, v)
    paths, tol = pc.forward_reverse_tolerance(p, [x], [v], abs(g))
    assert paths == pytest.approx(np.exp(x) * (2e8 + 1), rel=1e-12)
    assert 1e-12 * abs(g) < abs(dy - g) <= tol
    for k in range(10):  # |J| |v| bounds |J v| on generated programs
        q = pg.generate(pg.RandomChooser(k), "grad", name="q")
        args = q.inputs(k)
        mq = irt.parse(pc.derivative_text(q))
        irt.run_pipeline(mq, "ad")
        ones = [np.ones(np.shape(a)) if np.ndim(a) else np.float64(1.0) for a in args]
        _, dq = irt.interpret(mq, "q_j", *args, *ones)
        assert abs(dq) <= q.path_magnitude(args, ones)[0] * (1 + 1e-9)
