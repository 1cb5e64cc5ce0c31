"""verify-each remembers the signatures of ops that verified (ops whose
verification reads only their own types and properties), across the passes
of a run; an op a later pass breaks is still caught -- a new signature, or a
symbol it calls that is gone."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from xdsl.dialects import llvm
from xdsl.dialects.builtin import Float32Type, ModuleOp, StringAttr
from xdsl.passes import ModulePass

import irtoolkit as irt
from irtoolkit.diagnostics import DiagnosticError
from irtoolkit.pipeline import PipelineRunner
from irtoolkit.verifier import _signature_verified

LLVM_PROGRAM = """\
llvm.func @g(%a: f64) -> f64 {
  llvm.return %a : f64
}
llvm.func @f(%a: f64, %b: f64) -> f64 {
  %s = llvm.fadd %a, %b : f64
  %m = llvm.fmul %s, %b : f64
  %c = llvm.call @g(%m) : (f64) -> f64
  llvm.return %c : f64
}
"""


@dataclass(frozen=True)
class Corrupt(ModulePass):
    """A buggy pass: ``how`` says what it breaks in an op verified before."""

    name = "corrupt"
    how: str = "nothing"

    def apply(self, ctx, module: ModuleOp) -> None:
        ops = {op.name: op for op in module.walk()}  # the last of each name: @f's
        if self.how == "result-type":  # fadd's result no longer matches its operands
            ops["llvm.fadd"].results[0]._type = Float32Type()
        elif self.how == "property":  # changed in place: the op's own memo must not hide it
            ops["llvm.fadd"].properties["fastmathFlags"] = StringAttr("fast")
        elif self.how == "callee":  # the call's signature is unchanged, its callee is gone
            callee = module.body.block.first_op
            callee.detach()
            callee.erase()


def _run(*hows: str) -> None:
    module = irt.parse(LLVM_PROGRAM)
    PipelineRunner([Corrupt(h) for h in hows], verify_each=True).run(module)


def test_unchanged_ops_verify_again():
    _run("nothing", "nothing")


@pytest.mark.parametrize(("how", "message"), [
    ("result-type", "but got f32"),
    ("callee", "'@g' could not be found in symbol table"),
    ("property", "should be of base attribute llvm.fastmath"),
])
def test_an_op_broken_after_it_verified_is_caught(how, message):
    with pytest.raises(DiagnosticError) as err:
        _run("nothing", how)
    text = str(err.value)
    assert message in text and "(after pass 'corrupt')" in text
    at = {"callee": ":7:3:"}.get(how, ":5:3:")  # at the broken op: the call, or the fadd
    assert at in text


def test_ops_that_look_around_are_verified_every_time():
    # terminators, ops with regions or successors, and xDSL verifiers not read
    # for this (memref.load checks its indices against the memref's rank, an
    # unaudited custom verifier) are not remembered by signature
    from xdsl.dialects import memref

    assert _signature_verified(llvm.FAddOp) == ()
    assert _signature_verified(llvm.CallOp) not in (None, ())  # its symbol use runs each time
    for cls in (llvm.ReturnOp, llvm.BrOp, llvm.FuncOp, memref.LoadOp):
        assert _signature_verified(cls) is None, cls.name


def test_a_call_like_one_verified_before_still_checks_its_callee():
    # the second call has the first one's signature; its callee is no llvm.func
    program = LLVM_PROGRAM.replace("  llvm.return %c : f64\n}\n", """\
  %d = llvm.call @h(%c) : (f64) -> f64
  llvm.return %d : f64
}
func.func @h(%a: f64) -> f64 {
  func.return %a : f64
}
""")
    with pytest.raises(DiagnosticError) as err:
        irt.parse(program)
    assert "'@h' must reference an 'llvm.func', but found 'func.func'" in str(err.value)
    assert ":8:3:" in str(err.value)  # at the second call


CFG_PROGRAM = """\
func.func @k(%a: f64, %p: i1) -> index {
  %i = arith.constant 3 : index
  %s = llvm.fadd %a, %a : f64
  llvm.cond_br %p, ^left, ^right
^left:
  %l = llvm.fmul %s, %a : f64
  llvm.br ^join
^right:
  %r = llvm.fmul %s, %s : f64
  llvm.br ^join
^join:
  %j = llvm.fsub %s, %a : f64
  func.return %i : index
}
"""


@dataclass(frozen=True)
class CorruptCfg(ModulePass):
    """A buggy pass on CFG_PROGRAM: ``how`` says what it breaks in an op verified before."""

    name = "corrupt-cfg"
    how: str = "nothing"

    def apply(self, ctx, module: ModuleOp) -> None:
        from xdsl.dialects.builtin import IndexType, IntegerAttr

        ops = {op.name: op for op in module.walk()}
        if self.how == "index-constant":  # a property changed in place, out of index's range
            ops["arith.constant"].properties["value"] = IntegerAttr(2**70, IndexType())
        elif self.how == "dominance":  # ^join's fsub uses ^right's value, which does not dominate it
            fsub = ops["llvm.fsub"]
            fsub.operands[1] = ops["llvm.fmul"].results[0]


def _run_cfg(*hows: str) -> None:
    module = irt.parse(CFG_PROGRAM)
    PipelineRunner([CorruptCfg(h) for h in hows], verify_each=True).run(module)


def test_uses_across_blocks_and_index_constants_verify_again():
    # (both stay on the walk's quick path: a use across blocks that dominates,
    # an index constant whose signature passed its range check)
    _run_cfg("nothing", "nothing")


@pytest.mark.parametrize(("how", "message", "at"), [
    ("index-constant", "does not fit in 64 bits", ":2:"),
    ("dominance", "operand #1 does not dominate this use", ":12:"),
])
def test_a_quick_path_op_broken_after_it_verified_is_caught(how, message, at):
    with pytest.raises(DiagnosticError) as err:
        _run_cfg("nothing", how)
    text = str(err.value)
    assert message in text and "(after pass 'corrupt-cfg')" in text
    assert at in text


def test_a_signature_known_by_its_objects_keeps_them():
    # the ops a pass builds share their type and attribute objects: a signature
    # that verified is also known by their ids, which must not be reused by
    # other objects while it is known (it keeps them)
    from irtoolkit.verifier import _identity_key, verify_module

    module = irt.parse(LLVM_PROGRAM)
    signatures: dict = {}
    verify_module(module, signatures)
    fadd = next(op for op in module.walk() if op.name == "llvm.fadd")
    types = tuple(v.type for v in (*fadd.operands, *fadd.results))
    kept_types, kept_properties, _ = signatures[_identity_key(fadd, types)]
    assert all(a is b for a, b in zip(kept_types, types, strict=True))
    assert all(a is b for a, b in zip(kept_properties, fadd.properties.values(), strict=True))
    # a property replaced by another object is not known by identity: verified again, and caught
    fadd.properties["fastmathFlags"] = StringAttr("fast")
    with pytest.raises(DiagnosticError, match="should be of base attribute llvm.fastmath"):
        verify_module(module, signatures)
