"""Property: the interpreter and the compiled code agree on random well-typed programs.

Programs come from ``propgen`` (tensor, loop, arith, math; f32 and f64;
loops, ifs and whiles), are printed as text and parsed by irtoolkit. Each
example is a batch of programs compiled as one module. Results must agree
bit-exactly where the model says the same operations run in the same order,
and otherwise within the model's propagated error bound (ulps for
transcendentals, ``(n - 1) eps sum |terms|`` for reductions and matmul);
the interpreter must also agree with the model's own numpy evaluation.

CI: 40 programs. Full: ``IRT_PROPERTY_EXAMPLES=1000 pytest -q test/property``.
"""

from __future__ import annotations

from hypothesis import given

import propcheck as pc
from settings_property import batches, budget, seeded

BATCH, PROGRAMS, SETTINGS = budget(ci_programs=40, ci_batch=20, full_batch=25)
STATS = pc.Stats("differential (interpreter vs compiled)")


@seeded
@SETTINGS
@given(batches("diff", BATCH))
def test_interpreter_and_compiled_agree(batch):
    programs, seeds = batch
    pc.check_differential(programs, seeds, STATS)


def test_differential_budget_was_checked():
    STATS.require_programs(PROGRAMS)
    # the generator does produce what the property claims to cover
    for op in ("loop.for", "loop.if", "loop.while", "tensor.matmul", "tensor.reduce_sum"):
        assert STATS.ops[op] > 0, f"no {op} in {STATS.c['programs']} programs"
