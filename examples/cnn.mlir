// A small CNN step: conv 3x3 -> relu (tensor.max with 0) -> 2x2 max-pool
// (reduce_window_max) -> dense -> softmax cross-entropy, and its gradient.
//
// `@loss` is the model (batch 2, 8x8x1 images, 4 filters, 3 classes);
// `@grad` differentiates it with respect to the filter and the dense layer;
// `@main` makes deterministic inputs from `tensor.iota` and runs both.
// irt-run prints the loss, the dense bias's gradient and |d loss/d filter|^2.
//
//   irt-run examples/cnn.mlir            (compiled)
//   irt-run examples/cnn.mlir --interpret (reference interpreter)

func.func @loss(%wc: tensor<3x3x1x4xf64>, %wd: tensor<36x3xf64>, %bd: tensor<3xf64>,
                %x: tensor<2x8x8x1xf64>, %y: tensor<2x3xf64>) -> f64 {
  %c = tensor.conv %x, %wc : (tensor<2x8x8x1xf64>, tensor<3x3x1x4xf64>) -> tensor<2x6x6x4xf64>
  %zero = arith.constant 0.0 : f64
  %zeros = tensor.splat %zero : tensor<2x6x6x4xf64>
  %r = tensor.max %c, %zeros : tensor<2x6x6x4xf64>
  %p = tensor.reduce_window_max %r window [1, 2, 2, 1] stride [1, 2, 2, 1] : tensor<2x6x6x4xf64> -> tensor<2x3x3x4xf64>
  %f = tensor.collapse_shape %p [[0], [1, 2, 3]] : tensor<2x3x3x4xf64> into tensor<2x36xf64>
  %zw = tensor.matmul %f, %wd : (tensor<2x36xf64>, tensor<36x3xf64>) -> tensor<2x3xf64>
  %bb = tensor.broadcast %bd [1] : tensor<3xf64> -> tensor<2x3xf64>
  %z = tensor.add %zw, %bb : tensor<2x3xf64>
  // log-softmax, shifted by the row maximum
  %m = tensor.reduce_max %z [1] : tensor<2x3xf64> -> tensor<2xf64>
  %mb = tensor.broadcast %m [0] : tensor<2xf64> -> tensor<2x3xf64>
  %zs = tensor.sub %z, %mb : tensor<2x3xf64>
  %e = tensor.exp %zs : tensor<2x3xf64>
  %se = tensor.reduce_sum %e [1] : tensor<2x3xf64> -> tensor<2xf64>
  %lse = tensor.log %se : tensor<2xf64>
  %lb = tensor.broadcast %lse [0] : tensor<2xf64> -> tensor<2x3xf64>
  %logp = tensor.sub %zs, %lb : tensor<2x3xf64>
  %yl = tensor.mul %y, %logp : tensor<2x3xf64>
  %s = tensor.reduce_sum %yl [0, 1] : tensor<2x3xf64> -> tensor<f64>
  %t = tensor.extract %s[] : tensor<f64>
  %nb = arith.constant -2.0 : f64
  %l = arith.divf %t, %nb : f64
  func.return %l : f64
}

func.func @grad(%wc: tensor<3x3x1x4xf64>, %wd: tensor<36x3xf64>, %bd: tensor<3xf64>,
                %x: tensor<2x8x8x1xf64>, %y: tensor<2x3xf64>)
    -> (tensor<3x3x1x4xf64>, tensor<36x3xf64>, tensor<3xf64>) {
  %gc, %gd, %gb = autodiff.grad @loss(%wc, %wd, %bd, %x, %y) wrt [0, 1, 2]
      : (tensor<3x3x1x4xf64>, tensor<36x3xf64>, tensor<3xf64>, tensor<2x8x8x1xf64>, tensor<2x3xf64>)
      -> (tensor<3x3x1x4xf64>, tensor<36x3xf64>, tensor<3xf64>)
  func.return %gc, %gd, %gb : tensor<3x3x1x4xf64>, tensor<36x3xf64>, tensor<3xf64>
}

