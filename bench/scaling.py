"""Compile-time scaling: generated programs of N ops through ``irt-opt -p ad,lower-to-llvm``.

``python -m bench.scaling [N ...]`` or via ``python -m bench --only scaling``.
The program is one long elementwise chain on a tensor<16xf64> (sin, mul, tanh,
add, cycling) ending in a reduce_sum, plus a ``@grad`` that differentiates it;
N counts the ops of ``@loss``. Reported: wall time of the whole command, the
time per input op, and the per-pass split that ``--timing`` prints.

Then parsing alone (``run_parse_scaling``, also ``python -m bench.scaling
--parse``): ``irt.parse`` (parse, then verify) of a chain of N ``arith.addf``
(10k and 100k ops) and of N nested ``loop.if`` (1k and 10k levels), CPU
seconds in a fresh process each.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
import time
from pathlib import Path

TY = "tensor<16xf64>"


def generate(n_ops: int, grad: bool = True, ty: str = TY) -> str:
    """An elementwise chain of ~n_ops ops on ``ty`` ending in a reduce_sum, and
    (when ``grad``) a ``@grad`` differentiating it. Also used by the test suite's
    compile-scaling check."""
    lines = [f"func.func @loss(%x: {ty}) -> f64 {{"]
    prev2, prev = "%x", "%x"
    for i in range(max(n_ops - 3, 1)):  # reduce_sum, extract, return
        v = f"%v{i}"
        k = i % 4
        if k == 0:
            lines.append(f"  {v} = tensor.sin {prev} : {ty}")
        elif k == 1:
            lines.append(f"  {v} = tensor.mul {prev}, %x : {ty}")
        elif k == 2:
            lines.append(f"  {v} = tensor.tanh {prev} : {ty}")
        else:
            lines.append(f"  {v} = tensor.add {prev}, {prev2} : {ty}")
        prev2, prev = prev, v
    lines.append(f"  %s = tensor.reduce_sum {prev} [0] : {ty} -> tensor<f64>")
    lines.append("  %r = tensor.extract %s[] : tensor<f64>")
    lines.append("  func.return %r : f64")
    lines.append("}")
    if grad:
        lines.append(f"func.func @grad(%x: {ty}) -> {ty} {{")
        lines.append(f"  %g = autodiff.grad @loss(%x) wrt [0] : ({ty}) -> {ty}")
        lines.append(f"  func.return %g : {ty}")
        lines.append("}")
    return "\n".join(lines) + "\n"


_TIMING_LINE = re.compile(r"^\s*([0-9.]+)\s+\(\s*[0-9.]+%\)\s+(.*?)\s*$")


def run_one(n_ops: int, pipeline: str = "ad,lower-to-llvm", timeout: float = 900.0,
            emit_llvm: bool = False) -> dict:
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / f"chain_{n_ops}.mlir"
        src.write_text(generate(n_ops))
        cmd = ["irt-opt", str(src), "-p", pipeline, "--timing", "-o", str(Path(d) / "out")]
        if emit_llvm:
            cmd += ["--emit", "llvm"]
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"n": n_ops, "error": f"timeout after {timeout:.0f} s"}
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            tail = (proc.stderr.strip().splitlines() or ["?"])[:3]
            return {"n": n_ops, "error": " | ".join(tail)[:300], "wall": wall}
        parts = {}
        for line in (proc.stderr + proc.stdout).splitlines():
            m = _TIMING_LINE.match(line)
            if m:
                parts[m.group(2)] = float(m.group(1))
        return {"n": n_ops, "wall": wall, "parts": parts}


def _short(name: str) -> str:
    if name.startswith("Parser"):
        return "parse+verify"
    if name.startswith("Verifier"):
        return "verify-each"
    m = re.search(r"\(([^)]*)\)\s*$", name)
    if m and not name.startswith("Verifier"):
        return m.group(1)
    return name.split(" (")[0].split()[0].lower()


def pass_times(n_ops: int, verify_each: bool = False) -> dict:
    """In-process: parse + each pass of ad,lower-to-llvm (+ verify-each when asked)."""
    import irtoolkit
    from irtoolkit.pipeline import PipelineRunner, build_passes
    from irtoolkit.verifier import verify_module

    t0 = time.perf_counter()
    m = irtoolkit.parse(generate(n_ops))
    parts = {"parse": time.perf_counter() - t0}
    runner = PipelineRunner(build_passes("ad,lower-to-llvm"), verify_each=False)
    vt = 0.0
    for p in runner.passes:
        t = time.perf_counter()
        PipelineRunner([p], verify_each=False).run(m)
        parts[p.name] = time.perf_counter() - t
        if verify_each:
            t = time.perf_counter()
            verify_module(m)
            vt += time.perf_counter() - t
    if verify_each:
        parts["verify-each"] = vt
    parts["total"] = sum(parts.values())
    return parts


def run_scaling(sizes: list[int], timeout: float = 600.0) -> list[dict]:
    print("\n=== compile-time scaling: irt-opt -p ad,lower-to-llvm (generated elementwise chain) ===",
          flush=True)
    results = []
    for n in sizes:
        if results and "error" in results[-1] and "timeout" in results[-1]["error"]:
            print(f"  {n:>7} ops: skipped (a smaller size timed out)", flush=True)
            continue
        r = run_one(n, timeout=timeout)
        results.append(r)
        if "error" in r:
            print(f"  {n:>7} ops: error: {r['error']}", flush=True)
            continue
        parts = r["parts"]
        split = ", ".join(f"{_short(k)} {v:.2f}" for k, v in parts.items() if not k.startswith("Total"))
        print(f"  {n:>7} ops: {r['wall']:8.2f} s wall  {r['wall'] / n * 1e3:7.3f} ms/op (target <= 0.3)   "
              f"[{split}]", flush=True)
    ok = [r for r in results if "error" not in r]
    if len(ok) >= 2:
        a, b = ok[0], ok[-1]
        growth = (b["wall"] / a["wall"]) / (b["n"] / a["n"])
        print(f"  per-op cost {a['n']}->{b['n']} ops grows x{growth:.2f} "
              f"({'~linear' if growth < 1.5 else 'SUPERLINEAR'})")
        for k in b["parts"]:
            if k in a["parts"] and a["parts"][k] > 0 and not k.startswith("Total"):
                g = (b["parts"][k] / a["parts"][k]) / (b["n"] / a["n"])
                if g > 1.5:
                    print(f"    superlinear part: {_short(k)}: per-op cost x{g:.2f}")
    return results


def run_pass_series(sizes: list[int]) -> None:
    """Per-pass times without verify-each (in this process), to expose superlinear passes."""
    print("\n=== per-pass compile time, in process, verify-each off (seconds; us/op) ===", flush=True)
    prev = None
    for n in sizes:
        parts = pass_times(n)
        cells = ", ".join(f"{k} {v:.2f}" for k, v in parts.items())
        print(f"  {n:>7} ops: {parts['total'] / n * 1e6:8.1f} us/op  [{cells}]", flush=True)
        if prev is not None:
            pn, pp = prev
            grow = {k: (parts[k] / pp[k]) / (n / pn) for k in parts if pp.get(k, 0) > 0.01}
            bad = {k: round(g, 2) for k, g in grow.items() if g > 1.4}
            if bad:
                print(f"           per-op cost growth vs {pn} ops (1.0 = linear): {bad}")
        prev = (n, parts)


def addf_chain(n: int) -> str:
    """``n`` chained scalar ``arith.addf`` (the 4.6 MB program of issue 15 at 100k)."""
    lines = ["func.func @main(%x: f64) -> f64 {"]
    prev = "%x"
    for i in range(n):
        lines.append(f"  %v{i} = arith.addf {prev}, %x : f64")
        prev = f"%v{i}"
    return "\n".join(lines + [f"  return {prev} : f64", "}"]) + "\n"


def nested_ifs(depth: int) -> str:
    """``depth`` nested ``loop.if`` with a result each."""
    s = "func.func @main(%c: i1, %x: f64) -> f64 {\n"
    s += "".join(f"  %r{i} = loop.if %c -> (f64) {{\n" for i in range(depth)) + "  loop.yield %x : f64\n"
    for i in reversed(range(depth)):
        s += "  } else {\n  loop.yield %x : f64\n  }\n" + (f"  loop.yield %r{i} : f64\n" if i else "")
    return s + "  return %r0 : f64\n}\n"


_PARSE_CHILD = """
import sys, time
from bench.scaling import addf_chain, nested_ifs
from irtoolkit.deepstack import run_with_deep_stack
from irtoolkit.parsing import parse_module
from irtoolkit.verifier import verify_module
parse_module(addf_chain(100))  # imports
text = {"chain": addf_chain, "nested": nested_ifs}[sys.argv[1]](int(sys.argv[2]))
def work():
    t = time.process_time(); m = parse_module(text, verify=False); p = time.process_time() - t
    t = time.process_time(); verify_module(m); v = time.process_time() - t
    return p, v
