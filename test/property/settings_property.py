"""Budgets of the property tests.

CI (default): a few dozen programs per property, derandomized (the same
programs on every run). Full run: ``IRT_PROPERTY_EXAMPLES=1000 pytest -q
test/property`` checks at least that many programs per property;
``IRT_PROPERTY_BATCH`` sets how many programs share one module (one compile).
``IRT_PROPERTY_SEED`` (an integer) replaces derandomization by that seed,
for other programs than CI's.
"""

from __future__ import annotations

import math
import os

from hypothesis import HealthCheck, seed, settings, strategies as st

FULL = int(os.environ.get("IRT_PROPERTY_EXAMPLES", "0") or 0)
SEED = os.environ.get("IRT_PROPERTY_SEED")


def budget(ci_programs: int, ci_batch: int, full_batch: int):
    """(programs per example, programs in all, settings) for a property."""
    batch = int(os.environ.get("IRT_PROPERTY_BATCH", "0") or 0) or (full_batch if FULL else ci_batch)
    programs = FULL or ci_programs
    s = settings(
        max_examples=math.ceil(programs / batch),
        derandomize=SEED is None,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )
    return batch, programs, s


def batches(mode: str, size: int):
    """A hypothesis strategy: ``size`` programs of ``propgen``'s ``mode`` ("diff" or
    "grad"), named ``@p0`` ..., each with a seed for its inputs."""
    import propgen as pg

    @st.composite
    def draw_batch(draw):
        programs = [draw(pg.strategy(mode, name=f"p{k}")) for k in range(size)]
        seeds = [draw(st.integers(0, 2**31 - 1)) for _ in programs]
        return programs, seeds

    return draw_batch()


def seeded(f):
    """``IRT_PROPERTY_SEED``, when set, seeds the property (else: derandomized)."""
    return seed(int(SEED))(f) if SEED is not None else f
