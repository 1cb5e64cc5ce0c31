// RUN: irt-opt %s --split-input-file --verify-diagnostics

func.func @foo() {
^bb0:
  %x = constant @foo : (i32) -> ()  // expected-error {{reference to function with mismatched type}}
  return
}

// -----

func.func @undefined_function() {
^bb0:
  %x = constant @qux : (i32) -> ()  // expected-error {{reference to undefined function 'qux'}}
  return
}

// -----

func.func @not_a_function_type() {
  // expected-error @+1 {{expected a function type, got i32}}
  %x = func.constant @not_a_function_type : i32
  return
}

// -----

func.func @g(%a: f32) -> f32 {
  return %a : f32
}

func.func @wrong_operand_count(%a: f32) {
  %f = func.constant @g : (f32) -> f32
  // expected-error @+1 {{the callee takes 1 operands, 2 given}}
  %r = func.call_indirect %f(%a, %a) : (f32) -> f32
  return
}

// -----

func.func @g(%a: f32) -> f32 {
  return %a : f32
}

func.func @wrong_operand_type(%a: f64) {
  // expected-note @-1 {{prior use here}}
  %f = func.constant @g : (f32) -> f32
  // expected-error @+1 {{use of value '%a' expects different type than prior uses}}
  %r = func.call_indirect %f(%a) : (f32) -> f32
  return
}

// -----

func.func @g(%a: f32) -> f32 {
  return %a : f32
}

func.func @wrong_result_type(%a: f32) {
  %f = func.constant @g : (f32) -> f32
  // expected-error @+1 {{failed to verify that callee result types match result types}}
  %r = "func.call_indirect"(%f, %a) : ((f32) -> f32, f32) -> f64
  return
}

// -----

func.func @callee_not_a_function(%a: f32) {
  // expected-error @+1 {{expected a function type, got f32}}
  %r = func.call_indirect %a(%a) : f32
  return
}
