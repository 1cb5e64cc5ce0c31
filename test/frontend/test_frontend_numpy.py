"""irtoolkit.numpy inside @irt.function against numpy: every table entry,
operators, broadcasting, indexing and slicing. One function holds them all,
so the suite compiles it once and interprets it once."""

import math

import numpy as np
import pytest

import irtoolkit as irt
import irtoolkit.numpy as inp

rng = np.random.default_rng(0)
A = rng.uniform(0.5, 2.0, (3, 4))
B = rng.uniform(0.5, 2.0, (3, 4))
V = rng.uniform(-1.0, 1.0, (4,))
M = rng.uniform(-1.0, 1.0, (4, 2))
F32 = rng.uniform(-1.0, 1.0, (3, 4)).astype(np.float32)
I = np.arange(12, dtype=np.int64).reshape(3, 4)


NAMES = ['add', 'sub', 'mul', 'div', 'pow', 'pow2', 'max', 'min', 'neg', 'exp', 'log', 'sqrt', 'tanh', 'sin', 'cos', 'tan', 'abs', 'absolute', 'logistic', 'matmul', 'matvec', 'vecmat', 'dot', 'sum', 'sum0', 'sum1k', 'mean', 'mean_axes', 'mean1', 'amax', 'amin', 'msum', 'transpose', 'T', 'transpose_axes', 'reshape', 'mreshape', 'expand', 'squeeze', 'broadcast_to', 'bcast_row', 'bcast_col', 'bcast_outer', 'bcast_scalar', 'bcast_0d', 'lt', 'le', 'gt', 'ge', 'eq', 'ne', 'where', 'where_b', 'astype', 'astype_int', 'f32_scalar', 'f32_sum', 'zeros', 'ones', 'full', 'zeros_like', 'ones_like', 'idx', 'idx_neg', 'slice', 'slice_cols', 'newaxis', 'ellipsis', 'int_sum', 'int_add', 'bool_sum', 'clip', 'clip_none', 'mclip', 'square', 'outer', 'var', 'std1', 'and', 'or', 'not',
         'amp', 'bar', 'tilde', 'any', 'all0', 'concatenate', 'concat1', 'stack', 'arange', 'linspace']


def cases(np_, a, b, v, m, f32, i):
    """Written once, run with np_ = numpy and, translated, with np_ = irtoolkit.numpy."""
    return (
        np_.add(a, b), a - b, np_.multiply(a, b), a / b, np_.power(a, b), a ** 2, np_.maximum(a, b),
        np_.minimum(a, b), -a, np_.exp(a), np_.log(a), np_.sqrt(a), np_.tanh(v), np_.sin(a), np_.cos(a),
        np_.tan(v), np_.abs(v), np_.absolute(a - b), inp.logistic(v) if np_ is inp else 1 / (1 + np.exp(-v)),
        a @ m, a @ v, v @ m, np_.dot(a, m), np_.sum(a), np_.sum(a, axis=0), np_.sum(a, axis=1, keepdims=True),
        np_.mean(a), np_.mean(a, axis=(0, 1)), a.mean(axis=-1), np_.max(a, axis=1), np_.min(a), a.sum(0),
        np_.transpose(a), a.T, np_.transpose(a, (1, 0)), np_.reshape(a, (4, 3)), a.reshape(2, -1),
        np_.expand_dims(v, 0), np_.squeeze(np_.reshape(v, (1, 4))), np_.broadcast_to(v, (3, 4)), a + v,
        a * a[:, 0:1], v[:, None] * v[None, :], 2.0 * a - 1, a * np_.sum(v), a < b, a <= 1.0, a > b, a >= b,
        a == a, a != b, np_.where(a > b, a, 0.0), np_.where(v > 0, v, -v), a.astype(np_.float32),
        i.astype(np_.float64) * 0.5, f32 * 0.5, np_.sum(f32, axis=0), np_.zeros((2, 3)),
        np_.ones(3, dtype=np_.float32), np_.full((2, 2), 7.0), np_.zeros_like(a), np_.ones_like(v), a[1],
        a[-1, 2], a[1:3, ::2], a[:, 1:], v[None], a[..., 1], np_.sum(i, axis=1), i + 1, np_.sum(a > b),
        np_.clip(a, 0.8, 1.5), np_.clip(v, None, 0.0), a.clip(1.0, 1.2), np_.square(v), np_.outer(v, v),
        np_.var(a), np_.std(a, axis=1), np_.logical_and(a > b, a > 1.0), np_.logical_or(a > b, a > 1.0),
        np_.logical_not(a > b), (a > b) & (a > 1.0), (a > b) | (a > 1.0), ~(a > b), np_.any(v > 0.5),
        np_.all(a > 0.6, axis=0), np_.concatenate((a, b)), np_.concatenate([a, a[:, :1]], axis=1),
        np_.stack((v, v * 2.0), axis=1), a + np_.arange(4), v * np_.linspace(0.0, 1.0, 4),
    )


everything = irt.function(cases)
EXPECTED = cases(np, A, B, V, M, F32, I)
ARGS = (inp, A, B, V, M, F32, I)


