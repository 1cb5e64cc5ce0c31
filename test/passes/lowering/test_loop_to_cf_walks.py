"""loop_to_cf.region_ops_of_classes: the ops a walk finds, without walking the ops
without regions."""

from __future__ import annotations

from pathlib import Path

import pytest

import irtoolkit as irt
from irtoolkit.dialects import loop
from irtoolkit.passes.lowering.loop_to_cf import ops_of_classes, region_ops_of_classes

_NESTS = Path(__file__).parent / "loop_to_cf" / "loops.mlir"


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("classes", [(loop.ForOp, loop.IfOp, loop.WhileOp, loop.ParallelOp),
                                     (loop.ForOp,), (loop.IfOp,), (loop.ParallelOp,)])
def test_region_ops_of_classes_are_a_walks_in_its_order(reverse, classes):
    module = irt.parse(_NESTS.read_text())
    walked = ops_of_classes(module, classes, reverse)
    found = region_ops_of_classes(module, classes, reverse)
    assert len(found) == len(walked)
    assert all(a is b for a, b in zip(found, walked, strict=True))
    if classes[0] is loop.ForOp:
        assert len(found) > 1  # (the file nests loops: the order is tested)
