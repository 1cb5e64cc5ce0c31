// Seeds for fuzz/mutate.py: small programs over the SPEC 3.1 ops, with their
// derivatives, so that mutations reach their verifiers, lowerings and AD rules.
func.func @cnn(%x: tensor<2x6x6x2xf64>, %w: tensor<3x3x1x4xf64>) -> f64 {
  %y = tensor.conv %x, %w stride [1, 1] pad [[1, 1], [1, 1]] dilation [1, 1] groups 2 : (tensor<2x6x6x2xf64>, tensor<3x3x1x4xf64>) -> tensor<2x6x6x4xf64>
  %z = arith.constant dense<0.0> : tensor<2x6x6x4xf64>
  %r = tensor.max %y, %z : tensor<2x6x6x4xf64>
  %p = tensor.reduce_window_max %r window [1, 2, 2, 1] stride [1, 2, 2, 1] : tensor<2x6x6x4xf64> -> tensor<2x3x3x4xf64>
  %q = tensor.reduce_window_sum %p window [1, 2, 2, 1] pad [[0, 0], [1, 0], [0, 1], [0, 0]] : tensor<2x3x3x4xf64> -> tensor<2x3x3x4xf64>
  %s = tensor.reduce_sum %q [0, 1, 2, 3] : tensor<2x3x3x4xf64> -> tensor<f64>
  %c = tensor.extract %s[] : tensor<f64>
  return %c : f64
}
func.func @main(%x: tensor<2x6x6x2xf64>, %w: tensor<3x3x1x4xf64>) -> (tensor<2x6x6x2xf64>, tensor<3x3x1x4xf64>) {
  %gx, %gw = autodiff.grad @cnn(%x, %w) : (tensor<2x6x6x2xf64>, tensor<3x3x1x4xf64>) -> (tensor<2x6x6x2xf64>, tensor<3x3x1x4xf64>)
  return %gx, %gw : tensor<2x6x6x2xf64>, tensor<3x3x1x4xf64>
}

// -----

func.func @heads(%q: tensor<2x4x3xf32>, %k: tensor<2x4x3xf32>) -> f32 {
  %s = tensor.dot %q, %k batch [0] x [0] contract [2] x [2] : (tensor<2x4x3xf32>, tensor<2x4x3xf32>) -> tensor<2x4x4xf32>
  %e = tensor.exp %s : tensor<2x4x4xf32>
  %n = tensor.reduce_sum %e [2] : tensor<2x4x4xf32> -> tensor<2x4xf32>
  %l = tensor.log %n : tensor<2x4xf32>
  %r = tensor.rsqrt %n : tensor<2x4xf32>
  %g = tensor.erf %r : tensor<2x4xf32>
  %a = tensor.add %l, %g : tensor<2x4xf32>
  %t = tensor.reduce_sum %a [0, 1] : tensor<2x4xf32> -> tensor<f32>
  %c = tensor.extract %t[] : tensor<f32>
  return %c : f32
}
func.func @main(%q: tensor<2x4x3xf32>, %k: tensor<2x4x3xf32>) -> (tensor<2x4x3xf32>, tensor<2x4x3xf32>) {
  %gq, %gk = autodiff.grad @heads(%q, %k) : (tensor<2x4x3xf32>, tensor<2x4x3xf32>) -> (tensor<2x4x3xf32>, tensor<2x4x3xf32>)
  return %gq, %gk : tensor<2x4x3xf32>, tensor<2x4x3xf32>
}

// -----

