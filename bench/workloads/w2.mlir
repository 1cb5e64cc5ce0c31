// W2: one-hidden-layer MLP, mean softmax cross-entropy with one-hot labels (f32).
// h = tanh(X @ W1 + b1); z = h @ W2 + b2; loss = -mean(sum(Y * log_softmax(z), 1))
func.func @loss(%w1: tensor<784x256xf32>, %b1: tensor<256xf32>, %w2: tensor<256x10xf32>,
                %b2: tensor<10xf32>, %x: tensor<64x784xf32>, %y: tensor<64x10xf32>) -> f32 {
  %xw = tensor.matmul %x, %w1 : (tensor<64x784xf32>, tensor<784x256xf32>) -> tensor<64x256xf32>
  %bb1 = tensor.broadcast %b1 [1] : tensor<256xf32> -> tensor<64x256xf32>
  %z1 = tensor.add %xw, %bb1 : tensor<64x256xf32>
  %h = tensor.tanh %z1 : tensor<64x256xf32>
  %hw = tensor.matmul %h, %w2 : (tensor<64x256xf32>, tensor<256x10xf32>) -> tensor<64x10xf32>
  %bb2 = tensor.broadcast %b2 [1] : tensor<10xf32> -> tensor<64x10xf32>
  %z = tensor.add %hw, %bb2 : tensor<64x10xf32>
  %mx = tensor.reduce_max %z [1] : tensor<64x10xf32> -> tensor<64xf32>
  %mxb = tensor.broadcast %mx [0] : tensor<64xf32> -> tensor<64x10xf32>
  %zs = tensor.sub %z, %mxb : tensor<64x10xf32>
  %ez = tensor.exp %zs : tensor<64x10xf32>
  %se = tensor.reduce_sum %ez [1] : tensor<64x10xf32> -> tensor<64xf32>
  %lse = tensor.log %se : tensor<64xf32>
  %lseb = tensor.broadcast %lse [0] : tensor<64xf32> -> tensor<64x10xf32>
  %logp = tensor.sub %zs, %lseb : tensor<64x10xf32>
  %yl = tensor.mul %y, %logp : tensor<64x10xf32>
  %tot = tensor.reduce_sum %yl [0, 1] : tensor<64x10xf32> -> tensor<f32>
  %t = tensor.extract %tot[] : tensor<f32>
  %n = arith.constant -64.0 : f32
  %l = arith.divf %t, %n : f32
  func.return %l : f32
}

func.func @grad(%w1: tensor<784x256xf32>, %b1: tensor<256xf32>, %w2: tensor<256x10xf32>,
                %b2: tensor<10xf32>, %x: tensor<64x784xf32>, %y: tensor<64x10xf32>)
    -> (tensor<784x256xf32>, tensor<256xf32>, tensor<256x10xf32>, tensor<10xf32>) {
  %g1, %gb1, %g2, %gb2 = autodiff.grad @loss(%w1, %b1, %w2, %b2, %x, %y) wrt [0, 1, 2, 3]
      : (tensor<784x256xf32>, tensor<256xf32>, tensor<256x10xf32>, tensor<10xf32>, tensor<64x784xf32>, tensor<64x10xf32>)
      -> (tensor<784x256xf32>, tensor<256xf32>, tensor<256x10xf32>, tensor<10xf32>)
  func.return %g1, %gb1, %g2, %gb2 : tensor<784x256xf32>, tensor<256xf32>, tensor<256x10xf32>, tensor<10xf32>
}
