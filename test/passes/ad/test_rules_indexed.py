"""Derivatives of tensor.gather / scatter / scatter_add vs central finite
differences in f64 (interpreted and compiled), duplicate indices, size-0 and
size-1 shapes, dynamic dims, lookups inside a loop; generate's located error."""

import numpy as np
import pytest

import irtoolkit as irt
from irtoolkit.diagnostics import DiagnosticError

from adcheck import check_grad, check_jvp, grad_texts, register

RNG = np.random.default_rng(99)


def _src(args: list[tuple[str, str]], body: str, rt: str) -> str:
    """@f(args) -> f64: sum(r * r) of the body's %r (of type ``rt``)."""
    sig = ", ".join(f"%{n}: {t}" for n, t in args)
    rank = rt.count("x")
    dims = ", ".join(str(d) for d in range(rank))
    et = rt[:-1].split("x")[-1] if rank else rt[len("tensor<"):-1]
    return (f"func.func @f({sig}) -> f64 {{\n  {body}\n"
            f"  %sq = tensor.mul %r, %r : {rt}\n"
            f"  %s = tensor.reduce_sum %sq [{dims}] : {rt} -> tensor<{et}>\n"
            f"  %l = tensor.extract %s[] : tensor<{et}>\n"
            f"  return %l : f64\n}}\n")


def _gather_case(st, it, dims, rt, src_shape, ids):
    body = f"%r = tensor.gather %a[%i] gather_dims({dims}) : ({st}, {it}) -> {rt}"
    return _src([("a", st), ("i", it)], body, rt), [st, it], [RNG.standard_normal(src_shape), ids], [0]


def _scatter_case(op, ut, dt, it, dims, u_shape, d_shape, ids):
    unique = " unique" if op == "scatter" else ""
    body = f"%r = tensor.{op} %u into %d[%i] scatter_dims({dims}){unique} : ({ut}, {dt}, {it}) -> {dt}"
    return (_src([("u", ut), ("d", dt), ("i", it)], body, dt), [ut, dt, it],
            [RNG.standard_normal(u_shape), RNG.standard_normal(d_shape), ids], [0, 1])


IDX = lambda *rows: np.array(rows, dtype=np.int64)  # noqa: E731

CASES = {
    "gather_rows_duplicates": _gather_case("tensor<6x3xf64>", "tensor<4x1xindex>", "[0]", "tensor<4x3xf64>",
                                           (6, 3), IDX([1], [4], [1], [0])),
    "gather_mid_full": _gather_case("tensor<3x5x2xf64>", "tensor<4x1xi32>", "[1]", "tensor<4x3x1x2xf64>",
                                    (3, 5, 2), IDX([4], [0], [4], [2]).astype(np.int32)),
    "gather_two_dims": _gather_case("tensor<3x5x2xf64>", "tensor<2x2x2xindex>", "[0, 2]", "tensor<2x2x5xf64>",
                                    (3, 5, 2), IDX([[2, 1], [0, 0]], [[2, 1], [2, 0]])),
    "gather_dynamic": _gather_case("tensor<?x3xf64>", "tensor<?x1xindex>", "[0]", "tensor<?x3xf64>",
                                   (5, 3), IDX([4], [4], [0])),
    "gather_size1": _gather_case("tensor<1x3xf64>", "tensor<1x1xindex>", "[0]", "tensor<1x1x3xf64>",
                                 (1, 3), IDX([0])),
    "gather_size0": _gather_case("tensor<4x3xf64>", "tensor<0x1xindex>", "[0]", "tensor<0x3xf64>",
                                 (4, 3), np.zeros((0, 1), np.int64)),
    "scatter_add_duplicates": _scatter_case("scatter_add", "tensor<4x3xf64>", "tensor<6x3xf64>",
                                            "tensor<4x1xindex>", "[0]", (4, 3), (6, 3), IDX([1], [4], [1], [1])),
    "scatter_add_dynamic": _scatter_case("scatter_add", "tensor<?x1x3xf64>", "tensor<?x3xf64>",
                                         "tensor<?x1xindex>", "[0]", (2, 1, 3), (4, 3), IDX([3], [3])),
    "scatter_unique": _scatter_case("scatter", "tensor<2x3x1x2xf64>", "tensor<3x5x2xf64>", "tensor<2x1xindex>",
                                    "[1]", (2, 3, 1, 2), (3, 5, 2), IDX([3], [1])),
}

