// RUN: irt-opt %s --split-input-file --verify-diagnostics

func.func @for_yield_type(%lb: index, %x: f32, %y: f64) {
  %r = loop.for %i = %lb to %lb step %lb iter_args(%a = %x) -> (f32) {
    // expected-error @+1 {{'loop.yield' op type of yielded value #0 is f64 but the 'loop.for' loop-carried values have type f32 there}}
    loop.yield %y : f64
  }
  return
}

// -----

func.func @for_yield_count(%lb: index, %x: f32) {
  %r = loop.for %i = %lb to %lb step %lb iter_args(%a = %x) -> (f32) {
    // expected-error @+1 {{'loop.yield' op yields 2 values but the 'loop.for' loop-carried values are 1: (f32, f32) vs (f32)}}
    loop.yield %a, %a : f32, f32
  }
  return
}

// -----

func.func @for_missing_yield(%lb: index, %x: f32) {
  // expected-error @+1 {{'loop.yield' op yields 0 values but the 'loop.for' loop-carried values are 1: () vs (f32)}}
  %r = loop.for %i = %lb to %lb step %lb iter_args(%a = %x) -> (f32) {
  }
  return
}

// -----

func.func @for_bound_types(%lb: index, %ub: i32) {
  // expected-error @+1 {{'loop.for' op lower bound, upper bound and step must have the same type, got index, i32, index}}
  "loop.for"(%lb, %ub, %lb) ({
  ^bb0(%i: index):
    "loop.yield"() : () -> ()
  }) : (index, i32, index) -> ()
  return
}

// -----

func.func @for_float_bounds(%lb: f32) {
  // expected-error @+1 {{'loop.for' op lower bound must be of index or signless integer type, got f32}}
  loop.for %i = %lb to %lb step %lb : f32 {
  }
  return
}

// -----

func.func @for_iv_type(%lb: index) {
  // expected-error @+1 {{'loop.for' op induction variable has type i64 but the bounds have type index}}
  "loop.for"(%lb, %lb, %lb) ({
  ^bb0(%i: i64):
    "loop.yield"() : () -> ()
  }) : (index, index, index) -> ()
  return
}

// -----

func.func @for_block_arg_type(%lb: index, %x: f32) {
  // expected-error @+1 {{'loop.for' op body block argument #1 has type f64 but iter_arg #0 has type f32}}
  %r = "loop.for"(%lb, %lb, %lb, %x) ({
  ^bb0(%i: index, %a: f64):
    "loop.yield"(%x) : (f32) -> ()
  }) : (index, index, index, f32) -> f32
  return
}

// -----

func.func @for_block_arg_count(%lb: index, %x: f32) {
  // expected-error @+1 {{'loop.for' op body block has 0 loop-carried arguments but there are 1 iter_args}}
  %r = "loop.for"(%lb, %lb, %lb, %x) ({
  ^bb0(%i: index):
    "loop.yield"(%x) : (f32) -> ()
  }) : (index, index, index, f32) -> f32
  return
}

// -----

func.func @for_result_types(%lb: index, %x: f32) {
  // expected-error @+1 {{'loop.for' op result types (f64) do not match the iter_args types (f32)}}
  %r = "loop.for"(%lb, %lb, %lb, %x) ({
  ^bb0(%i: index, %a: f32):
    "loop.yield"(%a) : (f32) -> ()
  }) : (index, index, index, f32) -> f64
  return
}

// -----

func.func @for_no_iv(%lb: index) {
  // expected-error @+1 {{'loop.for' op body block must take the induction variable as its first argument}}
  "loop.for"(%lb, %lb, %lb) ({
    "loop.yield"() : () -> ()
  }) : (index, index, index) -> ()
  return
}

// -----

func.func @for_wrong_terminator(%lb: index) {
  // expected-error @+1 {{'loop.for' terminates with operation func.return instead of loop.yield}}
  "loop.for"(%lb, %lb, %lb) ({
  ^bb0(%i: index):
    "func.return"() : () -> ()
  }) : (index, index, index) -> ()
  return
}

// -----

