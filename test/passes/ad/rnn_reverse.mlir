// RUN: irt-opt %s -p ad,canonicalize,cse | FileCheck %s
// RUN: irt-opt %s -p ad,canonicalize,cse | irt-opt | FileCheck %s

// The reverse sweep of an RNN step h' = tanh(W h + U x_t + b), as bench W3:
// - the forward loop stores h (carried) and, as a residual, the tanh output:
//   the reverse loop reads it back instead of recomputing both matmuls and tanh;
// - the transposed W of the adjoint matvec is hoisted out of the reverse loop;
// - the outer products dz_t h_t^T and dz_t x_t^T are not accumulated step by
//   step: the reverse loop stacks dz_t in a tape, and one matmul after the loop
//   gives dW = DZ^T H (H is the forward tape of h) and dU = DZ^T X (X = %xs);
// - the bias gradient is not accumulated step by step either: one reduce_sum of
//   the same tape after the loop.

func.func @loss(%w: tensor<32x32xf64>, %u: tensor<32x32xf64>, %b: tensor<32xf64>,
                %xs: tensor<10x32xf64>) -> f64 {
  %zero = arith.constant 0.0 : f64
  %h0 = tensor.splat %zero : tensor<32x1xf64>
  %bc = tensor.broadcast %b [0] : tensor<32xf64> -> tensor<32x1xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 10 : index
  %hT = loop.for %i = %c0 to %n step %c1 iter_args(%h = %h0) -> (tensor<32x1xf64>) {
    %xt = tensor.extract_slice %xs[%i, 0] [1, 32] [1, 1] : tensor<10x32xf64> to tensor<1x32xf64>
    %xc = tensor.transpose %xt [1, 0] : tensor<1x32xf64> -> tensor<32x1xf64>
    %wh = tensor.matmul %w, %h : (tensor<32x32xf64>, tensor<32x1xf64>) -> tensor<32x1xf64>
    %ux = tensor.matmul %u, %xc : (tensor<32x32xf64>, tensor<32x1xf64>) -> tensor<32x1xf64>
    %s1 = tensor.add %wh, %ux : tensor<32x1xf64>
    %s2 = tensor.add %s1, %bc : tensor<32x1xf64>
    %hn = tensor.tanh %s2 : tensor<32x1xf64>
    loop.yield %hn : tensor<32x1xf64>
  }
  %sq = tensor.mul %hT, %hT : tensor<32x1xf64>
  %s = tensor.reduce_sum %sq [0, 1] : tensor<32x1xf64> -> tensor<f64>
  %r = tensor.extract %s[] : tensor<f64>
  func.return %r : f64
}

func.func @grad(%w: tensor<32x32xf64>, %u: tensor<32x32xf64>, %b: tensor<32xf64>,
                %xs: tensor<10x32xf64>) -> (tensor<32x32xf64>, tensor<32x32xf64>, tensor<32xf64>) {
  %gw, %gu, %gb = autodiff.grad @loss(%w, %u, %b, %xs) wrt [0, 1, 2]
      : (tensor<32x32xf64>, tensor<32x32xf64>, tensor<32xf64>, tensor<10x32xf64>)
      -> (tensor<32x32xf64>, tensor<32x32xf64>, tensor<32xf64>)
  func.return %gw, %gu, %gb : tensor<32x32xf64>, tensor<32x32xf64>, tensor<32xf64>
}

// CHECK-LABEL: func.func private @loss_grad_0_1_2(
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<10x32x1xf64>
// CHECK:         %{{.*}}, %[[HTAPE:.*]], %[[TTAPE:.*]] = loop.for %[[I:.*]] = %c0 to %n step %c1 iter_args(%[[H:.*]] = %h0, %[[HT:.*]] = %[[E]], %[[TT:.*]] = %[[E]])
// CHECK-NEXT:      tensor.insert_slice %[[H]] into %[[HT]][%[[I]], 0, 0] [1, 32, 1] [1, 1, 1]
// CHECK:           %[[HN:.*]] = tensor.tanh
// CHECK-NEXT:      tensor.insert_slice %[[HN]] into %[[TT]][%[[I]], 0, 0] [1, 32, 1] [1, 1, 1]
// CHECK:         %[[WT:.*]] = tensor.transpose %w [1, 0]
// CHECK:         %{{.*}}, %[[DZTAPE:.*]] = loop.for %[[J:.*]] = %c0 to %n step %c1 iter_args(%[[DH:.*]] = %{{.*}}, %[[DZT:.*]] = %[[E]])
// CHECK-NEXT:      %[[IDX:.*]] = arith.subi %{{.*}}, %[[J]] : index
// CHECK-NEXT:      %[[Y:.*]] = tensor.extract_slice %[[TTAPE]][%[[IDX]], 0, 0] [1, 32, 1] [1, 1, 1]
// CHECK-NOT:       tensor.tanh
// CHECK-NOT:       tensor.transpose
// CHECK:           %[[DZ:.*]] = tensor.mul %[[DH]], %{{.*}}
// CHECK:           tensor.matmul %[[WT]], %[[DZ]]
// CHECK-NEXT:      tensor.insert_slice %[[DZ]] into %[[DZT]][%[[IDX]], 0, 0] [1, 32, 1] [1, 1, 1]
// CHECK-NEXT:      loop.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[DBS:.*]] = tensor.reduce_sum %[[DZTAPE]] [0] : tensor<10x32x1xf64> -> tensor<32x1xf64>
// CHECK-NEXT:    %[[DB:.*]] = tensor.add %h0, %[[DBS]]
// CHECK-NEXT:    %[[DZM:.*]] = tensor.collapse_shape %[[DZTAPE]] {{\[}}[0], [1, 2]] : tensor<10x32x1xf64> into tensor<10x32xf64>
// CHECK-NEXT:    %[[HM:.*]] = tensor.collapse_shape %[[HTAPE]] {{\[}}[0], [1, 2]] : tensor<10x32x1xf64> into tensor<10x32xf64>
// CHECK-NEXT:    %[[DZMT:.*]] = tensor.transpose %[[DZM]] [1, 0]
// CHECK-NEXT:    %[[DW:.*]] = tensor.matmul %[[DZMT]], %[[HM]] : (tensor<32x10xf64>, tensor<10x32xf64>) -> tensor<32x32xf64>
// CHECK-NEXT:    %[[DU:.*]] = tensor.matmul %[[DZMT]], %xs : (tensor<32x10xf64>, tensor<10x32xf64>) -> tensor<32x32xf64>
// CHECK-NEXT:    %[[DBV:.*]] = tensor.reduce_sum %[[DB]] [1]
// CHECK-NEXT:    func.return %[[DW]], %[[DU]], %[[DBV]]
