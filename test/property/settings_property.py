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

from hypothesis import HealthCheck, settings

FULL = int(os.environ.get("IRT_PROPERTY_EXAMPLES", "0") or 0)
SEED = os.environ.get("IRT_PROPERTY_SEED")


def budget(ci_programs: int, ci_batch: int, full_batch: int):
    """(programs per example, settings) for a property."""
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
