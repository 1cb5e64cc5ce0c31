// RUN: irt-opt %s --split-input-file --verify-diagnostics

// Parse errors as mlir-opt reports them: at the op, in MLIR's wording.

func.func @type_constraint_at_the_op(%a: tensor<*xf32>) {
  // expected-error @+1 {{tensor<*xf32> should be of base attribute tensor}}
  %0 = tensor.extract_slice %a[0][4][1] : tensor<*xf32> to tensor<4xf32>
  func.return
}

// -----

func.func @lowercase_expected(%a: f32) {
  %sf = arith.addf %a, %a, %a : f32  // expected-error {{expected ':'}}
}
