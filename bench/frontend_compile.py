"""Compile time of a Python function (@irt.function) against the same program
written in IR: examples/train_mlp.py against examples/train_mlp.mlir, both
compiled cold (no disk or memory cache), best of N alternating runs.

    IRT_NO_CACHE=1 python -m bench.frontend_compile [N]
"""

import importlib.util
import os
import sys
import time
from pathlib import Path

import irtoolkit as irt
from irtoolkit.runtime import clear_cache

EXAMPLES = Path(__file__).parents[1] / "examples"


def main(n: int = 3) -> None:
    os.environ["IRT_NO_CACHE"] = "1"
    spec = importlib.util.spec_from_file_location("train_mlp", EXAMPLES / "train_mlp.py")
    py = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(py)
    text = (EXAMPLES / "train_mlp.mlir").read_text()
    args = py.data()
    irt.preload()
    same_text = py.train.mlir(*args)  # the frontend's own IR, as text: isolates the frontend's cost
    ir_times, same_times, py_times, translate_times = [], [], [], []
    for _ in range(n):
        clear_cache()
        t = time.perf_counter()
        irt.compile(irt.parse(text, "train_mlp.mlir"))
        ir_times.append(time.perf_counter() - t)
        clear_cache()
        t = time.perf_counter()
        irt.compile(irt.parse(same_text, "same.mlir"))
        same_times.append(time.perf_counter() - t)
        fn = irt.function(py.train.py)  # a fresh function: nothing cached
        py.train = fn
        clear_cache()
        t = time.perf_counter()
        module = fn.build(args, {})[0]
        translate_times.append(time.perf_counter() - t)
        irt.compile(module)
        py_times.append(time.perf_counter() - t)
    ir, same, pyt, tr = min(ir_times), min(same_times), min(py_times), min(translate_times)
    print(f"hand-written IR (parse + compile): {ir * 1000:.0f} ms")
    print(f"the frontend's IR as text (parse + compile): {same * 1000:.0f} ms")
    print(f"Python (translate + compile): {pyt * 1000:.0f} ms (translation {tr * 1000:.1f} ms)")
    print(f"ratio to hand-written IR {pyt / ir:.2f}x, to the same IR as text {pyt / same:.2f}x")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
