// RUN: irt-opt --split-input-file -p tensor-fuse %s | FileCheck %s
// RUN: irt-opt --split-input-file -p tensor-fuse %s | irt-opt --split-input-file | FileCheck %s

// The chain and the broadcast become one 2-d nest; the broadcast is an index remapping.
// CHECK-LABEL: func.func @chain
// CHECK-NOT:     tensor.broadcast
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<4x3xf32>
// CHECK:         %[[R:.*]] = loop.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[O:.*]] = %[[E]]) -> (tensor<4x3xf32>) {
// CHECK-NEXT:      loop.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[P:.*]] = %[[O]]) -> (tensor<4x3xf32>) {
// CHECK-NEXT:        %[[X:.*]] = tensor.extract %x[%[[I]], %[[J]]] {irt.in_bounds} : tensor<4x3xf32>
// CHECK-NEXT:        %[[B:.*]] = tensor.extract %b[%[[J]]] {irt.in_bounds} : tensor<3xf32>
// CHECK-NEXT:        %[[A:.*]] = arith.addf %[[X]], %[[B]] : f32
// CHECK-NEXT:        %[[EX:.*]] = math.exp %[[A]] : f32
// CHECK-NEXT:        %[[M:.*]] = arith.mulf %[[EX]], %[[X]] : f32
// CHECK-NEXT:        %[[U:.*]] = tensor.insert %[[M]] into %[[P]][%[[I]], %[[J]]] {irt.in_bounds} : tensor<4x3xf32>
// CHECK-NEXT:        loop.yield %[[U]] : tensor<4x3xf32>
// CHECK:         func.return %[[R]] : tensor<4x3xf32>

func.func @chain(%x: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
  %bb = tensor.broadcast %b [1] : tensor<3xf32> -> tensor<4x3xf32>
  %a = tensor.add %x, %bb : tensor<4x3xf32>
  %e = tensor.exp %a : tensor<4x3xf32>
  %m = tensor.mul %e, %x : tensor<4x3xf32>
  func.return %m : tensor<4x3xf32>
}

// -----

// A full float sum carries a scalar, blocked: ceil(n / 512) blocks summed in order, each
// by a loop whose additions are reassociable (LLVM vectorizes it with partial sums); the
// extract of its 0-d result reads it; the size is tensor.dim; fused reads need no bounds check.
// CHECK-LABEL: func.func @sum
// CHECK-DAG:     %[[B:.*]] = arith.constant 512 : index
// CHECK-DAG:     %[[B1:.*]] = arith.constant 511 : index
// CHECK:         %[[D:.*]] = tensor.dim %x, %{{.*}} : tensor<?xf64>
// CHECK-NOT:     tensor.empty
// CHECK:         %[[N1:.*]] = arith.addi %[[D]], %[[B1]] : index
// CHECK:         %[[NB:.*]] = arith.divui %[[N1]], %[[B]] : index
// CHECK:         %[[R:.*]] = loop.for %[[K:.*]] = %{{.*}} to %[[NB]] step %{{.*}} iter_args(%[[T:.*]] = %{{.*}}) -> (f64) {
// CHECK-NEXT:      %[[LO:.*]] = arith.muli %[[K]], %[[B]] : index
// CHECK-NEXT:      %[[HI0:.*]] = arith.addi %[[LO]], %[[B]] : index
// CHECK-NEXT:      %[[HI:.*]] = arith.minui %[[HI0]], %[[D]] : index
// CHECK-NEXT:      %[[BS:.*]] = loop.for %[[I:.*]] = %[[LO]] to %[[HI]] step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f64) {
// CHECK-NEXT:        %[[X:.*]] = tensor.extract %x[%[[I]]] {irt.in_bounds} : tensor<?xf64>
// CHECK-NEXT:        %[[A:.*]] = math.absf %[[X]] : f64
// CHECK-NEXT:        %[[M:.*]] = arith.mulf %[[A]], %[[X]] : f64
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[ACC]], %[[M]] fastmath<reassoc> : f64
// CHECK-NEXT:        loop.yield %[[S]] : f64
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[T2:.*]] = arith.addf %[[T]], %[[BS]] fastmath<reassoc> : f64
// CHECK-NEXT:      loop.yield %[[T2]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : f64

