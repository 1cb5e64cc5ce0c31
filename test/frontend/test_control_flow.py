"""Control flow in @irt.function: each form on tensors (IR control flow) and on
compile-time values (decided while translating), nested loops, calls; checked
against the same Python run by numpy, interpreted and compiled."""

import numpy as np
import pytest

import irtoolkit as irt
import irtoolkit.numpy as inp

X = np.array([0.5, -1.0, 2.0, 0.25])
Y = np.array([[1.0, 2.0], [3.0, -4.0]])


def branches(np_, x, flag):
    """An if on a tensor (loop.if), an if on a constant, a conditional expression."""
    if np_.sum(x) > 1.0:
        y = x * 2.0
        z = 1.0
    else:
        y = x - 1.0
        z = x
    if flag:
        y = y + 10.0
    w = y if np_.max(x) > 1.5 else -y
    return y, z * w


def loops(np_, x, n):
    """for over a compile-time range (loop.for) carrying a tensor and a number that
    becomes a tensor, nested loops, a while on a tensor (loop.while), a while on a
    compile-time value (unrolled) and for over a tuple (unrolled)."""
    acc = 0.0
    h = x
    for i in range(n):
        for j in range(1, 3):
            h = np_.tanh(h) + 0.1 * j
        acc = acc + np_.sum(h) * i
    k = 0
    while k < 3:
        h = h * 0.5
        k = k + 1
    t = h
    while np_.sum(np_.abs(t)) < 100.0:
        t = t * 2.0 + 0.1
    for s in (1.0, 2.0):
        t = t + s
    return acc, t


traced_branches = irt.function(branches)
traced_loops = irt.function(loops)


@pytest.mark.parametrize("x", [X, -X, X * 0.1])
@pytest.mark.parametrize("flag", [True, False])
def test_branches_interpreted(x, flag):
    want = branches(np, x, flag)
    got = traced_branches.interpret(inp, x, flag)
    for w, g in zip(want, got):
        np.testing.assert_allclose(g, w)


def test_branches_compiled():
    for x in (X, -X):
        for w, g in zip(branches(np, x, True), traced_branches(inp, x, True)):
            np.testing.assert_allclose(g, w)


def test_loops_interpreted_and_compiled():
    want = loops(np, X, 4)
    for got in (traced_loops.interpret(inp, X, 4), traced_loops(inp, X, 4)):
        for w, g in zip(want, got):
            np.testing.assert_allclose(g, w, rtol=1e-12)


def test_control_flow_is_ir_not_unrolled():
    text = traced_loops.mlir(inp, X, 50)
    assert text.count("loop.for") == 2  # the outer and the nested loop, once each
    assert text.count("loop.while") == 1  # the tensor while; the constant one is unrolled
    text = traced_branches.mlir(inp, X, True)
    assert text.count("loop.if") == 1  # the tensor if; `if flag` decided, `w = ...` a select
    assert "tensor.select" in text


@irt.function
def indexed_loop(x, hist):
    for i in range(hist.shape[0]):
        hist[i] = x * i
        x = x + hist[i, 0]
    return hist


def test_loop_index_reads_and_writes():
    hist = np.zeros((5, 4))
    want = hist.copy()
    x = X.copy()
    for i in range(5):
        want[i] = x * i
        x = x + want[i, 0]
    np.testing.assert_allclose(indexed_loop.interpret(X, hist), want)


@irt.function
def layer(w, x):
    return inp.tanh(x @ w)


@irt.function
def two_layers(w1, w2, x):
    return layer(w2, layer(w1, x)), layer(w1, x)


@irt.function
def with_params(params, x):
    w, b = params
    return inp.sum(layer(w, x) + b)


