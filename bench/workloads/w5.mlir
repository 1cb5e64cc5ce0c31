// W5: sum(A @ B), A, B: (512, 512) f32; gradient wrt A and B.
func.func @loss(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>) -> f32 {
  %c = tensor.matmul %a, %b : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %s = tensor.reduce_sum %c [0, 1] : tensor<512x512xf32> -> tensor<f32>
  %r = tensor.extract %s[] : tensor<f32>
  func.return %r : f32
}

func.func @grad(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>) -> (tensor<512x512xf32>, tensor<512x512xf32>) {
  %ga, %gb = autodiff.grad @loss(%a, %b) wrt [0, 1]
      : (tensor<512x512xf32>, tensor<512x512xf32>) -> (tensor<512x512xf32>, tensor<512x512xf32>)
  func.return %ga, %gb : tensor<512x512xf32>, tensor<512x512xf32>
}
