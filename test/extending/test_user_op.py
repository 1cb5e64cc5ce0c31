"""An outside compiler adds ops through the public API (``irtoolkit.extend``)
without editing irtoolkit: an elementwise op declared once (softplus) and a
structural op with a rule per table (a row-wise cumulative sum), in a dialect
registered into the context. Checked: interpreter against numpy, compiled (fused
and unfused) against the interpreter, folding, and grad and jvp against finite
differences."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Dialect, Operation, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

import irtoolkit as irt
from irtoolkit import extend
from irtoolkit.pipeline import run_pipeline

# ---------------------------------------------------------------------------
# softplus(x) = log(1 + exp(x)): elementwise, one declaration


def _softplus(B, x):
    one = B.const(1.0, x.type)
    return B.emit1(math.LogOp(B.emit1(arith.AddfOp(one, B.emit1(math.ExpOp(x))))))


def _softplus_partials(D, ins, outs, need):
    (x,) = ins
    return [D.recip(D.add(D.const(1.0, x), D.exp(D.neg(x))))]  # the logistic function


@extend.elementwise(float=_softplus, numpy=lambda x: np.log(1 + np.exp(x)),
                    partials=_softplus_partials, cost=extend.Cost.EXPENSIVE)
@irdl_op_definition
class SoftplusOp(extend.UnaryElementwiseOp):
    """`%y = mydialect.softplus %x : tensor<...xf64>`"""

    name = "mydialect.softplus"


# ---------------------------------------------------------------------------
# row_cumsum(x)[i, j] = sum_{k <= j} x[i, k]: structural, one rule per table


@irdl_op_definition
class RowCumsumOp(IRDLOperation):
    """`%y = mydialect.row_cumsum %x : tensor<MxNxf64> -> tensor<MxNxf64>`"""

    name = "mydialect.row_cumsum"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue | Operation):
        super().__init__(operands=[input], result_types=[SSAValue.get(input).type])

    def verify_(self) -> None:
        if self.input.type != self.result.type or self.input.type.get_num_dims() != 2:
            raise VerifyException("expects a 2-d tensor and a result of its type")


@extend.interpreter_rule(RowCumsumOp)
def _interpret_row_cumsum(interp, op, args):
    return (np.cumsum(args[0], axis=1, dtype=args[0].dtype),)


@extend.lowering_rule(RowCumsumOp)
def _lower_row_cumsum(L, op):
    x, res = op.input, op.result
    dims = L.dims(x)
    out = L.fresh(res, dims)
    src = L.buf(x)
    zero = L.const(0.0, res.type.get_element_type())

    def row(ivs):
        def step(j, acc):
            s = L.emit1(arith.AddfOp(acc[0], L.load(src, [ivs[0], j])))
            L.store(s, out, [ivs[0], j])
            return [s]

        L.loop(L.index(0), dims[1], [zero], step)

    L.for_each(dims[:1], row)


def _jvp_row_cumsum(E, op, ins, outs, tangents):
    (t,) = tangents
    return [None if t is None else E.v(RowCumsumOp(t))]  # linear


def _vjp_row_cumsum(E, op, ins, outs, adjoints, need):
    (a,) = adjoints
    if a is None or not need[0]:
        return [None]
    # the adjoint of x[i, j] is sum_{k >= j} a[i, k] = rowsum(a) - cumsum(a) + a
    total = E.broadcast(E.reduce_sum(a, [1]), [0], a.type)
    return [E.add(E.sub(total, E.v(RowCumsumOp(a))), a)]


extend.derivatives(RowCumsumOp, jvp=_jvp_row_cumsum, vjp=_vjp_row_cumsum)

# the constant materialization lets canonicalize fold the ops with their numpy meaning
MyDialect = Dialect("mydialect", [SoftplusOp, RowCumsumOp], [], [extend.ConstantMaterialization()])


@pytest.fixture(scope="module", autouse=True)
def _registered():
    from irtoolkit.context import DIALECTS

    saved = dict(DIALECTS)
    extend.register_dialect(MyDialect)
    yield
    DIALECTS.clear()
    DIALECTS.update(saved)


# ---------------------------------------------------------------------------

T = "tensor<3x5xf64>"
PROGRAM = f"""
func.func @f(%x: {T}, %w: {T}) -> {T} {{
  %c = mydialect.row_cumsum %x : {T} -> {T}
  %s = mydialect.softplus %c : {T}
  %p = tensor.mul %s, %w : {T}
  return %p : {T}
}}
func.func @loss(%x: {T}, %w: {T}) -> f64 {{
  %p = func.call @f(%x, %w) : ({T}, {T}) -> {T}
  %r = tensor.reduce_sum %p [0, 1] : {T} -> tensor<f64>
  %e = tensor.extract %r[] : tensor<f64>
  return %e : f64
}}
func.func @grad(%x: {T}, %w: {T}) -> {T} {{
  %g = autodiff.grad @loss(%x, %w) wrt [0] : ({T}, {T}) -> {T}
  return %g : {T}
}}
func.func @jvp(%x: {T}, %w: {T}, %t: {T}) -> (f64, f64) {{
  %y, %dy = autodiff.jvp @loss(%x, %w) tangents(%t) wrt [0] : ({T}, {T}, {T}) -> (f64, f64)
  return %y, %dy : f64, f64
}}
"""
UNFUSED = "ad,convert-scf-to-loop,canonicalize,cse,lower-tensor-to-loop,lower-loop-to-cf,convert-to-llvm"
RNG = np.random.default_rng(11)
X, W, TAN = (RNG.uniform(-1, 1, (3, 5)) for _ in range(3))


def _reference(x, w):
    return np.log1p(np.exp(np.cumsum(x, axis=1))) * w


def _loss(x, w):
    return float(np.sum(_reference(x, w)))


@pytest.fixture(scope="module")
def module():
    return irt.parse(PROGRAM)


@pytest.fixture(scope="module")
def compiled(module):
    return {"fused": irt.compile(module), "unfused": irt.compile(module, pipeline=UNFUSED)}


def test_interpreter_against_numpy(module):
    np.testing.assert_allclose(irt.interpret(module, "f", X, W), _reference(X, W), rtol=1e-13)


@pytest.mark.parametrize("way", ["fused", "unfused"])
def test_compiled_against_interpreter(module, compiled, way):
    want = irt.interpret(module, "f", X, W)
    np.testing.assert_allclose(compiled[way]["f"](X, W), want, rtol=1e-13)
    np.testing.assert_allclose(compiled[way]["grad"](X, W), irt.interpret(module, "grad", X, W), rtol=1e-12)


def test_fused_lowering_takes_softplus_into_the_kernel(module):
    m = module.clone()
    run_pipeline(m, "ad,tensor-fuse")
    names = {o.name for o in m.walk()}
    assert "mydialect.softplus" not in names and "tensor.mul" not in names  # one kernel
    assert "mydialect.row_cumsum" in names  # lowered later, by its rule


def test_grad_and_jvp_against_finite_differences(module, compiled):
    eps = 1e-6
    fd = np.zeros_like(X)
    for idx in np.ndindex(X.shape):
        d = np.zeros_like(X)
        d[idx] = eps
        fd[idx] = (_loss(X + d, W) - _loss(X - d, W)) / (2 * eps)
    for grad in (irt.interpret(module, "grad", X, W), compiled["fused"]["grad"](X, W)):
        np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-8)
    fd_dir = (_loss(X + eps * TAN, W) - _loss(X - eps * TAN, W)) / (2 * eps)
    for y, dy in (irt.interpret(module, "jvp", X, W, TAN), compiled["unfused"]["jvp"](X, W, TAN)):
        assert y == pytest.approx(_loss(X, W), rel=1e-13)
        assert dy == pytest.approx(fd_dir, rel=1e-6)


def test_folding_uses_the_numpy_meaning():
    m = irt.parse("""
func.func @c() -> tensor<2xf64> {
  %c = arith.constant dense<[0.0, 1.0]> : tensor<2xf64>
  %s = mydialect.softplus %c : tensor<2xf64>
  return %s : tensor<2xf64>
}""")
    run_pipeline(m, "canonicalize")
    assert "mydialect.softplus" not in {o.name for o in m.walk()}
    np.testing.assert_allclose(irt.interpret(m, "c"), np.log1p(np.exp([0.0, 1.0])), rtol=1e-15)
