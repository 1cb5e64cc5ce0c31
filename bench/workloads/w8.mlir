// W8: pre-layernorm transformer block, sequence 128, width 256, 8 heads of 32, causal
// self-attention (tensor.dot batched over the heads, mask from tensor.iota), GELU MLP
// 256->1024->256 (gelu(h) = h/2 (1 + erf(h/sqrt 2))), residuals; layer norms without gain
// and bias; loss mean(out^2), f32; the gradient is taken wrt the six weight matrices.
func.func @layernorm(%x: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %inv_n = arith.constant 0.00390625 : f32
  %inv = tensor.splat %inv_n : tensor<128xf32>
  %s = tensor.reduce_sum %x [1] : tensor<128x256xf32> -> tensor<128xf32>
  %mean = tensor.mul %s, %inv : tensor<128xf32>
  %mb = tensor.broadcast %mean [0] : tensor<128xf32> -> tensor<128x256xf32>
  %d = tensor.sub %x, %mb : tensor<128x256xf32>
  %d2 = tensor.mul %d, %d : tensor<128x256xf32>
  %ss = tensor.reduce_sum %d2 [1] : tensor<128x256xf32> -> tensor<128xf32>
  %var = tensor.mul %ss, %inv : tensor<128xf32>
  %eps_s = arith.constant 1.0e-5 : f32
  %eps = tensor.splat %eps_s : tensor<128xf32>
  %ve = tensor.add %var, %eps : tensor<128xf32>
  %r = tensor.rsqrt %ve : tensor<128xf32>
  %rb = tensor.broadcast %r [0] : tensor<128xf32> -> tensor<128x256xf32>
  %y = tensor.mul %d, %rb : tensor<128x256xf32>
  func.return %y : tensor<128x256xf32>
}

