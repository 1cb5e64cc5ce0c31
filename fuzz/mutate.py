#!/usr/bin/env python
"""Mutation fuzzing of ``irt-opt`` and ``irt-run``.

Seeds are the valid programs of the repository (``test/**/*.mlir`` chunks
without RUN/CHECK comments and without ``expected-error``, ``examples/*.mlir``).
Each case is a seed with a few random mutations (lines dropped, duplicated,
swapped, truncation, tokens replaced by other op names, types, huge or
negative numbers, deep nesting, unbalanced brackets, garbage and non-UTF-8
bytes, consistent type/shape substitutions, sizes near 2^63/2^64, integer
division by zero, loop steps of zero or less ...). Every case goes through the
selected pipelines:

  parse     irt-opt FILE                            (parse + verify + print)
  ad-llvm   irt-opt FILE -p ad,lower-to-llvm        (only if it parses)
  llvm-ir   irt-opt FILE -p ad,lower-to-llvm --emit llvm
  interp    irt-run FILE --interpret -e F -i ...    (random inputs of the signature)
  jit       irt-run FILE -e F -i ...
  diff      interpret vs compile, results compared  (API, in the worker)

The tools run in persistent worker processes (in-process calls of the CLI
``main``), restarted after a crash, a hang (per-case timeout) or every few
hundred cases; a worker has a memory rlimit, so a runaway allocation is a
MemoryError and not an OOM kill of the machine.

Classes: ``ok`` (exit 0), ``diag`` (exit 1, first line ``file:line:col:
error:`` or ``error:``, no traceback), and ``BAD``: a traceback, an
``internal error``, a pass that failed with a Python exception, invalid IR
after a pass, a signal, a hang, an exit code other than 0/1, a badly formed
diagnostic (and for ``diff``: results that disagree). Every BAD case is saved
(``--save DIR``, by default a fresh temp dir) with a line-reduced input.

  python fuzz/mutate.py --cases 500 --seed 1
  python fuzz/mutate.py --cases 2000 --seed 7 --pipelines parse,ad-llvm --jobs 2
  python fuzz/mutate.py --replay FILE --pipelines ad-llvm   # classify one file
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import random
import re
import select
import signal
import struct
import subprocess
import sys
import shutil
import tempfile
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ALL_PIPELINES = ("parse", "ad-llvm", "llvm-ir", "interp", "jit", "diff")
DEFAULT_PIPELINES = ("parse", "ad-llvm", "interp")
# pipelines other than parse run only on cases that parse; interp/jit/diff only
# on a fraction of them (they are slower)
SAMPLE_RATE = {"parse": 1.0, "ad-llvm": 1.0, "llvm-ir": 0.5, "interp": 0.3, "jit": 0.15, "diff": 0.2}

# ---------------------------------------------------------------------------
# seeds

_SPLIT = re.compile(r"^[ \t]*// -----[ \t]*$", re.M)
_EXPECT = re.compile(r"expected-(error|warning|note|remark)")


def load_seeds(root: Path = ROOT, with_py: bool = True) -> list[str]:
    """RUN-free bodies of the repository's valid programs (tests, examples, fuzz/seeds), one per split chunk."""
    files = (sorted((root / "test").rglob("*.mlir")) + sorted((root / "examples").glob("*.mlir"))
             + sorted((root / "fuzz" / "seeds").glob("*.mlir")))
    seeds: list[str] = []
    seen: set[str] = set()
    for path in files:
        if "fuzz" in path.parts and "crashes" in path.parts:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for chunk in _SPLIT.split(text):
            if _EXPECT.search(chunk):
                continue
            lines = [ln for ln in chunk.splitlines() if not ln.lstrip().startswith("//")]
            body = "\n".join(lines).strip("\n")
            if not body.strip() or body in seen:
                continue
            seen.add(body)
            seeds.append(body + "\n")
    if with_py:  # MLIR held in plain string constants of the pytest files
        import ast

        for path in sorted((root / "test").rglob("*.py")):
            if "fuzz" in path.parts or "reliability" in path.parts:
                continue
            try:
                tree = ast.parse(path.read_text(encoding="utf-8"))
            except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
                continue
            for node in ast.walk(tree):
                if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                        and "func.func" in node.value and "expected-error" not in node.value
                        and node.value not in seen):
                    seen.add(node.value)
                    seeds.append(node.value.strip("\n") + "\n")
    return seeds


# ---------------------------------------------------------------------------
# mutations (on text; a few produce bytes at the very end)

def _tensor_ops() -> tuple[list[str], list[str], list[str]]:
    """The `tensor` dialect's unary and binary elementwise ops and all its ops, from its
    registry: an op added there is fuzzed without editing this file."""
    from irtoolkit.dialects import tensor

    return ([c.name for c in tensor.UNARY_OPS], [c.name for c in tensor.BINARY_OPS],
            sorted(c.name for c in tensor.Tensor.operations))


UNARY_TENSOR_OPS, BINARY_TENSOR_OPS, TENSOR_OPS = _tensor_ops()

