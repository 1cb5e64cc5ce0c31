// RUN: irt-opt %s --split-input-file --verify-diagnostics

func.func @fpclass_result(%t: tensor<4xf32>) {
  // expected-error @+1 {{'math.isnan' op result type tensor<3xi1> should be tensor<4xi1>}}
  %0 = "math.isnan"(%t) : (tensor<4xf32>) -> tensor<3xi1>
  func.return
}

// -----

func.func @clampf_types(%a: f32, %b: f64) {
  // expected-error @+1 {{'math.clampf' op operand 'min' at position 1 does not verify}}
  %0 = "math.clampf"(%a, %b, %a) : (f32, f64, f32) -> f32
  func.return
}
