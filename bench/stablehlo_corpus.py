"""The JAX corpus (test/frontends/stablehlo) model by model: import, differentiate with
`ad`, compile, and time the gradient against ``jax.jit(jax.grad(f))`` in the same run.

    IRT_NO_CACHE=1 python -m bench.stablehlo_corpus [--dtype f64] [--peer-python PY] [--repeat N]

Per model: ops in (operations of the export) and ops out (after
convert-stablehlo-to-tensor), modules, functions and their returns not counted;
import time (parse + convert, best of two), compile time (``@main`` and ``@grad_main`` = ``autodiff.grad`` of it,
cold: no compile cache), gradient max relative error against the stored JAX gradient
(max |g - g_jax| / max |g_jax|, worst argument), and the median time of one gradient
call, compiled, against ``jax.jit(jax.grad(loss))`` (``jax.jacfwd`` for newton_while,
as JAX cannot reverse a while_loop) run by ``--peer-python`` (a Python with JAX; the
default is ``IRT_BENCH_PEER_PYTHON``) on the stored inputs, in a separate process.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

CORPUS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                          "test", "frontends", "stablehlo")
CORPUS = os.path.join(CORPUS_DIR, "corpus")
PEER_PYTHON_ENV = "IRT_BENCH_PEER_PYTHON"
STRUCTURE = ("builtin.module", "func.func", "func.return")


def _median_call(fn, args, repeat: int) -> float:
    fn(*args)  # warm
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _stored(model: str, dtype: str):
    import numpy as np

    data = np.load(os.path.join(CORPUS, f"{model}.{dtype}.npz"))
    args = [data[f"arg{i}"] for i in range(sum(k.startswith("arg") for k in data.files))]
    wrt = [int(i) for i in data["wrt"]]
    return args, wrt, [data[f"grad{i}"] for i in range(len(wrt))], str(data["grad_mode"])


def _models() -> list[str]:
    return sorted(f.split(".")[0] for f in os.listdir(CORPUS)
                  if f.endswith(".f64.npz"))


# -- the JAX side (run by the peer Python; imports nothing of irtoolkit) ------------------

def jax_worker(dtype: str, repeat: int) -> None:
    """Prints {model: seconds per jax.jit(jax.grad(loss)) call} as JSON."""
    import jax

    jax.config.update("jax_enable_x64", dtype == "f64")
    jax.config.update("jax_platforms", "cpu")
    sys.path.insert(0, CORPUS_DIR)
    from generate import define_models

    times = {}
    for model in define_models():
        args, wrt, _, mode = _stored(model.name, dtype)
        differentiate = jax.jacfwd if mode == "jacfwd" else jax.grad
        grad = jax.jit(differentiate(model.loss, argnums=tuple(wrt)))

        def call(*a, grad=grad):
            jax.block_until_ready(grad(*a))

        times[model.name] = _median_call(call, args, repeat)
    print(json.dumps(times))


def _jax_times(peer: str | None, dtype: str, repeat: int) -> dict[str, float]:
    if not peer:
        return {}
    out = subprocess.run([peer, os.path.abspath(__file__), "--jax-worker", "--dtype", dtype,
                          "--repeat", str(repeat)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


# -- the irtoolkit side ------------------------------------------------------------------

def measure(model: str, dtype: str, repeat: int) -> dict:
    import numpy as np

    import irtoolkit as irt
    from irtoolkit.jax_export import with_grad
    from irtoolkit.runtime import clear_cache

    name = f"{model}.{dtype}.mlir"
    with open(os.path.join(CORPUS, name)) as f:
        text = f.read()
    args, wrt, expected, _ = _stored(model, dtype)
    import_time = None
    for _ in range(2):  # the best of two: the first model's first import loads the dialects
        t = time.perf_counter()
        module = irt.run_pipeline(irt.parse(text, name), "convert-stablehlo-to-tensor")
        elapsed = time.perf_counter() - t
        import_time = elapsed if import_time is None else min(import_time, elapsed)
    ops_in = sum(op.name not in STRUCTURE for op in irt.parse(text, name).walk())
    ops_out = sum(op.name not in STRUCTURE for op in module.walk())
    module = with_grad(module, wrt, filename=name)
    clear_cache()
    t = time.perf_counter()
    exe = irt.compile(module)
    compile_time = time.perf_counter() - t
    grad = exe["grad_main"]
    got = grad(*args)
    got = got if isinstance(got, tuple) else (got,)
    error = max(float(np.max(np.abs(g - e)) / max(float(np.max(np.abs(e))), 1e-300))
                for g, e in zip(got, expected))
    return {"model": model, "ops_in": ops_in, "ops_out": ops_out, "import": import_time,
            "compile": compile_time, "error": error, "grad": _median_call(grad, args, repeat)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dtype", choices=("f32", "f64"), default="f64")
    ap.add_argument("--repeat", type=int, default=20, help="gradient calls timed per model")
    ap.add_argument("--peer-python", default=os.environ.get(PEER_PYTHON_ENV),
                    help="a Python with JAX, for the jax.jit(jax.grad(f)) column")
    ap.add_argument("--jax-worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.jax_worker:
        jax_worker(args.dtype, args.repeat)
        return
    os.environ["IRT_NO_CACHE"] = "1"
    jax_times = _jax_times(args.peer_python, args.dtype, args.repeat)
    print(f"StableHLO corpus, {args.dtype}, gradient: median of {args.repeat} calls"
          + (f"; JAX by {args.peer_python}" if args.peer_python else "; no --peer-python: no JAX column"))
    header = (f"{'model':<16} {'ops in':>6} {'ops out':>7} {'import s':>8} {'compile s':>9} "
              f"{'grad rel err':>12} {'grad irt ms':>11} {'grad jax ms':>11} {'irt/jax':>7}")
    print(header)
    print("-" * len(header))
    for model in _models():
        r = measure(model, args.dtype, args.repeat)
        jax_s = jax_times.get(model)
        jax_col = f"{1e3 * jax_s:11.3f} {r['grad'] / jax_s:7.2f}" if jax_s else f"{'-':>11} {'-':>7}"
        print(f"{model:<16} {r['ops_in']:>6} {r['ops_out']:>7} {r['import']:8.3f} {r['compile']:9.2f} "
              f"{r['error']:12.1e} {1e3 * r['grad']:11.3f} {jax_col}", flush=True)


if __name__ == "__main__":
    main()