func.func @if_no_else(%c: i1, %x: f32) -> f32 {
  // expected-error @+1 {{'loop.if' op must have an else block if defining values}}
  %r = loop.if %c -> (f32) {
    loop.yield %x : f32
  }
  return %r : f32
}

// -----

func.func @if_yield_type(%c: i1, %x: f32, %y: f64) -> f32 {
  %r = loop.if %c -> (f32) {
    loop.yield %x : f32
  } else {
    // expected-error @+1 {{'loop.yield' op type of yielded value #0 is f64 but the 'loop.if' results have type f32 there}}
    loop.yield %y : f64
  }
  return %r : f32
}

// -----

func.func @if_yield_count(%c: i1, %x: f32) {
  loop.if %c {
    // expected-error @+1 {{'loop.yield' op yields 1 values but the 'loop.if' results are 0: (f32) vs ()}}
    loop.yield %x : f32
  }
  return
}

// -----

func.func @if_cond_type(%c: i32) {
  // expected-error @+1 {{'loop.if' op operand 'cond' at position 0 does not verify}}
  "loop.if"(%c) ({
    "loop.yield"() : () -> ()
  }, {
  }) : (i32) -> ()
  return
}

// -----

// expected-note @+1 {{prior use here}}
func.func @if_cond_type_custom(%c: i32) {
  // expected-error @+1 {{use of value '%c' expects different type than prior uses: 'i1' vs 'i32'}}
  loop.if %c {
  }
  return
}

// -----

func.func @while_forward_type(%x: f64, %c: i1) -> f64 {
  %w = loop.while (%v = %x) : (f64) -> f64 {
    %f = arith.truncf %v : f64 to f32
    // expected-error @+1 {{'loop.condition' op type of forwarded value #0 is f32 but 'loop.while' result #0 has type f64}}
    loop.condition(%c) %f : f32
  } do {
  ^bb0(%v2: f64):
    loop.yield %v2 : f64
  }
  return %w : f64
}

// -----

func.func @while_forward_count(%x: f64, %c: i1) -> f64 {
  %w = loop.while (%v = %x) : (f64) -> f64 {
    // expected-error @+1 {{'loop.condition' op forwards 0 values but 'loop.while' has 1 results: () vs (f64)}}
    loop.condition(%c)
  } do {
  ^bb0(%v2: f64):
    loop.yield %v2 : f64
  }
  return %w : f64
}

// -----

func.func @while_after_args(%x: f64, %c: i1) -> f64 {
  // expected-error @+1 {{'loop.while' op the 'after' region argument types (f32) do not match the result types (f64)}}
  %w = loop.while (%v = %x) : (f64) -> f64 {
    loop.condition(%c) %v : f64
  } do {
  ^bb0(%v2: f32):
    loop.yield %x : f64
  }
  return %w : f64
}

// -----

func.func @while_after_yield(%x: f64, %c: i1, %i: index) -> f64 {
  %w = loop.while (%v = %x) : (f64) -> f64 {
    loop.condition(%c) %v : f64
  } do {
  ^bb0(%v2: f64):
    // expected-error @+1 {{'loop.yield' op type of yielded value #0 is index but the 'loop.while' 'before' region arguments have type f64 there}}
    loop.yield %i : index
  }
  return %w : f64
}

// -----

func.func @while_before_args(%x: f64, %c: i1) {
  // expected-error @+1 {{'loop.while' op the 'before' region argument types (f32) do not match the init operand types (f64)}}
  "loop.while"(%x) ({
  ^bb0(%v: f32):
    "loop.condition"(%c) : (i1) -> ()
  }, {
    "loop.yield"(%x) : (f64) -> ()
  }) : (f64) -> ()
  return
}

// -----

func.func @while_before_terminator(%x: f64, %c: i1) {
  // expected-error @+1 {{'loop.while' op expects the 'before' region to terminate with 'loop.condition', got loop.yield}}
  loop.while (%v = %x) : (f64) -> () {
    loop.yield %v : f64
  } do {
    loop.yield %x : f64
  }
  return
}

// -----

