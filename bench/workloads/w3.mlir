// W3: RNN h = tanh(W h + U x_t + b) for t < 100, h_0 = 0, hidden 128, input 32;
// loss sum(h*h) of the final state (f64). h is kept as a 128x1 column.
func.func @loss(%w: tensor<128x128xf64>, %u: tensor<128x32xf64>, %b: tensor<128xf64>,
                %xs: tensor<100x32xf64>) -> f64 {
  %zero = arith.constant 0.0 : f64
  %h0 = tensor.splat %zero : tensor<128x1xf64>
  %bc = tensor.broadcast %b [0] : tensor<128xf64> -> tensor<128x1xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 100 : index
  %hT = loop.for %i = %c0 to %n step %c1 iter_args(%h = %h0) -> (tensor<128x1xf64>) {
    %xt = tensor.extract_slice %xs[%i, 0] [1, 32] [1, 1] : tensor<100x32xf64> to tensor<1x32xf64>
    %xc = tensor.transpose %xt [1, 0] : tensor<1x32xf64> -> tensor<32x1xf64>
    %wh = tensor.matmul %w, %h : (tensor<128x128xf64>, tensor<128x1xf64>) -> tensor<128x1xf64>
    %ux = tensor.matmul %u, %xc : (tensor<128x32xf64>, tensor<32x1xf64>) -> tensor<128x1xf64>
    %s1 = tensor.add %wh, %ux : tensor<128x1xf64>
    %s2 = tensor.add %s1, %bc : tensor<128x1xf64>
    %hn = tensor.tanh %s2 : tensor<128x1xf64>
    loop.yield %hn : tensor<128x1xf64>
  }
  %sq = tensor.mul %hT, %hT : tensor<128x1xf64>
  %s = tensor.reduce_sum %sq [0, 1] : tensor<128x1xf64> -> tensor<f64>
  %r = tensor.extract %s[] : tensor<f64>
  func.return %r : f64
}

func.func @grad(%w: tensor<128x128xf64>, %u: tensor<128x32xf64>, %b: tensor<128xf64>,
                %xs: tensor<100x32xf64>) -> (tensor<128x128xf64>, tensor<128x32xf64>, tensor<128xf64>) {
  %gw, %gu, %gb = autodiff.grad @loss(%w, %u, %b, %xs) wrt [0, 1, 2]
      : (tensor<128x128xf64>, tensor<128x32xf64>, tensor<128xf64>, tensor<100x32xf64>)
      -> (tensor<128x128xf64>, tensor<128x32xf64>, tensor<128xf64>)
  func.return %gw, %gu, %gb : tensor<128x128xf64>, tensor<128x32xf64>, tensor<128xf64>
}