OP_NAMES = [
    *TENSOR_OPS,
    "loop.for", "loop.if", "loop.while", "loop.yield", "loop.condition", "loop.parallel", "loop.reduce",
    "autodiff.grad", "autodiff.value_and_grad", "autodiff.vjp", "autodiff.jvp", "autodiff.stop_gradient",
    "arith.addf", "arith.mulf", "arith.subf", "arith.divf", "arith.addi", "arith.muli", "arith.constant",
    "arith.cmpf", "arith.cmpi", "arith.select", "arith.index_cast", "arith.sitofp", "arith.fptosi",
    "arith.maximumf", "arith.negf", "arith.extf", "arith.truncf", "math.exp", "math.log", "math.tanh",
    "math.sqrt", "math.powf", "math.absf", "func.call", "func.return", "func.func", "memref.alloc",
    "memref.load", "memref.store", "memref.dealloc", "cf.br", "cf.cond_br", "scf.for", "scf.yield",
    "llvm.return", "llvm.call", "llvm.load", "builtin.module", "builtin.unrealized_conversion_cast",
]
TYPES = [
    "f32", "f64", "f16", "bf16", "i1", "i8", "i32", "i64", "index", "none", "tuple<>", "complex<f32>",
    "tensor<f32>", "tensor<f64>", "tensor<4xf32>", "tensor<4xf64>", "tensor<3xf64>", "tensor<0xf64>",
    "tensor<?xf64>", "tensor<?x?xf32>", "tensor<2x3xf32>", "tensor<3x2xf64>", "tensor<4xi1>",
    "tensor<4xi32>", "tensor<4xindex>", "tensor<*xf32>", "tensor<100000000000xf32>",
    "tensor<1x1x1x1x1x1x1x1x1x1xf64>", "tensor<4xtensor<4xf32>>", "tensor<4x!llvm.ptr>",
    "memref<4xf32>", "memref<?xf64>", "vector<4xf32>", "!llvm.ptr", "tensor<-1xf32>",
    "tensor<9223372036854775807xf64>", "tensor<4xf32, 1 : i64>", "(f32) -> f32",
]
NUMBERS = [
    "0", "-1", "1", "2", "-0.0", "1e309", "-1e309", "nan", "inf", "0x7FC00000", "0xFFFFFFFFFFFFFFFFFF",
    "9223372036854775807", "9223372036854775808", "-9223372036854775809", "100000000000", "4294967296",
    "18446744073709551616", "1.0e-320", "3.5", "-7", "65536", "123456789012345678901234567890",
]
PUNCT = ["{", "}", "(", ")", "<", ">", "[", "]", ",", ":", "=", "->", "%", "@", "^", "\"", "x", "?", "#"]
_TOKEN = re.compile(r"%[\w.$-]+|@[\w.$-]+|\^[\w.$-]+|[A-Za-z_][\w.$]*|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|\S")
_DIMS = re.compile(r"(?<=[<x])(\d+)(?=x)")
_ELT = re.compile(r"\b(f32|f64|f16|i1|i32|i64|index)\b")
_LISTS = re.compile(r"\[(\s*-?\d+\s*(?:,\s*-?\d+\s*)*)?\]")


def _lines(text: str) -> list[str]:
    return text.split("\n")


def m_drop_line(r: random.Random, text: str, seeds: list[str]) -> str:
    ls = _lines(text)
    if len(ls) > 1:
        del ls[r.randrange(len(ls))]
    return "\n".join(ls)


def m_dup_line(r, text, seeds):
    ls = _lines(text)
    i = r.randrange(len(ls))
    ls.insert(r.randrange(len(ls) + 1), ls[i])
    return "\n".join(ls)


def m_swap_lines(r, text, seeds):
    ls = _lines(text)
    if len(ls) > 1:
        i, j = r.randrange(len(ls)), r.randrange(len(ls))
        ls[i], ls[j] = ls[j], ls[i]
    return "\n".join(ls)


def m_truncate(r, text, seeds):
    return text[: r.randrange(len(text) + 1)]


def _replace_token(r: random.Random, text: str, pick, pred=lambda t: True) -> str:
    toks = [m for m in _TOKEN.finditer(text) if pred(m.group())]
    if not toks:
        return text
    m = r.choice(toks)
    return text[: m.start()] + pick(m.group()) + text[m.end():]


def m_op_name(r, text, seeds):
    return _replace_token(r, text, lambda t: r.choice(OP_NAMES), lambda t: "." in t and t[0].isalpha())


def m_type(r, text, seeds):
    spans = [m for m in re.finditer(r"tensor<[^<>]*>|memref<[^<>]*>|\b(?:f16|f32|f64|i1|i32|i64|index)\b", text)]
    if not spans:
        return text
    m = r.choice(spans)
    return text[: m.start()] + r.choice(TYPES) + text[m.end():]


def m_number(r, text, seeds):
    return _replace_token(r, text, lambda t: r.choice(NUMBERS), lambda t: t.lstrip("-")[:1].isdigit())


def m_dim(r, text, seeds):
    """One dimension of a shape becomes 0, 1, ?, huge or negative."""
    spans = list(re.finditer(r"(?<=[<x])(\d+|\?)(?=x)", text))
    if not spans:
        return text
    m = r.choice(spans)
    return text[: m.start()] + r.choice(["0", "1", "?", "7", "100000000000", "-3", "2"]) + text[m.end():]


def m_consistent_elt(r, text, seeds):
    """Every occurrence of one element type replaced by another (often still valid)."""
    found = sorted(set(_ELT.findall(text)))
    if not found:
        return text
    old = r.choice(found)
    new = r.choice(["f32", "f64", "f16", "i1", "i32", "i64", "index"])
    return re.sub(rf"\b{old}\b", new, text)


def m_consistent_dim(r, text, seeds):
    """Every dimension N of shapes replaced by M (or ?): shapes stay consistent."""
    found = sorted(set(_DIMS.findall(text)))
    if not found:
        return text
    old = r.choice(found)
    new = r.choice(["1", "0", "2", "3", "5", "?", "64"])
    return re.sub(rf"(?<=[<x]){old}(?=x)", new, text)


def m_list(r, text, seeds):
    """A permutation / dimension / wrt list changed."""
    spans = list(_LISTS.finditer(text))
    if not spans:
        return text
    m = r.choice(spans)
    new = r.choice(["[]", "[0]", "[1]", "[0, 0]", "[1, 0]", "[2, 0, 1]", "[-1]", "[5]",
                    "[0, 1, 2, 3]", "[9223372036854775807]", "[1, 1]", "[[0, 1]]", "[[0], [1]]"])
    return text[: m.start()] + new + text[m.end():]


def m_symbol(r, text, seeds):
    syms = sorted(set(re.findall(r"@[\w.$-]+", text)))
    if not syms:
        return text
    new = r.choice(syms + ["@nonexistent", "@main", "@f"])
    return _replace_token(r, text, lambda t: new, lambda t: t.startswith("@"))


def m_ssa(r, text, seeds):
    names = sorted(set(re.findall(r"%[\w.$-]+", text)))
    if not names:
        return text
    new = r.choice(names + ["%undefined", "%0", "%arg9"])
    return _replace_token(r, text, lambda t: new, lambda t: t.startswith("%"))


def m_predicate(r, text, seeds):
    preds = ["eq", "ne", "lt", "le", "gt", "ge", "olt", "ogt", "oeq", "une", "slt", "ult", "xx", "true"]
    return _replace_token(r, text, lambda t: r.choice(preds), lambda t: t in preds)


