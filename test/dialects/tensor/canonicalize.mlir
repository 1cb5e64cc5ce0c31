// RUN: irt-opt %s -p canonicalize | FileCheck %s

// CHECK-LABEL: func.func @fold_binary
func.func @fold_binary() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xi32>, tensor<2xf64>) {
  %a = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = arith.constant dense<3.0> : tensor<2xf32>
  %i = arith.constant dense<[7, -7]> : tensor<2xi32>
  %j = arith.constant dense<[2, 3]> : tensor<2xi32>
  %nn = arith.constant dense<[-1.0, 1.0]> : tensor<2xf64>
  %oo = arith.constant dense<[4.0, -1.0]> : tensor<2xf64>
  %n = tensor.sqrt %nn : tensor<2xf64>
  %o = tensor.sqrt %oo : tensor<2xf64>
  // CHECK-DAG: arith.constant dense<[4.000000e+00, 5.000000e+00]> : tensor<2xf32>
  %0 = tensor.add %a, %b : tensor<2xf32>
  // CHECK-DAG: arith.constant dense<[1.200000e+01, 1.500000e+01]> : tensor<2xf32>
  %1 = tensor.mul %0, %b : tensor<2xf32>
  // CHECK-DAG: arith.constant dense<[14, -21]> : tensor<2xi32>
  %2 = tensor.mul %i, %j : tensor<2xi32>
  // max propagates NaN, as numpy.maximum.
  // CHECK-DAG: arith.constant dense<[0x{{[fF7]}}{{[fF]}}{{[fF]}}8000000000000, 0x{{[fF7]}}{{[fF]}}{{[fF]}}8000000000000]> : tensor<2xf64>
  %3 = tensor.max %n, %o : tensor<2xf64>
  // CHECK-NOT: tensor.
  return %0, %1, %2, %3 : tensor<2xf32>, tensor<2xf32>, tensor<2xi32>, tensor<2xf64>
}

// CHECK-LABEL: func.func @fold_unary_cmp_select_convert
func.func @fold_unary_cmp_select_convert(%x: tensor<2xf32>, %y: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xi1>, tensor<2xf32>, tensor<2xi32>, tensor<2xf32>, tensor<2xf32>) {
  %a = arith.constant dense<[0.0, 4.0]> : tensor<2xf32>
  %b = arith.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %t = arith.constant dense<true> : tensor<2xi1>
  %c = arith.constant dense<[-1.5, 2.7]> : tensor<2xf32>
  // CHECK-DAG: arith.constant dense<[0.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %0 = tensor.sqrt %a : tensor<2xf32>
  // CHECK-DAG: arith.constant dense<[true, false]> : tensor<2xi1>
  %1 = tensor.cmp lt, %a, %b : tensor<2xf32>
  // CHECK-DAG: arith.constant dense<[1.000000e+00, 4.000000e+00]> : tensor<2xf32>
  %2 = tensor.select %1, %b, %a : tensor<2xi1>, tensor<2xf32>
  // Float to integer truncates toward zero.
  // CHECK-DAG: arith.constant dense<[-1, 2]> : tensor<2xi32>
  %3 = tensor.convert %c : tensor<2xf32> -> tensor<2xi32>
  // A constant all-true mask selects the first value.
  %4 = tensor.select %t, %x, %y : tensor<2xi1>, tensor<2xf32>
  // Same values on both sides.
  %5 = tensor.select %1, %y, %y : tensor<2xi1>, tensor<2xf32>
  // CHECK: return %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %x, %y :
  return %0, %1, %2, %3, %4, %5 : tensor<2xf32>, tensor<2xi1>, tensor<2xf32>, tensor<2xi32>, tensor<2xf32>, tensor<2xf32>
}

