// References nested anywhere in attributes and properties count.
"test.holder"() {refs = [@in_array, {key = @in_dict}], nested = @in_nested::@inner} : () -> ()
func.func private @in_array() {
  func.return
}
func.func private @in_dict() {
  func.return
}
builtin.module @in_nested {
  func.func @inner() {
    func.return
  }
}
func.func private @unreferenced() {
  func.return
}

// -----

// A reference from inside a nested region of a public function.
func.func @outer(%c: i1) {
  "test.region"() ({
    "test.call"() {callee = @from_region} : () -> ()
  }) : () -> ()
  func.return
}
func.func private @from_region() {
  func.return
}
