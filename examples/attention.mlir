// A causal multi-head self-attention block with a GELU MLP, and its gradient.
//
// Pre-layernorm transformer block over a sequence of 4 tokens of width 8,
// 2 heads of 4: `tensor.dot` batched over the heads, a causal mask made of
// `tensor.iota` + `tensor.cmp` + `tensor.select`, softmax, layer norm with
// `tensor.rsqrt`, GELU with `tensor.erf`, residual connections.
// `@loss` is the mean square of the block's output; `@grad` differentiates it
// with respect to the six weight matrices; `@main` makes deterministic inputs
// and prints the loss, |d loss / d wq|^2 and |d loss / d w1|^2.
//
//   irt-run examples/attention.mlir            (compiled)
//   irt-run examples/attention.mlir --interpret (reference interpreter)

// (x - mean) * rsqrt(var + 1e-5) over each row
func.func @layernorm(%x: tensor<4x8xf64>) -> tensor<4x8xf64> {
  %inv_n = arith.constant 0.125 : f64
  %inv = tensor.splat %inv_n : tensor<4xf64>
  %s = tensor.reduce_sum %x [1] : tensor<4x8xf64> -> tensor<4xf64>
  %mean = tensor.mul %s, %inv : tensor<4xf64>
  %mb = tensor.broadcast %mean [0] : tensor<4xf64> -> tensor<4x8xf64>
  %d = tensor.sub %x, %mb : tensor<4x8xf64>
  %d2 = tensor.mul %d, %d : tensor<4x8xf64>
  %v = tensor.reduce_sum %d2 [1] : tensor<4x8xf64> -> tensor<4xf64>
  %var = tensor.mul %v, %inv : tensor<4xf64>
  %eps_s = arith.constant 1.0e-5 : f64
  %eps = tensor.splat %eps_s : tensor<4xf64>
  %ve = tensor.add %var, %eps : tensor<4xf64>
  %r = tensor.rsqrt %ve : tensor<4xf64>
  %rb = tensor.broadcast %r [0] : tensor<4xf64> -> tensor<4x8xf64>
  %y = tensor.mul %d, %rb : tensor<4x8xf64>
  func.return %y : tensor<4x8xf64>
}

