"""`canonicalize`'s later sweeps visit only the ops near a change, and its applier
answers per op class what xDSL's asks of every op; the result must be xDSL's walker
and applier's, whose every sweep visits every op (passes/transforms/canonicalize.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker
from xdsl.transforms.dead_code_elimination import region_dce

import irtoolkit
from irtoolkit.passes.transforms.canonicalize import canonicalization_pattern

ROOT = Path(__file__).resolve().parents[3]
#: the passes before canonicalize in `ad,lower-to-llvm`
BEFORE = "ad,convert-scf-to-loop"


def _inputs() -> list[tuple[str, str, str | None]]:
    sys.path.insert(0, str(ROOT))  # the benchmark's program generator (bench/ beside test/)
    from bench.scaling import generate

    out: list[tuple[str, str, str | None]] = [
        (f"{d}/canonicalize.mlir", (ROOT / "test/dialects" / d / "canonicalize.mlir").read_text(), None)
        for d in ("loop", "tensor")
    ]
    out += [(p.name, p.read_text(), BEFORE) for p in sorted((ROOT / "bench/workloads").glob("w*.mlir"))]
    out.append(("scaling 300", generate(300), BEFORE))
    return out


def _split_lit(text: str) -> list[str]:
    """The modules of a lit file (split at `// -----`)."""
    return [part for part in text.split("// -----") if "func.func" in part or "builtin.module" in part]


INPUTS = _inputs()


@pytest.mark.parametrize("name,text,before", INPUTS, ids=[i[0] for i in INPUTS])
def test_same_result_as_full_sweeps(name: str, text: str, before: str | None):
    for part in _split_lit(text):
        try:
            ours = irtoolkit.parse(part)
        except Exception:
            continue  # (lit inputs that are meant not to parse)
        if before:
            irtoolkit.run_pipeline(ours, before)
        full = ours.clone()
        irtoolkit.run_pipeline(ours, "canonicalize")
        ours_pattern = canonicalization_pattern(irtoolkit.context())
        xdsl_pattern = GreedyRewritePatternApplier(ours_pattern.rewrite_patterns, ctx=ours_pattern.ctx,
                                                   folding_enabled=True)
        PatternRewriteWalker(xdsl_pattern, post_walk_func=region_dce).rewrite_module(full)
        assert str(ours) == str(full)
