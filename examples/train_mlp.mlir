// Fit a one-hidden-layer tanh network to sin(x) by gradient descent.
//
// `@loss` is the model; `@train` differentiates it with
// `autodiff.value_and_grad` inside a `loop.for`, prints the loss every 50
// steps (`printf.print_format`) and records the loss of every step, so the
// returned history shows training at work.
//
//   irt-run examples/train_mlp.mlir -e train

func.func @loss(%w1: tensor<1x8xf64>, %b1: tensor<8xf64>, %w2: tensor<8x1xf64>, %b2: tensor<1xf64>,
                %x: tensor<16x1xf64>, %y: tensor<16x1xf64>) -> f64 {
  %xw = tensor.matmul %x, %w1 : (tensor<16x1xf64>, tensor<1x8xf64>) -> tensor<16x8xf64>
  %bb1 = tensor.broadcast %b1 [1] : tensor<8xf64> -> tensor<16x8xf64>
  %z1 = tensor.add %xw, %bb1 : tensor<16x8xf64>
  %h = tensor.tanh %z1 : tensor<16x8xf64>
  %hw = tensor.matmul %h, %w2 : (tensor<16x8xf64>, tensor<8x1xf64>) -> tensor<16x1xf64>
  %bb2 = tensor.broadcast %b2 [1] : tensor<1xf64> -> tensor<16x1xf64>
  %p = tensor.add %hw, %bb2 : tensor<16x1xf64>
  %d = tensor.sub %p, %y : tensor<16x1xf64>
  %sq = tensor.mul %d, %d : tensor<16x1xf64>
  %s = tensor.reduce_sum %sq [0, 1] : tensor<16x1xf64> -> tensor<f64>
  %e = tensor.extract %s[] : tensor<f64>
  %n = arith.constant 16.0 : f64
  %l = arith.divf %e, %n : f64
  func.return %l : f64
}

func.func @train() -> (tensor<200xf64>, f64) {
  %x = arith.constant dense<[[-2.0], [-1.7333333333333334], [-1.4666666666666668], [-1.2], [-0.9333333333333333], [-0.6666666666666667], [-0.3999999999999999], [-0.1333333333333333], [0.1333333333333333], [0.3999999999999999], [0.6666666666666665], [0.9333333333333331], [1.2000000000000002], [1.4666666666666668], [1.7333333333333334], [2.0]]> : tensor<16x1xf64>
  %y = arith.constant dense<[[-0.9092974268256817], [-0.9868199153831307], [-0.9945834039350564], [-0.9320390859672263], [-0.8036082636944112], [-0.6183698030697371], [-0.3894183423086504], [-0.13293862262231404], [0.13293862262231404], [0.3894183423086504], [0.6183698030697369], [0.8036082636944111], [0.9320390859672264], [0.9945834039350564], [0.9868199153831307], [0.9092974268256817]]> : tensor<16x1xf64>
  %w1_0 = arith.constant dense<[[0.1257302210933933, -0.1321048632913019, 0.6404226504432821, 0.10490011715303971, -0.535669373161111, 0.36159505490948474, 1.3040000451301372, 0.9470809631292422]]> : tensor<1x8xf64>
  %b1_0 = arith.constant dense<0.0> : tensor<8xf64>
  %w2_0 = arith.constant dense<[[-0.3518676179034963], [-0.6327107355230263], [-0.3116372312686761], [0.0206629896736218], [-1.1625153873194172], [-0.10939583196627287], [-0.6229554736265326], [-0.3661336773517258]]> : tensor<8x1xf64>
  %b2_0 = arith.constant dense<0.0> : tensor<1xf64>
  %hist0 = tensor.empty() : tensor<200xf64>
  %lr = arith.constant 0.1 : f64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %steps = arith.constant 200 : index
  %hist, %w1, %b1, %w2, %b2 = loop.for %i = %c0 to %steps step %c1
      iter_args(%hs = %hist0, %a = %w1_0, %b = %b1_0, %c = %w2_0, %d = %b2_0)
      -> (tensor<200xf64>, tensor<1x8xf64>, tensor<8xf64>, tensor<8x1xf64>, tensor<1xf64>) {
    %l, %ga, %gb, %gc, %gd = autodiff.value_and_grad @loss(%a, %b, %c, %d, %x, %y) wrt [0, 1, 2, 3]
        : (tensor<1x8xf64>, tensor<8xf64>, tensor<8x1xf64>, tensor<1xf64>, tensor<16x1xf64>, tensor<16x1xf64>)
        -> (f64, tensor<1x8xf64>, tensor<8xf64>, tensor<8x1xf64>, tensor<1xf64>)
    %lra = tensor.splat %lr : tensor<1x8xf64>
    %sa = tensor.mul %ga, %lra : tensor<1x8xf64>
    %a2 = tensor.sub %a, %sa : tensor<1x8xf64>
    %lrb = tensor.splat %lr : tensor<8xf64>
    %sb = tensor.mul %gb, %lrb : tensor<8xf64>
    %b2n = tensor.sub %b, %sb : tensor<8xf64>
    %lrc = tensor.splat %lr : tensor<8x1xf64>
    %sc = tensor.mul %gc, %lrc : tensor<8x1xf64>
    %c2 = tensor.sub %c, %sc : tensor<8x1xf64>
    %lrd = tensor.splat %lr : tensor<1xf64>
    %sd = tensor.mul %gd, %lrd : tensor<1xf64>
    %d2 = tensor.sub %d, %sd : tensor<1xf64>
    %every = arith.constant 50 : index
    %phase = arith.remui %i, %every : index
    %print = arith.cmpi eq, %phase, %c0 : index
    loop.if %print {
      printf.print_format "step {} loss {}\n", %i : index, %l : f64
      loop.yield
    }
    %hs2 = tensor.insert %l into %hs[%i] : tensor<200xf64>
    loop.yield %hs2, %a2, %b2n, %c2, %d2 : tensor<200xf64>, tensor<1x8xf64>, tensor<8xf64>, tensor<8x1xf64>, tensor<1xf64>
  }
  %final = func.call @loss(%w1, %b1, %w2, %b2, %x, %y) : (tensor<1x8xf64>, tensor<8xf64>, tensor<8x1xf64>, tensor<1xf64>, tensor<16x1xf64>, tensor<16x1xf64>) -> f64
  func.return %hist, %final : tensor<200xf64>, f64
}
