"""The compile cache (issue 5: a second process loads a compiled program from
disk in milliseconds; issue 6: the cache is bounded, in memory and on disk).

Every test runs with a private, empty ``IRT_CACHE_DIR`` and an empty
in-memory cache (the ``fresh_cache`` fixture).
"""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import irtoolkit as irt
from irtoolkit.abi import TLS_KEY_SYMBOL
from irtoolkit.runtime import caches, clear_cache, diskcache, executable, translate
from irtoolkit.runtime.objectfile import read_object

PROGRAM = """\
func.func @f(%x: tensor<4xf64>, %s: f64) -> (tensor<4xf64>, f64) {
  %e = tensor.exp %x : tensor<4xf64>
  %y = tensor.mul %e, %x : tensor<4xf64>
  %z = tensor.reduce_sum %y [0] : tensor<4xf64> -> tensor<f64>
  %v = tensor.extract %z[] : tensor<f64>
  %w = arith.mulf %v, %s : f64
  return %y, %w : tensor<4xf64>, f64
}
"""

X = np.array([0.5, -1.0, 2.0, 0.0])


pytestmark = pytest.mark.usefixtures("fresh_cache")


def expected(x, s):
    y = np.exp(x) * x
    return y, y.sum() * s


def compile_text(text: str, name: str = "cache.mlir"):
    """Compiled, and its code built (at a first call, else: it is what the disk cache stores)."""
    exe = irt.compile(irt.parse(text, name))
    exe._ensure_built()
    return exe


def check(exe):
    y, w = exe["f"](X, 3.0)
    ey, ew = expected(X, 3.0)
    np.testing.assert_allclose(y, ey, rtol=1e-13)
    assert w == pytest.approx(ew, rel=1e-13)


def cache_files():
    return sorted(p for p, _, _ in diskcache.entries())


def variant(k: int) -> str:
    """Distinct programs (one constant differs)."""
    return PROGRAM.replace("%w = arith.mulf %v, %s : f64",
                           f"%c = arith.constant {k}.0 : f64\n  %t = arith.mulf %v, %c : f64\n"
                           "  %w = arith.mulf %t, %s : f64")


def test_miss_then_hit_after_the_memory_cache_is_cleared():
    exe = compile_text(PROGRAM)
    assert not exe.from_cache
    check(exe)
    assert len(cache_files()) == 1
    assert irt.compile(irt.parse(PROGRAM, "cache.mlir")) is exe  # in memory
    clear_cache()
    again = compile_text(PROGRAM)
    assert again is not exe and again.from_cache
    check(again)
    assert again.signatures == exe.signatures
    # the LLVM IR of a cached executable is recomputed on demand
    assert "_irt_call_f" in again.llvm_ir


def test_a_hit_skips_the_lowering_and_llvm(monkeypatch):
    compile_text(PROGRAM)
    clear_cache()

    def boom(*args, **kwargs):
        raise AssertionError("lowering ran on a cache hit")

    monkeypatch.setattr(translate, "lower_module", boom)
    monkeypatch.setattr(executable.Executable, "_prepare", boom)
    check(compile_text(PROGRAM))


SECOND_PROCESS = textwrap.dedent("""
    import json, sys, time
    import numpy as np
    import irtoolkit as irt
    from irtoolkit.runtime import translate
    text = sys.stdin.read()
    if sys.argv[1] == "forbid-lowering":
        def boom(*a, **k):
            raise AssertionError("lowering ran")
        translate.lower_module = boom
    m = irt.parse(text, "cache.mlir")
    t = time.perf_counter()
    exe = irt.compile(m)
    dt = time.perf_counter() - t
    y, w = exe["f"](np.array([0.5, -1.0, 2.0, 0.0]), 3.0)
    print(json.dumps({"from_cache": exe.from_cache, "compile_s": dt, "y": y.tolist(), "w": float(w)}))
""")


