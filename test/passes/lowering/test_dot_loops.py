"""The loop-nest dots of `lower-tensor-to-loop` (``dot_loops.py``) against numpy:
matrix-vector products (row dots), vector-matrix products and matmuls (axpy
nests), transposed operands, rank-1 operands and batch dims, f32 and f64, at
sizes around the measured BLAS thresholds (which also says which path each
size takes)."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func

import irtoolkit as irt
from irtoolkit.passes.lowering.blas import MATMUL_THRESHOLD
from irtoolkit.runtime import blas as rt_blas

DTYPES = {"f32": np.float32, "f64": np.float64}
#: the loops sum in another order than numpy's BLAS (reassociated partial sums)
RTOL = {"f32": 2e-6, "f64": 1e-14}


def _side(n: int) -> int:
    """The largest n x n x n matmul below a threshold."""
    return round(n ** (1 / 3) - 0.5)


# (name, lhs shape, rhs shape, dot attributes, result shape); {n}: a matmul side just
# below the dtype's threshold, {n1}: just above
CASES = [
    ("mv", "128x128", "128x1", "contract [1] x [0]", "128x1"),
    ("mv_odd", "7x13", "13x1", "contract [1] x [0]", "7x1"),
    ("mv_rank1", "37x5", "5", "contract [1] x [0]", "37"),
    ("mv_big", "300x257", "257x1", "contract [1] x [0]", "300x1"),
    ("vm", "1x130", "130x67", "contract [1] x [0]", "1x67"),
    ("vm_rank1", "9", "9x33", "contract [0] x [0]", "33"),
    ("tmv", "13x7", "13x1", "contract [0] x [0]", "7x1"),  # A^T x
    ("abt", "6x19", "5x19", "contract [1] x [1]", "6x5"),  # A B^T: row dots
    ("atb", "19x6", "19x5", "contract [0] x [0]", "6x5"),  # A^T B: axpy
    ("batched", "3x5x9", "3x9x1", "batch [0] x [0] contract [2] x [1]", "3x5x1"),
    ("two_contract", "4x3x6", "3x6x1", "contract [1, 2] x [0, 1]", "4x1"),
    ("mm_below", "{n}x{n}", "{n}x{n}", "contract [1] x [0]", "{n}x{n}"),
    ("mm_above", "{n1}x{n1}", "{n1}x{n1}", "contract [1] x [0]", "{n1}x{n1}"),
]


def _shape(s: str, n: int) -> tuple[int, ...]:
    s = s.format(n=n, n1=n + 1)
    return tuple(int(d) for d in s.split("x"))


def _module(t: str) -> str:
    n = _side(MATMUL_THRESHOLD[t])
    fns = []
    for name, a, b, attrs, c in CASES:
        a, b, c = (s.format(n=n, n1=n + 1) for s in (a, b, c))
        fns.append(f"""func.func @{name}(%a: tensor<{a}x{t}>, %b: tensor<{b}x{t}>) -> tensor<{c}x{t}> {{
  %c = tensor.dot %a, %b {attrs} : (tensor<{a}x{t}>, tensor<{b}x{t}>) -> tensor<{c}x{t}>
  return %c : tensor<{c}x{t}>
}}""")
    return "\n".join(fns)


@pytest.fixture(scope="module", params=["f32", "f64"])
def compiled(request):
    t = request.param
    return t, irt.compile(irt.parse(_module(t)))


def _reference(name: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a, b = a.astype(np.float64), b.astype(np.float64)
    if name in ("tmv", "atb"):
        return a.T @ b
    if name == "abt":
        return a @ b.T
    if name == "vm_rank1":
        return a @ b
    if name == "batched":
        return np.einsum("bik,bkj->bij", a, b)
    if name == "two_contract":
        return np.einsum("ikl,klj->ij", a, b)
    return a @ b


def test_loop_dots_match_numpy(compiled):
    t, exe = compiled
    n = _side(MATMUL_THRESHOLD[t])
    rng = np.random.default_rng(17)
    for name, a, b, _, _ in CASES:
        x = rng.standard_normal(_shape(a, n)).astype(DTYPES[t])
        y = rng.standard_normal(_shape(b, n)).astype(DTYPES[t])
        want = _reference(name, x, y)
        got = exe[name](x, y)
        assert got.dtype == DTYPES[t] and got.shape == want.shape, name
        # error bound of a sum of K products: scale by sum |a| |b|
        bound = _reference(name, np.abs(x), np.abs(y))
        assert np.all(np.abs(got - want) <= RTOL[t] * (bound + 1)), name


@pytest.mark.skipif(not rt_blas.blas_available(), reason="numpy's OpenBLAS not found")
def test_which_sizes_call_blas():
    """By default only matmuls from the dtype's threshold on call gemm; matrix-vector
    products of any static size stay loops."""
    for t in ("f32", "f64"):
        m = irt.parse(_module(t))
        irt.run_pipeline(m, "lower-tensor-to-loop")
        calling = {f.sym_name.data for f in m.walk() if isinstance(f, func.FuncOp)
                   and any(isinstance(o, func.CallOp) for o in f.walk())}
        assert calling == {"mm_above"}, t
