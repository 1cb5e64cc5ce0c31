// RUN: irt-opt %s -p cse | FileCheck %s

// Compute ops are pure: cse merges equal ones (properties included), dce removes dead ones.
// CHECK-LABEL: func.func @cse
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>)
func.func @cse(%a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[E:.*]] = tensor.exp %[[A]]
  // CHECK-NOT: tensor.exp
  %0 = tensor.exp %a : tensor<4xf32>
  %1 = tensor.exp %a : tensor<4xf32>
  // CHECK: tensor.add %[[E]], %[[E]]
  %2 = tensor.add %0, %1 : tensor<4xf32>
  // CHECK: tensor.cmp gt
  // CHECK: tensor.cmp lt
  %3 = tensor.cmp gt, %a, %2 : tensor<4xf32>
  %4 = tensor.cmp lt, %a, %2 : tensor<4xf32>
  %5 = tensor.select %3, %2, %a : tensor<4xi1>, tensor<4xf32>
  %6 = tensor.select %4, %5, %a : tensor<4xi1>, tensor<4xf32>
  return %6 : tensor<4xf32>
}

// CHECK-LABEL: func.func @permutations
func.func @permutations(%a: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  // CHECK: tensor.transpose %{{.*}} [1, 0]
  // CHECK: tensor.transpose %{{.*}} [0, 1]
  // CHECK-NOT: tensor.transpose
  %0 = tensor.transpose %a [1, 0] : tensor<2x2xf32> -> tensor<2x2xf32>
  %1 = tensor.transpose %a [0, 1] : tensor<2x2xf32> -> tensor<2x2xf32>
  %2 = tensor.transpose %a [1, 0] : tensor<2x2xf32> -> tensor<2x2xf32>
  return %0, %1, %2 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}
