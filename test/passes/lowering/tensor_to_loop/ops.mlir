// RUN: irt-opt %s -p lower-tensor-to-loop | FileCheck %s
// RUN: irt-opt %s -p lower-tensor-to-loop | irt-opt | FileCheck %s

// Large non-splat dense constants become private constant globals.
// CHECK:       "memref.global"() <{sym_name = "[[G:__tensor_constant_0]]", type = memref<20xf32>, initial_value = dense<{{.*}}> : tensor<20xf32>, sym_visibility = "private", constant}>

// matmul: C = 0, then an i-k-j nest adding rows of B to rows of C (the axpy form of
// dot_loops.mlir; K = 3 is less than one block of contracting steps).
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:      %[[A:[^:]+]]: memref<2x3xf32>, %[[B:[^:]+]]: memref<3x4xf32>) -> memref<2x4xf32> {
// CHECK:         %[[C:.+]] = memref.alloc() : memref<2x4xf32>
// CHECK:             memref.store %{{.+}}, %[[C]][%{{.+}}, %{{.+}}] : memref<2x4xf32>
// CHECK:         loop.for %[[I:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK-NEXT:      loop.for %[[K:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK-NEXT:        %[[X:.+]] = memref.load %[[A]][%[[I]], %[[K]]] : memref<2x3xf32>
// CHECK-NEXT:        loop.for %[[J:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK-NEXT:          %[[Y:.+]] = memref.load %[[B]][%[[K]], %[[J]]] : memref<3x4xf32>
// CHECK-NEXT:          %[[P:.+]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:          %[[OLD:.+]] = memref.load %[[C]][%[[I]], %[[J]]] : memref<2x4xf32>
// CHECK-NEXT:          %[[S:.+]] = arith.addf %[[OLD]], %[[P]] : f32
// CHECK-NEXT:          memref.store %[[S]], %[[C]][%[[I]], %[[J]]] : memref<2x4xf32>
// CHECK:         func.return %[[C]] : memref<2x4xf32>
func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %c = tensor.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %c : tensor<2x4xf32>
}

// reduce_sum of f32 accumulates in f64 with reassociable additions (vectorizable
// partial sums), rounded once; reduce_max starts from -inf and uses the
// NaN-propagating maximumf.
// CHECK-LABEL: func.func @reduce(
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant 0.000000e+00 : f64
// CHECK-DAG:     %[[NINF:.+]] = arith.constant 0xff800000 : f32
// CHECK:         memref.alloc() : memref<3xf32>
// CHECK:           %[[ACC:.+]] = loop.for %{{.+}} iter_args(%{{.+}} = %[[ZERO]]) -> (f64) {
// CHECK:             arith.extf %{{.+}} : f32 to f64
// CHECK:             arith.addf %{{.+}}, %{{.+}} fastmath<reassoc> : f64
// CHECK:           arith.truncf %[[ACC]] : f64 to f32
// CHECK:         memref.alloc() : memref<2xf32>
// CHECK:           loop.for %{{.+}} iter_args(%{{.+}} = %[[NINF]]) -> (f32) {
// CHECK:             arith.maximumf
func.func @reduce(%a: tensor<2x3xf32>) -> (tensor<3xf32>, tensor<2xf32>) {
  %s = tensor.reduce_sum %a [0] : tensor<2x3xf32> -> tensor<3xf32>
  %m = tensor.reduce_max %a [1] : tensor<2x3xf32> -> tensor<2xf32>
  return %s, %m : tensor<3xf32>, tensor<2xf32>
}

