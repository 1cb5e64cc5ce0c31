"""Dead-code removal for passes that leave ops without uses behind.

One worklist on xDSL's ``is_trivially_dead`` (pure, unused, not a terminator):
an erased op's operands' definitions are looked at again. The whole-module
`dce` pass is xDSL's; this serves the passes that know which ops they just
made dead (a fused group's leaves, a reverse loop body, a generated function).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from xdsl.ir import Operation
from xdsl.transforms.dead_code_elimination import is_trivially_dead


def erase_dead(ops: Iterable[Operation], is_dead: Callable[[Operation], bool] = is_trivially_dead) -> int:
    """Erase the ops of ``ops`` that are dead, then the definitions this leaves dead.
    ``is_dead`` decides for an op without uses (default: pure and no terminator).
    Returns how many ops were erased."""
    work = list(ops)
    erased = 0
    while work:
        op = work.pop()
        if op.parent is None or _has_uses(op) or not is_dead(op):
            continue
        work.extend(v.owner for v in op.operands if isinstance(v.owner, Operation))
        op.detach()
        op.erase()
        erased += 1
    return erased


def _has_uses(op: Operation) -> bool:
    """Whether a result of ``op`` is used (``any(r.uses ...)`` without a use-list view per
    result: every op of a function is asked)."""
    for r in op.results:
        if r.first_use is not None:
            return True
    return False