def m_delete_token(r, text, seeds):
    return _replace_token(r, text, lambda t: "")


def m_dup_token(r, text, seeds):
    return _replace_token(r, text, lambda t: t + " " + t)


def m_punct(r, text, seeds):
    """Unbalanced brackets: a bracket or separator inserted or deleted."""
    if r.random() < 0.5:
        i = r.randrange(len(text) + 1)
        return text[:i] + r.choice(PUNCT) + text[i:]
    idx = [i for i, c in enumerate(text) if c in "{}()<>[],:="]
    if not idx:
        return text
    i = r.choice(idx)
    return text[:i] + text[i + 1:]


def m_splice(r, text, seeds):
    """Lines of another seed inserted."""
    other = _lines(r.choice(seeds))
    a = r.randrange(len(other))
    b = min(len(other), a + r.randint(1, 6))
    ls = _lines(text)
    i = r.randrange(len(ls) + 1)
    return "\n".join(ls[:i] + other[a:b] + ls[i:])


def m_nest(r, text, seeds):
    """Deep nesting: loop.if towers, nested regions, nested attribute lists or types."""
    depth = r.choice([20, 60, 150, 400, 1000, 3000])
    kind = r.randrange(4)
    if kind == 0:
        body = "".join("  loop.if %c {\n" for _ in range(depth)) + "".join("  }\n" for _ in range(depth))
        return f"func.func @main() {{\n  %c = arith.constant true\n{body}  func.return\n}}\n"
    if kind == 1:
        body = "".join('"test.op"() ({\n' for _ in range(depth)) + "".join("}) : () -> ()\n" for _ in range(depth))
        return text + "\n" + body
    if kind == 2:
        dense = "[" * depth + "1.0" + "]" * depth
        shape = "x".join(["1"] * min(depth, 300))
        return text + f"\nfunc.func @nest() -> tensor<{shape}xf64> {{\n  %0 = arith.constant dense<{dense}> : tensor<{shape}xf64>\n  func.return %0 : tensor<{shape}xf64>\n}}\n"
    inner = "f32"
    for _ in range(depth):
        inner = f"tensor<2x{inner}>" if r.random() < 0.5 else f"(i32) -> ({inner})"
    return text + f"\nfunc.func @nest(%a: {inner}) {{\n  func.return\n}}\n"


def m_huge_line(r, text, seeds):
    ls = _lines(text)
    i = r.randrange(len(ls))
    ls[i] = ls[i] * r.choice([50, 500])
    return "\n".join(ls)


def m_checkpoint(r, text, seeds):
    """Attributes the passes read: checkpoint, custom rules."""
    attr = r.choice(['{autodiff.checkpoint = "sqrt"}', "{autodiff.checkpoint = 0 : i64}",
                     "{autodiff.checkpoint = -5 : i64}", '{autodiff.checkpoint = "bogus"}',
                     "{autodiff.checkpoint = 1 : i64}", "{autodiff.checkpoint = 99999999999 : i64}"])
    ls = _lines(text)
    ends = [i for i, l in enumerate(ls) if l.strip() == "}"]
    if not ends:
        return text
    i = r.choice(ends)
    ls[i] = ls[i] + " " + attr
    return "\n".join(ls)


SAME_KIND = [
    BINARY_TENSOR_OPS,
    UNARY_TENSOR_OPS,
    ["tensor.reduce_sum", "tensor.reduce_max", "tensor.reduce_min", "tensor.reduce_prod"],
    ["tensor.reduce_window_sum", "tensor.reduce_window_max"],
    ["tensor.window_max_select", "tensor.window_max_scatter"],
    ["tensor.argmax", "tensor.argmin"],
    ["tensor.gather", "tensor.scatter", "tensor.scatter_add"],
    ["arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.maximumf", "arith.minimumf",
     "arith.maxnumf", "arith.minnumf", "arith.remf", "math.powf", "math.atan2", "math.copysign"],
    ["arith.addi", "arith.subi", "arith.muli", "arith.divsi", "arith.divui", "arith.remsi", "arith.remui",
     "arith.andi", "arith.ori", "arith.xori", "arith.shli", "arith.shrsi", "arith.shrui", "arith.maxsi",
     "arith.minsi", "arith.maxui", "arith.minui", "arith.ceildivsi", "arith.floordivsi"],
    ["math.exp", "math.log", "math.sqrt", "math.tanh", "math.sin", "math.cos", "math.absf", "math.exp2",
     "math.expm1", "math.log2", "math.log10", "math.log1p", "math.rsqrt", "math.cbrt", "math.tan",
     "math.sinh", "math.cosh", "math.asin", "math.acos", "math.atan", "math.asinh", "math.acosh",
     "math.atanh", "math.erf", "math.floor", "math.ceil", "math.round", "math.trunc", "arith.negf"],
    ["autodiff.grad", "autodiff.value_and_grad"],
    ["loop.for", "scf.for"],
]
_KIND_OF = {name: group for group in SAME_KIND for name in group}


def m_same_kind_op(r, text, seeds):
    """An op replaced by another of the same form: the program usually stays valid,
    and every rule (verifier, interpreter, lowering, derivative) gets exercised."""
    return _replace_token(r, text, lambda t: r.choice(_KIND_OF[t]), lambda t: t in _KIND_OF)


def m_float_type(r, text, seeds):
    """f64 <-> f32 <-> f16 everywhere (valid for float programs)."""
    old, new = r.sample(["f64", "f32", "f16", "bf16"], 2)
    return re.sub(rf"\b{old}\b", new, text)


#: sizes whose byte count is near or beyond what 64 bits hold (2^60 .. 2^64)
HUGE_SIZES = ["1152921504606846976", "2305843009213693952", "4611686018427387904",
              "9223372036854775807", "9223372036854775808", "18446744073709551615",
              "18446744073709551616", "4294967296x4294967296", "2147483648x2147483648x4"]


