"""``kernel.fusable`` answers by ``member_code`` (the scalar code the fusion analysis keeps
for the kernel: an op class or builder, looked up once per declaration and element kind);
it must agree with its definition: a reduction, or an elementwise op with tensors in and
out whose ``scalar_for`` is not None -- declarations that give their own ``scalar_for``
(``tensor.cmp``, ``tensor.convert``) included."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects.builtin import TensorType

import irtoolkit
from irtoolkit.dialects.elementwise import Elementwise, meaning_of
from irtoolkit.passes.lowering.kernel import fusable, is_reduction

ROOT = Path(__file__).resolve().parents[3]
MIXED = """
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>, %i: tensor<4xi32>, %p: tensor<4xi1>) -> tensor<4xi1> {
  %c = tensor.cmp gt, %a, %b : tensor<4xf32>
  %d = tensor.cmp lt, %i, %i : tensor<4xi32>
  %e = tensor.cmp eq, %p, %p : tensor<4xi1>
  %f = tensor.convert %i : tensor<4xi32> -> tensor<4xf32>
  %g = tensor.add %a, %f : tensor<4xf32>
  %h = tensor.and %c, %d : tensor<4xi1>
  %k = tensor.and %h, %e : tensor<4xi1>
  return %k : tensor<4xi1>
}
"""


def _by_definition(op) -> bool:
    if is_reduction(op):
        return True
    meaning = meaning_of(op)
    return (meaning is not None and len(op.results) == 1
            and all(isinstance(v.type, TensorType) for v in (*op.operands, *op.results))
            and meaning.scalar_for(op) is not None)


@pytest.mark.parametrize("name", ["mixed"] + [p.name for p in sorted((ROOT / "bench/workloads").glob("w*.mlir"))])
def test_fusable_is_its_definition(name: str):
    text = MIXED if name == "mixed" else (ROOT / "bench/workloads" / name).read_text()
    m = irtoolkit.parse(text)
    if name != "mixed":
        irtoolkit.run_pipeline(m, "ad,canonicalize")
    ops = list(m.walk())
    assert any(fusable(o) for o in ops)
    for op in ops:
        assert fusable(op) == _by_definition(op), op.name


def test_member_code_is_the_scalar_meaning():
    """An op class where the declaration's meaning for the element kind is one (the
    kernel builds it on the scalars), the declaration's own builder otherwise."""
    from irtoolkit.passes.lowering.kernel import REDUCTION, member_code

    m = irtoolkit.parse(MIXED)
    codes = {op.name + str(i): member_code(op) for i, op in enumerate(m.walk()) if fusable(op)}
    ops = {op.name + str(i): op for i, op in enumerate(m.walk())}
    for key, code in codes.items():
        op = ops[key]
        if is_reduction(op):
            assert code is REDUCTION
            continue
        meaning = meaning_of(op)
        counterpart = meaning.counterpart(meaning.kind(op))
        if type(meaning).scalar_for is Elementwise.scalar_for and counterpart is not None:
            assert code is counterpart, key
        else:
            assert callable(code) and not isinstance(code, type), key
    assert any(isinstance(c, type) for c in codes.values())
    assert any(not isinstance(c, type) for c in codes.values())
