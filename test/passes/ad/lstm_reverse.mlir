// RUN: irt-opt %s -p ad,canonicalize,cse | FileCheck %s
// RUN: irt-opt %s -p ad,canonicalize,cse | irt-opt | FileCheck %s

// The reverse sweep of a minibatch LSTM, as bench W9 (batch 8, hidden 16, 4 steps):
// the weight gradient dWh = sum_t h_t^T dz_t (16x8 by 8x64 a step) is not accumulated
// step by step: the reverse loop stacks dz_t in a tape, and one matmul after the loop,
// contracting over steps and batch at once, gives dWh = H^T DZ (H the forward tape of h);
// a tensor.dot over the tapes' leading dims, so that the gemm reads them in place.
// The tape of dz_t is also the cotangent of %zx (the adjoint of its slice %x adds dz_t
// into a zero tensor, a slot a step): the reverse loop writes one tape, not two.

func.func @loss(%wh: tensor<16x64xf32>, %zx: tensor<4x8x64xf32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %h0 = tensor.splat %zero : tensor<8x16xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 4 : index
  %hT, %cT = loop.for %t = %c0 to %n step %c1 iter_args(%h = %h0, %c = %h0) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
    %x = tensor.extract_slice %zx[%t, 0, 0] [1, 8, 64] [1, 1, 1] : tensor<4x8x64xf32> to tensor<8x64xf32>
    %zh = tensor.matmul %h, %wh : (tensor<8x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
    %z = tensor.add %x, %zh : tensor<8x64xf32>
    %ip = tensor.extract_slice %z[0, 0] [8, 16] [1, 1] : tensor<8x64xf32> to tensor<8x16xf32>
    %fp = tensor.extract_slice %z[0, 16] [8, 16] [1, 1] : tensor<8x64xf32> to tensor<8x16xf32>
    %gp = tensor.extract_slice %z[0, 32] [8, 16] [1, 1] : tensor<8x64xf32> to tensor<8x16xf32>
    %op = tensor.extract_slice %z[0, 48] [8, 16] [1, 1] : tensor<8x64xf32> to tensor<8x16xf32>
    %i = tensor.logistic %ip : tensor<8x16xf32>
    %f = tensor.logistic %fp : tensor<8x16xf32>
    %g = tensor.tanh %gp : tensor<8x16xf32>
    %o = tensor.logistic %op : tensor<8x16xf32>
    %fc = tensor.mul %f, %c : tensor<8x16xf32>
    %ig = tensor.mul %i, %g : tensor<8x16xf32>
    %cn = tensor.add %fc, %ig : tensor<8x16xf32>
    %tc = tensor.tanh %cn : tensor<8x16xf32>
    %hn = tensor.mul %o, %tc : tensor<8x16xf32>
    loop.yield %hn, %cn : tensor<8x16xf32>, tensor<8x16xf32>
  }
  %sq = tensor.mul %hT, %hT : tensor<8x16xf32>
  %s = tensor.reduce_sum %sq [0, 1] : tensor<8x16xf32> -> tensor<f32>
  %r = tensor.extract %s[] : tensor<f32>
  func.return %r : f32
}

func.func @grad(%wh: tensor<16x64xf32>, %zx: tensor<4x8x64xf32>) -> (tensor<16x64xf32>, tensor<4x8x64xf32>) {
  %gw, %gx = autodiff.grad @loss(%wh, %zx) wrt [0, 1]
      : (tensor<16x64xf32>, tensor<4x8x64xf32>) -> (tensor<16x64xf32>, tensor<4x8x64xf32>)
  func.return %gw, %gx : tensor<16x64xf32>, tensor<4x8x64xf32>
}

// CHECK-LABEL: func.func private @loss_grad_0_1(
// CHECK:         %{{[0-9]+}}, %{{[0-9]+}}, %[[HTAPE:[0-9]+]], %{{.*}} = loop.for
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<4x8x64xf32>
// CHECK:         %[[WT:.*]] = tensor.transpose %wh [1, 0]
// CHECK:         %{{[0-9]+}}, %{{[0-9]+}}, %[[DZTAPE:[0-9]+]] = loop.for %[[J:.*]] = %c0 to %n step %c1 iter_args(%{{[0-9]+}} = %{{[0-9]+}}, %{{[0-9]+}} = %h0, %[[DZT:[0-9]+]] = %[[E]])
// CHECK-NEXT:      %[[IDX:.*]] = arith.subi %{{.*}}, %[[J]] : index
// CHECK-NOT:       tensor.matmul
// CHECK:           %[[DZ:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [8, 16] [1, 1]
// CHECK-NEXT:      tensor.matmul %[[DZ]], %[[WT]] : (tensor<8x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
// CHECK-NOT:       tensor.matmul
// CHECK:           tensor.insert_slice %[[DZ]] into %[[DZT]][%[[IDX]], 0, 0] [1, 8, 64] [1, 1, 1]
// CHECK-NEXT:      loop.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[DW:.*]] = tensor.dot %[[HTAPE]], %[[DZTAPE]] contract [0, 1] x [0, 1] : (tensor<4x8x16xf32>, tensor<4x8x64xf32>) -> tensor<16x64xf32>
// CHECK-NEXT:    func.return %[[DW]], %[[DZTAPE]]