func.func @embed(%table: tensor<10x4xf64>, %h: tensor<3x4xf64>) -> f64 {
  %ids = arith.constant dense<[[1], [7], [1]]> : tensor<3x1xi64>
  %rows = tensor.gather %table[%ids] gather_dims([0]) : (tensor<10x4xf64>, tensor<3x1xi64>) -> tensor<3x4xf64>
  %m = tensor.mul %rows, %h : tensor<3x4xf64>
  %u = tensor.scatter_add %m into %table[%ids] scatter_dims([0]) : (tensor<3x4xf64>, tensor<10x4xf64>, tensor<3x1xi64>) -> tensor<10x4xf64>
  %one = arith.constant dense<[[0, 3]]> : tensor<1x2xindex>
  %v = tensor.gather %u[%one] gather_dims([0, 1]) unique : (tensor<10x4xf64>, tensor<1x2xindex>) -> tensor<1xf64>
  %w = tensor.scatter %v into %u[%one] scatter_dims([0, 1]) unique : (tensor<1xf64>, tensor<10x4xf64>, tensor<1x2xindex>) -> tensor<10x4xf64>
  %s = tensor.reduce_prod %w [1] : tensor<10x4xf64> -> tensor<10xf64>
  %t = tensor.reduce_sum %s [0] : tensor<10xf64> -> tensor<f64>
  %c = tensor.extract %t[] : tensor<f64>
  return %c : f64
}
func.func @main(%table: tensor<10x4xf64>, %h: tensor<3x4xf64>) -> (tensor<10x4xf64>, tensor<3x4xf64>) {
  %gt, %gh = autodiff.grad @embed(%table, %h) : (tensor<10x4xf64>, tensor<3x4xf64>) -> (tensor<10x4xf64>, tensor<3x4xf64>)
  return %gt, %gh : tensor<10x4xf64>, tensor<3x4xf64>
}

// -----

func.func @main(%x: tensor<4x5xf32>, %y: tensor<4x5xf32>) -> (tensor<4xi64>, tensor<5xi64>, tensor<4x5xf32>, tensor<4x5xi1>) {
  %k = tensor.argmax %x [1] : tensor<4x5xf32> -> tensor<4xi64>
  %j = tensor.argmin %y [0] : tensor<4x5xf32> -> tensor<5xi64>
  %lo = arith.constant dense<-0.5> : tensor<4x5xf32>
  %hi = tensor.iota [1] : tensor<4x5xf32>
  %c = tensor.clamp %lo, %x, %hi : tensor<4x5xf32>
  %a = tensor.cmp lt, %x, %y : tensor<4x5xf32>
  %b = tensor.cmp gt, %c, %lo : tensor<4x5xf32>
  %n = tensor.not %a : tensor<4x5xi1>
  %o = tensor.or %n, %b : tensor<4x5xi1>
  %e = tensor.xor %o, %a : tensor<4x5xi1>
  %m = tensor.and %e, %b : tensor<4x5xi1>
  %s = tensor.select %m, %c, %y : tensor<4x5xi1>, tensor<4x5xf32>
  %mn = tensor.reduce_min %s [0] : tensor<4x5xf32> -> tensor<5xf32>
  %r = tensor.reverse %s [0, 1] : tensor<4x5xf32>
  return %k, %j, %r, %m : tensor<4xi64>, tensor<5xi64>, tensor<4x5xf32>, tensor<4x5xi1>
}

// -----

func.func @shape(%x: tensor<2x3xf64>, %y: tensor<1x3xf64>) -> f64 {
  %c = tensor.concat dim(0) %x, %y : (tensor<2x3xf64>, tensor<1x3xf64>) -> tensor<3x3xf64>
  %pv = arith.constant 0.5 : f64
  %p = tensor.pad %c low[1, 0] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %pv : f64
  } : tensor<3x3xf64> to tensor<4x4xf64>
  %shape = arith.constant dense<[2, 8]> : tensor<2xi64>
  %r = tensor.reshape %p(%shape) : (tensor<4x4xf64>, tensor<2xi64>) -> tensor<2x8xf64>
  %g = tensor.generate {
  ^bb0(%i: index, %j: index):
    %k = arith.index_cast %j : index to i64
    %f = arith.sitofp %k : i64 to f64
    tensor.yield %f : f64
  } : tensor<2x8xf64>
  %m = tensor.mul %r, %g : tensor<2x8xf64>
  %t = tensor.tan %m : tensor<2x8xf64>
  %a = tensor.atan %t : tensor<2x8xf64>
  %s = tensor.reduce_sum %a [0, 1] : tensor<2x8xf64> -> tensor<f64>
  %e = tensor.extract %s[] : tensor<f64>
  return %e : f64
}
func.func @main(%x: tensor<2x3xf64>, %y: tensor<1x3xf64>) -> (tensor<2x3xf64>, tensor<1x3xf64>) {
  %gx, %gy = autodiff.grad @shape(%x, %y) : (tensor<2x3xf64>, tensor<1x3xf64>) -> (tensor<2x3xf64>, tensor<1x3xf64>)
  return %gx, %gy : tensor<2x3xf64>, tensor<1x3xf64>
}
