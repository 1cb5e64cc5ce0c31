"""irtoolkit benchmark runner: ``python -m bench [--quick] [--only W1,W3] [--repeat N]``.

It first names the machine: CPU model, vector width (cpuinfo flags and LLVM's
host features), cores, load. For every workload (see ``bench/contenders.py``)
and every available contender (irtoolkit, numpy with a hand-written gradient,
JAX jit, PyTorch eager and ``torch.compile``; JAX and PyTorch may live in
another virtualenv: ``--peer-python``) it prints one table: median forward
and gradient times in ms (the median of the least disturbed of 3 timing
rounds, and the minimum), the ratio to the fastest contender, grad/fwd, the
first gradient call in a fresh process (irtoolkit: parse + ad + lowering +
LLVM + load + call), the gradient's peak memory where the workload asks for
it (W6; ``--memory`` for all), and whether the contender's gradient agrees
with irtoolkit's (relative max-abs error, 1e-6 for f32, 1e-12 for f64;
disagreements are printed loudly). ``--background-load`` times every
contender again while another process keeps one core busy and prints the
slowdowns. Then the compile-time scaling series: generated programs of 1k,
10k, 100k ops through ``irt-opt -p ad,lower-to-llvm``, and parsing alone:
10k and 100k-op chains, 1k and 10k nested regions.

It is not part of the test suite. Exit status: 0, or 1 when a gradient
disagrees (``--strict``).
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from bench.contenders import (
    CONTENDERS,
    PEER_PYTHON_ENV,
    WORKLOADS,
    available,
    contenders_for,
    first_call,
    isolated,
    skipped_for,
)


def _err(exc: BaseException) -> str:
    msg = str(exc).strip().replace("\n", " | ")
    return f"error: {type(exc).__name__}: {msg}"[:400]


def rel_err(got, ref) -> float:
    got = np.asarray(got, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    if got.shape != ref.shape:
        return float("inf")
    scale = float(np.max(np.abs(ref))) if ref.size else 0.0
    diff = float(np.max(np.abs(got - ref))) if ref.size else 0.0
    if not np.all(np.isfinite(got)):
        return float("inf")
    return diff / scale if scale > 0 else diff


def grad_rel_err(got: tuple, ref: tuple) -> float:
    if len(got) != len(ref):
        return float("inf")
    return max(rel_err(g, r) for g, r in zip(got, ref))


def fmt_ms(s: float | None) -> str:
    return "-" if s is None else (f"{s * 1e3:.3f}" if s < 0.01 else f"{s * 1e3:.2f}")


def run_workload(w, contenders, args) -> dict:
    print(f"\n=== {w.key}: {w.title}  (wrt {list(w.wrt)}, {np.dtype(w.dtype).name}) ===", flush=True)
    rows: dict[str, dict] = {}
    for name in contenders_for(w, contenders):
        row: dict = {}
        rows[name] = row
        why = available(name) or skipped_for(name, w)
        if why is not None:
            row["skip"] = why
            continue
        res, arrays = isolated(name, w.key, args.repeat, args.budget)
        if "error" in res:
            row["error"] = "error: " + res["error"].replace("\n", " | ")[:400]
            if args.verbose and "traceback" in res:
                print(res["traceback"])
            continue
        for what in ("fwd", "grad"):
            if what in res:
                row[what] = res[what]
                row[what + "_min"] = res.get(what + "_min")
            else:
                row[what + "_error"] = "error: " + res.get(what + "_error", "?")[:200]
                if args.verbose:
                    print(res.get(what + "_traceback", ""))
        if "value" in arrays:
            row["value"] = float(arrays["value"])
        gs = sorted((k for k in arrays if k.startswith("g")), key=lambda k: int(k[1:]))
        if gs and "grad" in row:
            row["gradient"] = tuple(arrays[k] for k in gs)
        if not args.no_first_call:
            row["first"] = first_call(name, w.key)
        if w.memory or args.memory:
            mem, _ = isolated(name, w.key, "memory", args.budget)
            row["peak"] = mem.get("peak_bytes", "error: " + mem.get("error", "?")[:200])
        if args.background_load:
            from bench.machine import background_load

            with background_load():
                loaded, _ = isolated(name, w.key, args.repeat, args.budget)
            for what in ("fwd", "grad"):
                if what in loaded:
                    row[what + "_loaded"] = loaded[what]

    # gradient check against irtoolkit (numpy's hand-written one when irtoolkit failed)
    ref_name = "irtoolkit" if "gradient" in rows.get("irtoolkit", {}) else "numpy"
    ref = rows.get(ref_name, {}).get("gradient")
    ref_val = rows.get(ref_name, {}).get("value")
    alarms, warnings = [], []
    for name, row in rows.items():
        if ref is None or "gradient" not in row or name == ref_name:
            continue
        e = grad_rel_err(row["gradient"], ref)
        row["check"] = e
        row["ok"] = e <= w.rtol
        if not row["ok"]:
            alarms.append(f"{name} gradient disagrees with {ref_name}: max rel err {e:.3g} > {w.rtol:g}")
        if ref_val is not None and "value" in row:
            ve = abs(row["value"] - ref_val) / max(abs(ref_val), 1e-300)
            row["vcheck"] = ve
            if ve > w.rtol * 10:
                warnings.append(f"{name} loss value disagrees with {ref_name}: {row['value']!r} vs {ref_val!r} (rel {ve:.3g})")

    fast_g = min((r["grad"] for r in rows.values() if "grad" in r), default=None)
    fast_f = min((r["fwd"] for r in rows.values() if "fwd" in r), default=None)
    show_peak = w.memory or args.memory
    header = ["contender", "fwd ms (min)", "x fastest", "grad ms (min)", "x fastest", "grad/fwd",
              *(["grad peak MB"] if show_peak else []),
              *(["busy core: fwd, grad ms (x quiet)"] if args.background_load else []),
              "first call s (cold cache) [imports s]",
              f"grad vs {ref_name}"]
    table = []
    for name, row in rows.items():
        if "skip" in row:
            table.append([name, f"skipped: {row['skip']}"])
            continue
        if "error" in row:
            table.append([name, row["error"]])
            continue
        fwd, grad = row.get("fwd"), row.get("grad")
        first = row.get("first", {})
        if "error" in first:
            first_s = "error: " + first["error"]
        elif "first_s" in first:
            first_s = f"{first['first_s']:.3f}"
            jax_first = rows.get("jax", {}).get("first", {}).get("first_s")
            if name != "jax" and jax_first:
                first_s += f" = {first['first_s'] / jax_first:.2f}x jax"
            if "import_s" in first:
                first_s += f" [{first['import_s']:.2f}]"
            if name == "irtoolkit":
                first_s += (f" (parse {first['parse_s']:.2f} + compile {first['compile_s']:.2f}"
                            f" + call {first['call_s']:.2f})")
                if "warm_first_s" in first:
                    first_s += (f"; warm cache {first['warm_first_s']:.3f} (compile "
                                f"{first['warm_compile_s'] * 1e3:.0f} ms"
                                f"{'' if first.get('warm_from_cache') else ' NOT FROM CACHE'})")
                elif "warm_error" in first:
                    first_s += f"; warm cache error: {first['warm_error']}"
                if "lazy_first_s" in first:
                    first_s += (f"; no preload {first['lazy_first_s']:.3f}"
                                f" [{first['lazy_import_s']:.2f}]")
                elif "lazy_error" in first:
                    first_s += f"; no preload error: {first['lazy_error']}"
        else:
            first_s = "-"
        if name == ref_name:
            check = "reference"
        elif "check" in row:
            check = f"{'ok' if row['ok'] else '!! MISMATCH'} {row['check']:.1e}"
        else:
            check = "-"
        table.append([
            name,
            (f"{fmt_ms(fwd)} ({fmt_ms(row.get('fwd_min'))})" if fwd is not None
             else row.get("fwd_error", "-")),
            f"{fwd / fast_f:.2f}" if fwd is not None and fast_f else "-",
            (f"{fmt_ms(grad)} ({fmt_ms(row.get('grad_min'))})" if grad is not None
             else row.get("grad_error", "-")),
            f"{grad / fast_g:.2f}" if grad is not None and fast_g else "-",
            f"{grad / fwd:.2f}" if fwd and grad else "-",
            *([_fmt_peak(row.get("peak"))] if show_peak else []),
            *([_fmt_loaded(row)] if args.background_load else []),
            first_s,
            check,
        ])
    print_table(header, table)
    for a in alarms:
        print(f"!!!!!! GRADIENT CHECK FAILED ({w.key}): {a}", flush=True)
    for a in warnings:
        print(f"  note ({w.key}): {a}", flush=True)
    return {"rows": rows, "alarms": alarms}


def _fmt_peak(peak) -> str:
    if peak is None:
        return "-"
    return peak if isinstance(peak, str) else f"{peak / 2**20:.2f}"


def _fmt_loaded(row) -> str:
    cells = []
    for what in ("fwd", "grad"):
        quiet, loaded = row.get(what), row.get(what + "_loaded")
        cells.append("-" if quiet is None or loaded is None else f"{fmt_ms(loaded)} ({loaded / quiet:.2f}x)")
    return ", ".join(cells)


def print_table(header, table) -> None:
    widths = [len(h) for h in header]
    for r in table:
        if len(r) == len(header):
            for i, c in enumerate(r):
                widths[i] = max(widths[i], len(str(c)))
    line = "  ".join(h.ljust(widths[i]) for i, h in enumerate(header))
    print(line)
    print("-" * len(line))
    for r in table:
        if len(r) == len(header):
            print("  ".join(str(c).ljust(widths[i]) for i, c in enumerate(r)))
        else:
            print(f"{r[0].ljust(widths[0])}  {r[1]}")
    sys.stdout.flush()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="5 repetitions, scaling series 100/200 ops only (1k ops takes minutes today)")
    ap.add_argument("--only", default="", help="comma-separated workload keys (W1,W3); "
                    "'scaling' selects the compile-time series")
    ap.add_argument("--repeat", type=int, default=None, help="timed calls per measurement")
    ap.add_argument("--contenders", default=",".join(CONTENDERS))
    ap.add_argument("--no-first-call", action="store_true", help="skip the fresh-process timings")
    ap.add_argument("--no-scaling", action="store_true", help="skip the compile-time series")
    ap.add_argument("--scaling-sizes", default=None, help="e.g. 1000,10000,100000 (the default)")
    ap.add_argument("--peer-python", default=os.environ.get(PEER_PYTHON_ENV),
                    help=f"interpreter for the JAX and PyTorch contenders (a virtualenv of their own; "
                         f"default ${PEER_PYTHON_ENV}, else this one)")
    ap.add_argument("--background-load", action="store_true",
                    help="time every contender again while another process keeps one core busy")
    ap.add_argument("--memory", action="store_true",
                    help="report every workload's gradient peak memory (W6 always does)")
    ap.add_argument("--strict", action="store_true", help="exit 1 on a gradient mismatch")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    args.budget = 0.3 if args.quick else 1.5
    if args.quick and args.repeat is None:
        args.repeat = 5
    only = [k.strip().upper() for k in args.only.split(",") if k.strip()]
    keys = [k for k in WORKLOADS if not only or k in only]
    unknown = [k for k in only if k not in WORKLOADS and k != "SCALING"]
    if unknown:
        ap.error(f"unknown workload(s): {', '.join(unknown)} (known: {', '.join(WORKLOADS)})")
    contenders = [c.strip() for c in args.contenders.split(",") if c.strip()]
    if args.peer_python:
        os.environ[PEER_PYTHON_ENV] = args.peer_python  # the worker processes read it

    from bench.machine import describe

    print("irtoolkit benchmark  (ms: median of the least disturbed of 3 rounds (min); first call\n"
          "  in a fresh process, imports timed apart in [brackets]:\n  for irtoolkit `import irtoolkit; irtoolkit.preload()`, which loads its\n"
          "  compiler as `import jax` loads XLA; irtoolkit's first call with an empty compile cache,\n"
          "  then 'warm' in a second process loading it from that cache, and without preload())")
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, cpus {os.cpu_count()}; "
          + ", ".join(f"{k}={os.environ[k]}" for k in sorted(os.environ)
                      if k.startswith(("OPENBLAS", "OMP_", "MKL_"))))
    from irtoolkit.runtime.blas import blas_threads

    threads = blas_threads()
    print("irtoolkit's gemms run OpenBLAS on "
          + (f"{threads} thread(s) (IRT_BLAS_THREADS)" if threads else "its own thread count (IRT_BLAS_THREADS unset; each function that calls "
             "gemms measures which is fastest: that, one thread, or one thread and its large gemms split)")
          + "; numpy's contender on OpenBLAS's default")
    for line in describe():
        print(line)
    print("each contender is timed in its own process"
          + (f"; JAX and PyTorch run by {args.peer_python}" if args.peer_python else ""))
    for c in contenders:
        why = available(c)
        print(f"  {c}: {'available' if why is None else why}")

    alarms = []
    for k in keys:
        res = run_workload(WORKLOADS[k], contenders, args)
        alarms += res["alarms"]

    if not args.no_scaling and (not only or "SCALING" in only):
        from bench.scaling import run_parse_scaling, run_scaling

        sizes = ([int(s) for s in args.scaling_sizes.split(",")] if args.scaling_sizes
                 else [100, 200] if args.quick else [1000, 10000, 100000])
        run_scaling(sizes, timeout=120.0 if args.quick else 1800.0)
        if args.quick:
            run_parse_scaling([1000, 10000], [100, 1000])
        else:
            run_parse_scaling([10000, 100000], [1000, 10000])

    if alarms:
        print("\n!!!!!! GRADIENT DISAGREEMENTS:")
        for a in alarms:
            print("  " + a)
    return 1 if alarms and args.strict else 0


if __name__ == "__main__":
    sys.exit(main())