register(t for src, types, _, wrt in CASES.values() for t in grad_texts(src, "f", types, ["f64"], wrt))


@pytest.mark.parametrize("name", sorted(CASES))
def test_indexed_derivatives(name, backend):
    src, types, args, wrt = CASES[name]
    check_grad(src, "f", types, args, wrt=wrt, backend=backend)
    check_jvp(src, "f", types, ["f64"], args, wrt=wrt, backend=backend)


LOOKUPS = """
func.func @f(%table: tensor<6x3xf64>, %ids: tensor<4x1xindex>, %h0: tensor<1x3xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %half = arith.constant dense<0.5> : tensor<1x3xf64>
  %h = loop.for %k = %c0 to %c4 step %c1 iter_args(%acc = %h0) -> (tensor<1x3xf64>) {
    %id = tensor.extract_slice %ids[%k, 0] [1, 1] [1, 1] : tensor<4x1xindex> to tensor<1x1xindex>
    %e = tensor.gather %table[%id] gather_dims([0]) : (tensor<6x3xf64>, tensor<1x1xindex>) -> tensor<1x3xf64>
    %t = tensor.tanh %acc : tensor<1x3xf64>
    %m = tensor.mul %t, %half : tensor<1x3xf64>
    %n = tensor.add %m, %e : tensor<1x3xf64>
    loop.yield %n : tensor<1x3xf64>
  }
  %sq = tensor.mul %h, %h : tensor<1x3xf64>
  %s = tensor.reduce_sum %sq [0, 1] : tensor<1x3xf64> -> tensor<f64>
  %l = tensor.extract %s[] : tensor<f64>
  return %l : f64
}
"""


def test_lookups_in_a_loop(backend):
    """The table's adjoint accumulates across iterations (one row per step, a row twice)."""
    types = ["tensor<6x3xf64>", "tensor<4x1xindex>", "tensor<1x3xf64>"]
    args = [RNG.standard_normal((6, 3)), IDX([2], [5], [2], [0]), RNG.standard_normal((1, 3))]
    check_grad(LOOKUPS, "f", types, args, wrt=[0, 2], backend=backend)
    check_jvp(LOOKUPS, "f", types, ["f64"], args, wrt=[0, 2], backend=backend)


def test_generate_reading_a_differentiated_value_is_a_located_error():
    src = """
func.func @f(%x: f64) -> f64 {
  %t = tensor.generate {
  ^bb0(%i: index):
    tensor.yield %x : f64
  } : tensor<3xf64>
  %s = tensor.reduce_sum %t [0] : tensor<3xf64> -> tensor<f64>
  %l = tensor.extract %s[] : tensor<f64>
  return %l : f64
}
func.func @df(%x: f64) -> f64 {
  %d = autodiff.grad @f(%x) : (f64) -> f64
  return %d : f64
}
"""
    with pytest.raises(DiagnosticError, match=r"3:3: error: 'tensor.generate' op cannot be differentiated: its body "
                                              r"reads a differentiated value"):
        irt.run_pipeline(irt.parse(src), "ad")


def test_generate_of_constants_and_rank_need_no_derivative(backend):
    """A generate whose body reads no differentiated value, and rank, are inactive."""
    src = """
func.func @f(%x: tensor<3xf64>) -> f64 {
  %w = tensor.generate {
  ^bb0(%i: index):
    %c = arith.index_cast %i : index to i64
    %f = arith.sitofp %c : i64 to f64
    tensor.yield %f : f64
  } : tensor<3xf64>
  %r = tensor.rank %x : tensor<3xf64>
  %ri = arith.index_cast %r : index to i64
  %rf = arith.sitofp %ri : i64 to f64
  %p = tensor.mul %x, %w : tensor<3xf64>
  %s = tensor.reduce_sum %p [0] : tensor<3xf64> -> tensor<f64>
  %l = tensor.extract %s[] : tensor<f64>
  %y = arith.mulf %l, %rf : f64
  return %y : f64
}
"""
    check_grad(src, "f", ["tensor<3xf64>"], [RNG.standard_normal(3)], backend=backend)
