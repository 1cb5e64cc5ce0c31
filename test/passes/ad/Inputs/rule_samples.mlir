// Instances of differentiable ops for the rule audit (test_rule_audit.py) that the other
// programs of the repository lack, or in forms worth auditing on their own. The audit takes
// every instance of every op with derivative rules from all the repository's programs; it
// is not run as a program itself.

func.func @scalar_ops(%a: f64, %b: f64, %c: i1) -> (f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64) {
  %s = arith.select %c, %a, %b : f64
  %acos = math.acos %a : f64
  %asin = math.asin %a : f64
  %atan = math.atan %a : f64
  %atanh = math.atanh %a : f64
  %acosh = math.acosh %a : f64
  %asinh = math.asinh %a : f64
  %cbrt = math.cbrt %a : f64
  %cs = math.copysign %a, %b : f64
  %cosh = math.cosh %a : f64
  %sinh = math.sinh %a : f64
  %tan = math.tan %a : f64
  return %s, %acos, %asin, %atan, %atanh, %acosh, %asinh, %cbrt, %cs, %cosh, %sinh, %tan : f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64
}

// The padding value of tensor.pad: a value from outside the region (differentiated), and
// one computed in the region from outside values (a located error when active).
func.func @pads(%x: tensor<2x3xf64>, %p: f64) -> (tensor<4x6xf64>, tensor<3x4xf64>) {
  %a = tensor.pad %x low[1, 2] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %p : f64
  } : tensor<2x3xf64> to tensor<4x6xf64>
  %b = tensor.pad %x low[0, 1] high[1, 0] {
  ^bb0(%i: index, %j: index):
    %q = arith.mulf %p, %p : f64
    tensor.yield %q : f64
  } : tensor<2x3xf64> to tensor<3x4xf64>
  return %a, %b : tensor<4x6xf64>, tensor<3x4xf64>
}

func.func @reshape(%x: tensor<2x3xf64>) -> tensor<3x2xf64> {
  %s = arith.constant dense<[3, 2]> : tensor<2xi64>
  %r = tensor.reshape %x(%s) : (tensor<2x3xf64>, tensor<2xi64>) -> tensor<3x2xf64>
  return %r : tensor<3x2xf64>
}

// Gather, scatter_add (duplicate indices accumulate) and scatter (unique indices), at
// constant indices.
func.func @indexed(%t: tensor<5x3xf64>, %u: tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<5x3xf64>, tensor<5x3xf64>) {
  %i = arith.constant dense<[[4], [0], [4]]> : tensor<3x1xindex>
  %j = arith.constant dense<[[1], [3], [0]]> : tensor<3x1xindex>
  %g = tensor.gather %t[%i] gather_dims([0]) : (tensor<5x3xf64>, tensor<3x1xindex>) -> tensor<3x3xf64>
  %a = tensor.scatter_add %u into %t[%i] scatter_dims([0]) : (tensor<3x3xf64>, tensor<5x3xf64>, tensor<3x1xindex>) -> tensor<5x3xf64>
  %s = tensor.scatter %u into %t[%j] scatter_dims([0]) unique : (tensor<3x3xf64>, tensor<5x3xf64>, tensor<3x1xindex>) -> tensor<5x3xf64>
  return %g, %a, %s : tensor<3x3xf64>, tensor<5x3xf64>, tensor<5x3xf64>
}

// Windowed ops in f64 on small inputs (the lit tests' instances are large f32 ones, where
// finite differences with a large step cross the max's kinks).
func.func @windows(%x: tensor<1x4x4x2xf64>, %w: tensor<2x2x2x3xf64>, %g: tensor<1x2x2x2xf64>, %t: tensor<1x4x4x2xf64>)
    -> (tensor<1x3x3x3xf64>, tensor<1x2x2x2xf64>, tensor<1x3x3x2xf64>, tensor<1x4x4x2xf64>, tensor<1x2x2x2xf64>) {
  %c = tensor.conv %x, %w : (tensor<1x4x4x2xf64>, tensor<2x2x2x3xf64>) -> tensor<1x3x3x3xf64>
  %m = tensor.reduce_window_max %x window [1, 2, 2, 1] stride [1, 2, 2, 1] : tensor<1x4x4x2xf64> -> tensor<1x2x2x2xf64>
  %s = tensor.reduce_window_sum %x window [1, 2, 2, 1] : tensor<1x4x4x2xf64> -> tensor<1x3x3x2xf64>
  %sc = tensor.window_max_scatter %x, %g window [1, 2, 2, 1] stride [1, 2, 2, 1] : (tensor<1x4x4x2xf64>, tensor<1x2x2x2xf64>) -> tensor<1x4x4x2xf64>
  %se = tensor.window_max_select %x, %t window [1, 2, 2, 1] stride [1, 2, 2, 1] : (tensor<1x4x4x2xf64>, tensor<1x4x4x2xf64>) -> tensor<1x2x2x2xf64>
  return %c, %m, %s, %sc, %se : tensor<1x3x3x3xf64>, tensor<1x2x2x2xf64>, tensor<1x3x3x2xf64>, tensor<1x4x4x2xf64>, tensor<1x2x2x2xf64>
}
