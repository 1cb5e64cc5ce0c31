"""Every op of the loaded dialects has derivative rules, or is marked non-differentiable."""

import pytest

from irtoolkit.context import DIALECTS, dialect_factory
from irtoolkit.passes.ad import rules

DIFFERENTIATED = ("tensor", "arith", "math", "func", "loop", "autodiff")


def _classes(dialects=DIFFERENTIATED):
    return [cls for d in dialects for cls in dialect_factory(d)().operations]


def _marked(cls) -> bool:
    return rules.is_nondiff(cls) or rules.is_structural(cls) or any(c in rules.UNSUPPORTED for c in cls.__mro__)


@pytest.mark.parametrize("dialect", DIFFERENTIATED)
def test_every_op_has_rules_or_is_marked(dialect):
    missing = [cls.name for cls in dialect_factory(dialect)().operations
               if not (rules.jvp_rule(cls) and rules.vjp_rule(cls)) and not _marked(cls)]
    assert not missing, f"{dialect}: ops with neither derivative rules nor a mark: {missing}"


def test_differentiable_ops_have_both_rules():
    """A JVP rule without a VJP rule (or the reverse) is a registration that was
    forgotten; a rule on an op marked non-differentiable is never used."""
    one_sided = [cls.name for cls in _classes() if (rules.jvp_rule(cls) is None) != (rules.vjp_rule(cls) is None)]
    assert not one_sided, f"ops with a JVP or a VJP rule only: {one_sided}"
    both_ways = [cls.name for cls in _classes() if rules.is_nondiff(cls) and rules.jvp_rule(cls) is not None]
    assert not both_ways, f"ops with derivative rules that are marked non-differentiable: {both_ways}"


def test_one_sided_registration_is_caught(monkeypatch):
    """The check above can fail: an op given only a JVP rule is reported."""
    from xdsl.dialects import math

    monkeypatch.setitem(rules.JVP, math.IPowIOp, lambda *a: [None])
    monkeypatch.setattr(rules, "NONDIFF", rules.NONDIFF - {math.IPowIOp})
    with pytest.raises(AssertionError, match="math.ipowi"):
        test_differentiable_ops_have_both_rules()


def test_dialects_are_registered():
    for d in DIFFERENTIATED:
        assert d in DIALECTS
