"""A small, fixed-seed fuzzing campaign (the CI budget) and checks of the harness itself.

The full campaign is ``python fuzz/mutate.py --cases 2000 --seed 1``.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest

from fuzzlib import ROOT, SCRIPT, load

fz = load()


def test_seeds_are_the_repository_programs():
    seeds = fz.load_seeds(with_py=False)
    assert len(seeds) >= 10
    assert not any("expected-error" in s or "// RUN" in s or "CHECK" in s for s in seeds)
    assert any("train" in s for s in seeds), "examples/*.mlir are seeds"


def test_mutations_are_deterministic_and_varied():
    seeds = fz.load_seeds(with_py=False)
    a = [fz.mutate(random.Random(k), seeds)[0] for k in range(50)]
    b = [fz.mutate(random.Random(k), seeds)[0] for k in range(50)]
    assert a == b
    assert len(set(a)) > 40
    names = {n for k in range(400) for n in fz.mutate(random.Random(k), seeds)[2]}
    assert {"drop_line", "swap_lines", "type", "number", "nest", "garbage", "non-utf8"} <= names


@pytest.mark.parametrize("res,cls", [
    ({"code": 0, "err": ""}, "ok"),
    ({"code": 1, "err": "f.mlir:3:4: error: 'tensor.add' op bad\n  x\n  ^"}, "diag"),
    ({"code": 1, "err": "error: unknown pass 'x'"}, "diag"),
    ({"code": 1, "err": "error: internal error: KeyError: 3"}, "BAD"),
    ({"code": 1, "err": "error: pass 'ad' failed: KeyError: <Block>"}, "BAD"),
    ({"code": 1, "err": "f.mlir:1:1: error: 'func.func' op bad (after pass 'ad')"}, "BAD"),
    ({"code": 1, "err": "Traceback (most recent call last):\n  ..."}, "BAD"),
    ({"code": 1, "err": "something went wrong"}, "BAD"),
    ({"code": 2, "err": ""}, "BAD"),
    ({"code": -11, "signal": 11, "err": ""}, "BAD"),
    ({"code": None, "hang": True, "err": ""}, "BAD"),
])
def test_classification(res, cls):
    assert fz.classify(res, "parse")[0] == cls


def test_reduction_keeps_the_failure():
    text = b"\n".join(b"line %d" % i for i in range(40)) + b"\nBOOM\n" + b"tail\n" * 10
    out = fz.reduce_lines(text, lambda t: b"BOOM" in t, budget=200)
    assert out.strip() == b"BOOM"


def test_ci_budget_campaign_has_no_bad_case(tmp_path):
    """~150 cases through parse, ad+lower-to-llvm and the interpreter: no crash."""
    out = tmp_path / "stats.json"
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--cases", "150", "--seed", "20261130", "--jobs", "2",
         "--pipelines", "parse,ad-llvm,interp", "--save", str(tmp_path / "crashes"),
         "--json", str(out), "--timeout", "20", "--reduce-budget", "40", "--max-seconds", "60"],
        capture_output=True, text=True, timeout=240, cwd=ROOT,
    )
    assert out.exists(), proc.stdout[-3000:] + proc.stderr[-3000:]
    stats = json.loads(out.read_text())
    assert stats["tried"]["parse"] >= 100, stats["tried"]
    assert stats["tried"].get("ad-llvm", 0) >= 5, stats["tried"]
    bad = {p: c.get("BAD", 0) for p, c in stats["classes"].items()}
    assert not any(bad.values()), proc.stdout[-6000:]
