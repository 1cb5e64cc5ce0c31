func.func @bad(%x: f64) -> f64 {
  %y = arith.addf %x, %undefined : f64
  func.return %y : f64
}