func.func @loss(%wq: tensor<256x256xf32>, %wk: tensor<256x256xf32>, %wv: tensor<256x256xf32>, %wo: tensor<256x256xf32>, %w1: tensor<256x1024xf32>, %w2: tensor<1024x256xf32>, %x: tensor<128x256xf32>) -> f32 {
  %xn = func.call @layernorm(%x) : (tensor<128x256xf32>) -> tensor<128x256xf32>
  %q = tensor.matmul %xn, %wq : (tensor<128x256xf32>, tensor<256x256xf32>) -> tensor<128x256xf32>
  %k = tensor.matmul %xn, %wk : (tensor<128x256xf32>, tensor<256x256xf32>) -> tensor<128x256xf32>
  %v = tensor.matmul %xn, %wv : (tensor<128x256xf32>, tensor<256x256xf32>) -> tensor<128x256xf32>
  %q3 = tensor.expand_shape %q [[0], [1, 2]] output_shape [128, 8, 32] : tensor<128x256xf32> into tensor<128x8x32xf32>
  %k3 = tensor.expand_shape %k [[0], [1, 2]] output_shape [128, 8, 32] : tensor<128x256xf32> into tensor<128x8x32xf32>
  %v3 = tensor.expand_shape %v [[0], [1, 2]] output_shape [128, 8, 32] : tensor<128x256xf32> into tensor<128x8x32xf32>
  %qk = tensor.dot %q3, %k3 batch [1] x [1] contract [2] x [2] : (tensor<128x8x32xf32>, tensor<128x8x32xf32>) -> tensor<8x128x128xf32>
  %scale_s = arith.constant 0.17677669529663687 : f32
  %scale = tensor.splat %scale_s : tensor<8x128x128xf32>
  %scores = tensor.mul %qk, %scale : tensor<8x128x128xf32>
  %i = tensor.iota [1] : tensor<8x128x128xi64>
  %j = tensor.iota [2] : tensor<8x128x128xi64>
  %seen = tensor.cmp ge, %i, %j : tensor<8x128x128xi64>
  %big_s = arith.constant -1.0e9 : f32
  %big = tensor.splat %big_s : tensor<8x128x128xf32>
  %masked = tensor.select %seen, %scores, %big : tensor<8x128x128xi1>, tensor<8x128x128xf32>
  %m = tensor.reduce_max %masked [2] : tensor<8x128x128xf32> -> tensor<8x128xf32>
  %mb = tensor.broadcast %m [0, 1] : tensor<8x128xf32> -> tensor<8x128x128xf32>
  %sh = tensor.sub %masked, %mb : tensor<8x128x128xf32>
  %e = tensor.exp %sh : tensor<8x128x128xf32>
  %se = tensor.reduce_sum %e [2] : tensor<8x128x128xf32> -> tensor<8x128xf32>
  %seb = tensor.broadcast %se [0, 1] : tensor<8x128xf32> -> tensor<8x128x128xf32>
  %p = tensor.div %e, %seb : tensor<8x128x128xf32>
  %ctx = tensor.dot %p, %v3 batch [0] x [1] contract [2] x [0] : (tensor<8x128x128xf32>, tensor<128x8x32xf32>) -> tensor<8x128x32xf32>
  %ctxt = tensor.transpose %ctx [1, 0, 2] : tensor<8x128x32xf32> -> tensor<128x8x32xf32>
  %ctx2 = tensor.collapse_shape %ctxt [[0], [1, 2]] : tensor<128x8x32xf32> into tensor<128x256xf32>
  %att = tensor.matmul %ctx2, %wo : (tensor<128x256xf32>, tensor<256x256xf32>) -> tensor<128x256xf32>
  %x1 = tensor.add %x, %att : tensor<128x256xf32>
  %xn1 = func.call @layernorm(%x1) : (tensor<128x256xf32>) -> tensor<128x256xf32>
  %h = tensor.matmul %xn1, %w1 : (tensor<128x256xf32>, tensor<256x1024xf32>) -> tensor<128x1024xf32>
  %rs2_s = arith.constant 0.70710677 : f32
  %rs2 = tensor.splat %rs2_s : tensor<128x1024xf32>
  %hsc = tensor.mul %h, %rs2 : tensor<128x1024xf32>
  %erf = tensor.erf %hsc : tensor<128x1024xf32>
  %one_s = arith.constant 1.0 : f32
  %one = tensor.splat %one_s : tensor<128x1024xf32>
  %half_s = arith.constant 0.5 : f32
  %half = tensor.splat %half_s : tensor<128x1024xf32>
  %g1 = tensor.add %erf, %one : tensor<128x1024xf32>
  %g2 = tensor.mul %h, %half : tensor<128x1024xf32>
  %gelu = tensor.mul %g1, %g2 : tensor<128x1024xf32>
  %mlp = tensor.matmul %gelu, %w2 : (tensor<128x1024xf32>, tensor<1024x256xf32>) -> tensor<128x256xf32>
  %out = tensor.add %x1, %mlp : tensor<128x256xf32>
  %sq = tensor.mul %out, %out : tensor<128x256xf32>
  %ssum = tensor.reduce_sum %sq [0, 1] : tensor<128x256xf32> -> tensor<f32>
  %sse = tensor.extract %ssum[] : tensor<f32>
  %n = arith.constant 32768.0 : f32
  %l = arith.divf %sse, %n : f32
  func.return %l : f32
}

func.func @grad(%wq: tensor<256x256xf32>, %wk: tensor<256x256xf32>, %wv: tensor<256x256xf32>, %wo: tensor<256x256xf32>, %w1: tensor<256x1024xf32>, %w2: tensor<1024x256xf32>, %x: tensor<128x256xf32>)
    -> (tensor<256x256xf32>, tensor<256x256xf32>, tensor<256x256xf32>, tensor<256x256xf32>, tensor<256x1024xf32>, tensor<1024x256xf32>) {
  %gq, %gk, %gv, %go, %g1, %g2 = autodiff.grad @loss(%wq, %wk, %wv, %wo, %w1, %w2, %x) wrt [0, 1, 2, 3, 4, 5]
      : (tensor<256x256xf32>, tensor<256x256xf32>, tensor<256x256xf32>, tensor<256x256xf32>, tensor<256x1024xf32>, tensor<1024x256xf32>, tensor<128x256xf32>) -> (tensor<256x256xf32>, tensor<256x256xf32>, tensor<256x256xf32>, tensor<256x256xf32>, tensor<256x1024xf32>, tensor<1024x256xf32>)
  func.return %gq, %gk, %gv, %go, %g1, %g2 : tensor<256x256xf32>, tensor<256x256xf32>, tensor<256x256xf32>, tensor<256x256xf32>, tensor<256x1024xf32>, tensor<1024x256xf32>
}