def m_size_edge(r, text, seeds):
    """A dimension of a shape, or an index constant (a dynamic size, a bound), becomes a
    size near 2^63 or 2^64: byte counts that overflow, at compile time or at run time."""
    dims = list(re.finditer(r"(?<=[<x])(\d+|\?)(?=x)", text))
    consts = list(re.finditer(r"(?<=arith\.constant )-?\d+(?= : (?:index|i64))", text))
    spans = dims + consts
    if not spans:
        return text
    m = r.choice(spans)
    new = r.choice(HUGE_SIZES)
    if m in consts:
        new = new.split("x")[0]
    return text[: m.start()] + new + text[m.end():]


_INT_BINARY_LINE = re.compile(
    r"^(\s*)(%[\w.$-]+) = arith\.(addi|subi|muli|andi|ori|xori|maxsi|minsi|divsi|remsi) "
    r"(%[\w.$-]+), (%[\w.$-]+) : (i64|i32|i8|index)\s*$", re.M)
_DIVISIONS = ["divsi", "divui", "remsi", "remui", "floordivsi", "ceildivsi", "ceildivui"]


def m_div_zero(r, text, seeds):
    """An integer op becomes a division by zero (or the minimum divided by -1)."""
    lines = list(_INT_BINARY_LINE.finditer(text))
    if not lines:
        return text
    m = r.choice(lines)
    indent, res, _, lhs, _, t = m.groups()
    op = r.choice(_DIVISIONS)
    k = r.randrange(1000)
    if r.random() < 0.7 or t == "index":
        consts = f"{indent}%dz{k} = arith.constant 0 : {t}\n"
        body = f"{indent}{res} = arith.{op} {lhs}, %dz{k} : {t}"
    else:
        lo = {"i64": -(2**63), "i32": -(2**31), "i8": -128}[t]
        consts = (f"{indent}%dm{k} = arith.constant {lo} : {t}\n"
                  f"{indent}%dn{k} = arith.constant -1 : {t}\n")
        body = f"{indent}{res} = arith.{r.choice(['divsi', 'floordivsi', 'ceildivsi'])} %dm{k}, %dn{k} : {t}"
    return text[: m.start()] + consts + body + text[m.end():]


_FOR_STEP = re.compile(r"^(\s*)(.*\b(?:loop|scf)\.for\b.*\bstep )(%[\w.$-]+)", re.M)


def m_loop_step(r, text, seeds):
    """A loop's step becomes 0 or negative: a constant, or computed so that only
    run time knows (a loop that would never end if nothing checked it)."""
    loops = list(_FOR_STEP.finditer(text))
    if not loops:
        return text
    m = r.choice(loops)
    indent, head, old = m.groups()
    k = r.randrange(1000)
    value = r.choice(["0", "-1", "-9223372036854775808"])
    if r.random() < 0.5:
        define = f"{indent}%st{k} = arith.constant {value} : index\n"
    else:  # old - old (+ value): the step is an expression, 0 or negative
        define = (f"{indent}%sz{k} = arith.subi {old}, {old} : index\n"
                  f"{indent}%sv{k} = arith.constant {value} : index\n"
                  f"{indent}%st{k} = arith.addi %sz{k}, %sv{k} : index\n")
    return text[: m.start()] + define + indent + head + f"%st{k}" + text[m.end():]


MUTATORS = [
    (m_drop_line, 6), (m_dup_line, 4), (m_swap_lines, 4), (m_truncate, 2), (m_op_name, 5), (m_type, 6),
    (m_number, 5), (m_dim, 5), (m_consistent_elt, 10), (m_consistent_dim, 10), (m_list, 4), (m_symbol, 3),
    (m_ssa, 3), (m_predicate, 2), (m_delete_token, 3), (m_dup_token, 2), (m_punct, 3), (m_splice, 3),
    (m_nest, 1), (m_huge_line, 1), (m_checkpoint, 2), (m_same_kind_op, 14), (m_float_type, 5),
    (m_size_edge, 4), (m_div_zero, 3), (m_loop_step, 3),
]


def mutate(r: random.Random, seeds: list[str]) -> tuple[bytes, str, list[str]]:
    """A mutated case: (bytes, seed text, names of the mutations applied)."""
    seed = r.choice(seeds)
    text = seed
    names: list[str] = []
    fns, weights = zip(*MUTATORS)
    for _ in range(r.choice([1, 1, 1, 2, 2, 3])):
        fn = r.choices(fns, weights)[0]
        text = fn(r, text, seeds)
        names.append(fn.__name__[2:])
    data = text.encode("utf-8")
    roll = r.random()
    if roll < 0.03:  # garbage bytes, control characters
        i = r.randrange(len(data) + 1)
        data = data[:i] + bytes(r.randrange(256) for _ in range(r.randint(1, 8))) + data[i:]
        names.append("garbage")
    elif roll < 0.05:  # invalid UTF-8
        i = r.randrange(len(data) + 1)
        data = data[:i] + r.choice([b"\xff\xfe", b"\xc3", b"\xed\xa0\x80", b"\x80"]) + data[i:]
        names.append("non-utf8")
    elif roll < 0.06:
        i = r.randrange(len(data) + 1)
        data = data[:i] + b"\x00" + data[i:]
        names.append("nul")
    return data, seed, names


# ---------------------------------------------------------------------------
# the worker: runs cases in-process, one JSON request/answer per line


def _npy_inputs(module, tmpdir: str, rng, want: str | None = None,
                public_only: bool = False) -> tuple[str, list[str]] | None:
    """Pick an entry function and write random inputs matching its signature."""
    import numpy as np
    from xdsl.dialects.builtin import MemRefType, TensorType
    from xdsl.dialects.func import FuncOp

    funcs = [op for op in module.body.block.ops if isinstance(op, FuncOp) and not op.is_declaration
             and not (public_only and op.sym_visibility is not None and op.sym_visibility.data == "private")]
    if not funcs:
        return None
    entry = (next((f for f in funcs if f.sym_name.data == want), None)
             or next((f for f in funcs if f.sym_name.data == "main"), None)
             or funcs[int(rng.integers(len(funcs)))])
    dtypes = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i1": np.bool_, "i8": np.int8,
              "i16": np.int16, "i32": np.int32, "i64": np.int64, "index": np.int64}
    paths = []
    for k, t in enumerate(entry.function_type.inputs.data):
        if isinstance(t, (TensorType, MemRefType)):
            dt = dtypes.get(str(t.element_type))
            if dt is None:
                return None
            shape = tuple(3 if d < 0 else d for d in t.get_shape())
            if np.prod(shape, dtype=np.float64) > 1e6:
                return None
            if dt is np.bool_:
                a = rng.random(shape) < 0.5 if shape else np.bool_(rng.random() < 0.5)
            elif np.issubdtype(dt, np.integer):
                a = np.asarray(rng.integers(0, 4, shape), dtype=dt)
            else:
                a = np.asarray(rng.normal(size=shape), dtype=dt)
            a = np.asarray(a, dtype=dt)
        else:
            dt = dtypes.get(str(t))
            if dt is None:
                return None
            a = np.asarray(2 if np.issubdtype(dt, np.integer) else (True if dt is np.bool_ else 0.75), dtype=dt)
        p = os.path.join(tmpdir, f"in{k}.npy")
        np.save(p, a)
        paths.append(p)
    return entry.sym_name.data, paths


