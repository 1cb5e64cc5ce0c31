"""Machine code in groups of entry points, compiled in parallel (runtime/codegen.py).

Each group exports only its own ``_irt_call_*`` wrappers; what several groups
call (here ``@shared``, the check handler, the allocation guard) is compiled
privately in each. The objects are linked into one engine, and the disk cache
stores them all.
"""

import gc
import weakref

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
func.func @a(%x: tensor<?xf64>) -> tensor<?xf64> {
  %y = func.call @shared(%x) : (tensor<?xf64>) -> tensor<?xf64>
  return %y : tensor<?xf64>
}
func.func @b(%x: tensor<?xf64>) -> f64 {
  %y = func.call @shared(%x) : (tensor<?xf64>) -> tensor<?xf64>
  %s = tensor.reduce_sum %y [0] : tensor<?xf64> -> tensor<f64>
  %v = tensor.extract %s[] : tensor<f64>
  return %v : f64
}
func.func @c(%x: tensor<?xf64>) -> tensor<?xf64> {
  %y = tensor.sin %x : tensor<?xf64>
  return %y : tensor<?xf64>
}
func.func @loss(%x: tensor<?xf64>) -> f64 {
  %v = func.call @b(%x) : (tensor<?xf64>) -> f64
  return %v : f64
}
func.func @grad(%x: tensor<?xf64>) -> tensor<?xf64> {
  %g = autodiff.grad @loss(%x) : (tensor<?xf64>) -> tensor<?xf64>
  return %g : tensor<?xf64>
}
"""

X = np.linspace(-2.0, 2.0, 37)


pytestmark = pytest.mark.usefixtures("fresh_cache")


def built(exe):
    """``exe`` with every entry point's code built (it is built at first calls)."""
    exe._ensure_built()
    return exe


