"""Tiered compilation: a fresh compile emits code at LLVM code generation level
0; once its calls have spent enough native time, the code is emitted again at
the full level in the background and swapped in (``executable.TIER_UP_FRACTION``).

Each test has a private, empty disk cache (the ``fresh_cache`` fixture).
"""

import numpy as np
import pytest

import irtoolkit as irt
from irtoolkit.runtime import clear_cache, executable

PROGRAM = """\
func.func @f(%x: tensor<64xf64>) -> (tensor<64xf64>, f64) {
  %e = tensor.exp %x : tensor<64xf64>
  %y = tensor.mul %e, %x : tensor<64xf64>
  %z = tensor.reduce_sum %y [0] : tensor<64xf64> -> tensor<f64>
  %v = tensor.extract %z[] : tensor<f64>
  return %y, %v : tensor<64xf64>, f64
}
"""

X = np.linspace(-2.0, 2.0, 64)

pytestmark = pytest.mark.usefixtures("fresh_cache")


def compile_fresh():
    return irt.compile(irt.parse(PROGRAM, "tiered.mlir"))


def results(exe):
    y, v = exe["f"](X)
    return y.copy(), float(v)


def test_tier_up_swaps_the_code_and_keeps_the_results():
    exe = compile_fresh()
    assert exe.tier == 0
    before = results(exe)
    old = exe["f"]._cfunc
    exe.optimize()
    assert exe.tier == 1 and exe["f"]._cfunc is not old
    after = results(exe)
    np.testing.assert_allclose(after[0], before[0], rtol=1e-15)
    np.testing.assert_allclose(after[1], before[1], rtol=1e-13)
    np.testing.assert_allclose(after[0], np.exp(X) * X, rtol=1e-13)
    exe.optimize()  # a no-op once done
    assert exe.tier == 1


def test_native_time_past_the_threshold_tiers_up_in_the_background():
    exe = compile_fresh()
    exe._ensure_built()  # (the first call's build sets the threshold)
    exe._tier_up_after = 0.0
    results(exe)
    thread = exe._tier_up_thread
    assert thread is not None
    thread.join()
    assert exe.tier == 1 and exe._tier_up_error is None
    np.testing.assert_allclose(results(exe)[0], np.exp(X) * X, rtol=1e-13)


def test_brief_programs_stay_at_tier_0():
    exe = compile_fresh()
    for _ in range(3):
        results(exe)
    assert exe.tier == 0 and exe._tier_up_thread is None


def test_the_disk_cache_entry_is_replaced_by_the_optimized_code():
    exe = compile_fresh()
    results(exe)  # builds the code, stored in the disk cache
    clear_cache()
    cached = compile_fresh()
    assert cached.from_cache and cached.tier == 0
    exe.optimize()
    clear_cache()
    again = compile_fresh()
    assert again.from_cache and again.tier == 1
    assert again._objects == exe._objects
    np.testing.assert_allclose(results(again)[0], np.exp(X) * X, rtol=1e-13)


def test_tier_0_code_loaded_from_the_cache_tiers_up_from_its_source():
    results(compile_fresh())
    clear_cache()
    cached = compile_fresh()
    assert cached.from_cache and cached.tier == 0
    cached.optimize()
    assert cached.tier == 1
    np.testing.assert_allclose(results(cached)[0], np.exp(X) * X, rtol=1e-13)


def test_irt_tiered_0_compiles_at_the_full_level_at_once(monkeypatch):
    monkeypatch.setenv("IRT_TIERED", "0")
    assert not executable.tiered()
    exe = compile_fresh()
    assert exe.tier == 1 and exe._tier_up_thread is None


def test_irt_first_tier_opt_sets_tier_0s_pipeline_level_only(monkeypatch):
    monkeypatch.setenv("IRT_FIRST_TIER_OPT", "0")
    assert executable.first_tier_opt(3) == 0
    exe = compile_fresh()
    assert exe.tier == 0
    before = results(exe)
    np.testing.assert_allclose(before[0], np.exp(X) * X, rtol=1e-13)
    exe.optimize()
    np.testing.assert_allclose(results(exe)[0], before[0], rtol=1e-15)
    monkeypatch.setenv("IRT_FIRST_TIER_OPT", "2")
    assert executable.first_tier_opt(1) == 1  # never above the full level
    monkeypatch.delenv("IRT_FIRST_TIER_OPT")
    assert executable.first_tier_opt(3) == executable.FIRST_TIER_OPT


def _defines(text: str, marked: str) -> set[str]:
    """The functions whose ``define`` line in LLVM IR ``text`` holds ``marked``."""
    return {line.split("@", 1)[1].split("(", 1)[0].strip('"')
            for line in text.split("\n") if line.startswith("define ") and marked in line}


def test_tier_0_compiles_the_runtime_scaffolding_unoptimized_and_the_tier_up_all(monkeypatch):
    from irtoolkit.runtime import codegen

    compiled: list[str] = []
    build = codegen.compile_groups

    def spy(llvm, text, *args, **kwargs):
        compiled.append(text)
        return build(llvm, text, *args, **kwargs)

    monkeypatch.setattr(codegen, "compile_groups", spy)
    n = 100_000  # a loop long enough for threads: a dispatcher and its thunk
    exe = irt.compile(irt.parse(PROGRAM.replace("64x", f"{n}x"), "scaffold.mlir"))
    x = np.linspace(-2.0, 2.0, n)
    y0 = exe["f"](x)[0].copy()
    exe.optimize()
    assert exe.tier == 1 and len(compiled) == 2
    tier0, tier1 = compiled
    # (the thread count and the threads, the allocation and failure helpers are the
    # runtime's, support.py: compiled once, and only declared here)
    scaffolding = {"_irt_call_f", "__irt_pfor___irt_par_f_0", "__irt_pthunk___irt_par_f_0"}
    for text in compiled:
        declared = {line.split("@", 1)[1].split("(", 1)[0].strip('"') for line in text.split("\n")
                    if line.startswith("declare ")}
        assert {"__irt_malloc", "__irt_interrupted", "__irt_enter", "__irt_leave",
                "__irt_fail"} <= declared
    assert _defines(tier0, " optnone") == scaffolding  # not the kernels (__irt_fn_f, __irt_par_f_0)
    assert scaffolding <= _defines(tier0, " noinline")
    assert _defines(tier1, " optnone") == set() and tier1 == exe.llvm_ir
    assert _defines(tier1, '"irt-tier0"="optnone"') == scaffolding  # (LLVM ignores the mark)
    np.testing.assert_allclose(exe["f"](x)[0], y0, rtol=1e-15)
    np.testing.assert_allclose(y0, np.exp(x) * x, rtol=1e-13)


def test_a_process_exiting_during_a_tier_up_exits_cleanly():
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent("""
        import sys
        import numpy as np, irtoolkit as irt
        exe = irt.compile(irt.parse(sys.argv[1], "exit.mlir"))
        exe._ensure_built()
        exe._tier_up_after = 0.0
        exe["f"](np.linspace(-2.0, 2.0, 64))
        assert exe._tier_up_thread is not None
        print("done")
    """)
    proc = subprocess.run([sys.executable, "-c", script, PROGRAM], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "done"