func.func @main() -> (f64, tensor<3xf64>, f64) {
  // inputs: scale * sin(a * k) over each tensor's flattened index k
  %awc = arith.constant 0.71 : f64
  %swc = arith.constant 0.5 : f64
  %wc_k = tensor.iota [0] : tensor<36xi64>
  %wc_f = tensor.convert %wc_k : tensor<36xi64> -> tensor<36xf64>
  %wc_a = tensor.splat %awc : tensor<36xf64>
  %wc_ka = tensor.mul %wc_f, %wc_a : tensor<36xf64>
  %wc_s = tensor.sin %wc_ka : tensor<36xf64>
  %wc_c = tensor.splat %swc : tensor<36xf64>
  %wc_v = tensor.mul %wc_s, %wc_c : tensor<36xf64>
  %wc = tensor.expand_shape %wc_v [[0, 1, 2, 3]] output_shape [3, 3, 1, 4] : tensor<36xf64> into tensor<3x3x1x4xf64>
  %awd = arith.constant 0.37 : f64
  %swd = arith.constant 0.3 : f64
  %wd_k = tensor.iota [0] : tensor<108xi64>
  %wd_f = tensor.convert %wd_k : tensor<108xi64> -> tensor<108xf64>
  %wd_a = tensor.splat %awd : tensor<108xf64>
  %wd_ka = tensor.mul %wd_f, %wd_a : tensor<108xf64>
  %wd_s = tensor.sin %wd_ka : tensor<108xf64>
  %wd_c = tensor.splat %swd : tensor<108xf64>
  %wd_v = tensor.mul %wd_s, %wd_c : tensor<108xf64>
  %wd = tensor.expand_shape %wd_v [[0, 1]] output_shape [36, 3] : tensor<108xf64> into tensor<36x3xf64>
  %abd = arith.constant 1.3 : f64
  %sbd = arith.constant 0.1 : f64
  %bd_k = tensor.iota [0] : tensor<3xi64>
  %bd_f = tensor.convert %bd_k : tensor<3xi64> -> tensor<3xf64>
  %bd_a = tensor.splat %abd : tensor<3xf64>
  %bd_ka = tensor.mul %bd_f, %bd_a : tensor<3xf64>
  %bd_s = tensor.sin %bd_ka : tensor<3xf64>
  %bd_c = tensor.splat %sbd : tensor<3xf64>
  %bd_v = tensor.mul %bd_s, %bd_c : tensor<3xf64>
  %ax = arith.constant 0.23 : f64
  %sx = arith.constant 1.0 : f64
  %x_k = tensor.iota [0] : tensor<128xi64>
  %x_f = tensor.convert %x_k : tensor<128xi64> -> tensor<128xf64>
  %x_a = tensor.splat %ax : tensor<128xf64>
  %x_ka = tensor.mul %x_f, %x_a : tensor<128xf64>
  %x_s = tensor.sin %x_ka : tensor<128xf64>
  %x_c = tensor.splat %sx : tensor<128xf64>
  %x_v = tensor.mul %x_s, %x_c : tensor<128xf64>
  %x = tensor.expand_shape %x_v [[0, 1, 2, 3]] output_shape [2, 8, 8, 1] : tensor<128xf64> into tensor<2x8x8x1xf64>
  // one-hot labels: image n has class n (tensor.iota, tensor.cmp, tensor.select)
  %row = tensor.iota [0] : tensor<2x3xi64>
  %col = tensor.iota [1] : tensor<2x3xi64>
  %hit = tensor.cmp eq, %row, %col : tensor<2x3xi64>
  %one = arith.constant 1.0 : f64
  %ones = tensor.splat %one : tensor<2x3xf64>
  %zero = arith.constant 0.0 : f64
  %zeros = tensor.splat %zero : tensor<2x3xf64>
  %y = tensor.select %hit, %ones, %zeros : tensor<2x3xi1>, tensor<2x3xf64>
  %l = func.call @loss(%wc, %wd, %bd_v, %x, %y) : (tensor<3x3x1x4xf64>, tensor<36x3xf64>, tensor<3xf64>, tensor<2x8x8x1xf64>, tensor<2x3xf64>) -> f64
  %gc, %gd, %gb = func.call @grad(%wc, %wd, %bd_v, %x, %y) : (tensor<3x3x1x4xf64>, tensor<36x3xf64>, tensor<3xf64>, tensor<2x8x8x1xf64>, tensor<2x3xf64>)
      -> (tensor<3x3x1x4xf64>, tensor<36x3xf64>, tensor<3xf64>)
  // the loss, the dense bias's gradient and the squared norm of the filter's
  %gc2 = tensor.mul %gc, %gc : tensor<3x3x1x4xf64>
  %n2t = tensor.reduce_sum %gc2 [0, 1, 2, 3] : tensor<3x3x1x4xf64> -> tensor<f64>
  %n2 = tensor.extract %n2t[] : tensor<f64>
  func.return %l, %gb, %n2 : f64, tensor<3xf64>, f64
}
