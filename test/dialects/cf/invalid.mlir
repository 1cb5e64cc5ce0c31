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
