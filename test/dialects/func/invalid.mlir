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

// -----

func.func @unsupported_attribute() {
  // expected-error @+1 {{invalid kind of attribute specified}}
  %0 = constant "" : index
  return
}

// -----

func.func private @return_i32_f32() -> (i32, f32)

func.func @call() {
  // expected-error @+3 {{op result type mismatch at index 0}}
  // expected-note @+2 {{op result types: 'f32', 'i32'}}
  // expected-note @+1 {{function result types: 'i32', 'f32'}}
  %0:2 = call @return_i32_f32() : () -> (f32, i32)
  return
}

// -----

func.func private @takes_i32(i32)

func.func @call_operand(%a: f32) {
  // expected-error @+1 {{'func.call' op operand type mismatch: expected operand type 'i32', but provided 'f32' for operand number 0}}
  call @takes_i32(%a) : (f32) -> ()
  return
}

// -----

func.func @call_undefined() {
  // expected-error @+1 {{'func.call' op 'nowhere' does not reference a valid function}}
  call @nowhere() : () -> ()
  return
}

// -----

func.func @resulterror() -> i32 {
^bb42:
  return    // expected-error {{'func.return' op has 0 operands, but enclosing function (@resulterror) returns 1}}
}

// -----

func.func @return_type_mismatch(%a: f32) -> i32 {
  return %a : f32  // expected-error {{type of return operand 0 ('f32') doesn't match function result type ('i32') in function @return_type_mismatch}}
}

// -----

// expected-error @+1 {{arguments may only have dialect attributes}}
func.func private @invalid_func_arg_attr(%x: i1 {non_dialect_attr = 10})

// -----

// expected-error @+1 {{results may only have dialect attributes}}
func.func private @invalid_func_result_attr() -> (i1 {non_dialect_attr = 10})
