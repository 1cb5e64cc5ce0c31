// RUN: irt-opt %s -p convert-to-llvm --split-input-file --verify-diagnostics

func.func @structured(%c: i1, %x: f64) -> f64 {
  // expected-error @+1 {{failed to legalize operation 'loop.if' to the llvm dialect}}
  %r = loop.if %c -> (f64) {
    loop.yield %x : f64
  } else {
    loop.yield %x : f64
  }
  return %r : f64
}

// -----

// expected-error @+1 {{argument type tensor<4xf32> cannot be lowered to the llvm dialect}}
func.func @tensors(%t: tensor<4xf32>) -> tensor<4xf32> {
  return %t : tensor<4xf32>
}

// -----

func.func @free(%p: i64) {
  return
}

func.func @release(%m: memref<4xf32>) {
  // expected-error @+1 {{is lowered to a call of the C function 'free', but the module defines its own '@free'}}
  memref.dealloc %m : memref<4xf32>
  return
}

// -----

func.func @cast_of_unranked(%m: memref<4xf32>) -> memref<*xf32> {
  // expected-error @+1 {{unranked or non-memref type memref<*xf32> is not supported}}
  %u = "memref.cast"(%m) : (memref<4xf32>) -> memref<*xf32>
  return %u : memref<*xf32>
}
