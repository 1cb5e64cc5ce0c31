func.func @f() {
  // expected-error @+1 oops
  func.return
}
