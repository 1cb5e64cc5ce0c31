"""An entry point's machine code is built at its first call (runtime/executable.py):
compile() checks the LLVM IR, a call builds what its entry point reaches, later
calls of other entry points link against what is built, and the disk cache
holds what was built (stored again as more is).

Each test has a private, empty disk cache (the ``fresh_cache`` fixture).
"""

import ctypes
import threading

import numpy as np
import pytest

import irtoolkit as irt
from irtoolkit.runtime import clear_cache, codegen
from irtoolkit.runtime.objectfile import read_object

PROGRAM = """\
func.func private @shared(%x: tensor<?xf64>) -> tensor<?xf64> {
  %e = tensor.exp %x : tensor<?xf64>
  %t = tensor.tanh %e : tensor<?xf64>
  return %t : tensor<?xf64>
}
func.func @loss(%x: tensor<?xf64>) -> f64 {
  %y = func.call @shared(%x) : (tensor<?xf64>) -> tensor<?xf64>
  %s = tensor.reduce_sum %y [0] : tensor<?xf64> -> tensor<f64>
  %v = tensor.extract %s[] : tensor<f64>
  return %v : f64
}
func.func @grad(%x: tensor<?xf64>) -> tensor<?xf64> {
  %g = autodiff.grad @loss(%x) : (tensor<?xf64>) -> tensor<?xf64>
  return %g : tensor<?xf64>
}
func.func @sine(%x: tensor<?xf64>) -> tensor<?xf64> {
  %y = tensor.sin %x : tensor<?xf64>
  return %y : tensor<?xf64>
}
"""

X = np.linspace(-2.0, 2.0, 37)
T = np.tanh(np.exp(X))
EXPECTED = {"loss": T.sum(), "grad": (1 - T * T) * np.exp(X), "sine": np.sin(X)}

pytestmark = pytest.mark.usefixtures("fresh_cache")


def check(exe, name):
    np.testing.assert_allclose(exe[name](X), EXPECTED[name], rtol=1e-12, atol=1e-14)


def wrappers(exe):
    """The entry points the executable's objects define."""
    return sorted(s for obj in exe._objects for s in read_object(obj).defined
                  if s.startswith("_irt_call_"))