func.func @sum(%x: tensor<?xf64>) -> f64 {
  %t = tensor.abs %x : tensor<?xf64>
  %m = tensor.mul %t, %x : tensor<?xf64>
  %s = tensor.reduce_sum %m [0] : tensor<?xf64> -> tensor<f64>
  %r = tensor.extract %s[] : tensor<f64>
  func.return %r : f64
}

// -----

// A sum over a leading dim (rows of >= 8): row by row into a carried f64 row
// (contiguous reads; vectorizes across the row), rounded to f32 at the end.
// CHECK-LABEL: func.func @col_sums
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<16xf64>
// CHECK:         %[[Z:.*]] = loop.for %{{.*}} iter_args(%[[ZA:.*]] = %[[E]]) -> (tensor<16xf64>) {
// CHECK-NEXT:      tensor.insert %[[ZERO]] into %[[ZA]]
// CHECK:         %[[ACC:.*]] = loop.for %[[I:.*]] = {{.*}} iter_args(%[[A:.*]] = %[[Z]]) -> (tensor<16xf64>) {
// CHECK-NEXT:      loop.for %[[J:.*]] = {{.*}} iter_args(%[[B:.*]] = %[[A]]) -> (tensor<16xf64>) {
// CHECK-NEXT:        %[[X:.*]] = tensor.extract %x[%[[I]], %[[J]]] {irt.in_bounds} : tensor<100x16xf32>
// CHECK-NEXT:        %[[EX:.*]] = math.exp %[[X]] : f32
// CHECK-NEXT:        %[[W:.*]] = arith.extf %[[EX]] : f32 to f64
// CHECK-NEXT:        %[[OLD:.*]] = tensor.extract %[[B]][%[[J]]] {irt.in_bounds} : tensor<16xf64>
// CHECK-NEXT:        %[[NEW:.*]] = arith.addf %[[OLD]], %[[W]] fastmath<reassoc> : f64
// CHECK-NEXT:        tensor.insert %[[NEW]] into %[[B]][%[[J]]] {irt.in_bounds} : tensor<16xf64>
// CHECK:         tensor.empty() : tensor<16xf32>
// CHECK:           tensor.extract %[[ACC]]
// CHECK-NEXT:      arith.truncf %{{.*}} : f64 to f32
func.func @col_sums(%x: tensor<100x16xf32>) -> tensor<16xf32> {
  %e = tensor.exp %x : tensor<100x16xf32>
  %s = tensor.reduce_sum %e [0] : tensor<100x16xf32> -> tensor<16xf32>
  func.return %s : tensor<16xf32>
}

// -----

// A partial reduction: kept dims outside (carrying the output), reduced dims inside (a scalar).
// CHECK-LABEL: func.func @rows
// CHECK:         %[[NINF:.*]] = arith.constant 0xfff0000000000000 : f64
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<2xf64>
// CHECK:         %[[R:.*]] = loop.for %[[I:.*]] = {{.*}} iter_args(%[[O:.*]] = %[[E]]) -> (tensor<2xf64>) {
// CHECK-NEXT:      %[[V:.*]] = loop.for %[[J:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %[[NINF]]) -> (f64) {
// CHECK-NEXT:        %[[X:.*]] = tensor.extract %x[%[[I]], %[[J]]] {irt.in_bounds} : tensor<2x5xf64>
// CHECK-NEXT:        %[[N:.*]] = arith.negf %[[X]] : f64
// CHECK-NEXT:        %[[EX:.*]] = math.absf %[[N]] : f64
// CHECK-NEXT:        %[[MX:.*]] = arith.maximumf %[[ACC]], %[[EX]] : f64
// CHECK-NEXT:        loop.yield %[[MX]] : f64
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[U:.*]] = tensor.insert %[[V]] into %[[O]][%[[I]]] {irt.in_bounds} : tensor<2xf64>
// CHECK-NEXT:      loop.yield %[[U]] : tensor<2xf64>
// CHECK:         func.return %[[R]] : tensor<2xf64>

