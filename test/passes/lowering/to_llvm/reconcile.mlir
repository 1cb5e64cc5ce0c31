// RUN: irt-opt %s -p tensor-fuse,lower-tensor-to-loop,lower-loop-to-cf,convert-memref-to-llvm,convert-arith-to-llvm,convert-math-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts | FileCheck %s

// The conversions run one by one leave cast chains (here around the outlined
// parallel loop) that reconcile-unrealized-casts removes; xDSL's own pass
// failed on them ("insertion point must have a parent block").

// CHECK-NOT: unrealized_conversion_cast
// CHECK:     llvm.func @loss
// CHECK-NOT: unrealized_conversion_cast
func.func @loss(%x: tensor<1000000xf64>) -> f64 {
  %e = tensor.exp %x : tensor<1000000xf64>
  %s = tensor.reduce_sum %e [0] : tensor<1000000xf64> -> tensor<f64>
  %r = tensor.extract %s[] : tensor<f64>
  func.return %r : f64
}