_INTERNAL_PASS = re.compile(r"pass '[\w-]+' failed: \w+")


def _run_cli(main, argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    code = 0
    try:
        main(argv)
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:  # noqa: BLE001 - the CLI itself let something through
        import traceback

        err.write("Traceback (escaped the CLI):\n" + traceback.format_exc())
        code = 99
    finally:
        sys.stdout, sys.stderr = old
    return code, out.getvalue(), err.getvalue()


def _diff(path: str, text: str, rng) -> tuple[int, str, str]:
    """Interpreter against compiled code, on the same random inputs."""
    import numpy as np

    import irtoolkit
    from irtoolkit.diagnostics import DiagnosticError

    try:
        module = irtoolkit.parse(text, path)
    except DiagnosticError as e:
        return 1, "", e.format()
    with tempfile.TemporaryDirectory() as d:
        picked = _npy_inputs(module, d, rng, ENTRY[0], public_only=True)
        if picked is None:
            return 0, "skipped", ""
        name, paths = picked
        args = [np.load(p) for p in paths]
        args = [a[()] if a.ndim == 0 else a for a in args]
    try:
        want = irtoolkit.interpret(module, name, *args)
    except DiagnosticError as e:
        return 1, "", e.format()
    try:
        got = irtoolkit.compile(module)[name](*args)
    except DiagnosticError as e:
        return 1, "", e.format()
    ENTRY[0] = name
    want_t = want if isinstance(want, tuple) else (want,)
    got_t = got if isinstance(got, tuple) else (got,)
    if len(want_t) != len(got_t):
        return 3, f"[entry {name}]", f"MISMATCH: {len(want_t)} results interpreted, {len(got_t)} compiled"
    for k, (a, b) in enumerate(zip(want_t, got_t)):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape or a.dtype != b.dtype:
            return 3, f"[entry {name}]", f"MISMATCH: result {k}: interpreter {a.dtype}{a.shape}, compiled {b.dtype}{b.shape}"
        tol = 1e-3 if a.dtype in (np.float32, np.float16) else 1e-9
        if a.dtype.kind == "f":
            ok = np.allclose(a, b, rtol=tol, atol=tol, equal_nan=True)
        else:
            ok = np.array_equal(a, b)
        if not ok and re.search(r"tensor\.empty|memref\.alloc", text):
            return 0, "undefined contents (tensor.empty / memref.alloc)", ""
        if not ok:
            return 3, f"[entry {name}]", f"MISMATCH: result {k} differs: interpreter {a!r} compiled {b!r}"[:600]
    return 0, "same", ""


ENTRY: list[str | None] = [None]  # the entry function asked for (reductions keep it)


def worker_main(mem_mb: int) -> None:
    import resource

    if mem_mb > 0:
        lim = mem_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # native code writing to fd 1 cannot corrupt the protocol
    import numpy as np

    from irtoolkit.cli.opt import main as opt_main
    from irtoolkit.cli.run import main as run_main

    proto.write("ready\n")
    for line in sys.stdin:
        req = json.loads(line)
        path, pipe, debug = req.get("path", ""), req["pipeline"], req.get("debug", False)
        extra = ["--debug"] if debug else []
        t0 = time.perf_counter()
        rng = np.random.default_rng(req.get("seed", 0))
        ENTRY[0] = req.get("entry")
        if "argv" in req:  # a plain command line: {"tool": "irt-opt"|"irt-run", "argv": [...]}
            code, out, err = _run_cli(opt_main if req["tool"] == "irt-opt" else run_main, req["argv"])
        elif pipe == "parse":
            code, out, err = _run_cli(opt_main, [path, "-o", os.devnull, *extra])
        elif pipe == "ad-llvm":
            code, out, err = _run_cli(opt_main, [path, "-p", "ad,lower-to-llvm", "-o", os.devnull, *extra])
        elif pipe == "llvm-ir":
            code, out, err = _run_cli(opt_main, [path, "-p", "ad,lower-to-llvm", "--emit", "llvm",
                                                 "-o", os.devnull, *extra])
        elif pipe in ("interp", "jit"):
            code, out, err = _prepare_and_run(run_main, path, pipe, extra, rng)
        elif pipe == "diff":
            try:
                text = Path(path).read_text(encoding="utf-8")
                code, out, err = _diff(path, text, rng)
            except UnicodeDecodeError:
                code, out, err = 1, "", "error: not utf-8"
            except Exception:  # noqa: BLE001
                import traceback

                code, out, err = 98, "", "Traceback (API):\n" + traceback.format_exc()
        else:
            code, out, err = 2, "", f"error: unknown pipeline {pipe}"
        if len(err) > 30000:
            err = err[:10000] + "\n[...]\n" + err[-20000:]
        proto.write(json.dumps({"code": code, "out": out[-2000:], "err": err,
                                "secs": time.perf_counter() - t0}) + "\n")


def _prepare_and_run(run_main, path, pipe, extra, rng):
    from irtoolkit.diagnostics import DiagnosticError
    from irtoolkit.parsing import parse_module

    try:
        text = Path(path).read_text(encoding="utf-8")
        module = parse_module(text, path)
    except (DiagnosticError, UnicodeDecodeError):
        return _run_cli(run_main, [path, *extra])  # the tool reports it
    except Exception:  # noqa: BLE001 - parse crash: let the tool show it
        return _run_cli(run_main, [path, *extra])
    with tempfile.TemporaryDirectory() as d:
        picked = _npy_inputs(module, d, rng, ENTRY[0])
        if picked is None:
            return 0, "skipped", ""
        name, paths = picked
        argv = [path, "-e", name, *[x for p in paths for x in ("-i", p)], "-o", os.path.join(d, "out.npz"), *extra]
        if pipe == "interp":
            argv.append("--interpret")
        code, out, err = _run_cli(run_main, argv)
        return code, out + f"\n[entry {name}]", err


class Worker:
    """A persistent worker process; restarted after a crash, a hang or N cases."""

    def __init__(self, timeout: float, mem_mb: int, recycle: int = 300):
        self.timeout, self.mem_mb, self.recycle = timeout, mem_mb, recycle
        self.proc: subprocess.Popen | None = None
        self.served = 0
        self.restarts = 0

    def start(self) -> None:
        env = dict(os.environ, PYTHONHASHSEED="0", PYTHONFAULTHANDLER="1")
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker", "--mem-mb", str(self.mem_mb)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            cwd=str(ROOT), env=env, start_new_session=True,
        )
        self.served = 0
        line = self._readline(120)
        if line != "ready\n":
            err = self._drain_stderr()
            self.kill()
            raise RuntimeError(f"fuzz worker failed to start: {line!r}\n{err}")

    def _readline(self, timeout: float) -> str | None:
        assert self.proc and self.proc.stdout
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            return None
        return self.proc.stdout.readline()

    def _drain_stderr(self) -> str:
        if not self.proc or not self.proc.stderr:
            return ""
        chunks = []
        while True:
            r, _, _ = select.select([self.proc.stderr], [], [], 0.2)
            if not r:
                break
            data = os.read(self.proc.stderr.fileno(), 65536)
            if not data:
                break
            chunks.append(data.decode("utf-8", "replace"))
        return "".join(chunks)

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.proc.kill()
        if self.proc:
            self.proc.wait()
        self.proc = None

    def cli(self, tool: str, argv: list[str]) -> dict:
        """Run ``irt-opt``/``irt-run`` with ``argv`` in the worker: code, out, err
        (and ``signal``/``hang`` when it crashed or timed out)."""
        return self._request({"tool": tool, "argv": list(argv), "pipeline": "argv"})

    def run(self, path: str, pipeline: str, debug: bool = False, seed: int = 0, entry: str | None = None) -> dict:
        return self._request({"path": path, "pipeline": pipeline, "debug": debug, "seed": seed, "entry": entry})

    def _request(self, req: dict) -> dict:
        if self.proc is None or self.proc.poll() is not None or self.served >= self.recycle:
            self.kill()
            self.start()
            self.restarts += 1
        assert self.proc and self.proc.stdin
        t0 = time.perf_counter()
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        line = self._readline(self.timeout)
        self.served += 1
        if line is None:
            self.kill()
            return {"code": None, "hang": True, "out": "", "err": f"timeout after {self.timeout:.0f} s",
                    "secs": time.perf_counter() - t0}
        if not line:
            rc = self.proc.wait()
            err = self._drain_stderr()
            self.proc = None
            return {"code": rc, "signal": -rc if rc < 0 else None, "out": "", "err": err[-6000:],
                    "secs": time.perf_counter() - t0}
        return json.loads(line)


