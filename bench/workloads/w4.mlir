// W4: 200 times: x = sin(x) * 0.9 if sum(x) > 0 else cos(x) + 0.1; loss sum(x*x); x: (1000,) f64.
func.func @loss(%x0: tensor<1000xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 200 : index
  %zero = arith.constant 0.0 : f64
  %k09 = arith.constant 0.9 : f64
  %k01 = arith.constant 0.1 : f64
  %xT = loop.for %i = %c0 to %n step %c1 iter_args(%x = %x0) -> (tensor<1000xf64>) {
    %s = tensor.reduce_sum %x [0] : tensor<1000xf64> -> tensor<f64>
    %se = tensor.extract %s[] : tensor<f64>
    %pos = arith.cmpf ogt, %se, %zero : f64
    %xn = loop.if %pos -> (tensor<1000xf64>) {
      %sx = tensor.sin %x : tensor<1000xf64>
      %c = tensor.splat %k09 : tensor<1000xf64>
      %r = tensor.mul %sx, %c : tensor<1000xf64>
      loop.yield %r : tensor<1000xf64>
    } else {
      %cx = tensor.cos %x : tensor<1000xf64>
      %c = tensor.splat %k01 : tensor<1000xf64>
      %r = tensor.add %cx, %c : tensor<1000xf64>
      loop.yield %r : tensor<1000xf64>
    }
    loop.yield %xn : tensor<1000xf64>
  }
  %sq = tensor.mul %xT, %xT : tensor<1000xf64>
  %t = tensor.reduce_sum %sq [0] : tensor<1000xf64> -> tensor<f64>
  %r = tensor.extract %t[] : tensor<f64>
  func.return %r : f64
}

func.func @grad(%x: tensor<1000xf64>) -> tensor<1000xf64> {
  %g = autodiff.grad @loss(%x) wrt [0] : (tensor<1000xf64>) -> tensor<1000xf64>
  func.return %g : tensor<1000xf64>
}