func.func @rows(%x: tensor<2x5xf64>) -> tensor<2xf64> {
  %n = tensor.neg %x : tensor<2x5xf64>
  %e = tensor.abs %n : tensor<2x5xf64>
  %s = tensor.reduce_max %e [1] : tensor<2x5xf64> -> tensor<2xf64>
  func.return %s : tensor<2xf64>
}

// -----

// A value used by two trees is cut: it stays a tensor op, both nests read it.
// CHECK-LABEL: func.func @cut
// CHECK:         %[[E:.*]] = tensor.exp %x : tensor<4xf32>
// CHECK:         loop.for
// CHECK:           tensor.extract %[[E]]
// CHECK-NEXT:      math.sin
// CHECK-NEXT:      math.cos
// CHECK:         loop.for
// CHECK:           tensor.extract %[[E]]
// CHECK-NEXT:      math.log
// CHECK-NEXT:      arith.negf
// CHECK-NOT:     tensor.sin
// CHECK-NOT:     tensor.log

func.func @cut(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.exp %x : tensor<4xf32>
  %s = tensor.sin %e : tensor<4xf32>
  %c = tensor.cos %s : tensor<4xf32>
  %l = tensor.log %e : tensor<4xf32>
  %n = tensor.neg %l : tensor<4xf32>
  func.return %c, %n : tensor<4xf32>, tensor<4xf32>
}

// -----

// A single op is left alone.
// CHECK-LABEL: func.func @single
// CHECK-NEXT:    %[[E:.*]] = tensor.exp %x : tensor<4xf32>
// CHECK-NEXT:    func.return %[[E]]

func.func @single(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.exp %x : tensor<4xf32>
  func.return %e : tensor<4xf32>
}

// -----

// reduce_sum(broadcast(x)) is x * 4; A @ ones is a row sum, broadcast. (Neutral
// operands, x * 1, are canonicalize's: test/dialects/tensor/canonicalize.mlir.)
// CHECK-LABEL: func.func @simplify
// CHECK-NOT:     tensor.matmul
// CHECK-NOT:     tensor.reduce_sum %{{.*}} : tensor<3x4xf64>
// CHECK:         %[[C:.*]] = arith.constant 4.000000e+00 : f64
// CHECK:         %[[S:.*]] = tensor.splat %[[C]] : tensor<3xf64>
// CHECK:         %[[M:.*]] = tensor.mul %x, %[[S]] : tensor<3xf64>
// CHECK:         %[[RS:.*]] = tensor.reduce_sum %a [1] : tensor<2x4xf64> -> tensor<2xf64>
// CHECK:         %[[B:.*]] = tensor.broadcast %[[RS]] [0] : tensor<2xf64> -> tensor<2x5xf64>
// CHECK:         func.return %[[M]], %[[B]]

func.func @simplify(%x: tensor<3xf64>, %a: tensor<2x4xf64>) -> (tensor<3xf64>, tensor<2x5xf64>) {
  %b = tensor.broadcast %x [0] : tensor<3xf64> -> tensor<3x4xf64>
  %s = tensor.reduce_sum %b [1] : tensor<3x4xf64> -> tensor<3xf64>
  %ones = arith.constant dense<1.0> : tensor<4x5xf64>
  %p = tensor.matmul %a, %ones : (tensor<2x4xf64>, tensor<4x5xf64>) -> tensor<2x5xf64>
  func.return %s, %p : tensor<3xf64>, tensor<2x5xf64>
}

// -----

// A float reduction of a tree with vectorizable math (exp, tanh, ...) is fused with the
// tree (its reassociable additions let the loop vectorize); an f32 sum accumulates in f64.
// CHECK-LABEL: func.func @split
// CHECK:         %[[T:.*]] = loop.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f64) {
// CHECK:           math.exp
// CHECK:           %[[M:.*]] = arith.mulf
// CHECK:           %[[W:.*]] = arith.extf %[[M]] : f32 to f64
// CHECK:           arith.addf %[[ACC]], %[[W]] fastmath<reassoc> : f64
// CHECK:         %[[S:.*]] = arith.truncf %[[T]] : f64 to f32
// CHECK-NOT:     tensor.reduce_sum
// CHECK:         tensor.insert %[[S]]
func.func @split(%x: tensor<8xf32>) -> tensor<f32> {
  %e = tensor.exp %x : tensor<8xf32>
  %m = tensor.mul %e, %x : tensor<8xf32>
  %s = tensor.reduce_sum %m [0] : tensor<8xf32> -> tensor<f32>
  func.return %s : tensor<f32>
}