def run_process(mode: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", SECOND_PROCESS, mode], input=PROGRAM,
                          capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_second_process_loads_the_program_from_disk():
    first = run_process("compile")
    assert not first["from_cache"]
    second = run_process("forbid-lowering")
    assert second["from_cache"]
    assert second["y"] == first["y"] and second["w"] == first["w"]
    ey, ew = expected(X, 3.0)
    np.testing.assert_allclose(second["y"], ey, rtol=1e-13)
    # loading is much cheaper than compiling (generous: the machine may be busy)
    assert second["compile_s"] < first["compile_s"]


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "empty", "other-key"])
def test_a_damaged_entry_is_ignored_and_replaced(damage):
    compile_text(PROGRAM)
    (path,) = cache_files()
    data = open(path, "rb").read()
    if damage == "truncate":
        bad = data[: len(data) // 2]
    elif damage == "flip":
        i = len(data) // 2
        bad = data[:i] + bytes([data[i] ^ 0x55]) + data[i + 1:]
    elif damage == "garbage":
        bad = os.urandom(len(data))
    elif damage == "empty":
        bad = b""
    else:  # a valid entry of another key under this name
        secret = diskcache.current_secret()
        meta, obj = diskcache.decode_entry(os.path.basename(path)[:-len(diskcache.SUFFIX)], data,
                                           secret)
        bad = diskcache.encode_entry("0" * 64, meta, obj, secret)
    with open(path, "wb") as f:
        f.write(bad)
    clear_cache()
    exe = compile_text(PROGRAM)
    assert not exe.from_cache
    check(exe)
    assert open(path, "rb").read() == data  # rewritten whole
    clear_cache()
    assert compile_text(PROGRAM).from_cache


CHECKED = """\
func.func @f(%t: tensor<?xf64>, %i: index) -> f64 {
  %e = tensor.extract %t[%i] : tensor<?xf64>
  return %e : f64
}
"""

CHECK_PROCESS = textwrap.dedent("""
    import json, sys
    import numpy as np
    import irtoolkit as irt
    from irtoolkit.runtime import RuntimeCheckError
    exe = irt.compile(sys.stdin.read(), filename="checked.mlir")
    t = np.arange(3.0)
    out = {"from_cache": exe.from_cache, "ok": float(exe["f"](t, 2))}
    try:
        exe["f"](t, 7)
    except RuntimeCheckError as err:
        out["error"] = str(err)
    out["after"] = float(exe["f"](t, 1))
    print(json.dumps(out))
""")


def test_cached_code_finds_this_process_thread_key():
    """The entry wrapper's pthread key differs between processes: compiled code
    takes it from a symbol defined at load time, not a constant. A run-time
    check failing in code loaded from disk (a process that imported less
    before creating its key) still lands in Python as an error."""
    from irtoolkit.abi import ENTER_SYMBOL
    from irtoolkit.runtime import support

    exe = compile_text(CHECKED)
    for obj in exe._objects:  # the helpers that read the key are the shared runtime's
        assert ENTER_SYMBOL in read_object(obj).undefined
    support.address(ENTER_SYMBOL)
    assert all(TLS_KEY_SYMBOL in c.undefined for code in support._code for c in code.contents)
    results = []
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", CHECK_PROCESS], input=CHECKED,
                              capture_output=True, text=True, timeout=120, env=dict(os.environ))
        assert proc.returncode == 0, proc.stderr
        results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    assert [r["from_cache"] for r in results] == [False, True]
    for r in results:
        assert r["ok"] == 2.0 and r["after"] == 1.0
        assert "checked.mlir:2:" in r["error"]


def test_the_disk_cache_is_bounded_in_entries(monkeypatch):
    monkeypatch.setenv("IRT_CACHE_MAX_ENTRIES", "3")
    paths = []
    for k in range(6):
        compile_text(variant(k))
        new = set(cache_files()) - set(paths)
        assert len(new) == 1
        paths.extend(new)
        os.utime(paths[-1], (1_000_000 + k, 1_000_000 + k))  # distinct mtimes, in order
        assert len(cache_files()) <= 3
    assert cache_files() == sorted(paths[-3:])  # the least recently used went first


def test_a_hit_refreshes_the_entry(monkeypatch):
    monkeypatch.setenv("IRT_CACHE_MAX_ENTRIES", "2")
    compile_text(variant(0))
    (p0,) = cache_files()
    os.utime(p0, (1_000_000, 1_000_000))
    compile_text(variant(1))
    p1 = (set(cache_files()) - {p0}).pop()
    os.utime(p1, (2_000_000, 2_000_000))
    clear_cache()
    assert compile_text(variant(0)).from_cache  # p0 is now the most recent
    compile_text(variant(2))
    assert p0 in cache_files() and p1 not in cache_files()


def test_the_disk_cache_is_bounded_in_bytes(monkeypatch):
    compile_text(variant(0))
    size = os.path.getsize(cache_files()[0])
    monkeypatch.setenv("IRT_CACHE_MAX_MB", str(2.5 * size / (1024 * 1024)))
    for k in range(1, 5):
        compile_text(variant(k))
        total = sum(s for _, s, _ in diskcache.entries())
        assert total <= 2.5 * size * 1.2  # entries of the variants differ a little in size
        assert len(cache_files()) <= 3


def test_an_entry_larger_than_the_cache_is_not_written(monkeypatch):
    monkeypatch.setenv("IRT_CACHE_MAX_MB", "0.001")
    check(compile_text(PROGRAM))
    assert cache_files() == []


