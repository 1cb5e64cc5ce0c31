"""Property: reverse mode, forward mode and central differences agree on random
differentiable programs (f64, smooth ops, loops included, scalar loss).

For each program ``@p``: ``autodiff.grad`` (``@p_g``) and ``autodiff.jvp``
(``@p_j``) along two random directions ``v``; checks, compiled and
interpreted: ``jvp(v) == grad . v`` within ``2 L eps P`` (``P`` the magnitude of the
derivative paths along ``v``, ``L`` the longest chain of roundings on them:
``propgen.Program.path_magnitude``; with cancellation ``P`` is far larger than the
derivative), compiled == interpreted (gradient and jvp to ``AD_JIT_RTOL`` = 1e-11 of
``P``; the loss within the model's propagated bound), and central differences of the compiled
loss along ``v`` (f64, ``h = 1e-6``) within ``FD_RTOL`` = 1e-6 of
``sum |grad_i v_i|`` (plus 1e-7 of the loss). Loops may carry
``autodiff.checkpoint`` (sqrt or a segment length). Central differences are
skipped (counted) for a direction when a ``loop.if`` condition is within 1e-3
of flipping.

CI: 20 programs. Full: ``IRT_PROPERTY_EXAMPLES=1000 pytest -q test/property``.
"""

from __future__ import annotations

from hypothesis import given

import propcheck as pc
from settings_property import batches, budget, seeded

BATCH, PROGRAMS, SETTINGS = budget(ci_programs=20, ci_batch=10, full_batch=25)
STATS = pc.Stats("gradients (reverse vs forward vs finite differences)")


@seeded
@SETTINGS
@given(batches("grad", BATCH))
def test_reverse_forward_and_finite_differences_agree(batch):
    programs, seeds = batch
    pc.check_gradients(programs, seeds, STATS)


def test_gradient_budget_was_checked():
    STATS.require_programs(PROGRAMS)
    assert STATS.c["directions checked"] > 0
