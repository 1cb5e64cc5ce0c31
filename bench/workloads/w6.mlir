// W6: long loop. 400 explicit steps of a reaction-diffusion stencil on a 128x128
// grid (f64) with a fixed boundary: in the interior
//   u <- c + 0.2 * k * (n + s + w + e - 4 c) - 0.05 * tanh(c),
// c the interior and n, s, w, e its four shifted neighbours; k (126x126) is a
// diffusivity field. Loss sum(u*u) of the final state, gradient wrt u0 and k.
// The loop is checkpointed (the gradient recomputes instead of storing all 400
// states): the bench compiles it as written ("sqrt") and under a memory budget.
func.func @loss(%u0: tensor<128x128xf64>, %k: tensor<126x126xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 400 : index
  %a = arith.constant 0.2 : f64
  %b = arith.constant 0.05 : f64
  %four = arith.constant 4.0 : f64
  %sa = tensor.splat %a : tensor<126x126xf64>
  %sb = tensor.splat %b : tensor<126x126xf64>
  %s4 = tensor.splat %four : tensor<126x126xf64>
  %ka = tensor.mul %k, %sa : tensor<126x126xf64>
  %uT = loop.for %i = %c0 to %n step %c1 iter_args(%u = %u0) -> (tensor<128x128xf64>) {
    %c = tensor.extract_slice %u[1, 1] [126, 126] [1, 1] : tensor<128x128xf64> to tensor<126x126xf64>
    %un = tensor.extract_slice %u[0, 1] [126, 126] [1, 1] : tensor<128x128xf64> to tensor<126x126xf64>
    %us = tensor.extract_slice %u[2, 1] [126, 126] [1, 1] : tensor<128x128xf64> to tensor<126x126xf64>
    %uw = tensor.extract_slice %u[1, 0] [126, 126] [1, 1] : tensor<128x128xf64> to tensor<126x126xf64>
    %ue = tensor.extract_slice %u[1, 2] [126, 126] [1, 1] : tensor<128x128xf64> to tensor<126x126xf64>
    %ns = tensor.add %un, %us : tensor<126x126xf64>
    %we = tensor.add %uw, %ue : tensor<126x126xf64>
    %nb = tensor.add %ns, %we : tensor<126x126xf64>
    %c4 = tensor.mul %c, %s4 : tensor<126x126xf64>
    %lap = tensor.sub %nb, %c4 : tensor<126x126xf64>
    %d = tensor.mul %ka, %lap : tensor<126x126xf64>
    %t = tensor.tanh %c : tensor<126x126xf64>
    %r = tensor.mul %t, %sb : tensor<126x126xf64>
    %cd = tensor.add %c, %d : tensor<126x126xf64>
    %new = tensor.sub %cd, %r : tensor<126x126xf64>
    %v = tensor.insert_slice %new into %u[1, 1] [126, 126] [1, 1] : tensor<126x126xf64> into tensor<128x128xf64>
    loop.yield %v : tensor<128x128xf64>
  } {autodiff.checkpoint = "sqrt"}
  %sq = tensor.mul %uT, %uT : tensor<128x128xf64>
  %s = tensor.reduce_sum %sq [0, 1] : tensor<128x128xf64> -> tensor<f64>
  %r = tensor.extract %s[] : tensor<f64>
  func.return %r : f64
}

func.func @grad(%u0: tensor<128x128xf64>, %k: tensor<126x126xf64>)
    -> (tensor<128x128xf64>, tensor<126x126xf64>) {
  %gu, %gk = autodiff.grad @loss(%u0, %k) wrt [0, 1]
      : (tensor<128x128xf64>, tensor<126x126xf64>) -> (tensor<128x128xf64>, tensor<126x126xf64>)
  func.return %gu, %gk : tensor<128x128xf64>, tensor<126x126xf64>
}