// A sum over leading dims goes row by row, the kept dim innermost (contiguous
// loads, vectorizable across results): f32 into a zeroed f64 row (carried
// through the loops, written in place), then rounded; more than SUM_BLOCK (512)
// rows: blocks of 512 rows summed apart in one scratch row, added in order.
// CHECK-LABEL: func.func @reduce_rows(
// CHECK-SAME:      %[[A:[^:]+]]: memref<4x16xf32>, %[[B:[^:]+]]: memref<1000x16xf64>)
// CHECK:         %[[ACC0:.+]] = memref.alloc() : memref<16xf64>
// CHECK:         %[[ACC:.+]] = loop.for %{{.+}} iter_args(%[[Z:.+]] = %[[ACC0]])
// CHECK-NEXT:      memref.store %{{.+}}, %[[Z]][%{{.+}}] : memref<16xf64>
// CHECK:         %[[ROWS:.+]] = loop.for %[[R:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%{{.+}} = %[[ACC]])
// CHECK-NEXT:      loop.for %[[C:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[CELL:.+]] = %{{.+}})
// CHECK-NEXT:        %[[X:.+]] = memref.load %[[A]][%[[R]], %[[C]]] : memref<4x16xf32>
// CHECK-NEXT:        %[[XE:.+]] = arith.extf %[[X]] : f32 to f64
// CHECK-NEXT:        %[[OLD:.+]] = memref.load %[[CELL]][%[[C]]] : memref<16xf64>
// CHECK-NEXT:        %[[NEW:.+]] = arith.addf %[[OLD]], %[[XE]] fastmath<reassoc> : f64
// CHECK-NEXT:        memref.store %[[NEW]], %[[CELL]][%[[C]]] : memref<16xf64>
// CHECK:           arith.truncf %{{.+}} : f64 to f32
// CHECK:         memref.dealloc %[[ROWS]] : memref<16xf64>
// CHECK:         %[[ACCB:.+]] = memref.alloc() : memref<16xf64>
// CHECK-NEXT:    %[[ZACC:.+]] = loop.for %{{.+}} iter_args(%{{.+}} = %[[ACCB]])
// CHECK:         %[[PART0:.+]] = memref.alloc() : memref<16xf64>
// CHECK-NEXT:    %{{.+}}, %[[LAST:.+]] = loop.for %[[K:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%{{.+}} = %[[ZACC]], %{{.+}} = %[[PART0]])
// CHECK-NEXT:      %[[LO:.+]] = arith.muli %[[K]]
// CHECK-NEXT:      %[[HI:.+]] = arith.addi %[[LO]]
// CHECK-NEXT:      %[[ZP:.+]] = loop.for
// CHECK-NEXT:        memref.store %{{.+}}, %{{.+}}[%{{.+}}] : memref<16xf64>
// CHECK:           %[[PART:.+]] = loop.for %[[R2:.+]] = %[[LO]] to %[[HI]] step %{{.+}} iter_args(%{{.+}} = %[[ZP]])
// CHECK-NEXT:        loop.for %[[C2:.+]] = %{{.+}} to %{{.+}} step
// CHECK-NEXT:          memref.load %[[B]][%[[R2]], %[[C2]]] : memref<1000x16xf64>
// CHECK:               memref.store
// CHECK:           memref.load %[[PART]][%{{.+}}] : memref<16xf64>
// CHECK:           loop.yield %{{.+}}, %[[PART]] : memref<16xf64>, memref<16xf64>
// the last 488 rows, in the same scratch row
// CHECK:         %[[ZL:.+]] = loop.for %{{.+}} iter_args(%{{.+}} = %[[LAST]])
// CHECK-NEXT:      memref.store
// CHECK:         %[[REST:.+]] = loop.for %{{.+}} iter_args(%{{.+}} = %[[ZL]])
// CHECK:           memref.load %[[B]]
// CHECK:         memref.dealloc %[[REST]] : memref<16xf64>
func.func @reduce_rows(%a: tensor<4x16xf32>, %b: tensor<1000x16xf64>) -> (tensor<16xf32>, tensor<16xf64>) {
  %s = tensor.reduce_sum %a [0] : tensor<4x16xf32> -> tensor<16xf32>
  %t = tensor.reduce_sum %b [0] : tensor<1000x16xf64> -> tensor<16xf64>
  return %s, %t : tensor<16xf32>, tensor<16xf64>
}

