// RUN: irt-opt %s --split-input-file --verify-diagnostics

// Upstream's messages for arith's casts, compares and select.

func.func @narrowing_ext(%a: i16) {
  // expected-error @+1 {{'arith.extsi' op operand type 'i16' and result type 'i15' are cast incompatible}}
  %0 = arith.extsi %a : i16 to i15
  func.return
}

// -----

func.func @ext_of_float(%a: vector<2xi32>) {
  // expected-error @+1 {{'arith.extf' op operand #0 must be floating-point-like, but got 'vector<2xi32>'}}
  %0 = arith.extf %a : vector<2xi32> to vector<2xf32>
  func.return
}

// -----

func.func @shape_change(%a: vector<[4]xi32>) {
  // expected-error @+1 {{'arith.extui' op requires the same shape for all operands and results}}
  %0 = arith.extui %a : vector<[4]xi32> to vector<4xi64>
  func.return
}

// -----

func.func @tensor_dims(%a: tensor<4xf32>) {
  // expected-error @+1 {{'arith.bitcast' op failed to verify that input and output have the same tensor dimensions}}
  %0 = arith.bitcast %a : tensor<4xf32> to tensor<?xi32>
  func.return
}

// -----

func.func @bitcast_index(%a: i64) {
  // expected-error @+1 {{'arith.bitcast' op result #0 must be signless-integer-or-float-like or memref of signless-integer or float, but got 'index'}}
  %0 = arith.bitcast %a : i64 to index
  func.return
}

// -----

func.func @index_cast_twice(%a: index) {
  // expected-error @+1 {{'arith.index_cast' op operand type 'index' and result type 'index' are cast incompatible}}
  %0 = arith.index_cast %a : index to index
  func.return
}

// -----

func.func @cmp_result_shape(%a: vector<42xf32>) {
  // expected-error @+1 {{'arith.cmpf' op failed to verify that result type has i1 element type and same shape as operands}}
  %r = "arith.cmpf"(%a, %a) {predicate = 0} : (vector<42xf32>, vector<42xf32>) -> vector<41xi1>
  func.return
}

// -----

func.func @cmpi_of_floats(%a: f32) {
  // expected-error @+1 {{'lhs' must be signless-integer-like, but got 'f32'}}
  %r = arith.cmpi eq, %a, %a : f32
  func.return
}

// -----

func.func @cmp_predicate(%a: f32) {
  // expected-error @+1 {{attribute 'predicate' failed to satisfy constraint: allowed 64-bit signless integer cases}}
  %r = "arith.cmpf"(%a, %a) {predicate = 42} : (f32, f32) -> i1
  func.return
}

// -----

func.func @select_shape(%c: tensor<i1>, %a: tensor<2xi64>) {
  // expected-error @+1 {{'arith.select' op failed to verify that condition is signless i1 or has matching shape}}
  %0 = arith.select %c, %a, %a : tensor<i1>, tensor<2xi64>
  func.return
}