def check(exe) -> None:
    t = np.tanh(np.exp(X))
    np.testing.assert_allclose(exe["a"](X), t, rtol=1e-14)
    np.testing.assert_allclose(exe["b"](X), t.sum(), rtol=1e-14)
    np.testing.assert_allclose(exe["c"](X), np.sin(X), rtol=1e-14)
    np.testing.assert_allclose(exe["loss"](X), t.sum(), rtol=1e-14)
    # 1 - t*t cancels where t is near 1: absolute error
    np.testing.assert_allclose(exe["grad"](X), (1 - t * t) * np.exp(X), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("cores", [1, 2, 3, 8])
def test_groups_link_into_one_executable(monkeypatch, cores):
    monkeypatch.setattr(codegen, "available_cores", lambda: cores)
    exe = built(irt.compile(irt.parse(PROGRAM)))
    assert len(exe._objects) == 1 if cores == 1 else 2 <= len(exe._objects) <= cores
    check(exe)


def test_each_group_exports_only_its_entries(monkeypatch):
    monkeypatch.setattr(codegen, "available_cores", lambda: 2)
    monkeypatch.setattr(codegen, "SPLIT_FLOOR", codegen.SPLIT_MIN_SIZE)  # no function split off
    exe = built(irt.compile(irt.parse(PROGRAM)))
    exported = []
    for obj in exe._objects:
        defined = set(read_object(obj).defined)
        assert defined and all(s.startswith("_irt_call_") for s in defined), defined
        exported += defined
    assert sorted(exported) == sorted(f"_irt_call_{n}" for n in ("a", "b", "c", "loss", "grad"))


def test_groups_reload_from_the_disk_cache(monkeypatch):
    monkeypatch.setattr(codegen, "available_cores", lambda: 2)
    first = built(irt.compile(PROGRAM))
    assert len(first._objects) == 2 and not first.from_cache
    clear_cache()
    again = irt.compile(PROGRAM)
    assert again.from_cache and again._objects == first._objects
    check(again)


def test_optimized_ir_has_one_module_per_group(monkeypatch):
    monkeypatch.setattr(codegen, "available_cores", lambda: 2)
    exe = irt.compile(irt.parse(PROGRAM))
    ir = exe.optimized_llvm_ir
    assert ir.count("target triple") == 2
    assert "define i64 @_irt_call_grad" in ir


@pytest.mark.long  # a long run (memory/scaling measurement): IRT_FULL_TESTS=1
def test_executables_in_reference_cycles_are_collected_safely():
    """Modules are disposed of before their contexts (the collector frees a
    cycle's objects in any order: a context first crashed the process)."""
    for k in range(3):
        exe = irt.compile(irt.parse(PROGRAM.replace("37", str(k))))
        exe.cycle = exe
        check(exe)
        del exe
        gc.collect()


def test_grouping_balances_code_size():
    groups = codegen.group_entries({"a": 10, "b": 9, "c": 5, "d": 4, "e": 1}, 2)
    sizes = {"a": 10, "b": 9, "c": 5, "d": 4, "e": 1}
    totals = sorted(sum(sizes[n] for n in g) for g in groups)
    assert totals == [14, 15]
    assert codegen.group_entries({}, 4) == [()]
    assert codegen.group_entries({"a": 3}, 4) == [("a",)]


def test_large_functions_are_compiled_in_one_group_and_called_from_the_others(monkeypatch):
    """Functions of at least SPLIT_MIN_SIZE instructions are exported by one
    group and declared in the others (here every function of the program is):
    each is defined once, the objects link, reload from the disk cache and
    tier up."""
    monkeypatch.setattr(codegen, "available_cores", lambda: 2)
    monkeypatch.setattr(codegen, "SPLIT_MIN_SIZE", 10)
    monkeypatch.setattr(codegen, "SPLIT_FLOOR", 10)  # (no function of the program has 100)
    exe = built(irt.compile(PROGRAM))
    defined = [s for obj in exe._objects for s in read_object(obj).defined]
    shared = [s for s in defined if not s.startswith("_irt_call_")]
    assert shared and len(defined) == len(set(defined)), defined
    undefined = {s for obj in exe._objects for s in read_object(obj).undefined}
    assert undefined & set(shared), "no group calls another's function"
    check(exe)
    exe.optimize()
    check(exe)
    clear_cache()
    again = irt.compile(PROGRAM)
    assert again.from_cache
    check(again)


def test_declare_only_turns_definitions_into_declarations():
    text = ('define internal void @"f"(i64 %".1") noinline\n{\n.2:\n  ret void\n}\n\n'
            'define i64 @"g"()\n{\n.1:\n  call void @"f"(i64 1)\n  ret i64 0\n}\n')
    out = codegen.declare_only(text, {"f"})
    assert out.startswith('declare void @"f"(i64 %".1") noinline\n\ndefine i64 @"g"()')
    assert "ret void" not in out and "ret i64 0" in out
    assert codegen.declare_only(text, set()) is text


COUNTER = """
"memref.global"() <{sym_name = "counter", type = memref<1xf64>, initial_value = dense<0.0> : tensor<1xf64>, sym_visibility = "public"}> : () -> ()
func.func @inc(%x: f64) -> f64 {
  %g = memref.get_global @counter : memref<1xf64>
  %c0 = arith.constant 0 : index
  %v = memref.load %g[%c0] : memref<1xf64>
  %w = arith.addf %v, %x : f64
  memref.store %w, %g[%c0] : memref<1xf64>
  return %w : f64
}
func.func @get() -> f64 {
  %g = memref.get_global @counter : memref<1xf64>
  %c0 = arith.constant 0 : index
  %v = memref.load %g[%c0] : memref<1xf64>
  return %v : f64
}
"""


def test_mutable_globals_keep_one_copy(monkeypatch):
    """Groups would each own a copy of a mutable global: such a module is one group."""
    monkeypatch.setattr(codegen, "available_cores", lambda: 2)
    exe = irt.compile(irt.parse(COUNTER))
    assert exe["get"]() == 0.0  # builds both entry points: one copy of @counter
    assert len(exe._objects) == 1
    assert (exe["inc"](1.0), exe["inc"](2.0), exe["get"]()) == (1.0, 3.0, 3.0)
    assert len(exe._objects) == 1


def _lowered_funcs(module):
    from irtoolkit.runtime.translate import lower_module

    lowered = lower_module(module)
    return lowered, [weakref.ref(op) for op in lowered.body.block.ops]


def test_a_lowered_module_is_not_kept_alive_by_the_passes():
    """The lowering's symbol caches refer to a module's ops weakly: a strong
    reference kept every module ever lowered alive (ops refer to their module)."""
    lowered, funcs = _lowered_funcs(irt.parse(PROGRAM))
    del lowered
    gc.collect()
    assert funcs and all(ref() is None for ref in funcs)


@pytest.mark.parametrize("cores", [1, 2])
def test_the_compiled_ir_is_freed_while_llvm_works(monkeypatch, cores):
    """Executable consumes the lowered module: with the collector paused, as
    compilation runs it, the IR is freed by the collection made while LLVM
    works (at the first call, which builds code), not by the first one after."""
    from irtoolkit.gcpause import paused_gc
    from irtoolkit.runtime.executable import Executable
    from irtoolkit.runtime.signature import capture_signatures

    monkeypatch.setattr(codegen, "available_cores", lambda: cores)
    module = irt.parse(PROGRAM)
    with paused_gc():
        lowered, funcs = _lowered_funcs(module)
        exe = Executable(lowered, capture_signatures(module))
        assert not list(lowered.walk())[1:]
        exe["c"](X)  # the first build
        assert funcs and all(ref() is None for ref in funcs)
    check(exe)



def test_each_group_calls_the_functions_other_groups_export(monkeypatch):
    """A group calls what another group exports, it compiles no private copy of it:
    group 0 of the first build (the module parsed at compile time) included, whose
    copies of them doubled bench W7's LLVM time. Here the gradient's groups call
    each other."""
    monkeypatch.setattr(codegen, "available_cores", lambda: 2)
    monkeypatch.setattr(codegen, "SPLIT_MIN_SIZE", 10)
    monkeypatch.setattr(codegen, "SPLIT_FLOOR", 10)
    planned = []
    plan = codegen.plan

    def spy(*args, **kwargs):
        planned.append(plan(*args, **kwargs))
        return planned[-1]

    monkeypatch.setattr(codegen, "plan", spy)
    exe = irt.compile(irt.parse(PROGRAM))
    exe["grad"](X)
    (groups,) = planned
    assert len(exe._objects) == len(groups) == 2
    exported = {n for g in groups for n in g}
    for k, (group, obj) in enumerate(zip(groups, exe._objects)):
        others = codegen.reachable(exe._graph[1], group, stop=exported) & (exported - set(group))
        assert others, f"group {k} calls no other group here"
        assert others <= set(read_object(obj).undefined), (k, others)
    check(exe)
