// W1: sum(tanh(exp(x) * x + 1)), x: (1_000_000,) f64; gradient wrt x.
func.func @loss(%x: tensor<1000000xf64>) -> f64 {
  %e = tensor.exp %x : tensor<1000000xf64>
  %m = tensor.mul %e, %x : tensor<1000000xf64>
  %one = arith.constant 1.0 : f64
  %ones = tensor.splat %one : tensor<1000000xf64>
  %a = tensor.add %m, %ones : tensor<1000000xf64>
  %t = tensor.tanh %a : tensor<1000000xf64>
  %s = tensor.reduce_sum %t [0] : tensor<1000000xf64> -> tensor<f64>
  %r = tensor.extract %s[] : tensor<f64>
  func.return %r : f64
}

func.func @grad(%x: tensor<1000000xf64>) -> tensor<1000000xf64> {
  %g = autodiff.grad @loss(%x) wrt [0] : (tensor<1000000xf64>) -> tensor<1000000xf64>
  func.return %g : tensor<1000000xf64>
}
