// W9: embedding lookup (10000x128 table, tensor.gather) + LSTM, hidden 128, over 32 steps,
// batch 32, f32; gates [i, f, g, o] = x_t Wx + h Wh + b; loss sum(h_T^2) / 32. The
// gradient is taken wrt the table, Wx, Wh and b (the table's by scatter_add).
func.func @loss(%table: tensor<10000x128xf32>, %wx: tensor<128x512xf32>, %wh: tensor<128x512xf32>, %b: tensor<512xf32>, %ids: tensor<32x32x1xindex>) -> f32 {
  %xe = tensor.gather %table[%ids] gather_dims([0]) : (tensor<10000x128xf32>, tensor<32x32x1xindex>) -> tensor<32x32x128xf32>
  %zero = arith.constant 0.0 : f32
  %h0 = tensor.splat %zero : tensor<32x128xf32>
  %bz = tensor.broadcast %b [1] : tensor<512xf32> -> tensor<32x512xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 32 : index
  %hT, %cT = loop.for %t = %c0 to %n step %c1 iter_args(%h = %h0, %c = %h0) -> (tensor<32x128xf32>, tensor<32x128xf32>) {
    %x = tensor.extract_slice %xe[%t, 0, 0] [1, 32, 128] [1, 1, 1] : tensor<32x32x128xf32> to tensor<32x128xf32>
    %zx = tensor.matmul %x, %wx : (tensor<32x128xf32>, tensor<128x512xf32>) -> tensor<32x512xf32>
    %zh = tensor.matmul %h, %wh : (tensor<32x128xf32>, tensor<128x512xf32>) -> tensor<32x512xf32>
    %zs = tensor.add %zx, %zh : tensor<32x512xf32>
    %z = tensor.add %zs, %bz : tensor<32x512xf32>
    %ip = tensor.extract_slice %z[0, 0] [32, 128] [1, 1] : tensor<32x512xf32> to tensor<32x128xf32>
    %fp = tensor.extract_slice %z[0, 128] [32, 128] [1, 1] : tensor<32x512xf32> to tensor<32x128xf32>
    %gp = tensor.extract_slice %z[0, 256] [32, 128] [1, 1] : tensor<32x512xf32> to tensor<32x128xf32>
    %op = tensor.extract_slice %z[0, 384] [32, 128] [1, 1] : tensor<32x512xf32> to tensor<32x128xf32>
    %i = tensor.logistic %ip : tensor<32x128xf32>
    %f = tensor.logistic %fp : tensor<32x128xf32>
    %g = tensor.tanh %gp : tensor<32x128xf32>
    %o = tensor.logistic %op : tensor<32x128xf32>
    %fc = tensor.mul %f, %c : tensor<32x128xf32>
    %ig = tensor.mul %i, %g : tensor<32x128xf32>
    %cn = tensor.add %fc, %ig : tensor<32x128xf32>
    %tc = tensor.tanh %cn : tensor<32x128xf32>
    %hn = tensor.mul %o, %tc : tensor<32x128xf32>
    loop.yield %hn, %cn : tensor<32x128xf32>, tensor<32x128xf32>
  }
  %sq = tensor.mul %hT, %hT : tensor<32x128xf32>
  %s = tensor.reduce_sum %sq [0, 1] : tensor<32x128xf32> -> tensor<f32>
  %r = tensor.extract %s[] : tensor<f32>
  %nb = arith.constant 32.0 : f32
  %l = arith.divf %r, %nb : f32
  func.return %l : f32
}

func.func @grad(%table: tensor<10000x128xf32>, %wx: tensor<128x512xf32>, %wh: tensor<128x512xf32>, %b: tensor<512xf32>, %ids: tensor<32x32x1xindex>) -> (tensor<10000x128xf32>, tensor<128x512xf32>, tensor<128x512xf32>, tensor<512xf32>) {
  %gt, %gx, %gh, %gb = autodiff.grad @loss(%table, %wx, %wh, %b, %ids) wrt [0, 1, 2, 3]
      : (tensor<10000x128xf32>, tensor<128x512xf32>, tensor<128x512xf32>, tensor<512xf32>, tensor<32x32x1xindex>) -> (tensor<10000x128xf32>, tensor<128x512xf32>, tensor<128x512xf32>, tensor<512xf32>)
  func.return %gt, %gx, %gh, %gb : tensor<10000x128xf32>, tensor<128x512xf32>, tensor<128x512xf32>, tensor<512xf32>
}
