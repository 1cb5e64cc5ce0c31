"""A 0-d dense constant interprets as a 0-d array (not shape (1,))."""

import numpy as np

import irtoolkit as irt


def test_zero_d_dense_constant_keeps_its_shape():
    m = irt.parse("""func.func @f(%x: tensor<f64>) -> tensor<f64> {
  %c = arith.constant dense<2.0> : tensor<f64>
  %r = tensor.div %x, %c : tensor<f64>
  func.return %r : tensor<f64>
}""")
    out = irt.interpret(m, "f", np.array(3.0))
    assert out.shape == () and out == 1.5