def test_calls_become_func_calls():
    text = two_layers.mlir(Y, Y, Y)
    assert text.count("func.call @layer") == 3  # one specialization, three calls
    assert text.count("func.func") == 2
    a, b = two_layers(Y, Y, Y)
    np.testing.assert_allclose(a, np.tanh(np.tanh(Y @ Y) @ Y))
    np.testing.assert_allclose(b, np.tanh(Y @ Y))


def test_one_function_per_shape_specialization():
    x3 = np.ones((3, 2))
    text = two_layers.mlir(Y, Y, x3)
    assert text.count("func.func private @layer") == 1
    np.testing.assert_allclose(two_layers(Y, Y, x3)[0], np.tanh(np.tanh(x3 @ Y) @ Y))


def test_tuple_arguments_and_cache():
    b = np.array([0.5, -0.5])
    want = np.sum(np.tanh(Y @ Y) + b)
    np.testing.assert_allclose(with_params((Y, b), Y), want)
    np.testing.assert_allclose(with_params((Y, b), Y), want)
    assert len(with_params._compiled) == 1
    with_params((Y.astype(np.float32), b.astype(np.float32)), Y.astype(np.float32))
    assert len(with_params._compiled) == 2  # another dtype: another specialization


def test_mlir_parses_back():
    for text in (traced_loops.mlir(inp, X, 3), two_layers.mlir(Y, Y, Y),
                 irt.grad(with_params).mlir((Y, np.zeros(2)), Y)):
        module = irt.parse(text)
        assert "func.func" in str(module)


@irt.function
def run_time_trip_count(x, n):
    acc = 0.0
    for i in range(n):
        acc = acc + x * i
    return acc


@irt.function
def keywords(a, b=2.0):
    return a * b


@irt.function
def calls_with_keywords(x):
    return keywords(x, b=3.0) + keywords(a=x)


def test_run_time_bounds_keywords_and_weak_numbers():
    x32 = np.ones(2, np.float32)
    out = run_time_trip_count.interpret(x32, np.array(4))
    assert out.dtype == np.float32  # acc = 0.0 promotes as a Python float: float32 stays
    np.testing.assert_allclose(out, [6.0, 6.0])
    assert "loop.for" in run_time_trip_count.mlir(x32, np.array(4))
    np.testing.assert_allclose(calls_with_keywords.interpret(X), 5 * X)


def test_static_arguments_are_part_of_the_specialization():
    np.testing.assert_allclose(keywords.interpret(X, 4.0), 4 * X)
    assert "4.0" in keywords.mlir(X, 4.0) or "4.000000e+00" in keywords.mlir(X, 4.0)
    np.testing.assert_allclose(irt.grad(run_time_trip_count, argnums=0).interpret(np.array(1.0), np.array(3)), 3.0)


def test_functions_without_source_are_refused():
    namespace = {}
    exec("def no_source(x):\n    return x\n", namespace)
    with pytest.raises(TypeError, match="cannot be read"):
        irt.function(namespace["no_source"]).mlir(X)


@irt.function
def prints(x):
    for i in range(7):
        if i % 3 == 0:
            print("step", i, "sum", inp.sum(x))
        x = x + x[(i + 1) // 2 % 2]
    return x


def test_print_and_index_arithmetic(capfd):
    x = np.array([1.0, 2.0])
    want = x.copy()
    for i in range(7):
        want = want + want[(i + 1) // 2 % 2]
    np.testing.assert_allclose(prints.interpret(x), want)
    out = capfd.readouterr().out
    sums, y = [], x.copy()
    for i in range(7):
        if i % 3 == 0:
            sums.append(y.sum())
        y = y + y[(i + 1) // 2 % 2]
    assert out.splitlines() == [f"step {i} sum {s}" for i, s in zip((0, 3, 6), sums)], out


def test_derivatives_are_cached():
    assert irt.grad(with_params) is irt.grad(with_params)
    assert irt.grad(with_params, argnums=(0, 1)) is irt.grad(with_params, argnums=[0, 1])
    assert irt.grad(with_params) is not irt.value_and_grad(with_params)
