"""verify_module makes the IsolatedFromAbove checks in its own walk (no walk
of each isolated op's body in the trait); it reports what the plain walk
(the trait's check at the isolated op, before its body) reports."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import Float32Type

import irtoolkit as irt
from irtoolkit.diagnostics import DiagnosticError
from irtoolkit.verifier import _walk, verify_module

PROGRAM = """\
func.func @g(%a: f64) -> f64 {
  %c = arith.constant 1.0 : f64
  func.return %c : f64
}
func.func @f(%a: f64, %b: f64) -> f64 {
  %s = arith.addf %a, %b : f64
  %t = arith.mulf %s, %b : f64
  %p = arith.cmpf olt, %s, %t : f64
  %u = loop.if %p -> (f64) {
    loop.yield %s : f64
  } else {
    loop.yield %t : f64
  }
  func.return %u : f64
}
"""


def _ops(module):
    return {op.name: op for op in module.walk()}


def _errors(module) -> tuple[str, str]:
    """verify_module's error and the plain walk's."""
    with pytest.raises(DiagnosticError) as folded:
        verify_module(module)
    with pytest.raises(DiagnosticError) as plain:
        _walk(module, None, fold_isolation=False)
    return str(folded.value), str(plain.value)


def _outside_value(module):
    return module.body.block.first_op.body.block.args[0]  # @g's %a


@pytest.mark.parametrize("where", ["top", "nested"])
def test_a_use_from_outside_an_isolated_op_is_reported_at_it(where):
    module = irt.parse(PROGRAM)
    verify_module(module)
    user = _ops(module)["arith.mulf" if where == "top" else "loop.yield"]
    user.operands[0] = _outside_value(module)
    folded, plain = _errors(module)
    assert folded == plain
    assert "Operation using value defined out of its IsolatedFromAbove parent" in folded
    assert ":5:1:" in folded  # at @f


def test_the_isolation_error_comes_before_an_earlier_op_s_own():
    module = irt.parse(PROGRAM)
    ops = _ops(module)
    ops["arith.addf"].results[0]._type = Float32Type()  # an error before the use from outside
    ops["loop.yield"].operands[0] = _outside_value(module)
    folded, plain = _errors(module)
    assert folded == plain and "IsolatedFromAbove parent" in folded


def test_an_erased_operand_is_reported_as_the_plain_walk_does():
    module = irt.parse(PROGRAM)
    ops = _ops(module)
    constant = ops["arith.constant"]
    constant.detach()
    constant.erase(safe_erase=False)  # its use in @g's return is left dangling
    folded, plain = _errors(module)
    assert folded == plain


def test_uses_across_blocks_inside_an_isolated_op_verify():
    verify_module(irt.parse("""\
func.func @f(%a: f64, %p: i1) -> f64 {
  %s = arith.addf %a, %a : f64
  cf.cond_br %p, ^b1, ^b2
^b1:
  func.return %s : f64
^b2:
  %t = arith.mulf %s, %a : f64
  func.return %t : f64
}
"""))
