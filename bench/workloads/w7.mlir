// W7: LeNet-5-style CNN, batch 64, 28x28x1 images, f32 (channels last):
// conv 5x5x6 + b -> relu -> 2x2 max-pool -> conv 5x5x16 + b -> relu -> 2x2 max-pool
// -> dense 256->10 + b -> softmax cross-entropy (mean over the batch).
func.func @loss(%w1: tensor<5x5x1x6xf32>, %b1: tensor<6xf32>, %w2: tensor<5x5x6x16xf32>, %b2: tensor<16xf32>,
                %wd: tensor<256x10xf32>, %bd: tensor<10xf32>,
                %x: tensor<64x28x28x1xf32>, %y: tensor<64x10xf32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %c1 = tensor.conv %x, %w1 : (tensor<64x28x28x1xf32>, tensor<5x5x1x6xf32>) -> tensor<64x24x24x6xf32>
  %bb1 = tensor.broadcast %b1 [3] : tensor<6xf32> -> tensor<64x24x24x6xf32>
  %a1 = tensor.add %c1, %bb1 : tensor<64x24x24x6xf32>
  %z1 = tensor.splat %zero : tensor<64x24x24x6xf32>
  %r1 = tensor.max %a1, %z1 : tensor<64x24x24x6xf32>
  %p1 = tensor.reduce_window_max %r1 window [1, 2, 2, 1] stride [1, 2, 2, 1] : tensor<64x24x24x6xf32> -> tensor<64x12x12x6xf32>
  %c2 = tensor.conv %p1, %w2 : (tensor<64x12x12x6xf32>, tensor<5x5x6x16xf32>) -> tensor<64x8x8x16xf32>
  %bb2 = tensor.broadcast %b2 [3] : tensor<16xf32> -> tensor<64x8x8x16xf32>
  %a2 = tensor.add %c2, %bb2 : tensor<64x8x8x16xf32>
  %z2 = tensor.splat %zero : tensor<64x8x8x16xf32>
  %r2 = tensor.max %a2, %z2 : tensor<64x8x8x16xf32>
  %p2 = tensor.reduce_window_max %r2 window [1, 2, 2, 1] stride [1, 2, 2, 1] : tensor<64x8x8x16xf32> -> tensor<64x4x4x16xf32>
  %f = tensor.collapse_shape %p2 [[0], [1, 2, 3]] : tensor<64x4x4x16xf32> into tensor<64x256xf32>
  %zd = tensor.matmul %f, %wd : (tensor<64x256xf32>, tensor<256x10xf32>) -> tensor<64x10xf32>
  %bbd = tensor.broadcast %bd [1] : tensor<10xf32> -> tensor<64x10xf32>
  %z = tensor.add %zd, %bbd : tensor<64x10xf32>
  %m = tensor.reduce_max %z [1] : tensor<64x10xf32> -> tensor<64xf32>
  %mb = tensor.broadcast %m [0] : tensor<64xf32> -> tensor<64x10xf32>
  %zs = tensor.sub %z, %mb : tensor<64x10xf32>
  %e = tensor.exp %zs : tensor<64x10xf32>
  %se = tensor.reduce_sum %e [1] : tensor<64x10xf32> -> tensor<64xf32>
  %lse = tensor.log %se : tensor<64xf32>
  %lb = tensor.broadcast %lse [0] : tensor<64xf32> -> tensor<64x10xf32>
  %logp = tensor.sub %zs, %lb : tensor<64x10xf32>
  %yl = tensor.mul %y, %logp : tensor<64x10xf32>
  %s = tensor.reduce_sum %yl [0, 1] : tensor<64x10xf32> -> tensor<f32>
  %t = tensor.extract %s[] : tensor<f32>
  %nb = arith.constant -64.0 : f32
  %l = arith.divf %t, %nb : f32
  func.return %l : f32
}

func.func @grad(%w1: tensor<5x5x1x6xf32>, %b1: tensor<6xf32>, %w2: tensor<5x5x6x16xf32>, %b2: tensor<16xf32>,
                %wd: tensor<256x10xf32>, %bd: tensor<10xf32>,
                %x: tensor<64x28x28x1xf32>, %y: tensor<64x10xf32>)
    -> (tensor<5x5x1x6xf32>, tensor<6xf32>, tensor<5x5x6x16xf32>, tensor<16xf32>, tensor<256x10xf32>, tensor<10xf32>) {
  %g1, %gb1, %g2, %gb2, %gd, %gbd = autodiff.grad @loss(%w1, %b1, %w2, %b2, %wd, %bd, %x, %y) wrt [0, 1, 2, 3, 4, 5]
      : (tensor<5x5x1x6xf32>, tensor<6xf32>, tensor<5x5x6x16xf32>, tensor<16xf32>, tensor<256x10xf32>, tensor<10xf32>,
         tensor<64x28x28x1xf32>, tensor<64x10xf32>)
      -> (tensor<5x5x1x6xf32>, tensor<6xf32>, tensor<5x5x6x16xf32>, tensor<16xf32>, tensor<256x10xf32>, tensor<10xf32>)
  func.return %g1, %gb1, %g2, %gb2, %gd, %gbd
      : tensor<5x5x1x6xf32>, tensor<6xf32>, tensor<5x5x6x16xf32>, tensor<16xf32>, tensor<256x10xf32>, tensor<10xf32>
}