func.func @loss(%wq: tensor<8x8xf64>, %wk: tensor<8x8xf64>, %wv: tensor<8x8xf64>, %wo: tensor<8x8xf64>,
                %w1: tensor<8x16xf64>, %w2: tensor<16x8xf64>, %x: tensor<4x8xf64>) -> f64 {
  %xn = func.call @layernorm(%x) : (tensor<4x8xf64>) -> tensor<4x8xf64>
  %q = tensor.matmul %xn, %wq : (tensor<4x8xf64>, tensor<8x8xf64>) -> tensor<4x8xf64>
  %k = tensor.matmul %xn, %wk : (tensor<4x8xf64>, tensor<8x8xf64>) -> tensor<4x8xf64>
  %v = tensor.matmul %xn, %wv : (tensor<4x8xf64>, tensor<8x8xf64>) -> tensor<4x8xf64>
  // split the width into 2 heads of 4: (sequence, head, head width)
  %q3 = tensor.expand_shape %q [[0], [1, 2]] output_shape [4, 2, 4] : tensor<4x8xf64> into tensor<4x2x4xf64>
  %k3 = tensor.expand_shape %k [[0], [1, 2]] output_shape [4, 2, 4] : tensor<4x8xf64> into tensor<4x2x4xf64>
  %v3 = tensor.expand_shape %v [[0], [1, 2]] output_shape [4, 2, 4] : tensor<4x8xf64> into tensor<4x2x4xf64>
  // scores[h, i, j] = q[i, h, :] . k[j, h, :] / sqrt(4)
  %qk = tensor.dot %q3, %k3 batch [1] x [1] contract [2] x [2]
      : (tensor<4x2x4xf64>, tensor<4x2x4xf64>) -> tensor<2x4x4xf64>
  %scale_s = arith.constant 0.5 : f64
  %scale = tensor.splat %scale_s : tensor<2x4x4xf64>
  %scores = tensor.mul %qk, %scale : tensor<2x4x4xf64>
  // causal mask: token i sees tokens j <= i
  %i = tensor.iota [1] : tensor<2x4x4xi64>
  %j = tensor.iota [2] : tensor<2x4x4xi64>
  %seen = tensor.cmp ge, %i, %j : tensor<2x4x4xi64>
  %big_s = arith.constant -1.0e9 : f64
  %big = tensor.splat %big_s : tensor<2x4x4xf64>
  %masked = tensor.select %seen, %scores, %big : tensor<2x4x4xi1>, tensor<2x4x4xf64>
  // softmax over j
  %m = tensor.reduce_max %masked [2] : tensor<2x4x4xf64> -> tensor<2x4xf64>
  %mb = tensor.broadcast %m [0, 1] : tensor<2x4xf64> -> tensor<2x4x4xf64>
  %sh = tensor.sub %masked, %mb : tensor<2x4x4xf64>
  %e = tensor.exp %sh : tensor<2x4x4xf64>
  %se = tensor.reduce_sum %e [2] : tensor<2x4x4xf64> -> tensor<2x4xf64>
  %seb = tensor.broadcast %se [0, 1] : tensor<2x4xf64> -> tensor<2x4x4xf64>
  %p = tensor.div %e, %seb : tensor<2x4x4xf64>
  // ctx[h, i, :] = sum_j p[h, i, j] v[j, h, :], back to (sequence, width)
  %ctx = tensor.dot %p, %v3 batch [0] x [1] contract [2] x [0]
      : (tensor<2x4x4xf64>, tensor<4x2x4xf64>) -> tensor<2x4x4xf64>
  %ctxt = tensor.transpose %ctx [1, 0, 2] : tensor<2x4x4xf64> -> tensor<4x2x4xf64>
  %ctx2 = tensor.collapse_shape %ctxt [[0], [1, 2]] : tensor<4x2x4xf64> into tensor<4x8xf64>
  %att = tensor.matmul %ctx2, %wo : (tensor<4x8xf64>, tensor<8x8xf64>) -> tensor<4x8xf64>
  %x1 = tensor.add %x, %att : tensor<4x8xf64>
  // MLP: gelu(x W1) W2, gelu(h) = h/2 (1 + erf(h / sqrt 2))
  %xn1 = func.call @layernorm(%x1) : (tensor<4x8xf64>) -> tensor<4x8xf64>
  %h = tensor.matmul %xn1, %w1 : (tensor<4x8xf64>, tensor<8x16xf64>) -> tensor<4x16xf64>
  %rs2_s = arith.constant 0.7071067811865476 : f64
  %rs2 = tensor.splat %rs2_s : tensor<4x16xf64>
  %hs = tensor.mul %h, %rs2 : tensor<4x16xf64>
  %erf = tensor.erf %hs : tensor<4x16xf64>
  %one_s = arith.constant 1.0 : f64
  %one = tensor.splat %one_s : tensor<4x16xf64>
  %half_s = arith.constant 0.5 : f64
  %half = tensor.splat %half_s : tensor<4x16xf64>
  %g1 = tensor.add %erf, %one : tensor<4x16xf64>
  %g2 = tensor.mul %h, %half : tensor<4x16xf64>
  %gelu = tensor.mul %g1, %g2 : tensor<4x16xf64>
  %mlp = tensor.matmul %gelu, %w2 : (tensor<4x16xf64>, tensor<16x8xf64>) -> tensor<4x8xf64>
  %out = tensor.add %x1, %mlp : tensor<4x8xf64>
  %sq = tensor.mul %out, %out : tensor<4x8xf64>
  %ss = tensor.reduce_sum %sq [0, 1] : tensor<4x8xf64> -> tensor<f64>
  %sse = tensor.extract %ss[] : tensor<f64>
  %n = arith.constant 32.0 : f64
  %l = arith.divf %sse, %n : f64
  func.return %l : f64
}