// CHECK-LABEL: func.func @fold_structural
func.func @fold_structural() -> (tensor<3x2xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<2xf32>, tensor<2x2xf32>) {
  %a = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %v = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %m = arith.constant dense<[[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]]> : tensor<3x2xf32>
  // CHECK-DAG: arith.constant dense<{{\[\[}}1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
  %0 = tensor.transpose %a [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  // CHECK-DAG: arith.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00], [1.000000e+00, 2.000000e+00, 3.000000e+00]]> : tensor<2x3xf32>
  %1 = tensor.broadcast %v [1] : tensor<3xf32> -> tensor<2x3xf32>
  // CHECK-DAG: arith.constant dense<[5.000000e+00, 7.000000e+00, 9.000000e+00]> : tensor<3xf32>
  %2 = tensor.reduce_sum %a [0] : tensor<2x3xf32> -> tensor<3xf32>
  // CHECK-DAG: arith.constant dense<[3.000000e+00, 6.000000e+00]> : tensor<2xf32>
  %3 = tensor.reduce_max %a [1] : tensor<2x3xf32> -> tensor<2xf32>
  // CHECK-DAG: arith.constant dense<{{\[\[}}4.000000e+00, 7.000000e+00], [1.000000e+01, 1.600000e+01]]> : tensor<2x2xf32>
  %4 = tensor.matmul %a, %m : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  // CHECK-NOT: tensor.
  return %0, %1, %2, %3, %4 : tensor<3x2xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<2xf32>, tensor<2x2xf32>
}

// CHECK-LABEL: func.func @transpose_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
func.func @transpose_transpose(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<4x2x3xf32>, tensor<2x3x4xf32>) {
  // Inverse permutations cancel.
  %t1 = tensor.transpose %x [1, 0, 2] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %t2 = tensor.transpose %t1 [1, 0, 2] : tensor<3x2x4xf32> -> tensor<2x3x4xf32>
  // Others compose into one transpose.
  // CHECK: %[[T:.*]] = tensor.transpose %[[X]] [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %t3 = tensor.transpose %t1 [2, 1, 0] : tensor<3x2x4xf32> -> tensor<4x2x3xf32>
  // The identity permutation folds away.
  %t4 = tensor.transpose %x [0, 1, 2] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  // CHECK-NOT: tensor.transpose
  // CHECK: return %[[X]], %[[T]], %[[X]]
  return %t2, %t3, %t4 : tensor<2x3x4xf32>, tensor<4x2x3xf32>, tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @broadcasts
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>, %[[Y:.*]]: tensor<2x3xf32>)
func.func @broadcasts(%x: tensor<3xf32>, %y: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<5x2x3xf32>) {
  // Identity broadcast.
  %0 = tensor.broadcast %y [0, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  // Broadcast of a broadcast is one broadcast.
  // CHECK: %[[B:.*]] = tensor.broadcast %[[X]] [2] : tensor<3xf32> -> tensor<5x2x3xf32>
  %1 = tensor.broadcast %x [1] : tensor<3xf32> -> tensor<2x3xf32>
  %2 = tensor.broadcast %1 [1, 2] : tensor<2x3xf32> -> tensor<5x2x3xf32>
  // CHECK: return %[[Y]], %[[B]]
  return %0, %2 : tensor<2x3xf32>, tensor<5x2x3xf32>
}

// CHECK-LABEL: func.func @identities
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi64>)
func.func @identities(%x: tensor<4xf32>, %i: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi64>, tensor<4xf32>, tensor<4xf32>, tensor<f32>) {
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %negzero = arith.constant dense<-0.0> : tensor<4xf32>
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %izero = arith.constant dense<0> : tensor<4xi64>
  %0 = tensor.mul %x, %one : tensor<4xf32>
  %1 = tensor.add %x, %negzero : tensor<4xf32>
  %2 = tensor.add %i, %izero : tensor<4xi64>
  %3 = tensor.convert %x : tensor<4xf32> -> tensor<4xf32>
  // x + 0.0 is not x (for x = -0.0): kept.
  // CHECK: %[[K:.*]] = tensor.add %[[X]], %{{.*}} : tensor<4xf32>
  %4 = tensor.add %x, %zero : tensor<4xf32>
  %s = arith.constant dense<2.0> : tensor<f32>
  %5 = tensor.reduce_sum %s [] : tensor<f32> -> tensor<f32>
  // CHECK: return %[[X]], %[[X]], %[[I]], %[[X]], %[[K]], %{{.*}} :
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xi64>, tensor<4xf32>, tensor<4xf32>, tensor<f32>
}

// The neutral operand is seen through tensor.splat of a constant and broadcasts;
// it folds on either side where the op commutes, on the right only otherwise.
// CHECK-LABEL: func.func @neutral_splats
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf64>, %[[S:.*]]: f64)
// CHECK: %[[K:.*]] = tensor.div %{{.*}}, %[[X]]
// CHECK: return %[[X]], %[[X]], %[[X]], %[[K]] :
func.func @neutral_splats(%x: tensor<2x3xf64>, %s: f64) -> (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>) {
  %c1 = arith.constant 1.0 : f64
  %one = tensor.splat %c1 : tensor<3xf64>
  %ones = tensor.broadcast %one [1] : tensor<3xf64> -> tensor<2x3xf64>
  %nz = arith.constant dense<-0.0> : tensor<3xf64>
  %nzs = tensor.broadcast %nz [1] : tensor<3xf64> -> tensor<2x3xf64>
  %0 = tensor.mul %ones, %x : tensor<2x3xf64>
  %1 = tensor.add %nzs, %x : tensor<2x3xf64>
  %2 = tensor.pow %x, %ones : tensor<2x3xf64>
  %3 = tensor.div %ones, %x : tensor<2x3xf64>
  return %0, %1, %2, %3 : tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>
}