// Short rows (fewer than 8 kept elements): one f64 scalar sum per kept element,
// carried through the loops; a block is the rows of the inner reduced dims that
// fit in SUM_BLOCK (here the last, 24 rows), added in order.
// CHECK-LABEL: func.func @reduce_short_rows(
// CHECK-SAME:      %[[A:[^:]+]]: memref<40x24x3xf32>)
// CHECK:         %[[S:[^,]+]], %{{[^,]+}}, %{{[^,]+}} = loop.for %[[I:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args({{.+}}) -> (f64, f64, f64)
// CHECK-NEXT:      %[[P:[^,]+]], %{{[^,]+}}, %{{[^,]+}} = loop.for %[[J:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args({{.+}}) -> (f64, f64, f64)
// CHECK-NEXT:        memref.load %[[A]][%[[I]], %[[J]], %{{.+}}] : memref<40x24x3xf32>
// CHECK:             arith.addf %{{.+}}, %{{.+}} fastmath<reassoc> : f64
// CHECK:           arith.addf %{{.+}}, %[[P]] fastmath<reassoc> : f64
// CHECK:         %[[R:.+]] = memref.alloc() : memref<3xf32>
// CHECK:         arith.truncf %[[S]] : f64 to f32
// CHECK-NOT:     memref.alloc
// CHECK:         func.return %[[R]]
func.func @reduce_short_rows(%a: tensor<40x24x3xf32>) -> tensor<3xf32> {
  %s = tensor.reduce_sum %a [0, 1] : tensor<40x24x3xf32> -> tensor<3xf32>
  return %s : tensor<3xf32>
}

// CHECK-LABEL: func.func @bt(
// CHECK-SAME:      %[[V:[^:]+]]: memref<3xf32>, %[[A:[^:]+]]: memref<2x3xf32>)
// CHECK:         loop.for %[[I:.+]] = %{{.+}} to
// CHECK-NEXT:      loop.for %[[J:.+]] = %{{.+}} to
// CHECK-NEXT:        memref.load %[[V]][%[[J]]] : memref<3xf32>
// CHECK:         loop.for %[[I2:.+]] = %{{.+}} to
// CHECK-NEXT:      loop.for %[[J2:.+]] = %{{.+}} to
// CHECK-NEXT:        %[[T:.+]] = memref.load %[[A]][%[[J2]], %[[I2]]] : memref<2x3xf32>
// CHECK-NEXT:        memref.store %[[T]], %{{.+}}[%[[I2]], %[[J2]]] : memref<3x2xf32>
func.func @bt(%v: tensor<3xf32>, %a: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3x2xf32>) {
  %b = tensor.broadcast %v [1] : tensor<3xf32> -> tensor<2x3xf32>
  %t = tensor.transpose %a [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return %b, %t : tensor<2x3xf32>, tensor<3x2xf32>
}

// Splats: a fill loop; small constants: stores; the global is borrowed
// (never freed or written: it is copied to be returned).
// CHECK-LABEL: func.func @consts(
// CHECK:         %[[S:.+]] = memref.alloc() : memref<2x2xf32>
// CHECK:             memref.store %{{.+}}, %[[S]][%{{.+}}, %{{.+}}] : memref<2x2xf32>
// CHECK:         %[[BIG:.+]] = memref.get_global @[[G]] : memref<20xf32>
// CHECK:         %[[SMALL:.+]] = memref.alloc() : memref<3xf32>
// CHECK-COUNT-3: memref.store %{{.+}}, %[[SMALL]][%{{.+}}] : memref<3xf32>
// CHECK-NEXT:    %[[CP:.+]] = memref.alloc() : memref<20xf32>
// CHECK-NEXT:    "memref.copy"(%[[BIG]], %[[CP]])
// CHECK-NOT:     memref.dealloc %[[BIG]]
// CHECK:         func.return %[[S]], %[[CP]], %[[SMALL]]
func.func @consts() -> (tensor<2x2xf32>, tensor<20xf32>, tensor<3xf32>) {
  %s = arith.constant dense<1.5> : tensor<2x2xf32>
  %big = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0]> : tensor<20xf32>
  %small = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  return %s, %big, %small : tensor<2x2xf32>, tensor<20xf32>, tensor<3xf32>
}

// A rank-reducing slice at a dynamic offset.
// CHECK-LABEL: func.func @slices(
// CHECK-SAME:      %[[T:[^:]+]]: memref<8x4xf32>, %[[I:[^:]+]]: index) -> memref<4xf32> {
// CHECK:         %[[ROW:.+]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    loop.for %[[J:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK-NEXT:      %[[X:.+]] = memref.load %[[T]][%[[I]], %[[J]]] : memref<8x4xf32>
// CHECK-NEXT:      memref.store %[[X]], %[[ROW]][%[[J]]] : memref<4xf32>
func.func @slices(%t: tensor<8x4xf32>, %i: index) -> tensor<4xf32> {
  %row = tensor.extract_slice %t[%i, 0] [1, 4] [1, 1] : tensor<8x4xf32> to tensor<4xf32>
  return %row : tensor<4xf32>
}
