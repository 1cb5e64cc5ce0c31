"""The ``xdsl.universe`` plugin: makes our own dialects (``loop``, ``autodiff``, ``stablehlo`` ...) and our passes visible to ``xdsl-opt``.

Only names that xDSL does not already have are published: a clash (``tensor``,
``canonicalize``, ``cse``, ``dce``, ``reconcile-unrealized-casts`` ...) would
make every ``xdsl-opt`` in the environment fail. Entries are factories, so
nothing of irtoolkit is imported until ``xdsl-opt`` actually uses it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.universe import Universe

from irtoolkit.context import DIALECTS, OWN_DIALECTS, PASSES, _load

# Names that xDSL owns; never published even if xDSL's own lists change.
XDSL_NAMES = frozenset({"tensor", "canonicalize", "cse", "dce", "reconcile-unrealized-casts"})


def _factory(path: str) -> Callable[[], Any]:
    return lambda: _load(path)


def _xdsl_names() -> tuple[set[str], set[str]]:
    try:
        from xdsl.dialects import get_all_dialects
        from xdsl.transforms import get_all_passes

        return set(get_all_dialects()), set(get_all_passes())
    except Exception:  # pragma: no cover - never let the plugin break xdsl-opt
        return set(), set()


def _make_universe() -> Universe:
    xdsl_dialects, xdsl_passes = _xdsl_names()
    dialects = {
        name: _factory(DIALECTS[name])
        for name in OWN_DIALECTS
        if name not in XDSL_NAMES and name not in xdsl_dialects
    }
    passes = {
        name: _factory(path)
        for name, (path, _desc) in PASSES.items()
        if name not in XDSL_NAMES and name not in xdsl_passes
    }
    return Universe(all_dialects=dialects, all_passes=passes)


UNIVERSE = _make_universe()
