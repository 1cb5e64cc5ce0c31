"""Where irtoolkit's time goes: ``python -m bench.profile [--only W1,W3] [--micro] [--dump DIR]``.

Per workload (each in a fresh process):

* first call, stage by stage: imports, parse (cold and warm), each pass of
  ``ad,lower-to-llvm``, verify-each,
  llvm dialect -> LLVM IR text (IRT_LLVM_TEXT=llvmlite: through llvmlite), LLVM parse + verify,
  LLVM O3 and codegen (groups of entry points in parallel, as the JIT), first call;
* per call: the whole Python call vs the bare native call (``ctypes`` on a
  prepared frame, results freed), i.e. native time vs Python overhead;
* what the generated code looks like: ops after bufferization (allocs, loops,
  scalar math calls), and in the optimized LLVM IR: calls by callee (scalar
  libm / intrinsics left in loops), vector instructions, malloc/free, memcpy,
  BLAS calls.

``--micro`` times single tensor ops compiled alone (per element / per flop)
against numpy, to attribute native time to op kinds. ``--dump DIR`` writes the
bufferized MLIR and the LLVM IR (before and after O3) of each workload.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path


def _median_time(fn, n=None, budget=1.0):
    from bench.contenders import measure

    return measure(fn, n, budget)[0]


# ----------------------------------------------------------------------------- one workload


def profile_one(key: str, dump: str | None = None) -> dict:
    out: dict = {"key": key}
    t0 = time.perf_counter()
    import numpy as np  # noqa: F401

    import irtoolkit
    from irtoolkit.parsing import parse_module  # noqa: F401
    import xdsl.dialects.builtin  # noqa: F401
    out["import_s"] = time.perf_counter() - t0

    from bench.contenders import WORKLOADS

    w = WORKLOADS[key]
    text = w.text()
    args = w.inputs()

    stages: list[tuple[str, float]] = []
    t = time.perf_counter()
    module = irtoolkit.parse(text, str(w.path))
    stages.append(("parse (cold: dialect loading + parse + verify)", time.perf_counter() - t))
    t = time.perf_counter()
    module = irtoolkit.parse(text, str(w.path))
    out["parse_warm_s"] = time.perf_counter() - t

    from irtoolkit.pipeline import PipelineRunner
    from irtoolkit.runtime.signature import capture_signatures
    from irtoolkit.runtime.translate import default_lowering_passes

    from irtoolkit.runtime import diskcache, executable
    from irtoolkit.runtime.caches import module_key_text

    out["opt_level"] = opt = executable.default_opt()
    t = time.perf_counter()
    key_text = module_key_text(module)
    cache_key = diskcache.make_key(key_text, None, executable.llvm_config(opt), executable.init_llvm())
    stages.append(("cache key (generic print with locations + hash; llvmlite init)",
                   time.perf_counter() - t))

    t = time.perf_counter()
    sigs = capture_signatures(module)
    work = module.clone()
    stages.append(("clone + signatures", time.perf_counter() - t))

    from irtoolkit.context import pass_class

    # the default passes (convert-to-llvm converts every dialect in one walk: one stage);
    # its parts imported first, as irt.preload() does
    from irtoolkit.passes.lowering.to_llvm import conversion_handlers

    conversion_handlers()
    expanded = list(default_lowering_passes(work))
    expanded.append(pass_class("add-jit-interface")())  # what the JIT runs after the pipeline
    snapshots: dict[str, str] = {}
    counts: dict[str, int] = {"input": _count_ops(work)}
    # verify-each (irt-opt's behaviour; the JIT verifies its input only, IRT_VERIFY_EACH=1
    # turns it on) is timed apart: what it would cost after ad, lower-tensor-to-loop,
    # lower-loop-to-cf and convert-to-llvm
    verify_after = {"ad", "lower-tensor-to-loop", "lower-loop-to-cf", "convert-to-llvm"}
    verify_each_s = 0.0
    from irtoolkit.verifier import verify_module

    t = time.perf_counter()
    verify_module(work)
    stages.append(("verify the input", time.perf_counter() - t))
    for p in expanded:
        t = time.perf_counter()
        try:
            PipelineRunner([p], verify_each=False).run(work)
        except Exception as exc:  # noqa: BLE001
            out["error"] = f"lowering failed in {p.name}: {type(exc).__name__}: {exc}"
            out["stages"] = stages
            return out
        stages.append((f"pass {p.name}", time.perf_counter() - t))
        counts[p.name] = _count_ops(work)
        if p.name == "lower-tensor-to-loop":
            snapshots["bufferized"] = str(work)
        if p.name == "ad":
            snapshots["after_ad"] = str(work)
        if p.name in verify_after:
            t = time.perf_counter()
            verify_module(work)
            verify_each_s += time.perf_counter() - t
    out["op_counts"] = counts
    out["verify_each_s"] = verify_each_s

    import llvmlite.binding as llvm

    from irtoolkit.runtime.translate import to_llvm_text

    t = time.perf_counter()
    translation = to_llvm_text(work)
    ir_text = translation.text
    how = "llvm_text" if translation.direct else "through llvmlite IR objects"
    stages.append((f"llvm dialect -> LLVM IR text (translate.to_llvm_text: {how})",
                   time.perf_counter() - t))
    from irtoolkit.abi import ENTRY_PREFIX
    from irtoolkit.runtime import codegen

    t = time.perf_counter()
    context = llvm.create_context()
    mod = llvm.parse_assembly(ir_text, context=context)
    mod.verify()
    stages.append(("LLVM parse + verify", time.perf_counter() - t))
    t = time.perf_counter()
    # what the first call builds: @grad's code only (see Executable._ensure_built)
    groups = codegen.plan(translation.graph, [ENTRY_PREFIX + "grad"],
                          1 if codegen.mutable_state(translation.llmod) else codegen.available_cores())
    level = 0 if executable.tiered() else opt  # tier 0's code generation level (see executable.py)
    built = codegen.compile_groups(llvm, ir_text, (mod, context), groups,
                                   lambda: executable.target_machine(llvm, level), opt,
                                   executable.loop_unrolling(), keep_ir=True)
    stages.append((f"LLVM optimization {executable.llvm_config(opt)} + codegen at level {level} "
                   f"of @grad's code, {len(groups)} groups in parallel", time.perf_counter() - t))
    opt_text = "\n".join(g.optimized_ir or "" for g in built)
    objects = [g.obj for g in built]
    t = time.perf_counter()
    from irtoolkit.runtime import objectfile, symbols

    symbols.resolve(llvm, objectfile.external_symbols(objectfile.read_object(o) for o in objects))
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), executable.target_machine(llvm, opt))
    for o in objects:
        engine.add_object_file(llvm.ObjectFileRef.from_data(o))
    engine.finalize_object()
    stages.append(("check and load the objects (add_object_file)", time.perf_counter() - t))
    obj = b"".join(objects)
    t = time.perf_counter()
    entry = diskcache.encode_entry(cache_key, {"profile": True}, obj, os.urandom(32))
    stages.append((f"cache entry encode ({len(entry) // 1024} KiB; write not timed)",
                   time.perf_counter() - t))
    out["llvm_lines"] = ir_text.count("\n")
    out["llvm_opt_lines"] = opt_text.count("\n")
    del engine

    # the real executable (own compile, so the call path is the production one)
    from irtoolkit.runtime.executable import Executable

    t = time.perf_counter()
    exe = Executable(_lowered(module), sigs)
    out["executable_build_s"] = time.perf_counter() - t
    exe._ensure_built(["grad"])  # (untimed: the LLVM stage above is this build)
    g = exe["grad"]
    f = exe["loss"]
    t = time.perf_counter()
    g(*args)
    stages.append(("first grad call", time.perf_counter() - t))
    exe.optimize()  # the per-call times below: the steady state, after the tier-up
    out["stages"] = stages
    out["first_total_s"] = sum(s for _, s in stages)

    # per call: whole call vs native call
    out["call"] = {}
    for fname, fn in (("loss", f), ("grad", g)):
        whole = _median_time(lambda: fn(*args))
        native = _native_time(fn, args)
        out["call"][fname] = {"whole_s": whole, "native_s": native}

    # the code
    out["bufferized"] = _mlir_stats(snapshots.get("bufferized", ""))
    out["llvm"] = _llvm_stats(opt_text)
    if dump:
        d = Path(dump)
        d.mkdir(parents=True, exist_ok=True)
        (d / f"{key}.after_ad.mlir").write_text(snapshots.get("after_ad", ""))
        (d / f"{key}.bufferized.mlir").write_text(snapshots.get("bufferized", ""))
        (d / f"{key}.ll").write_text(ir_text)
        (d / f"{key}.O3.ll").write_text(opt_text)
    return out


WARM_SCRIPT = r"""
import json, sys, time
t = time.perf_counter()
import numpy as np
import irtoolkit
from bench.contenders import WORKLOADS
out = {"import_s": time.perf_counter() - t}
w = WORKLOADS[sys.argv[1]]
args = w.inputs()
text = w.text()
t0 = time.perf_counter()
if sys.argv[2] == "text":  # irtoolkit.compile(text): parses only on a cache miss
    t1 = t0
    exe = irtoolkit.compile(text, filename=str(w.path))