def _check(results):
    assert len(results) == len(EXPECTED)
    for name, want, got in zip(NAMES, EXPECTED, results):
        want = np.asarray(want)
        assert got.shape == want.shape, name
        assert got.dtype == want.dtype, (name, got.dtype, want.dtype)
        np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=name)


@pytest.fixture(scope="module")
def interpreted():
    return everything.interpret(*ARGS)


@pytest.fixture(scope="module")
def compiled():
    return everything(*ARGS)


def test_table_interpreted(interpreted):
    _check(interpreted)


def test_table_compiled(compiled):
    _check(compiled)


def test_outside_a_function_entries_are_numpy():
    np.testing.assert_allclose(inp.tanh(V), np.tanh(V))
    np.testing.assert_allclose(inp.sum(A, axis=0), A.sum(0))


@irt.function
def assign_slices(x, v):
    x[0] = 0.0
    x[1:3, 1] = v[:2]
    x[:, 3] += 1.0
    return x


def test_index_assignment():
    x = A.copy()
    want = A.copy()
    want[0] = 0.0
    want[1:3, 1] = V[:2]
    want[:, 3] += 1.0
    np.testing.assert_allclose(assign_slices.interpret(x, V), want)
    np.testing.assert_allclose(x, A)  # the argument is a value: unchanged


@irt.function
def broadcast_ops(a, b):
    return a + b, a * b - b, inp.where(a > b, a, b), inp.maximum(a, 0.5) / (1.0 + b * b)


def _broadcastable_pairs():
    from hypothesis import strategies as st

    dim = st.sampled_from([1, 2, 3])
    return st.lists(dim, min_size=0, max_size=3).flatmap(
        lambda shape: st.tuples(st.just(tuple(shape)),
                                st.lists(st.booleans(), min_size=len(shape), max_size=len(shape)),
                                st.integers(0, len(shape))))


def test_broadcasting_property():
    from hypothesis import given, settings

    @settings(max_examples=10, deadline=None)
    @given(_broadcastable_pairs())
    def check(case):
        shape, ones, drop = case
        other = tuple(1 if one else d for d, one in zip(shape, ones))[drop:]  # numpy-broadcastable to shape
        a = rng.uniform(-1, 1, shape)
        b = rng.uniform(-1, 1, other)
        for x, y in ((a, b), (b, a)):
            want = (x + y, x * y - y, np.where(x > y, x, y), np.maximum(x, 0.5) / (1.0 + y * y))
            for w, g in zip(want, broadcast_ops.interpret(x, y)):
                np.testing.assert_allclose(g, w)

    check()


@irt.function
def windows(x, w):
    y = inp.conv(x, w, stride=[1], pad=[[1, 1]])
    return y, inp.reduce_window_max(y, [1, 2, 1], stride=[1, 2, 1]), inp.reduce_window_sum(x, [1, 3, 1])


def test_conv_and_windows():
    x = rng.uniform(-1, 1, (1, 6, 1))
    w = np.array([1.0, 2.0, -1.0]).reshape(3, 1, 1)
    xp = np.pad(x[0, :, 0], 1)
    conv = np.array([xp[k:k + 3] @ w[:, 0, 0] for k in range(6)]).reshape(1, 6, 1)
    for got in (windows.interpret(x, w), windows(x, w)):
        np.testing.assert_allclose(got[0], conv)
        np.testing.assert_allclose(got[1], conv.reshape(1, 3, 2, 1).max(axis=2))
        np.testing.assert_allclose(got[2][0, :, 0], [x[0, k:k + 3, 0].sum() for k in range(4)])


# the entries of the SPEC §3.1 ops, each against numpy (erf against math.erf)
def model_cases(np_, a, b, q, k, ids, table):
    erf = np_.erf if np_ is inp else np.vectorize(math.erf)
    return (
        erf(a - 1.0), np_.log1p(a), np_.expm1(b - 1.0), np_.arctan(a * 3.0), np_.floor(a * 3.0),
        np_.ceil(a * 3.0), np_.round(a * 4.0), np_.sign(a - 1.0), np_.arctan2(a - 1.0, b - 1.0),
        np_.fmod(a * 5.0, b), np_.prod(a, axis=1), np_.min(a, axis=0), np_.argmax(a, axis=1),
        np_.argmin(a), q @ k, np_.take(table, ids), np_.take(table, ids, axis=1),
        np_.clip(a, b * 0.9, b * 1.1),
    )


MODEL_ARGS = (A, B, rng.uniform(-1, 1, (2, 3, 5)), rng.uniform(-1, 1, (2, 5, 4)),
              np.array([[2, 0], [1, 2]]), rng.uniform(-1, 1, (3, 4)))
model_ops = irt.function(model_cases)


@pytest.mark.parametrize("run", ["interpret", "compiled"])
def test_model_op_entries(run):
    got = (model_ops.interpret if run == "interpret" else model_ops)(inp, *MODEL_ARGS)
    want = model_cases(np, *MODEL_ARGS)
    assert len(got) == len(want)
    for n, (g, w) in enumerate(zip(got, want)):
        w = np.asarray(w)
        assert g.shape == w.shape, n
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-15, err_msg=str(n))