# ---------------------------------------------------------------------------
# classification and signatures

_DIAG_HEAD = re.compile(r"^(\S.*:\d+:\d+: )?error: ")


RUN_PIPELINES = ("interp", "jit", "diff")


def classify(res: dict, pipeline: str = "parse") -> tuple[str, str]:
    """('ok'|'diag'|'timeout'|'BAD', kind). A program that runs past the timeout
    on random inputs (interp, jit, diff) may just not terminate: 'timeout'."""
    if res.get("hang"):
        return ("timeout", "timeout") if pipeline in RUN_PIPELINES else ("BAD", "hang")
    if res.get("signal"):
        return "BAD", f"signal {signal.Signals(res['signal']).name}"
    code, err = res["code"], res["err"]
    if "MISMATCH" in err:
        return "BAD", "mismatch"
    if "Traceback" in err:
        return "BAD", "traceback"
    if "internal error" in err:
        return "BAD", "internal error"
    if _INTERNAL_PASS.search(err):
        return "BAD", "pass raised"
    if "(after pass '" in err:
        return "BAD", "invalid IR after pass"
    if code == 0:
        return "ok", "ok"
    if code != 1:
        return "BAD", f"exit {code}"
    first = err.lstrip("\n").split("\n", 1)[0]
    if _DIAG_HEAD.match(first):
        return "diag", "diag"
    return "BAD", "malformed diagnostic"


_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')
_PROJECT_DIRS = ("/irtoolkit/", "/dialects/", "/passes/", "/cli/")


def _normalize(msg: str) -> str:
    msg = re.sub(r"\S+\.mlir(:\d+:\d+)?", "FILE", msg)
    msg = re.sub(r"\"[^\"]*\"|'[^']*'", "'_'", msg)
    msg = re.sub(r"%[\w.$-]+|@[\w.$-]+", "%_", msg)
    msg = re.sub(r"0x[0-9a-fA-F]+|-?\d+(\.\d+)?", "N", msg)
    return msg[:120]


def error_line(err: str) -> str:
    """The most telling message line of a failure's stderr."""
    lines = [l for l in err.strip().splitlines() if l.strip()]
    for l in reversed(lines):
        if re.match(r"^[\w.]+(Error|Exception|Interrupt|Exit)\b", l) or l.startswith("error: internal error"):
            return l.strip()
    for l in lines:
        if "error:" in l:
            return l.strip()
    return lines[-1].strip() if lines else ""


def project_frame(err: str) -> str:
    """The innermost project frame of the first traceback printed (the root
    cause of a chain), else the innermost frame."""
    blocks = [b for b in err.split("Traceback (most recent call last):")[1:] if _FRAME.search(b)]
    frames = _FRAME.findall(blocks[0]) if blocks else []
    for f, line, fn in reversed(frames):
        if (any(d in f for d in _PROJECT_DIRS) and "/fuzz/" not in f and "/cli/" not in f
                and not f.endswith("irtoolkit/pipeline.py")):
            rel = f.split("/work/main/")[-1] if "/work/main/" in f else f
            return f"{rel}:{fn}"
    if frames:
        f, line, fn = frames[-1]
        return f"{Path(f).name}:{fn}"
    return ""


