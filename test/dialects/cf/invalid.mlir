// RUN: irt-opt %s --split-input-file --verify-diagnostics

func.func @wrong_weights_number(%cond: i1) {
  // expected-error @+1 {{expects number of branch weights to match number of successors: 1 vs 2}}
  cf.cond_br %cond weights([100]), ^bb1, ^bb2
^bb1:
  func.return
^bb2:
  func.return
}

// -----

func.func @zero_weights(%cond: i1) {
  // expected-error @+1 {{branch weights cannot all be zero}}
  cf.cond_br %cond weights([0, 0]), ^bb1, ^bb2
^bb1:
  func.return
^bb2:
  func.return
}

// -----

func.func @case_not_an_integer(%x: i32) {
  cf.switch %x : i32, [
    default: ^bb1,
    // expected-error @+1 {{expected integer value}}
    "one": ^bb1
  ]
^bb1:
  return
}

// -----

func.func @case_above_i8(%x: i8) {
  cf.switch %x : i8, [
    default: ^bb1,
    255: ^bb1,
    // expected-error @+1 {{case value is out of range for 'i8'}}
    256: ^bb1
  ]
^bb1:
  return
}

// -----

func.func @case_below_i16(%x: i16) {
  // expected-error @+1 {{case value is out of range for 'i16'}}
  cf.switch %x : i16, [default: ^bb1, -32768: ^bb1, -32769: ^bb1]
^bb1:
  return
}

// -----

func.func @cases_without_comma(%x: index) {
  cf.switch %x : index, [
    default: ^bb1,
    // expected-error @+1 {{expected ']'}}
    1: ^bb1
    // a comment line between
    2: ^bb1
  ]
^bb1:
  return
}

// -----

func.func @flag_not_an_integer(%x: f32) {
  // expected-error @+1 {{expected a signless integer or index flag type, got f32}}
  cf.switch %x : f32, [default: ^bb1]
^bb1:
  return
}

// -----

func.func @flag_i65(%x: i65) {
  // expected-error @+1 {{case values of type 'i65' are not supported}}
  cf.switch %x : i65, [default: ^bb1, 1: ^bb1]
^bb1:
  return
}
