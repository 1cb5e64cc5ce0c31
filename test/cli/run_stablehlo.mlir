// irt-run converts StableHLO first, compiled and on the interpreter.
// RUN: irt-run %s | filecheck %s
// RUN: irt-run --interpret %s | filecheck %s

// CHECK: result0 = array([ 8., 16.], dtype=float32)
func.func public @main() -> (tensor<2xf32> {jax.result_info = "result"}) {
  %c = stablehlo.constant dense<[1.0, 4.0]> : tensor<2xf32>
  %s = stablehlo.sqrt %c : tensor<2xf32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %x = %s) : tensor<i32>, tensor<2xf32>
  cond {
    %n = stablehlo.constant dense<3> : tensor<i32>
    %p = stablehlo.compare  LT, %i, %n,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %y = stablehlo.add %x, %x : tensor<2xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %y : tensor<i32>, tensor<2xf32>
  }
  return %r#1 : tensor<2xf32>
}
