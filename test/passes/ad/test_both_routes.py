"""Every program of the repository with autodiff ops goes both ways to LLVM: ``irt-opt -p
ad,lower-to-llvm`` (verifying after every pass, as mlir-opt) and ``irt.compile`` (the route
of ``irt-run``). Programs: the ``.mlir`` files under examples/, bench/workloads/ and test/
containing ``autodiff.``, split on ``// -----``, without the chunks that expect an error.
Chunks declaring external functions are not JIT-compiled (nothing to link them with)."""

from __future__ import annotations

import glob
import os
import re
import sys

import pytest

import irtoolkit as irt

sys.path.insert(0, os.path.dirname(__file__))
from adcheck import _rename  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DIRS = ("examples", "bench/workloads", "test")
EXTERNAL = re.compile(r"func\.func\s+(private\s+)?@[\w$.]+\([^)]*\)[^{\n]*$", re.M)


def programs() -> list[tuple[str, int, str]]:
    found = []
    for d in DIRS:
        for path in sorted(glob.glob(os.path.join(ROOT, d, "**", "*.mlir"), recursive=True)):
            text = open(path).read()
            if "autodiff." not in text:
                continue
            for k, chunk in enumerate(text.split("// -----")):
                # function values (func.constant) are interpreter-only: the JIT refuses them
                if "autodiff." in chunk and "expected-error" not in chunk and "func.constant" not in chunk:
                    found.append((os.path.relpath(path, ROOT), k, chunk))
    return found


PROGRAMS = programs()
IDS = [f"{p}#{k}" for p, k, _ in PROGRAMS]


def test_the_programs_are_found():
    names = {p for p, _, _ in PROGRAMS}
    assert {"examples/train_mlp.mlir", "test/passes/ad/custom_vjp.mlir", "bench/workloads/w1.mlir"} <= names


@pytest.mark.parametrize(("path", "k", "chunk"), PROGRAMS, ids=IDS)
def test_irt_opt_lowers_to_llvm(path, k, chunk, tmp_path, capsys):
    from irtoolkit.cli.opt import main

    src = tmp_path / "in.mlir"
    src.write_text(chunk)
    with pytest.raises(SystemExit) as exit_:
        main([str(src), "-p", "ad,lower-to-llvm", "-o", str(tmp_path / "out.mlir")])
    assert exit_.value.code == 0, capsys.readouterr().err
    assert "llvm.func" in (tmp_path / "out.mlir").read_text()


def _compiles(chunk: str) -> bool:
    return not EXTERNAL.search(chunk)


@pytest.fixture(scope="module")
def packed():
    """All compilable programs in one module (symbols renamed apart), compiled once."""
    chunks = [(i, c) for i, (_, _, c) in enumerate(PROGRAMS) if _compiles(c)]
    text = "\n".join(_rename(c, f"__r{i}") for i, c in chunks)
    try:
        return irt.compile(irt.parse(text, "packed.mlir"))
    except Exception:  # noqa: BLE001 -- each program then compiles alone, to name the failing one
        return None


@pytest.mark.parametrize(("path", "k", "chunk"), [p for p in PROGRAMS if _compiles(p[2])],
                         ids=[i for i, p in zip(IDS, PROGRAMS) if _compiles(p[2])])
def test_irt_compile(path, k, chunk, packed):
    if packed is None:
        irt.compile(irt.parse(chunk, path))
        return
    i = next(j for j, p in enumerate(PROGRAMS) if p[0] == path and p[1] == k)
    funcs = re.findall(r"func\.func\s+(?:public\s+)?@([\w$.]+)", chunk)
    assert funcs and all(packed[f + f"__r{i}"] is not None for f in funcs)