func.func @grad(%wq: tensor<8x8xf64>, %wk: tensor<8x8xf64>, %wv: tensor<8x8xf64>, %wo: tensor<8x8xf64>,
                %w1: tensor<8x16xf64>, %w2: tensor<16x8xf64>, %x: tensor<4x8xf64>)
    -> (tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x16xf64>, tensor<16x8xf64>) {
  %gq, %gk, %gv, %go, %g1, %g2 = autodiff.grad @loss(%wq, %wk, %wv, %wo, %w1, %w2, %x) wrt [0, 1, 2, 3, 4, 5]
      : (tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x16xf64>, tensor<16x8xf64>, tensor<4x8xf64>)
      -> (tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x16xf64>, tensor<16x8xf64>)
  func.return %gq, %gk, %gv, %go, %g1, %g2
      : tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x16xf64>, tensor<16x8xf64>
}

func.func @main() -> (f64, f64, f64) {
  // inputs: scale * sin(a * k) over each tensor's flattened index k
  %awq = arith.constant 0.71 : f64
  %swq = arith.constant 0.4 : f64
  %wq_k = tensor.iota [0] : tensor<64xi64>
  %wq_f = tensor.convert %wq_k : tensor<64xi64> -> tensor<64xf64>
  %wq_a = tensor.splat %awq : tensor<64xf64>
  %wq_ka = tensor.mul %wq_f, %wq_a : tensor<64xf64>
  %wq_s = tensor.sin %wq_ka : tensor<64xf64>
  %wq_c = tensor.splat %swq : tensor<64xf64>
  %wq_v = tensor.mul %wq_s, %wq_c : tensor<64xf64>
  %wq = tensor.expand_shape %wq_v [[0, 1]] output_shape [8, 8] : tensor<64xf64> into tensor<8x8xf64>
  %awk = arith.constant 0.53 : f64
  %swk = arith.constant 0.4 : f64
  %wk_k = tensor.iota [0] : tensor<64xi64>
  %wk_f = tensor.convert %wk_k : tensor<64xi64> -> tensor<64xf64>
  %wk_a = tensor.splat %awk : tensor<64xf64>
  %wk_ka = tensor.mul %wk_f, %wk_a : tensor<64xf64>
  %wk_s = tensor.sin %wk_ka : tensor<64xf64>
  %wk_c = tensor.splat %swk : tensor<64xf64>
  %wk_v = tensor.mul %wk_s, %wk_c : tensor<64xf64>
  %wk = tensor.expand_shape %wk_v [[0, 1]] output_shape [8, 8] : tensor<64xf64> into tensor<8x8xf64>
  %awv = arith.constant 0.37 : f64
  %swv = arith.constant 0.4 : f64
  %wv_k = tensor.iota [0] : tensor<64xi64>
  %wv_f = tensor.convert %wv_k : tensor<64xi64> -> tensor<64xf64>
  %wv_a = tensor.splat %awv : tensor<64xf64>
  %wv_ka = tensor.mul %wv_f, %wv_a : tensor<64xf64>
  %wv_s = tensor.sin %wv_ka : tensor<64xf64>
  %wv_c = tensor.splat %swv : tensor<64xf64>
  %wv_v = tensor.mul %wv_s, %wv_c : tensor<64xf64>
  %wv = tensor.expand_shape %wv_v [[0, 1]] output_shape [8, 8] : tensor<64xf64> into tensor<8x8xf64>
  %awo = arith.constant 0.29 : f64
  %swo = arith.constant 0.3 : f64
  %wo_k = tensor.iota [0] : tensor<64xi64>
  %wo_f = tensor.convert %wo_k : tensor<64xi64> -> tensor<64xf64>
  %wo_a = tensor.splat %awo : tensor<64xf64>
  %wo_ka = tensor.mul %wo_f, %wo_a : tensor<64xf64>
  %wo_s = tensor.sin %wo_ka : tensor<64xf64>
  %wo_c = tensor.splat %swo : tensor<64xf64>
  %wo_v = tensor.mul %wo_s, %wo_c : tensor<64xf64>
  %wo = tensor.expand_shape %wo_v [[0, 1]] output_shape [8, 8] : tensor<64xf64> into tensor<8x8xf64>
  %aw1 = arith.constant 0.61 : f64
  %sw1 = arith.constant 0.3 : f64
  %w1_k = tensor.iota [0] : tensor<128xi64>
  %w1_f = tensor.convert %w1_k : tensor<128xi64> -> tensor<128xf64>
  %w1_a = tensor.splat %aw1 : tensor<128xf64>
  %w1_ka = tensor.mul %w1_f, %w1_a : tensor<128xf64>
  %w1_s = tensor.sin %w1_ka : tensor<128xf64>
  %w1_c = tensor.splat %sw1 : tensor<128xf64>
  %w1_v = tensor.mul %w1_s, %w1_c : tensor<128xf64>
  %w1 = tensor.expand_shape %w1_v [[0, 1]] output_shape [8, 16] : tensor<128xf64> into tensor<8x16xf64>
  %aw2 = arith.constant 0.43 : f64
  %sw2 = arith.constant 0.3 : f64
  %w2_k = tensor.iota [0] : tensor<128xi64>
  %w2_f = tensor.convert %w2_k : tensor<128xi64> -> tensor<128xf64>
  %w2_a = tensor.splat %aw2 : tensor<128xf64>
  %w2_ka = tensor.mul %w2_f, %w2_a : tensor<128xf64>
  %w2_s = tensor.sin %w2_ka : tensor<128xf64>
  %w2_c = tensor.splat %sw2 : tensor<128xf64>
  %w2_v = tensor.mul %w2_s, %w2_c : tensor<128xf64>
  %w2 = tensor.expand_shape %w2_v [[0, 1]] output_shape [16, 8] : tensor<128xf64> into tensor<16x8xf64>
  %ax = arith.constant 0.23 : f64
  %sx = arith.constant 1.0 : f64
  %x_k = tensor.iota [0] : tensor<32xi64>
  %x_f = tensor.convert %x_k : tensor<32xi64> -> tensor<32xf64>
  %x_a = tensor.splat %ax : tensor<32xf64>
  %x_ka = tensor.mul %x_f, %x_a : tensor<32xf64>
  %x_s = tensor.sin %x_ka : tensor<32xf64>
  %x_c = tensor.splat %sx : tensor<32xf64>
  %x_v = tensor.mul %x_s, %x_c : tensor<32xf64>
  %x = tensor.expand_shape %x_v [[0, 1]] output_shape [4, 8] : tensor<32xf64> into tensor<4x8xf64>
  %l = func.call @loss(%wq, %wk, %wv, %wo, %w1, %w2, %x) : (tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x16xf64>, tensor<16x8xf64>, tensor<4x8xf64>) -> f64
  %gq, %gk, %gv, %go, %g1, %g2 = func.call @grad(%wq, %wk, %wv, %wo, %w1, %w2, %x) : (tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x16xf64>, tensor<16x8xf64>, tensor<4x8xf64>)
      -> (tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x16xf64>, tensor<16x8xf64>)
  // the loss and the squared norms of the gradients of wq (through the
  // attention scores) and w1 (through the GELU)
  %gq2 = tensor.mul %gq, %gq : tensor<8x8xf64>
  %nqt = tensor.reduce_sum %gq2 [0, 1] : tensor<8x8xf64> -> tensor<f64>
  %nq = tensor.extract %nqt[] : tensor<f64>
  %g12 = tensor.mul %g1, %g1 : tensor<8x16xf64>
  %n1t = tensor.reduce_sum %g12 [0, 1] : tensor<8x16xf64> -> tensor<f64>
  %n1 = tensor.extract %n1t[] : tensor<f64>
  func.return %l, %nq, %n1 : f64, f64, f64
}