def quick_signature(pipeline: str, kind: str, err: str) -> str:
    """What a failure looks like without --debug: stage, kind, exception type."""
    m = re.search(r"pass '([\w-]+)' failed: (\w+)", err)
    if m:
        exc = f"{m.group(1)}:{m.group(2)}"
    elif re.search(r"\(after pass '([\w-]+)'\)", err):
        m = re.search(r"\(after pass '([\w-]+)'\)", err)
        exc = f"after {m.group(1)}: {_normalize(error_line(err))[:60]}"
    else:
        m = re.search(r"internal error: (\w+)|internal error \((\w+)\)", err)
        exc = (m.group(1) or m.group(2)) if m else _normalize(error_line(err))[:40]
        m = re.search(r"'([\w.]+)' op interpreter internal error", err)
        if m:
            exc = f"interpreter {m.group(1)}: {exc}"
    stage = "ad-llvm" if pipeline in ("ad-llvm", "llvm-ir") else pipeline
    return f"{stage} | {kind} | {exc}"


# ---------------------------------------------------------------------------
# reduction


def _ddmin(items: list, test, budget: int) -> tuple[list, int]:
    """Delta debugging: remove chunks of items while ``test`` holds."""
    n, tries = 2, 0
    while len(items) >= 2 and tries < budget:
        chunk = max(1, len(items) // n)
        reduced = False
        for i in range(0, len(items), chunk):
            cand = items[:i] + items[i + chunk:]
            tries += 1
            if cand and test(cand):
                items, n, reduced = cand, max(n - 1, 2), True
                break
            if tries >= budget:
                break
        if not reduced:
            if chunk == 1:
                break
            n = min(len(items), n * 2)
    return items, tries


def reduce_lines(data: bytes, still_bad, budget: int = 150) -> bytes:
    """ddmin on top-level items (a line at column 0 and its indented followers,
    so whole functions go at once), then on single lines."""
    lines = data.split(b"\n")
    groups: list[list[bytes]] = []
    for line in lines:
        if not groups or (line[:1] not in (b" ", b"\t", b"}", b"^", b")", b"") and groups[-1]):
            groups.append([line])
        else:
            groups[-1].append(line)
    join = lambda gs: b"\n".join(l for g in gs for l in g)  # noqa: E731
    groups, tries = _ddmin(groups, lambda gs: still_bad(join(gs)), budget // 3)
    lines = [l for g in groups for l in g]
    lines, more = _ddmin(lines, lambda ls: still_bad(b"\n".join(ls)), budget - tries)
    tries += more
    cand = b"\n".join(l.strip() for l in lines)
    if tries < budget and cand != b"\n".join(lines) and still_bad(cand):
        lines = cand.split(b"\n")
    return b"\n".join(lines)


# ---------------------------------------------------------------------------
# driver


@dataclass
class Stats:
    tried: Counter = field(default_factory=Counter)
    classes: dict = field(default_factory=lambda: defaultdict(Counter))
    secs: Counter = field(default_factory=Counter)
    sigs: dict = field(default_factory=dict)  # signature -> info
    lock: threading.Lock = field(default_factory=threading.Lock)


def run_campaign(args) -> Stats:
    seeds = load_seeds(with_py=not args.mlir_only)
    if not seeds:
        raise SystemExit("no seeds found")
    pipelines = [p.strip() for p in args.pipelines.split(",") if p.strip()]
    for p in pipelines:
        if p not in ALL_PIPELINES:
            raise SystemExit(f"unknown pipeline {p!r} (choose from {', '.join(ALL_PIPELINES)})")
    save = Path(args.save) if args.save else Path(tempfile.mkdtemp(prefix="irt-fuzz-"))
    save.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="irt-fuzz-cases-"))
    # compiled cases go to a campaign-private compile cache, not the user's
    os.environ.setdefault("IRT_CACHE_DIR", str(work / "irt-cache"))
    stats = Stats()
    master = random.Random(args.seed)
    cases = [(i, master.getrandbits(64)) for i in range(args.cases)]
    t_start = time.perf_counter()
    deadline = t_start + args.max_seconds if args.max_seconds else None
    queue_lock = threading.Lock()
    verbose = args.verbose

    def worker_loop(wid: int) -> None:
        w = Worker(args.timeout, args.mem_mb)
        try:
            while True:
                with queue_lock:
                    if not cases or (deadline and time.perf_counter() > deadline):
                        return
                    idx, case_seed = cases.pop(0)
                r = random.Random(case_seed)
                data, seed, names = mutate(r, seeds)
                path = work / f"case{wid}.mlir"
                path.write_bytes(data)
                parsed = False
                for p in pipelines:
                    if p != "parse" and "parse" in pipelines and not parsed:
                        continue
                    if p not in ("parse",) and len(pipelines) > 1 and r.random() > SAMPLE_RATE[p] * args.sample:
                        continue
                    res = w.run(str(path), p, seed=case_seed & 0xFFFF)
                    res["seed"] = case_seed & 0xFFFF
                    cls, kind = classify(res, p)
                    if p == "parse" and cls == "ok":
                        parsed = True
                    with stats.lock:
                        stats.tried[p] += 1
                        stats.classes[p][cls] += 1
                        stats.secs[p] += res.get("secs", 0.0)
                    if cls == "BAD":
                        handle_bad(w, p, kind, data, res, names, idx, wid)
                        path.write_bytes(data)
        finally:
            w.kill()

    def still_bad_fn(w: Worker, p: str, qsig: str, wid: int, seed: int, entry: str | None):
        rpath = work / f"reduce{wid}.mlir"

        def still_bad(cand: bytes) -> bool:
            rpath.write_bytes(cand)
            res = w.run(str(rpath), p, seed=seed, entry=entry)
            cls, kind = classify(res, p)
            return cls == "BAD" and quick_signature(p, kind, res["err"]) == qsig

        return still_bad

    def handle_bad(w: Worker, p: str, kind: str, data: bytes, res: dict, names, idx: int, wid: int) -> None:
        qsig = quick_signature(p, kind, res["err"])
        m = re.search(r"\[entry (\S+)\]", res.get("out", ""))
        entry, seed = (m.group(1) if m else None), res.get("seed", 0)
        # the traceback: re-run with --debug (hangs and signals: as they are)
        dbg = res
        if kind not in ("hang", "mismatch") and not kind.startswith("signal"):
            path = work / f"dbg{wid}.mlir"
            path.write_bytes(data)
            dbg = w.run(str(path), p, debug=True, seed=seed, entry=entry)
            if classify(dbg, p)[0] != "BAD":
                dbg = res  # flaky: keep the first answer
        frame = project_frame(dbg["err"])
        sig = f"{qsig} | {frame}"
        with stats.lock:
            known = sig in stats.sigs
            if known:
                stats.sigs[sig]["count"] += 1
                return
            stats.sigs[sig] = {"count": 1, "pipeline": p, "kind": kind, "case": idx, "mutations": names,
                               "entry": entry}
        reduced = data
        if not args.no_reduce and kind not in ("hang",):
            reduced = reduce_lines(data, still_bad_fn(w, p, qsig, wid, seed, entry), budget=args.reduce_budget)
        h = hashlib.sha1(sig.encode()).hexdigest()[:10]
        d = save / f"{p}-{h}"
        d.mkdir(parents=True, exist_ok=True)
        (d / "input.mlir").write_bytes(data)
        (d / "reduced.mlir").write_bytes(reduced)
        (d / "stderr.txt").write_text(dbg["err"])
        cmd = {"parse": "irt-opt reduced.mlir --debug",
               "ad-llvm": "irt-opt reduced.mlir -p ad,lower-to-llvm --debug",
               "llvm-ir": "irt-opt reduced.mlir -p ad,lower-to-llvm --emit llvm --debug",
               "interp": "python fuzz/mutate.py --replay reduced.mlir --pipelines interp",
               "jit": "python fuzz/mutate.py --replay reduced.mlir --pipelines jit",
               "diff": "python fuzz/mutate.py --replay reduced.mlir --pipelines diff"}[p]
        if entry and p in RUN_PIPELINES:
            cmd += f" --entry {entry}"
        (d / "info.txt").write_text(f"signature: {sig}\nmutations: {names}\ncommand: {cmd}\n"
                                    f"message: {error_line(dbg['err'])}\n")
        with stats.lock:
            stats.sigs[sig].update(dir=str(d), message=error_line(dbg["err"]),
                                   reduced=reduced.decode("utf-8", "replace"))
        if verbose:
            print(f"NEW BAD [{sig}]\n  {error_line(dbg['err'])}\n  saved {d}", flush=True)

    threads = [threading.Thread(target=worker_loop, args=(k,), daemon=True) for k in range(args.jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    shutil.rmtree(work, ignore_errors=True)
    stats.elapsed = time.perf_counter() - t_start
    stats.save = save
    return stats


def report(stats: Stats, out=sys.stdout) -> None:
    print(f"fuzzed for {stats.elapsed:.1f} s; BAD cases saved under {stats.save}", file=out)
    print(f"{'pipeline':10} {'tried':>7} {'ok':>7} {'diag':>7} {'timeout':>7} {'BAD':>5} {'s/case':>7}", file=out)
    for p, n in stats.tried.items():
        c = stats.classes[p]
        print(f"{p:10} {n:7} {c['ok']:7} {c['diag']:7} {c['timeout']:7} {c['BAD']:5} "
              f"{stats.secs[p] / max(n, 1):7.3f}", file=out)
    if stats.sigs:
        print(f"\n{len(stats.sigs)} distinct failure signature(s):", file=out)
        for sig, info in sorted(stats.sigs.items(), key=lambda kv: -kv[1]["count"]):
            print(f"- [{info['count']}x] {sig}\n    {info.get('message', '')[:300]}", file=out)
            if info.get("reduced") is not None:
                red = info["reduced"].strip("\n")
                if len(red) < 1200:
                    print("    | " + red.replace("\n", "\n    | "), file=out)
            if info.get("dir"):
                print(f"    saved: {info['dir']}", file=out)


def replay(args) -> int:
    pipelines = [p.strip() for p in args.pipelines.split(",") if p.strip()]
    w = Worker(args.timeout, args.mem_mb)
    bad = 0
    try:
        for p in pipelines:
            res = w.run(str(Path(args.replay).resolve()), p, debug=True, entry=args.entry)
            cls, kind = classify(res, p)
            bad += cls == "BAD"
            print(f"{p}: {cls} ({kind})")
            if res["err"]:
                print(res["err"].rstrip())
    finally:
        w.kill()
    return 1 if bad else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pipelines", default=",".join(DEFAULT_PIPELINES),
                    help=f"comma-separated, from {', '.join(ALL_PIPELINES)}")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per case")
    ap.add_argument("--mem-mb", type=int, default=3072, help="address-space limit of a worker")
    ap.add_argument("--save", default=None, help="directory for BAD cases (default: a new temp dir)")
    ap.add_argument("--sample", type=float, default=1.0, help="scale the sampling of slow pipelines")
    ap.add_argument("--max-seconds", type=float, default=0, help="stop starting cases after this")
    ap.add_argument("--no-reduce", action="store_true")
    ap.add_argument("--mlir-only", action="store_true",
                    help="seeds from .mlir files only (by default also MLIR strings of test/**/*.py)")
    ap.add_argument("--reduce-budget", type=int, default=120)
    ap.add_argument("--json", default=None, help="write the statistics and signatures as JSON")
    ap.add_argument("--replay", default=None, help="classify one file (with --debug output)")
    ap.add_argument("--entry", default=None, help="with --replay: the function interp/jit/diff call")
    ap.add_argument("-q", "--quiet", dest="verbose", action="store_false")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker_main(args.mem_mb)
        return 0
    if args.replay:
        return replay(args)
    stats = run_campaign(args)
    report(stats)
    if args.json:
        Path(args.json).write_text(json.dumps({
            "tried": dict(stats.tried), "classes": {p: dict(c) for p, c in stats.classes.items()},
            "signatures": stats.sigs, "elapsed": stats.elapsed}, indent=1, default=str))
    return 1 if any(c["BAD"] for c in stats.classes.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