// CHECK-LABEL: func.func @dim
func.func @dim(%t: tensor<?x4xf32>) -> (index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: %[[D:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x4xf32>
  %0 = tensor.dim %t, %c0 : tensor<?x4xf32>
  // CHECK: %[[C:.*]] = arith.constant 4 : index
  %1 = tensor.dim %t, %c1 : tensor<?x4xf32>
  // CHECK: return %[[D]], %[[C]]
  return %0, %1 : index, index
}

// Dead compute ops are removed: they are pure.
// CHECK-LABEL: func.func @dead
func.func @dead(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // CHECK-NOT: tensor.
  %0 = tensor.exp %x : tensor<4x4xf32>
  %1 = tensor.matmul %0, %0 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %2 = tensor.reduce_sum %1 [0] : tensor<4x4xf32> -> tensor<4xf32>
  return %x : tensor<4x4xf32>
}

// CHECK-LABEL: func.func @extract_splat
func.func @extract_splat(%t: tensor<2x2xf32>) -> (f32, i1, tensor<3xf32>, index, f32) {
  %a = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %m = arith.constant dense<[true, false]> : tensor<2xi1>
  %ix = arith.constant dense<[5, 6]> : tensor<2xindex>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK-DAG: arith.constant 3.000000e+00 : f32
  %x = tensor.extract %a[%c1, %c0] : tensor<2x2xf32>
  // CHECK-DAG: arith.constant true
  %y = tensor.extract %m[%c0] : tensor<2xi1>
  // CHECK-DAG: arith.constant dense<3.000000e+00> : tensor<3xf32>
  %s = tensor.splat %x : tensor<3xf32>
  // CHECK-DAG: arith.constant 6 : index
  %z = tensor.extract %ix[%c1] : tensor<2xindex>
  // Not constant: kept.
  // CHECK: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<2x2xf32>
  %w = tensor.extract %t[%c0, %c1] : tensor<2x2xf32>
  return %x, %y, %s, %z, %w : f32, i1, tensor<3xf32>, index, f32
}

// CHECK-LABEL: func.func @from_elements
func.func @from_elements(%x: f32) -> (tensor<2x2xf32>, tensor<2xf32>) {
  %a = arith.constant 1.0 : f32
  %b = arith.constant 2.5 : f32
  // CHECK-DAG: arith.constant dense<{{\[\[}}1.000000e+00, 2.500000e+00], [2.500000e+00, 1.000000e+00]]> : tensor<2x2xf32>
  %0 = tensor.from_elements %a, %b, %b, %a : tensor<2x2xf32>
  // CHECK-DAG: tensor.from_elements %{{.*}}, %{{.*}} : tensor<2xf32>
  %1 = tensor.from_elements %a, %x : tensor<2xf32>
  return %0, %1 : tensor<2x2xf32>, tensor<2xf32>
}

// A neutral constant on the left folds too (add and mul commute).
// CHECK-LABEL: func.func @neutral_on_the_left
// CHECK-NEXT:    func.return %x, %x : tensor<3xf64>, tensor<3xf64>
func.func @neutral_on_the_left(%x: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %one = arith.constant dense<1.0> : tensor<3xf64>
  %nz = arith.constant dense<-0.0> : tensor<3xf64>
  %a = tensor.mul %one, %x : tensor<3xf64>
  %b = tensor.add %nz, %x : tensor<3xf64>
  func.return %a, %b : tensor<3xf64>, tensor<3xf64>
}

// 0.0 + x is not x (it turns -0.0 into 0.0), so it stays.
// CHECK-LABEL: func.func @positive_zero_on_the_left
// CHECK:         tensor.add
func.func @positive_zero_on_the_left(%x: tensor<3xf64>) -> tensor<3xf64> {
  %z = arith.constant dense<0.0> : tensor<3xf64>
  %a = tensor.add %z, %x : tensor<3xf64>
  func.return %a : tensor<3xf64>
}

// Folds of the SPEC §3.1 ops: reverse of a reverse over the same dims, reverse
// over no dims, constant dot and argmax.
// CHECK-LABEL: func.func @model_op_folds
// CHECK-SAME:      (%[[X:.+]]: tensor<2x3xf32>)
// CHECK-DAG:     %[[D:.+]] = arith.constant dense<{{\[}}[7.000000e+00, 1.000000e+01]]> : tensor<1x2xf32>
// CHECK-DAG:     %[[K:.+]] = arith.constant dense<[1, 0]> : tensor<2xi64>
// CHECK:         return %[[X]], %[[X]], %[[D]], %[[K]]
func.func @model_op_folds(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<1x2xf32>, tensor<2xi64>) {
  %r = tensor.reverse %x [0, 1] : tensor<2x3xf32>
  %rr = tensor.reverse %r [1, 0] : tensor<2x3xf32>
  %id = tensor.reverse %x [] : tensor<2x3xf32>
  %a = arith.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  %b = arith.constant dense<[[1.0, 3.0], [2.0, 4.0]]> : tensor<2x2xf32>
  %d = tensor.dot %a, %b contract [1] x [1] : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  %m = arith.constant dense<[[1.0, 7.0, 7.0], [0x7FC00000, 2.0, 0x7FC00000]]> : tensor<2x3xf32>
  %k = tensor.argmax %m [1] : tensor<2x3xf32> -> tensor<2xi64>
  return %rr, %id, %d, %k : tensor<2x3xf32>, tensor<2x3xf32>, tensor<1x2xf32>, tensor<2xi64>
}

// The adjoint of slices (LSTM gates): each slice's adjoint added into zeros at its
// place. A read past inserts that wrote elsewhere reads the zeros (a splat of the
// slice); the inserts then cover the whole tensor, whose zeros nobody reads: the
// chain starts from tensor.empty.
// CHECK-LABEL: func.func @slice_adjoints
// CHECK-SAME:      (%[[A:.+]]: tensor<2x2xf32>, %[[B:.+]]: tensor<2x2xf32>, %[[C:.+]]: tensor<2x2xf32>)
// CHECK-NEXT:    %[[E:.+]] = tensor.empty() : tensor<2x6xf32>
// CHECK-NEXT:    %[[I0:.+]] = tensor.insert_slice %[[A]] into %[[E]][0, 4] [2, 2] [1, 1]
// CHECK-NEXT:    %[[Z1:.+]] = arith.constant dense<0.000000e+00> : tensor<2x2xf32>
// CHECK-NEXT:    %[[S1:.+]] = tensor.add %[[Z1]], %[[B]]
// CHECK-NEXT:    %[[I1:.+]] = tensor.insert_slice %[[S1]] into %[[I0]][0, 2] [2, 2] [1, 1]
// CHECK-NEXT:    %[[Z2:.+]] = arith.constant dense<0.000000e+00> : tensor<2x2xf32>
// CHECK-NEXT:    %[[S2:.+]] = tensor.add %[[Z2]], %[[C]]
// CHECK-NEXT:    %[[I2:.+]] = tensor.insert_slice %[[S2]] into %[[I1]][0, 0] [2, 2] [1, 1]
// CHECK-NEXT:    return %[[I2]]
func.func @slice_adjoints(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>, %c: tensor<2x2xf32>) -> tensor<2x6xf32> {
  %z = arith.constant dense<0.0> : tensor<2x6xf32>
  %0 = tensor.insert_slice %a into %z[0, 4] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x6xf32>
  %1 = tensor.extract_slice %0[0, 2] [2, 2] [1, 1] : tensor<2x6xf32> to tensor<2x2xf32>
  %2 = tensor.add %1, %b : tensor<2x2xf32>
  %3 = tensor.insert_slice %2 into %0[0, 2] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x6xf32>
  %4 = tensor.extract_slice %3[0, 0] [2, 2] [1, 1] : tensor<2x6xf32> to tensor<2x2xf32>
  %5 = tensor.add %4, %c : tensor<2x2xf32>
  %6 = tensor.insert_slice %5 into %3[0, 0] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x6xf32>
  func.return %6 : tensor<2x6xf32>
}

// The destination stays when a read may see it: the inserts leave column 5 (or, in
// 2-D, the corner [1, 1]) unwritten, a strided insert covers every other column only,
// the first insert's result is read elsewhere, an extract overlaps the insert or
// is at a dynamic offset.
// CHECK-LABEL: func.func @slice_dest_kept
// CHECK-NOT:     tensor.empty
// CHECK:         %[[P:.+]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [2, 4] [1, 1]
// CHECK:         tensor.extract_slice %[[P]][0, 3] [2, 2] [1, 1]
// CHECK:         tensor.extract_slice %[[P]][0, %{{.*}}] [2, 1] [1, 1]
// CHECK-NOT:     tensor.empty
// CHECK:         return
func.func @slice_dest_kept(%a: tensor<2x4xf32>, %b: tensor<2x1xf32>, %n: tensor<3x3xf32>, %i: index, %s: tensor<2x3xf32>)
    -> (tensor<2x6xf32>, tensor<2x2xf32>, tensor<2x1xf32>, tensor<2x2xf32>, tensor<2x6xf32>, tensor<2x6xf32>) {
  %z = arith.constant dense<1.0> : tensor<2x6xf32>
  %p = tensor.insert_slice %a into %z[0, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<2x6xf32>
  %q = tensor.insert_slice %b into %p[0, 4] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x6xf32>
  %r = tensor.extract_slice %p[0, 3] [2, 2] [1, 1] : tensor<2x6xf32> to tensor<2x2xf32>
  %d = tensor.extract_slice %p[0, %i] [2, 1] [1, 1] : tensor<2x6xf32> to tensor<2x1xf32>
  %y = arith.constant dense<2.0> : tensor<2x2xf32>
  %col = tensor.extract_slice %n[0, 0] [2, 1] [1, 1] : tensor<3x3xf32> to tensor<2x1xf32>
  %row = tensor.extract_slice %n[0, 0] [1, 2] [1, 1] : tensor<3x3xf32> to tensor<1x2xf32>
  %u = tensor.insert_slice %col into %y[0, 0] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x2xf32>
  %v = tensor.insert_slice %row into %u[0, 0] [1, 2] [1, 1] : tensor<1x2xf32> into tensor<2x2xf32>
  %w = tensor.insert_slice %s into %z[0, 0] [2, 3] [1, 2] : tensor<2x3xf32> into tensor<2x6xf32>
  %x = tensor.insert_slice %a into %p[0, 2] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<2x6xf32>
  return %q, %r, %d, %v, %w, %x : tensor<2x6xf32>, tensor<2x2xf32>, tensor<2x1xf32>, tensor<2x2xf32>, tensor<2x6xf32>, tensor<2x6xf32>
}