def no_codegen(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("LLVM code generation ran")

    monkeypatch.setattr(codegen, "compile_groups", refuse)


def test_an_entry_point_is_built_at_its_first_call_and_the_others_at_the_next(monkeypatch):
    monkeypatch.setattr(codegen, "available_cores", lambda: 2)
    exe = irt.compile(irt.parse(PROGRAM))
    assert exe._objects == [] and exe._built == set()
    assert "define i64 @_irt_call_sine" in exe.llvm_ir.replace('"', "")  # the IR is made at compile()
    check(exe, "grad")
    assert exe._built == {"grad"} and wrappers(exe) == ["_irt_call_grad"]
    check(exe, "loss")  # a second build: every entry point left (two builds at most)
    assert exe._built == {"grad", "loss", "sine"}
    assert wrappers(exe) == ["_irt_call_grad", "_irt_call_loss", "_irt_call_sine"]
    defined = [s for obj in exe._objects for s in read_object(obj).defined]
    assert len(defined) == len(set(defined)), "a function exported twice"
    count = len(exe._objects)
    check(exe, "grad")
    check(exe, "sine")
    assert len(exe._objects) == count


def test_a_later_build_calls_the_functions_an_earlier_one_exports(monkeypatch):
    """With every function split off (SPLIT_MIN_SIZE and SPLIT_FLOOR 10), the second entry point's
    build declares what the first exported: its object leaves them undefined."""
    monkeypatch.setattr(codegen, "available_cores", lambda: 2)
    monkeypatch.setattr(codegen, "SPLIT_MIN_SIZE", 10)
    monkeypatch.setattr(codegen, "SPLIT_FLOOR", 10)  # (no function of the program has 100)
    exe = irt.compile(PROGRAM)
    check(exe, "loss")
    first = set(exe._code.defined())
    count = len(exe._objects)
    check(exe, "grad")
    later = exe._objects[count:]
    needed = {s for obj in later for s in read_object(obj).undefined}
    assert needed & (first - {"_irt_call_loss"}), "the grad build compiled its own copies"
    assert not first & {s for obj in later for s in read_object(obj).defined}
    check(exe, "loss")
    check(exe, "grad")


def test_the_disk_cache_holds_what_was_built_and_grows(monkeypatch):
    exe = irt.compile(PROGRAM)
    check(exe, "grad")
    clear_cache()
    cached = irt.compile(PROGRAM)
    assert cached.from_cache and cached._built == {"grad"}
    with monkeypatch.context() as m:
        no_codegen(m)
        check(cached, "grad")  # a cache hit builds nothing
    check(cached, "sine")  # built from the source, lowered again, with the rest
    assert cached._built == {"grad", "loss", "sine"}
    clear_cache()
    again = irt.compile(PROGRAM)
    assert again.from_cache and again._built == {"grad", "loss", "sine"}
    no_codegen(monkeypatch)
    check(again, "sine")
    check(again, "grad")


def test_two_threads_first_calling_two_entry_points(monkeypatch):
    monkeypatch.setattr(codegen, "available_cores", lambda: 2)
    exe = irt.compile(PROGRAM)
    start = threading.Barrier(2)
    errors = []

    def call(name):
        try:
            start.wait()
            check(exe, name)
        except BaseException as err:  # noqa: BLE001 -- reported below
            errors.append(err)

    threads = [threading.Thread(target=call, args=(n,)) for n in ("loss", "grad")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert exe._built == {"loss", "grad", "sine"}  # one build each: the second builds the rest
    assert wrappers(exe) == ["_irt_call_grad", "_irt_call_loss", "_irt_call_sine"]


def test_optimize_builds_every_entry_point_at_the_full_level():
    exe = irt.compile(PROGRAM)
    check(exe, "loss")
    assert exe.tier == 0
    exe.optimize()
    assert exe.tier == 1 and exe._built == {"loss", "grad", "sine"}
    for name in EXPECTED:
        check(exe, name)


def test_errors_surface_at_compile_not_at_the_first_call():
    bad = 'func.func private @system(i64) -> i64\nfunc.func @f(%x: i64) -> i64 {\n' \
          '  %y = func.call @system(%x) : (i64) -> i64\n  return %y : i64\n}\n'
    with pytest.raises(irt.DiagnosticError, match="system"):
        irt.compile(bad)


def test_one_entry_point_alone_is_split_over_the_cores():
    """A function of SPLIT_FLOOR instructions or more is split off when that
    balances the groups; a vector-math kernel never is (hot loops inline it)."""
    size = {"e": 60, "loop": 150, "helper": 20, "__irt_vm_exp_f64": 300}
    callees = {"e": {"loop", "helper"}, "loop": {"__irt_vm_exp_f64"}, "helper": set(),
               "__irt_vm_exp_f64": set()}
    groups = codegen.plan((size, callees), ["e"], 2)
    assert sorted(groups) == [("e",), ("loop",)]
    assert groups[0] == ("loop",)  # calls no other group's function: group 0
    assert codegen.plan((size, callees), ["e"], 1) == [("e",)]
    # built already elsewhere: declared, not split off again
    assert codegen.plan((size, callees), ["e"], 2, declared={"loop"}) == [("e",)]
    small = dict(size, loop=90)
    assert codegen.plan((small, callees), ["e"], 2) == [("e",)]


def test_an_entry_point_built_during_a_tier_up_moves_to_the_new_code():
    """The tier-up emits what was built when it started; what another thread
    builds meanwhile (at tier 0, into the old engine) is built into the new
    engine before the swap."""
    exe = irt.compile(PROGRAM)
    check(exe, "loss")
    original = exe._build_into

    def build_into(code, names, level, foreground=False):
        if code is not exe._code and names == ["loss"]:  # the tier-up's
            other = threading.Thread(target=check, args=(exe, "sine"))
            other.start()
            other.join()
            assert exe._built == {"loss", "sine", "grad"} and exe.tier == 0
        return original(code, names, level, foreground)

    exe._build_into = build_into
    exe.optimize()
    assert exe.tier == 1 and exe._built == {"loss", "grad", "sine"}
    assert {"_irt_call_loss", "_irt_call_sine", "_irt_call_grad"} <= exe._code.defined()
    called = ctypes.cast(exe["sine"]._cfunc, ctypes.c_void_p).value
    assert called == exe._code.engine.get_function_address("_irt_call_sine")
    for name in EXPECTED:
        check(exe, name)


def test_the_collector_waits_for_the_first_build_within_a_bound():
    """compile() leaves its garbage to the first build (gcpause.resume_later): the
    collector stays paused after the compile until released, or for a bounded
    time; outside a pause nothing is held."""
    import gc
    import time

    from irtoolkit.gcpause import paused_gc, resume_later

    assert gc.isenabled()
    with paused_gc():
        hold = resume_later(60.0)
    assert not gc.isenabled()
    hold.release()
    assert gc.isenabled()
    with paused_gc():
        resume_later(0.05)
    deadline = time.monotonic() + 30
    while not gc.isenabled() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert gc.isenabled()
    resume_later(60.0).release()  # (not paused: holds nothing)
    assert gc.isenabled()