func.func @while_after_terminator(%x: f64, %c: i1) {
  // expected-error @+1 {{'loop.while' op expects the 'after' region to terminate with 'loop.yield', got loop.condition}}
  loop.while (%v = %x) : (f64) -> () {
    loop.condition(%c)
  } do {
    loop.condition(%c)
  }
  return
}

// -----

func.func @condition_outside_while(%c: i1) {
  // expected-error @+1 {{'loop.condition' expects parent op 'loop.while'}}
  loop.condition(%c)
}

// -----

func.func @yield_outside(%x: f32) {
  // expected-error @+1 {{'loop.yield' expects parent op to be one of 'loop.for', 'loop.if', 'loop.while'}}
  loop.yield %x : f32
}

// -----

func.func @parallel_reduce_count(%lb: index, %z: f32) -> f32 {
  // expected-error @+1 {{'loop.parallel' op the 'loop.reduce' operand types () do not match the init types (f32)}}
  %r = loop.parallel (%i) = (%lb) to (%lb) step (%lb) init (%z) -> f32 {
    loop.reduce
  }
  return %r : f32
}

// -----

func.func @parallel_reduce_type(%lb: index, %z: f32, %d: f64) -> f32 {
  // expected-error @+1 {{'loop.parallel' op the 'loop.reduce' operand types (f64) do not match the init types (f32)}}
  %r = loop.parallel (%i) = (%lb) to (%lb) step (%lb) init (%z) -> f32 {
    loop.reduce(%d : f64) {
    ^bb0(%l: f64, %r: f64):
      loop.reduce.return %l : f64
    }
  }
  return %r : f32
}

// -----

func.func @reduce_block_args(%lb: index, %z: f32) -> f32 {
  %r = loop.parallel (%i) = (%lb) to (%lb) step (%lb) init (%z) -> f32 {
    // expected-error @+1 {{'loop.reduce' op reduction region #0 must take two arguments of the operand type f32, got (f32)}}
    loop.reduce(%z : f32) {
    ^bb0(%l: f32):
      loop.reduce.return %l : f32
    }
  }
  return %r : f32
}

// -----

func.func @reduce_return_type(%lb: index, %z: f32, %d: f64) -> f32 {
  %r = loop.parallel (%i) = (%lb) to (%lb) step (%lb) init (%z) -> f32 {
    // expected-error @+1 {{'loop.reduce' op reduction region #0 returns f64 but the operand has type f32}}
    loop.reduce(%z : f32) {
    ^bb0(%l: f32, %r: f32):
      loop.reduce.return %d : f64
    }
  }
  return %r : f32
}

// -----

func.func @reduce_region_count(%lb: index, %z: f32) -> f32 {
  %r = loop.parallel (%i) = (%lb) to (%lb) step (%lb) init (%z) -> f32 {
    // expected-error @+1 {{'loop.reduce' op expects as many reduction regions as operands: 1 operands, 0 regions}}
    loop.reduce(%z : f32)
  }
  return %r : f32
}

// -----

func.func @parallel_bounds(%lb: index) {
  // expected-error @+1 {{'loop.parallel' op expects the same number of lower bounds, upper bounds and steps, got 2, 1 and 1}}
  "loop.parallel"(%lb, %lb, %lb, %lb) <{operandSegmentSizes = array<i32: 2, 1, 1, 0>}> ({
  ^bb0(%i: index, %j: index):
    "loop.reduce"() : () -> ()
  }) : (index, index, index, index) -> ()
  return
}

// -----

func.func @parallel_ivs(%lb: index) {
  // expected-error @+1 {{'loop.parallel' op body block must take 1 arguments of type index, one per induction variable}}
  "loop.parallel"(%lb, %lb, %lb) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index, %j: index):
    "loop.reduce"() : () -> ()
  }) : (index, index, index) -> ()
  return
}

// -----

func.func @if_block_argument(%c: i1) {
  // expected-error @+1 {{'loop.if' op region #0 should have no arguments}}
  loop.if %c {
  ^bb0(%a: index):
    loop.yield
  }
  func.return
}