else:
    m = irtoolkit.parse(text, str(w.path))
    t1 = time.perf_counter()
    exe = irtoolkit.compile(m)
t2 = time.perf_counter()
exe["grad"](*args)
t3 = time.perf_counter()
out.update(parse_s=t1 - t0, compile_s=t2 - t1, call_s=t3 - t2, first_s=t3 - t0,
           from_cache=bool(exe.from_cache),
           xdsl_imported=any(k.split(".")[0] == "xdsl" for k in sys.modules))
print("@@RESULT@@" + json.dumps(out))
"""


def end_to_end(key: str, root: Path, env: dict) -> list[dict]:
    """The production path (irtoolkit.parse + irtoolkit.compile + first call) in
    fresh processes sharing a fresh cache directory: cold, then warm; then
    ``irtoolkit.compile(text)`` (cold for its source key, then warm: no parse)."""
    import tempfile

    res = []
    with tempfile.TemporaryDirectory(prefix="irt-profile-cache-") as d:
        env = dict(env, IRT_CACHE_DIR=d)
        env.pop("IRT_NO_CACHE", None)
        for mode in ("module", "module", "text", "text"):
            proc = subprocess.run([sys.executable, "-c", WARM_SCRIPT, key, mode], capture_output=True,
                                  text=True, cwd=root, env=env, timeout=1200)
            line = next((x for x in proc.stdout.splitlines() if x.startswith("@@RESULT@@")), None)
            if line is None:
                res.append({"error": (proc.stderr.strip().splitlines() or ["?"])[-1]})
            else:
                res.append(json.loads(line[len("@@RESULT@@"):]))
    return res


def _lowered(module):
    from irtoolkit.pipeline import verify_each_default
    from irtoolkit.runtime.translate import lower_module

    with verify_each_default(False):
        return lower_module(module, None)


def _count_ops(m) -> int:
    return sum(1 for _ in m.walk())


def _native_time(fn, args) -> float | None:
    """Median time of the bare native call on a prepared frame (results freed)."""
    from irtoolkit.runtime.calling import DEAD_POINTER, _free

    try:
        fn(*args)  # prepares the thread-local frame with the argument descriptors
        tls = fn._tls
        frame, ptr, cfunc = tls.frame, tls.ptr, fn._cfunc
        inputs = {int(frame[w]) & ((1 << 64) - 1) for s, w, _ in fn._in_plan if s.is_array}
        outs = [w for s, w in fn._out_plan if s.is_array]

        def call():
            cfunc(ptr)
            seen = set()
            for w in outs:
                p = int(frame[w]) & ((1 << 64) - 1)
                if p and p != DEAD_POINTER and p not in inputs and p not in seen:
                    seen.add(p)
                    _free(p)
        return _median_time(call)
    except Exception:  # noqa: BLE001
        return None


_MATH = re.compile(r"\b(math\.\w+)")


def _mlir_stats(text: str) -> dict:
    c = Counter()
    for line in text.splitlines():
        s = line.strip()
        m = re.match(r"(?:%[\w#:, %]+ = )?\"?([a-z_]+\.[a-z_.]+)", s)
        if m:
            c[m.group(1)] += 1
    keep = {k: v for k, v in c.items()
            if k.startswith(("memref.alloc", "memref.dealloc", "memref.copy", "loop.", "math.", "func.call"))}
    return dict(sorted(keep.items()))


_CALL = re.compile(r"call [^@]*@\"?([\w.$]+)\"?\(")


def _llvm_stats(text: str) -> dict:
    calls = Counter(_CALL.findall(text))
    vec = len(re.findall(r"<\d+ x (?:double|float)>", text))
    return {
        "calls": dict(sorted(calls.items())),
        "vector_type_mentions": vec,
        "fadd_reduction_vectorized": "llvm.vector.reduce.fadd" in text,
        "blas": sorted(k for k in calls if "gemm" in k or "gemv" in k),
        "defines": len(re.findall(r"^define ", text, re.M)),
    }


# ----------------------------------------------------------------------------- micro


MICRO = [
    # (label, mlir body builder, numpy equivalent, elements or flops, unit)
    ("exp 1e6 f64", "tensor.exp", 1_000_000, "f64"),
    ("tanh 1e6 f64", "tensor.tanh", 1_000_000, "f64"),
    ("sin 1e6 f64", "tensor.sin", 1_000_000, "f64"),
    ("mul 1e6 f64", "tensor.mul", 1_000_000, "f64"),
    ("reduce_sum 1e6 f64", "tensor.reduce_sum", 1_000_000, "f64"),
    ("exp 1e6 f32", "tensor.exp", 1_000_000, "f32"),
    ("matmul 512 f32", "tensor.matmul", 512, "f32"),
    ("matmul 128x128 @ 128x1 f64", "matvec", 128, "f64"),
]


def micro() -> list[dict]:
    import numpy as np

    import irtoolkit

    rows = []
    for label, op, n, et in MICRO:
        dt = np.float64 if et == "f64" else np.float32
        rng = np.random.default_rng(0)
        if op == "tensor.matmul":
            ty = f"tensor<{n}x{n}x{et}>"
            text = (f"func.func @f(%a: {ty}, %b: {ty}) -> {ty} {{\n"
                    f"  %c = tensor.matmul %a, %b : ({ty}, {ty}) -> {ty}\n  func.return %c : {ty}\n}}")
            a = rng.standard_normal((n, n)).astype(dt)
            b = rng.standard_normal((n, n)).astype(dt)
            args = (a, b)
            ref = lambda: a @ b  # noqa: E731
        elif op == "matvec":
            tm, tv = f"tensor<{n}x{n}x{et}>", f"tensor<{n}x1x{et}>"
            text = (f"func.func @f(%a: {tm}, %b: {tv}) -> {tv} {{\n"
                    f"  %c = tensor.matmul %a, %b : ({tm}, {tv}) -> {tv}\n  func.return %c : {tv}\n}}")
            a = rng.standard_normal((n, n)).astype(dt)
            b = rng.standard_normal((n, 1)).astype(dt)
            args = (a, b)
            ref = lambda: a @ b  # noqa: E731
        elif op == "tensor.reduce_sum":
            ty = f"tensor<{n}x{et}>"
            text = (f"func.func @f(%a: {ty}) -> tensor<{et}> {{\n"
                    f"  %c = tensor.reduce_sum %a [0] : {ty} -> tensor<{et}>\n  func.return %c : tensor<{et}>\n}}")
            a = rng.standard_normal(n).astype(dt)
            args = (a,)
            ref = lambda: a.sum()  # noqa: E731
        elif op == "tensor.mul":
            ty = f"tensor<{n}x{et}>"
            text = (f"func.func @f(%a: {ty}, %b: {ty}) -> {ty} {{\n"
                    f"  %c = tensor.mul %a, %b : {ty}\n  func.return %c : {ty}\n}}")
            a = rng.standard_normal(n).astype(dt)
            b = rng.standard_normal(n).astype(dt)
            args = (a, b)
            ref = lambda: a * b  # noqa: E731
        else:
            ty = f"tensor<{n}x{et}>"
            text = (f"func.func @f(%a: {ty}) -> {ty} {{\n"
                    f"  %c = {op} %a : {ty}\n  func.return %c : {ty}\n}}")
            a = (rng.standard_normal(n) * 0.5).astype(dt)
            args = (a,)
            fn = getattr(np, op.split(".")[1])
            ref = lambda: fn(a)  # noqa: E731
        row = {"label": label}
        try:
            exe = irtoolkit.compile(irtoolkit.parse(text))
            f = exe["f"]
            row["irt_s"] = _median_time(lambda: f(*args))
            row["native_s"] = _native_time(f, args)
            row["numpy_s"] = _median_time(ref)
            ir = exe.optimized_llvm_ir
            row["calls"] = sorted(set(_CALL.findall(ir)) - {"f"})
            row["vectorized"] = bool(re.search(r"<\d+ x (?:double|float)>", ir))
        except Exception as exc:  # noqa: BLE001
            row["error"] = f"{type(exc).__name__}: {exc}"[:300]
        rows.append(row)
    return rows


# ----------------------------------------------------------------------------- report


def report(res: dict) -> None:
    key = res["key"]
    print(f"\n=== {key} ===")
    if "error" in res:
        print(f"  ERROR: {res['error']}")
    print(f"  imports (irtoolkit, xdsl, numpy): {res.get('import_s', 0):.3f} s; "
          f"warm re-parse {res.get('parse_warm_s', 0):.3f} s")
    total = res.get("first_total_s") or sum(s for _, s in res.get("stages", []))
    print(f"  first call, stage by stage (sum {total:.3f} s; LLVM level {res.get('opt_level')}):")
    for name, s in res.get("stages", []):
        print(f"    {s * 1e3:9.1f} ms  {100 * s / total:5.1f}%  {name}")
    if "verify_each_s" in res:
        print(f"    (verify-each, off in the JIT path -- IRT_VERIFY_EACH=1 -- would add "
              f"{res['verify_each_s'] * 1e3:.1f} ms)")
    labels = ("parse + compile, cold cache", "parse + compile, warm cache (2nd process)",
              "compile(text), 1st time", "compile(text), warm cache")
    for label, e in zip(labels, res.get("end_to_end", [])):
        if "error" in e:
            print(f"  end to end, {label}: error: {e['error']}")
            continue
        print(f"  end to end, {label}: first call {e['first_s'] * 1e3:.1f} ms = parse "
              f"{e['parse_s'] * 1e3:.1f} + compile {e['compile_s'] * 1e3:.1f} + call "
              f"{e['call_s'] * 1e3:.1f} (from cache: {e['from_cache']}; xDSL imported: "
              f"{e.get('xdsl_imported')}; imports {e['import_s'] * 1e3:.0f} ms excluded)")
    if "op_counts" in res:
        print("  op counts after each pass: " + ", ".join(f"{k} {v}" for k, v in res["op_counts"].items()))
    if "llvm_lines" in res:
        print(f"  LLVM IR: {res['llvm_lines']} lines before O3, {res['llvm_opt_lines']} after")
    for fname, c in res.get("call", {}).items():
        whole, native = c["whole_s"], c["native_s"]
        if native is None:
            print(f"  per call @{fname}: {whole * 1e3:.3f} ms (native time not measurable)")
        else:
            print(f"  per call @{fname}: {whole * 1e3:.3f} ms = native {native * 1e3:.3f} ms "
                  f"+ Python/ctypes/result wrapping {max(whole - native, 0) * 1e6:.1f} us")
    if "bufferized" in res:
        print(f"  after lower-tensor-to-loop: {res['bufferized']}")
    if "llvm" in res:
        ll = res["llvm"]
        print(f"  optimized LLVM IR: calls {ll['calls']}")
        print(f"    vector-type mentions {ll['vector_type_mentions']}, vectorized fadd reductions: "
              f"{ll['fadd_reduction_vectorized']}, BLAS calls: {ll['blas'] or 'none'}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.profile")
    ap.add_argument("--only", default="")
    ap.add_argument("--micro", action="store_true", help="also time single ops vs numpy")
    ap.add_argument("--dump", default=None, help="write bufferized MLIR and LLVM IR here")
    ap.add_argument("--one", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        res = profile_one(args.one, args.dump)
        print("@@RESULT@@" + json.dumps(res))
        return 0
    from bench.contenders import WORKLOADS

    keys = [k.strip().upper() for k in args.only.split(",") if k.strip()] or list(WORKLOADS)
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ)
    env["PYTHONPATH"] = str(root) + os.pathsep + env.get("PYTHONPATH", "")
    for k in keys:
        cmd = [sys.executable, "-m", "bench.profile", "--one", k]
        if args.dump:
            cmd += ["--dump", args.dump]
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=root, env=env, timeout=1200)
        line = next((x for x in proc.stdout.splitlines() if x.startswith("@@RESULT@@")), None)
        if line is None:
            print(f"\n=== {k} ===\n  profiler died: {(proc.stderr.strip().splitlines() or ['?'])[-1]}")
            continue
        res = json.loads(line[len("@@RESULT@@"):])
        res["end_to_end"] = end_to_end(k, root, env)
        report(res)
    if args.micro:
        print("\n=== single ops (irtoolkit compiled alone vs numpy) ===")
        for r in micro():
            if "error" in r:
                print(f"  {r['label']:28s} error: {r['error']}")
                continue
            nat = r["native_s"]
            print(f"  {r['label']:28s} irt {r['irt_s'] * 1e3:8.3f} ms (native "
                  f"{(nat or 0) * 1e3:8.3f})  numpy {r['numpy_s'] * 1e3:8.3f} ms  "
                  f"x{r['irt_s'] / r['numpy_s']:6.1f}  vectorized={r['vectorized']}  calls={r['calls']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
