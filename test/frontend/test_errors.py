"""Outside the subset: a located diagnostic at the Python source (file:line:col,
the line, a caret), never a traceback or a silent fallback to Python."""

import inspect

import numpy as np
import pytest

import irtoolkit as irt
import irtoolkit.numpy as inp

X = np.ones(3)


def helper(x):
    return x


@irt.function
def uses_try(x):
    try:  # ERR: 'try' statements: not supported
        x = x + 1.0
    except ValueError:
        pass
    return x


@irt.function
def uses_break(x):
    for i in range(3):
        x = x + 1.0
        break  # ERR: 'break' (a loop runs to its end
    return x


@irt.function
def types_differ(x):
    if inp.sum(x) > 0:  # ERR: variable 'y' has type tensor<3xf64> on one branch and tensor<2xf64> on the other
        y = x
    else:
        y = x[:2]
    return y


@irt.function
def plain_python_call(x):
    return helper(x)  # ERR: 'helper' is a Python function, not an @irt.function


@irt.function
def shape_mismatch(x):
    m = inp.ones((2, 2))
    return m @ x  # ERR: matmul: contracting dimensions differ


@irt.function
def bad_broadcast(x):
    return x + inp.ones(2)  # ERR: shapes (3,) and (2,) do not broadcast together


@irt.function
def undefined_after_if(x):
    if inp.sum(x) > 0:
        z = x
    return z  # ERR: 'z' is assigned on one branch of an 'if' on a tensor only, so it has no value here


@irt.function
def loop_local_used_after(x):
    for i in range(3):
        helper = x * i
    return helper  # ERR: 'helper' is first assigned inside a loop on tensors (assign it before the loop)


@irt.function
def recursive(x):
    return recursive(x)  # ERR: recursive call to @irt.function 'recursive'


@irt.function
def return_in_loop(x):
    for i in range(3):
        return x  # ERR: 'return' inside a loop


@irt.function
def tensor_condition_not_scalar(x):
    if x > 0:  # ERR: the condition must be a single value
        x = -x
    return x


@irt.function
def numpy_on_tensor(x):
    return np.exp(x)  # ERR: 'exp' cannot take tensors in @irt.function: use irtoolkit.numpy.exp


@irt.function
def loop_changes_type(x):
    y = x
    for i in range(3):
        y = y[:2]  # ERR_AT_FOR
    return y


@irt.function
def with_statement(x):
    with open("f") as f:  # ERR: 'with' statements: not supported
        pass
    return x


@irt.function
def grad_of_vector(x):
    return irt.grad(helper_vec)(x)  # ERR: irt.grad needs 'helper_vec' to return a single scalar


@irt.function
def helper_vec(x):
    return x * 2.0


CASES = [uses_try, uses_break, types_differ, plain_python_call, shape_mismatch, bad_broadcast,
         undefined_after_if, loop_local_used_after, recursive, return_in_loop, tensor_condition_not_scalar, numpy_on_tensor,
         with_statement, grad_of_vector]


def _expected(fn):
    lines, first = inspect.getsourcelines(fn.py)
    for k, line in enumerate(lines):
        if "# ERR:" in line:
            return first + k, line.split("# ERR: ")[1].strip()
    raise AssertionError("no ERR marker")


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.name)
def test_located_error(fn):
    line, message = _expected(fn)
    with pytest.raises(irt.DiagnosticError) as info:
        fn.mlir(X)
    text = str(info.value)
    head = text.splitlines()[0]
    assert head.startswith(f"{__file__}:{line}:"), text
    assert ": error: " in head and message in head, text
    source_line, caret = text.splitlines()[1:3]
    assert source_line == open(__file__).read().splitlines()[line - 1]
    assert caret.strip() == "^" and source_line[len(caret) - 1] != " "


def test_loop_type_change_is_located_at_the_loop():
    with pytest.raises(irt.DiagnosticError) as info:
        loop_changes_type.mlir(X)
    lines, first = inspect.getsourcelines(loop_changes_type.py)
    for_line = first + next(k for k, t in enumerate(lines) if "for i in" in t)
    assert f":{for_line}:" in str(info.value).splitlines()[0]
    assert "variable 'y' has type tensor<3xf64> before the loop and tensor<2xf64> after an iteration" in str(info.value)