// -----

// Dynamic leaves: the shape check of the fused `tensor.add` is emitted before the
// nest (tensor.dim + arith.cmpi + cf.assert with the unfused lowering's message).
// CHECK-LABEL: func.func @dyn_check
// CHECK-DAG:     %[[DX:.*]] = tensor.dim %x, %{{.*}} : tensor<?xf64>
// CHECK-DAG:     %[[DY:.*]] = tensor.dim %y, %{{.*}} : tensor<?xf64>
// CHECK:         %[[OK:.*]] = arith.cmpi eq, %[[DX]], %[[DY]] : index
// CHECK-NEXT:    cf.assert %[[OK]], "'tensor.add' op operand shapes differ at run time: dim 0 of operand #0 vs operand #1"
// CHECK-NOT:     cf.assert
// CHECK:         loop.for
// CHECK-NOT:     cf.assert
// CHECK:         func.return

func.func @dyn_check(%x: tensor<?xf64>, %y: tensor<?xf64>) -> tensor<?xf64> {
  %e = tensor.exp %x : tensor<?xf64>
  %f = tensor.mul %e, %e : tensor<?xf64>
  %z = tensor.add %f, %y : tensor<?xf64>
  func.return %z : tensor<?xf64>
}

// -----

// A dynamic broadcast operand read as an index remapping: checked as the broadcast
// (1 or the result size), then the add (its dynamic operand against the static size).
// CHECK-LABEL: func.func @bcast_check
// CHECK:         cf.assert %{{.*}}, "'tensor.broadcast' op cannot broadcast at run time: operand dim 0 is neither 1 nor the size of result dim 1 (operand size vs result size)"
// CHECK:         cf.assert %{{.*}}, "'tensor.add' op operand shapes differ at run time: dim 1 of operand #0 vs operand #1"
// CHECK-NOT:     tensor.broadcast
// CHECK:         loop.for

func.func @bcast_check(%x: tensor<3x?xf64>, %b: tensor<?xf64>) -> tensor<3x4xf64> {
  %bb = tensor.broadcast %b [1] : tensor<?xf64> -> tensor<3x4xf64>
  %a = tensor.add %x, %bb : (tensor<3x?xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %e = tensor.exp %a : tensor<3x4xf64>
  func.return %e : tensor<3x4xf64>
}

// -----

// Static shapes: nothing to check at run time.
// CHECK-LABEL: func.func @static_no_check
// CHECK-NOT:     tensor.dim
// CHECK-NOT:     cf.assert
// CHECK:         loop.for
// CHECK-NOT:     cf.assert
// CHECK:         func.return

func.func @static_no_check(%x: tensor<4xf64>, %y: tensor<4xf64>) -> tensor<4xf64> {
  %e = tensor.exp %x : tensor<4xf64>
  %f = tensor.mul %e, %e : tensor<4xf64>
  %z = tensor.add %f, %y : tensor<4xf64>
  func.return %z : tensor<4xf64>
}

// -----

// Windows of static size are read through (an index offset into the big tensor, no
// copy), and an accumulation into a window of %g that reads %g only there updates
// %g: the nest carries %g and reads each element before it writes it.
// CHECK-LABEL: func.func @accumulate
// CHECK-NOT:     tensor.extract_slice
// CHECK:         %[[G2:.*]] = loop.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %g) -> (tensor<6x7xf64>) {
// CHECK-NEXT:      loop.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[B:.*]] = %[[A]]) -> (tensor<6x7xf64>) {
// CHECK-NEXT:        %[[K:.*]] = tensor.extract %k[%[[I]], %[[J]]] {irt.in_bounds} : tensor<4x5xf64>
// CHECK-NEXT:        %[[R:.*]] = arith.addi %{{.*}}, %[[I]] : index
// CHECK-NEXT:        %[[C:.*]] = arith.addi %{{.*}}, %[[J]] : index
// CHECK-NEXT:        %[[U:.*]] = tensor.extract %u[%[[R]], %[[C]]] {irt.in_bounds} : tensor<6x7xf64>
// CHECK-NEXT:        %[[M:.*]] = arith.mulf %[[K]], %[[U]] : f64
// CHECK-NEXT:        %[[C2:.*]] = arith.addi %{{.*}}, %[[J]] : index
// CHECK-NEXT:        %[[OLD:.*]] = tensor.extract %[[B]][%[[I]], %[[C2]]] {irt.in_bounds} : tensor<6x7xf64>
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[OLD]], %[[M]] : f64
// CHECK-NEXT:        %[[C3:.*]] = arith.addi %{{.*}}, %[[J]] : index
// CHECK-NEXT:        %[[W:.*]] = tensor.insert %[[S]] into %[[B]][%[[I]], %[[C3]]] {irt.in_bounds} : tensor<6x7xf64>
// CHECK-NEXT:        loop.yield %[[W]] : tensor<6x7xf64>
// CHECK-NOT:     tensor.insert_slice
// CHECK:         func.return %[[G2]] : tensor<6x7xf64>

