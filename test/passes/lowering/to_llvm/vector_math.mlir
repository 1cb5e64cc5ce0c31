// The JIT expands exp/log/tanh/sin/cos (f32, f64) into branch-free arithmetic
// (passes/lowering/to_llvm/vector_math.py). Special values must stay exact:
// overflow, underflow to subnormals and 0, NaN, ±inf, -0.0, huge sin/cos arguments.
// RUN: %python -c "import numpy as np; np.save('%t.x.npy', np.array([710.0, -746.0, -745.0, float('nan'), float('inf'), float('-inf'), -0.0, 1e300]))"
// RUN: %python -c "import numpy as np; np.save('%t.y.npy', np.array([89.0, -104.0, -100.0, float('nan'), float('inf'), float('-inf'), -0.0, 1.0], dtype=np.float32))"
// RUN: irt-run %s -i %t.x.npy -i %t.y.npy | FileCheck %s

// exp: overflow, underflow, smallest subnormal, nan, inf, 0, 1; exp(1e300) = inf
// CHECK:      result0 = array([ inf, 0.e+000, 5.e-324, nan, inf, 0.e+000, 1.e+000,
// CHECK-NEXT: inf])
// log|x|: log(0) = -inf, log(inf) = inf
// CHECK-NEXT: result1 = array([ 6.56526497, 6.6147256 , 6.61338422, nan,
// CHECK-NEXT: inf, inf, -inf, 690.7755279 ])
// tanh saturates, keeps -0.0
// CHECK-NEXT: result2 = array([ 1., -1., -1., nan, 1., -1., -0., 1.])
// sin: huge arguments (libm path), sin(±inf) = nan, sin(-0.0) = -0.0
// CHECK-NEXT: result3 = array([ 6.02887067e-05, 9.91786566e-01, 4.28237151e-01, nan,
// CHECK-NEXT: nan, nan, -0.00000000e+00, -8.17881912e-01])
// CHECK-NEXT: result4 = array([ 1. , -0.1279039 , -0.90366639, nan, nan,
// CHECK-NEXT: nan, 1. , -0.57538611])
// f32: exp(89) overflows, exp(-104) underflows to 0, exp(-100) is subnormal
// CHECK-NEXT: result5 = array([ inf, 0.0000000e+00, 3.7835059e-44, nan,
// CHECK-NEXT: inf, 0.0000000e+00, 1.0000000e+00, 2.7182817e+00],
// CHECK:      result6 = array([ 1. , -1. , -1. , nan, 1. ,
// CHECK-NEXT: -1. , -0. , 0.7615942], dtype=float32)
func.func @main(%x: tensor<8xf64>, %y: tensor<8xf32>)
    -> (tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>,
        tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.exp %x : tensor<8xf64>
  %a = tensor.abs %x : tensor<8xf64>
  %l = tensor.log %a : tensor<8xf64>
  %t = tensor.tanh %x : tensor<8xf64>
  %s = tensor.sin %x : tensor<8xf64>
  %c = tensor.cos %x : tensor<8xf64>
  %ef = tensor.exp %y : tensor<8xf32>
  %tf = tensor.tanh %y : tensor<8xf32>
  func.return %e, %l, %t, %s, %c, %ef, %tf
      : tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>,
        tensor<8xf32>, tensor<8xf32>
}
