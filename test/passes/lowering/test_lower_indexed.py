"""`lower-tensor-to-loop` of gather / scatter_add: the buffers they use.

An embedding lookup's backward pass zeroes one gradient buffer of the table
and adds the looked-up rows into it in place, step after step: no other
table-sized buffer, no copy of the table."""

import re

import irtoolkit as irt

TABLE = "memref<1000x16xf32>"

EMBEDDING = """
func.func @loss(%table: tensor<1000x16xf32>, %ids: tensor<8x1xindex>, %h0: tensor<1x16xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %h = loop.for %k = %c0 to %c8 step %c1 iter_args(%acc = %h0) -> (tensor<1x16xf32>) {
    %id = tensor.extract_slice %ids[%k, 0] [1, 1] [1, 1] : tensor<8x1xindex> to tensor<1x1xindex>
    %e = tensor.gather %table[%id] gather_dims([0]) : (tensor<1000x16xf32>, tensor<1x1xindex>) -> tensor<1x16xf32>
    %t = tensor.tanh %acc : tensor<1x16xf32>
    %n = tensor.add %t, %e : tensor<1x16xf32>
    loop.yield %n : tensor<1x16xf32>
  }
  %sq = tensor.mul %h, %h : tensor<1x16xf32>
  %s = tensor.reduce_sum %sq [0, 1] : tensor<1x16xf32> -> tensor<f32>
  %l = tensor.extract %s[] : tensor<f32>
  return %l : f32
}
func.func @dloss(%table: tensor<1000x16xf32>, %ids: tensor<8x1xindex>, %h0: tensor<1x16xf32>) -> tensor<1000x16xf32> {
  %d = autodiff.grad @loss(%table, %ids, %h0) wrt [0] : (tensor<1000x16xf32>, tensor<8x1xindex>, tensor<1x16xf32>) -> tensor<1000x16xf32>
  return %d : tensor<1000x16xf32>
}
"""

LOWER = "ad,convert-scf-to-loop,canonicalize,cse,tensor-fuse,lower-tensor-to-loop"


def _function(text: str, name: str) -> str:
    start = text.index(f"@{name}(")
    end = text.find("func.func", start)
    return text[start:] if end < 0 else text[start:end]


def test_embedding_backward_zeroes_one_table_and_adds_rows_in_place():
    text = str(irt.run_pipeline(irt.parse(EMBEDDING), LOWER))
    grad = _function(text, next(m for m in re.findall(r"@(loss_grad\w*)\(", text)))
    allocs = [line for line in grad.splitlines() if "memref.alloc" in line and TABLE in line]
    assert len(allocs) == 1, allocs
    assert not any("memref.copy" in line and TABLE in line for line in grad.splitlines())
    # the one buffer is allocated outside every loop (indentation: the function body's)
    assert allocs[0].startswith("    %"), allocs[0]
    # the reverse loop carries the table's gradient and reads/writes it in place
    carried = re.search(r"iter_args\([^)]*(%\w+) = " + re.escape(allocs[0].split()[0]), grad)
    assert carried, "the zeroed buffer is carried by the reverse loop"
    inner = carried.group(1)
    assert re.search(rf"memref.load {inner}\[", grad) and re.search(rf"memref.store %\w+, {inner}\[", grad)


def test_scatter_add_writes_a_dead_dest_in_place_and_copies_a_live_one():
    src = """
func.func @fresh(%x: tensor<10x4xf32>, %u: tensor<3x4xf32>, %i: tensor<3x1xindex>) -> tensor<10x4xf32> {
  %d = tensor.add %x, %x : tensor<10x4xf32>
  %r = tensor.scatter_add %u into %d[%i] scatter_dims([0]) : (tensor<3x4xf32>, tensor<10x4xf32>, tensor<3x1xindex>) -> tensor<10x4xf32>
  return %r : tensor<10x4xf32>
}
func.func @argument(%d: tensor<10x4xf32>, %u: tensor<3x4xf32>, %i: tensor<3x1xindex>) -> tensor<10x4xf32> {
  %r = tensor.scatter_add %u into %d[%i] scatter_dims([0]) : (tensor<3x4xf32>, tensor<10x4xf32>, tensor<3x1xindex>) -> tensor<10x4xf32>
  return %r : tensor<10x4xf32>
}
"""
    text = str(irt.run_pipeline(irt.parse(src), "lower-tensor-to-loop"))
    assert "memref.copy" not in _function(text, "fresh")
    assert "memref.copy" in _function(text, "argument")  # arguments are never written