@pytest.mark.parametrize("env", [{"IRT_CACHE_DIR": ""}, {"IRT_NO_CACHE": "1"}])
def test_disabled_by_the_environment(monkeypatch, tmp_path, env):
    cache = os.environ["IRT_CACHE_DIR"]
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert diskcache.cache_dir() is None
    check(compile_text(PROGRAM))
    clear_cache()
    exe = compile_text(PROGRAM)
    assert not exe.from_cache
    assert not os.path.exists(cache) or os.listdir(cache) == []


def test_default_location(monkeypatch, tmp_path):
    monkeypatch.delenv("IRT_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert diskcache.cache_dir() == str(tmp_path / "xdg" / "irtoolkit")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert diskcache.cache_dir() == str(tmp_path / "home" / ".cache" / "irtoolkit")


def test_an_unwritable_cache_directory_is_not_an_error(monkeypatch, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("IRT_CACHE_DIR", str(blocker / "cache"))
    check(compile_text(PROGRAM))


def test_the_key_includes_locations_pipeline_and_opt_level():
    compile_text(PROGRAM, "a.mlir")
    compile_text(PROGRAM, "b.mlir")  # run-time check messages carry file:line:col
    assert len(cache_files()) == 2
    m = irt.parse(PROGRAM, "a.mlir")
    irt.compile(m, "canonicalize")._ensure_built()
    assert len(cache_files()) == 3
    from irtoolkit.runtime import compile_module

    compile_module(m, None, opt=1)._ensure_built()
    assert len(cache_files()) == 4


def test_llvm_settings_are_part_of_the_key(monkeypatch):
    exe = compile_text(PROGRAM)
    monkeypatch.setenv("IRT_LLVM_UNROLL", "1")
    unrolled = compile_text(PROGRAM)
    assert unrolled is not exe and not unrolled.from_cache and unrolled.unroll
    check(unrolled)
    assert len(cache_files()) == 2


def test_the_memory_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(caches, "_CACHE_SIZE", 3)
    exes = [compile_text(variant(k)) for k in range(5)]
    assert len(caches._CACHE) == 3
    assert compile_text(variant(4)) is exes[4]
    assert compile_text(variant(0)) is not exes[0]  # evicted (reloaded from disk)


SOURCE_PROCESS = textwrap.dedent("""
    import json, sys, time
    import numpy as np
    import irtoolkit as irt
    text = sys.stdin.read()
    t = time.perf_counter()
    exe = irt.compile(text, filename="cache.mlir")
    dt = time.perf_counter() - t
    y, w = exe["f"](np.array([0.5, -1.0, 2.0, 0.0]), 3.0)
    print(json.dumps({"from_cache": exe.from_cache, "compile_s": dt, "y": y.tolist(), "w": float(w),
                      "xdsl_imported": any(m.split(".")[0] == "xdsl" for m in sys.modules)}))
""")


def test_compiling_source_text_hits_without_parsing_or_importing_xdsl():
    def run():
        proc = subprocess.run([sys.executable, "-c", SOURCE_PROCESS], input=PROGRAM,
                              capture_output=True, text=True, timeout=120, env=dict(os.environ))
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout.strip().splitlines()[-1])

    first = run()
    assert not first["from_cache"] and first["xdsl_imported"]
    second = run()
    assert second["from_cache"] and not second["xdsl_imported"]
    assert second["y"] == first["y"] and second["w"] == first["w"]
    # the module-keyed entry was written too: parse + compile hits as well
    assert run_process("forbid-lowering")["from_cache"]


def test_compile_source_in_process():
    exe = irt.compile(PROGRAM, filename="cache.mlir")
    check(exe)
    assert irt.compile(PROGRAM, filename="cache.mlir") is exe
    n = len(cache_files())
    assert n == 2  # keyed on the source text, and on the parsed module
    clear_cache()
    again = irt.compile(PROGRAM, filename="cache.mlir")
    assert again.from_cache
    check(again)
    assert "_irt_call_f" in again.llvm_ir  # recompiled from the source on demand
    check(irt.compile(PROGRAM, filename="other.mlir"))
    assert len(cache_files()) == n + 2


def test_compile_source_reports_parse_errors():
    from irtoolkit.diagnostics import DiagnosticError

    with pytest.raises(DiagnosticError, match="bad.mlir:2:10"):
        irt.compile("func.func @f(%x: f64) -> f64 {\n  return %y : f64\n}\n", filename="bad.mlir")
    assert cache_files() == []


def test_preload_warms_up_without_touching_the_caches():
    """``preload`` compiles and runs a small program of its own (each stage's
    first use), which is neither looked up in nor stored to either cache."""
    irt.preload()  # (stores the runtime's shared functions, compiled once)
    before = cache_files()
    irt._warm_up()
    assert not caches._CACHE
    assert cache_files() == before
    exe = irt.compile(irt.parse(PROGRAM))
    y, w = exe["f"](X, 2.0)
    np.testing.assert_allclose(y, expected(X, 2.0)[0])
