"""Every op of the loaded dialects has derivative rules, or is marked non-differentiable."""

import pytest

from irtoolkit.context import DIALECTS, dialect_factory
from irtoolkit.passes.ad import rules

DIFFERENTIATED = ("tensor", "arith", "math", "func", "loop", "autodiff")


@pytest.mark.parametrize("dialect", DIFFERENTIATED)
def test_every_op_has_rules_or_is_marked(dialect):
    rules.load_rules()
    missing = []
    for cls in dialect_factory(dialect)().operations:
        both = rules._lookup(rules.JVP, cls.__new__(cls)) and rules._lookup(rules.VJP, cls.__new__(cls))
        marked = any(c in rules.NONDIFF or c in rules.STRUCTURAL or c in rules.UNSUPPORTED for c in cls.__mro__)
        if not both and not marked:
            missing.append(cls.name)
    assert not missing, f"{dialect}: ops with neither derivative rules nor a mark: {missing}"


def test_differentiable_ops_have_both_rules():
    rules.load_rules()
    assert set(rules.JVP) == set(rules.VJP)
    assert not (set(rules.JVP) & rules.NONDIFF)


def test_dialects_are_registered():
    for d in DIFFERENTIATED:
        assert d in DIALECTS
