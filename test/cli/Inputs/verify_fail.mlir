func.func @unexpected(%x: f64) -> f32 {
  func.return %x : f64
}

// -----

func.func @missing(%x: f64) -> f64 {
  // expected-error @+1 {{this is never reported}}
  func.return %x : f64
}

// -----

func.func @wrong_message(%x: f64) -> f32 {
  // expected-error @+1 {{some other message}}
  func.return %x : f64
}

// -----

func.func @wrong_severity(%x: f64) -> f32 {
  // expected-warning @+1 {{type of return operand 0}}
  func.return %x : f64
}

// -----

func.func @wrong_line(%x: f64) -> f32 {
  // expected-error {{type of return operand 0}}
  func.return %x : f64
}

// -----

func.func @fine(%x: f64) -> f64 {
  func.return %x : f64
}
