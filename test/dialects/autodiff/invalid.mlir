// RUN: irt-opt %s --split-input-file --verify-diagnostics

func.func @main(%x: tensor<4xf64>) {
  // expected-error @+1 {{'autodiff.grad' op callee @nope not found in the symbol table}}
  %d = autodiff.grad @nope(%x) : (tensor<4xf64>) -> tensor<4xf64>
  return
}

// -----

func.func @loss(%x: tensor<4xf64>) -> f64 {
  %c = arith.constant 1.0 : f64
  return %c : f64
}
func.func @main(%x: tensor<4xf32>) {
  // expected-error @+1 {{'autodiff.grad' op argument #0 has type tensor<4xf32> but @loss expects tensor<4xf64>}}
  %d = autodiff.grad @loss(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @loss(%x: tensor<4xf64>) -> f64 {
  %c = arith.constant 1.0 : f64
  return %c : f64
}
func.func @main(%x: tensor<4xf64>) {
  // expected-error @+1 {{'autodiff.grad' op @loss takes 1 arguments, got 2}}
  %d:2 = autodiff.grad @loss(%x, %x) : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  return
}

// -----

func.func @f(%x: tensor<4xf64>) -> tensor<4xf64> {
  return %x : tensor<4xf64>
}
func.func @main(%x: tensor<4xf64>) {
  // expected-error @+1 {{'autodiff.grad' op callee @f must return exactly one f32, f64 or 0-d float tensor, got (tensor<4xf64>)}}
  %d = autodiff.grad @f(%x) : (tensor<4xf64>) -> tensor<4xf64>
  return
}

// -----

func.func @f(%x: f64) -> (f64, f64) {
  return %x, %x : f64, f64
}
func.func @main(%x: f64) {
  // expected-error @+1 {{'autodiff.value_and_grad' op callee @f must return exactly one f32, f64 or 0-d float tensor, got (f64, f64)}}
  %v:3 = autodiff.value_and_grad @f(%x) : (f64) -> (f64, f64, f64)
  return
}

// -----

func.func @loss(%x: tensor<4xf64>, %w: tensor<4xf64>) -> f64 {
  %c = arith.constant 1.0 : f64
  return %c : f64
}
func.func @main(%x: tensor<4xf64>) {
  // expected-error @+1 {{'autodiff.grad' op result types (tensor<4xf64>) do not match the expected (tensor<4xf64>, tensor<4xf64>) (one gradient per wrt argument, of the argument's type)}}
  %d = autodiff.grad @loss(%x, %x) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  return
}

// -----

func.func @loss(%x: tensor<4xf64>, %w: tensor<4xf64>) -> f64 {
  %c = arith.constant 1.0 : f64
  return %c : f64
}
func.func @main(%x: tensor<4xf64>) {
  // expected-error @+1 {{'autodiff.value_and_grad' op result types (tensor<4xf64>, f64) do not match the expected (f64, tensor<4xf64>) (the callee's result, then one gradient per wrt argument)}}
  %d:2 = autodiff.value_and_grad @loss(%x, %x) wrt [1] : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, f64)
  return
}

// -----

func.func @loss(%x: tensor<4xf64>, %w: tensor<4xf64>) -> f64 {
  %c = arith.constant 1.0 : f64
  return %c : f64
}
func.func @main(%x: tensor<4xf64>) {
  // expected-error @+1 {{'autodiff.grad' op wrt position 2 is out of range for 2 arguments}}
  %d = autodiff.grad @loss(%x, %x) wrt [2] : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  return
}

// -----

func.func @loss(%x: tensor<4xf64>, %w: tensor<4xf64>) -> f64 {
  %c = arith.constant 1.0 : f64
  return %c : f64
}
func.func @main(%x: tensor<4xf64>) {
  // expected-error @+1 {{'autodiff.grad' op wrt positions must be unique and increasing, got [1, 0]}}
  %d:2 = autodiff.grad @loss(%x, %x) wrt [1, 0] : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  return
}

// -----

func.func @loss(%x: tensor<4xf64>, %w: tensor<4xf64>) -> f64 {
  %c = arith.constant 1.0 : f64
  return %c : f64
}
func.func @main(%x: tensor<4xf64>) {
  // expected-error @+1 {{'autodiff.grad' op wrt positions must be unique and increasing, got [0, 0]}}
  %d:2 = autodiff.grad @loss(%x, %x) wrt [0, 0] : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  return
}

// -----

func.func @loss(%n: index, %w: tensor<4xf64>) -> f64 {
  %c = arith.constant 1.0 : f64
  return %c : f64
}
func.func @main(%n: index, %x: tensor<4xf64>) {
  // expected-error @+1 {{'autodiff.grad' op wrt position 0 names argument of type index, which is not differentiable (f32, f64 or a tensor of them)}}
  %d = autodiff.grad @loss(%n, %x) wrt [0] : (index, tensor<4xf64>) -> index
  return
}

// -----

func.func @f(%x: tensor<4xf64>) -> tensor<4xf64> {
  return %x : tensor<4xf64>
}
func.func @main(%x: tensor<4xf64>, %c: tensor<4xf32>) {
  // expected-error @+1 {{'autodiff.vjp' op cotangents types (tensor<4xf32>) do not match the expected (tensor<4xf64>) (one per callee result, of the result's type)}}
  %y, %dx = autodiff.vjp @f(%x) cotangents(%c) : (tensor<4xf64>, tensor<4xf32>) -> (tensor<4xf64>, tensor<4xf64>)
  return
}

// -----

func.func @f(%x: tensor<4xf64>) -> tensor<4xf64> {
  return %x : tensor<4xf64>
}
func.func @main(%x: tensor<4xf64>) {
  // expected-error @+1 {{'autodiff.vjp' op result types (tensor<4xf64>) do not match the expected (tensor<4xf64>, tensor<4xf64>) (the callee's results, then one cotangent per wrt argument)}}
  %y = autodiff.vjp @f(%x) cotangents(%x) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  return
}

// -----

func.func @f(%x: tensor<4xf64>, %s: f32) -> tensor<4xf64> {
  return %x : tensor<4xf64>
}
func.func @main(%x: tensor<4xf64>, %s: f32) {
  // expected-error @+1 {{'autodiff.jvp' op tangents types (tensor<4xf64>) do not match the expected (tensor<4xf64>, f32) (one per wrt argument, of the argument's type)}}
  %y, %dy = autodiff.jvp @f(%x, %s) tangents(%x) : (tensor<4xf64>, f32, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  return
}

// -----

func.func @f(%x: tensor<4xf64>, %s: f32) -> tensor<4xf64> {
  return %x : tensor<4xf64>
}
func.func @main(%x: tensor<4xf64>, %s: f32) {
  // expected-error @+1 {{'autodiff.jvp' op result types (tensor<4xf64>, f32) do not match the expected (tensor<4xf64>, tensor<4xf64>) (the callee's results, then one tangent per result)}}
  %y, %dy = autodiff.jvp @f(%x, %s) tangents(%s) wrt [1] : (tensor<4xf64>, f32, f32) -> (tensor<4xf64>, f32)
  return
}

// -----

llvm.func @g(f64) -> f64
func.func @main(%x: f64) {
  // expected-error @+1 {{'autodiff.grad' op callee @g does not reference a func.func but a llvm.func}}
  %d = autodiff.grad @g(%x) : (f64) -> f64
  return
}

// -----

func.func @main(%x: f64) {
  // expected-error @+1 {{expected 2 operand types, got 1}}
  %y, %d = autodiff.vjp @f(%x) cotangents(%x) : (f64) -> (f64, f64)
  return
}

// -----

func.func @main(%x: f64) {
  // expected-error @+1 {{'autodiff.stop_gradient' op}}
  %y = "autodiff.stop_gradient"(%x) : (f64) -> f32
  return
}