p, v = run_with_deep_stack(work)
print(p, v, len(text))
"""


def parse_one(kind: str, n: int, timeout: float = 900.0) -> dict:
    import sys

    root = Path(__file__).resolve().parents[1]
    try:
        proc = subprocess.run([sys.executable, "-c", _PARSE_CHILD, kind, str(n)], cwd=root,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"n": n, "error": f"timeout after {timeout:.0f} s"}
    if proc.returncode != 0:
        return {"n": n, "error": (proc.stderr.strip().splitlines() or ["?"])[-1][:300]}
    p, v, size = proc.stdout.split()
    return {"n": n, "parse": float(p), "verify": float(v), "bytes": int(size)}


def run_parse_scaling(chain_sizes: list[int], depths: list[int]) -> list[dict]:
    print("\n=== parsing: irt.parse = parse + verify (CPU seconds, fresh process each) ===", flush=True)
    results = []
    for kind, sizes, unit in (("chain", chain_sizes, "ops"), ("nested", depths, "levels")):
        what = "arith.addf chain" if kind == "chain" else "nested loop.if"
        rows = []
        for n in sizes:
            r = parse_one(kind, n)
            r["kind"] = kind
            rows.append(r)
            if "error" in r:
                print(f"  {what:>16} {n:>7} {unit}: error: {r['error']}", flush=True)
                continue
            total = r["parse"] + r["verify"]
            print(f"  {what:>16} {n:>7} {unit} ({r['bytes'] / 1e6:.1f} MB): parse {r['parse']:7.2f} s, "
                  f"verify {r['verify']:6.2f} s, {total / n * 1e6:7.1f} us per {unit[:-1]}", flush=True)
        ok = [r for r in rows if "error" not in r]
        if len(ok) >= 2:
            a, b = ok[0], ok[-1]
            growth = ((b["parse"] + b["verify"]) / (a["parse"] + a["verify"])) / (b["n"] / a["n"])
            print(f"  {what}: cost per {unit[:-1]} {a['n']}->{b['n']} grows x{growth:.2f} "
                  f"({'~linear' if growth < 1.5 else 'SUPERLINEAR'})")
        results += rows
    return results


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(prog="python -m bench.scaling")
    ap.add_argument("sizes", nargs="*", type=int)
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--passes", action="store_true",
                    help="in-process per-pass series without verify-each instead of irt-opt")
    ap.add_argument("--parse", action="store_true",
                    help="parsing alone: arith.addf chains and nested loop.if of the given sizes")
    a = ap.parse_args()
    if a.parse:
        sizes = a.sizes or [10000, 100000]
        run_parse_scaling(sizes, [s // 10 for s in sizes])
    elif a.passes:
        run_pass_series(a.sizes or [250, 500, 1000, 2000])
    else:
        run_scaling(a.sizes or [1000, 10000, 50000], a.timeout)