func.func @accumulate(%g: tensor<6x7xf64>, %k: tensor<4x5xf64>, %u: tensor<6x7xf64>) -> tensor<6x7xf64> {
  %gs = tensor.extract_slice %g[0, 2] [4, 5] [1, 1] : tensor<6x7xf64> to tensor<4x5xf64>
  %un = tensor.extract_slice %u[2, 1] [4, 5] [1, 1] : tensor<6x7xf64> to tensor<4x5xf64>
  %m = tensor.mul %k, %un : tensor<4x5xf64>
  %acc = tensor.add %gs, %m : tensor<4x5xf64>
  %g2 = tensor.insert_slice %acc into %g[0, 2] [4, 5] [1, 1] : tensor<4x5xf64> into tensor<6x7xf64>
  func.return %g2 : tensor<6x7xf64>
}

// -----

// A value stored into a tape (a residual) and read by a kernel: its kernel writes
// into the tape, and the reader reads the stored window (no temporary, no copy).
// CHECK-LABEL: func.func @taped
// CHECK:         %[[TAPE2:.*]] = loop.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %tape) -> (tensor<3x4x8xf64>) {
// CHECK-NEXT:      loop.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[B:.*]] = %[[A]]) -> (tensor<3x4x8xf64>) {
// CHECK-NEXT:        %[[X:.*]] = tensor.extract %x[%[[I]], %[[J]]] {irt.in_bounds} : tensor<4x8xf64>
// CHECK-NEXT:        %[[T:.*]] = math.tanh %[[X]] : f64
// CHECK-NEXT:        tensor.insert %[[T]] into %[[B]][%j, %[[I]], %[[J]]] {irt.in_bounds} : tensor<3x4x8xf64>
// CHECK:         %[[Z:.*]] = loop.for
// CHECK:             %[[S:.*]] = tensor.extract %[[TAPE2]][%j, %{{.*}}, %{{.*}}] {irt.in_bounds} : tensor<3x4x8xf64>
// CHECK-NOT:     math.tanh
// CHECK-NOT:     tensor.insert_slice
// CHECK:         func.return %[[Z]], %[[TAPE2]] : tensor<4x8xf64>, tensor<3x4x8xf64>

func.func @taped(%x: tensor<4x8xf64>, %tape: tensor<3x4x8xf64>, %j: index) -> (tensor<4x8xf64>, tensor<3x4x8xf64>) {
  %t = tensor.tanh %x : tensor<4x8xf64>
  %y = tensor.mul %t, %x : tensor<4x8xf64>
  %z = tensor.add %y, %t : tensor<4x8xf64>
  %tape2 = tensor.insert_slice %t into %tape[%j, 0, 0] [1, 4, 8] [1, 1, 1] : tensor<4x8xf64> into tensor<3x4x8xf64>
  func.return %z, %tape2 : tensor<4x8xf64>, tensor<3x4x8xf64>
}
