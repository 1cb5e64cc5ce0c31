// RUN: irt-opt %s --split-input-file --verify-diagnostics

func.func @if_missing_else(%p: i1, %x: f32) {
  // expected-error @+1 {{'scf.if' op must have an else block if defining values}}
  %r = scf.if %p -> (f32) {
    scf.yield %x : f32
  }
  func.return
}

// -----

func.func @if_block_argument(%p: i1) {
  // expected-error @+1 {{'scf.if' op region #0 should have no arguments}}
  "scf.if"(%p) ({
  ^bb0(%0 : index):
    scf.yield
  }, {}) : (i1) -> ()
  func.return
}

// -----

func.func @while_types(%c: i1) {
  // expected-error @+1 {{expected as many input types as operands (expected 0 got 1)}}
  scf.while : (i32) -> () {
    scf.condition(%c)
  } do {
    scf.yield
  }
  func.return
}

// -----

func.func @parallel_bounds(%a: index, %b: index) {
  // expected-error @+1 {{expected 1 operands}}
  scf.parallel (%i) = (%a) to (%a, %b) step (%b) {
  }
  func.return
}

// -----

func.func @parallel_results(%a: index) {
  // expected-error @+1 {{number of operands and types do not match: got 0 operands and 1 types}}
  %r = scf.parallel (%i) = (%a) to (%a) step (%a) -> f32 {
  }
  func.return
}
