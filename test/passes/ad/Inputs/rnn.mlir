func.func @rnn(%w: tensor<3x3xf64>, %xs: tensor<4x3xf64>, %h0: tensor<3xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f64
  %h, %acc = loop.for %i = %c0 to %c4 step %c1 iter_args(%hh = %h0, %a = %z) -> (tensor<3xf64>, f64) {
    %x = tensor.extract_slice %xs[%i, 0] [1, 3] [1, 1] : tensor<4x3xf64> to tensor<3xf64>
    %hm = tensor.expand_shape %hh [[0, 1]] output_shape [3, 1] : tensor<3xf64> into tensor<3x1xf64>
    %wh = tensor.matmul %w, %hm : (tensor<3x3xf64>, tensor<3x1xf64>) -> tensor<3x1xf64>
    %whf = tensor.collapse_shape %wh [[0, 1]] : tensor<3x1xf64> into tensor<3xf64>
    %s = tensor.add %whf, %x : tensor<3xf64>
    %hn = tensor.tanh %s : tensor<3xf64>
    %r = tensor.reduce_sum %hn [0] : tensor<3xf64> -> tensor<f64>
    %re = tensor.extract %r[] : tensor<f64>
    %an = arith.addf %a, %re : f64
    loop.yield %hn, %an : tensor<3xf64>, f64
  }
  return %acc : f64
}
