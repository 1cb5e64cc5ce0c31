// RUN: irt-opt %s -p convert-memref-to-llvm | FileCheck %s
// RUN: irt-opt %s -p convert-memref-to-llvm | irt-opt | FileCheck %s
// RUN: irt-opt %s -p convert-to-llvm | FileCheck %s --check-prefix=FULL

// alloc: sizes (static and dynamic), row-major strides, malloc(count * elemsize),
// after a check that the byte count fits in 63 bits (n * 16 <= 2^63 - 1).
// CHECK-LABEL: func.func @alloc
// CHECK:         %[[N:.*]] = builtin.unrealized_conversion_cast %n : index to i64
// CHECK:         %[[LIMIT:.*]] = llvm.mlir.constant(576460752303423487) : i64
// CHECK:         %[[OK:.*]] = llvm.icmp "ule" %[[N]], %[[LIMIT]] : i64
// CHECK:         llvm.cond_br %[[OK]], ^[[GO:.*]], ^[[FAIL:[^ ]*]]
// CHECK:       ^[[FAIL]]:
// CHECK:         llvm.call @__irt_check_failed
// CHECK:         llvm.unreachable
// CHECK:       ^[[GO]]:
// CHECK:         %[[FOUR:.*]] = llvm.mlir.constant(4) : i64
// CHECK:         %[[ONE:.*]] = llvm.mlir.constant(1) : i64
// CHECK:         %[[COUNT:.*]] = llvm.mul %[[FOUR]], %[[N]] : i64
// CHECK:         %[[BYTES:.*]] = llvm.mul %[[COUNT]], %[[FOUR]] : i64
// CHECK:         %[[P:.*]] = llvm.call @malloc(%[[BYTES]]) : (i64) -> !llvm.ptr
// CHECK:         llvm.mlir.undef : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
// CHECK:         llvm.insertvalue %[[P]], %{{.*}}[0]
// CHECK:         llvm.insertvalue %[[P]], %{{.*}}[1]
// CHECK:         llvm.insertvalue %[[N]], %{{.*}}[3, 0]
// CHECK:         llvm.insertvalue %[[FOUR]], %{{.*}}[4, 0]
// CHECK:         llvm.insertvalue %[[FOUR]], %{{.*}}[3, 1]
// CHECK:         llvm.insertvalue %[[ONE]], %{{.*}}[4, 1]
func.func @alloc(%n: index) -> memref<?x4xf32> {
  %m = memref.alloc(%n) : memref<?x4xf32>
  return %m : memref<?x4xf32>
}

// Several dynamic sizes: their product is checked for unsigned overflow, and a
// zero size lets any others pass (the buffer is empty).
// CHECK-LABEL: func.func @alloc_2d
// CHECK:         %[[P:.*]] = llvm.call_intrinsic "llvm.umul.with.overflow.i64"(%{{.*}}, %{{.*}}) : (i64, i64) -> !llvm.struct<(i64, i1)>
// CHECK:         %[[PROD:.*]] = llvm.extractvalue %[[P]][0]
// CHECK:         %[[WRAP:.*]] = llvm.extractvalue %[[P]][1]
// CHECK:         llvm.icmp "ule" %[[PROD]], %{{.*}} : i64
// CHECK-COUNT-2: llvm.icmp "eq"
// CHECK:         llvm.cond_br
// CHECK:         llvm.call @__irt_check_failed
// CHECK:         llvm.call @malloc
func.func @alloc_2d(%m: index, %n: index) -> memref<?x?xf64> {
  %a = memref.alloc(%m, %n) : memref<?x?xf64>
  return %a : memref<?x?xf64>
}

// Static strides are constants: element (i, j) is at aligned[i * 4 + j].
// CHECK-LABEL: func.func @access
// CHECK:         %[[BASE:.*]] = llvm.extractvalue %{{.*}}[1]
// CHECK:         %[[MUL:.*]] = llvm.mul %{{.*}}, %{{.*}} : i64
// CHECK:         %[[IDX:.*]] = llvm.add %[[MUL]], %{{.*}} : i64
// CHECK:         %[[PTR:.*]] = llvm.getelementptr inbounds %[[BASE]][%[[IDX]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK:         llvm.store %v, %[[PTR]] : f32, !llvm.ptr
// CHECK:         llvm.load %{{.*}} : !llvm.ptr -> f32
func.func @access(%m: memref<?x4xf32>, %i: index, %j: index, %v: f32) -> f32 {
  memref.store %v, %m[%i, %j] : memref<?x4xf32>
  %x = memref.load %m[%j, %i] : memref<?x4xf32>
  return %x : f32
}

// Dynamic strides are read from the descriptor.
// CHECK-LABEL: func.func @dynamic
// CHECK:         %[[S0:.*]] = llvm.extractvalue %{{.*}}[4, 0]
// CHECK:         llvm.mul %{{.*}}, %[[S0]] : i64
// CHECK:         llvm.getelementptr inbounds {{.*}}, f64
func.func @dynamic(%m: memref<?x?xf64>, %i: index, %j: index) -> f64 {
  %x = memref.load %m[%i, %j] : memref<?x?xf64>
  return %x : f64
}

// CHECK-LABEL: func.func @release
// CHECK:         %[[A:.*]] = llvm.extractvalue %{{.*}}[0]
// CHECK:         llvm.call @free(%[[A]]) : (!llvm.ptr) -> ()
func.func @release(%m: memref<?x4xf32>) {
  memref.dealloc %m : memref<?x4xf32>
  return
}

// CHECK-LABEL: func.func @dims
// CHECK:         llvm.extractvalue %{{.*}}[3, 0]
// CHECK:         llvm.mlir.constant(4) : i64
func.func @dims(%m: memref<?x4xf32>) -> (index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = memref.dim %m, %c0 : memref<?x4xf32>
  %d1 = memref.dim %m, %c1 : memref<?x4xf32>
  return %d0, %d1 : index, index
}

// Globals: an llvm global array; the descriptor's allocated pointer is 0xdeadbeef.
// CHECK:       llvm.mlir.global internal constant @cst(dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf64>) {{.*}} : !llvm.array<2 x f64>
// CHECK-LABEL: func.func @glob
// CHECK:         %[[G:.*]] = llvm.mlir.addressof @cst : !llvm.ptr
// CHECK:         %[[DEAD:.*]] = llvm.mlir.constant(3735928559) : i64
// CHECK:         llvm.inttoptr %[[DEAD]] : i64 to !llvm.ptr
"memref.global"() <{sym_name = "cst", sym_visibility = "private", type = memref<2xf64>, initial_value = dense<[1.0, 2.0]> : tensor<2xf64>, constant}> : () -> ()
func.func @glob() -> memref<2xf64> {
  %g = memref.get_global @cst : memref<2xf64>
  return %g : memref<2xf64>
}

// CHECK-LABEL: func.func @scalar_buf
// CHECK:         %[[P:.*]] = llvm.alloca %{{.*}} x f32 {alignment = 4 : i64} : (i64) -> !llvm.ptr
// CHECK:         llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr
// CHECK:         llvm.load %{{.*}} : !llvm.ptr -> f32

// CHECK-DAG:   llvm.func @malloc(i64) -> !llvm.ptr
// CHECK-DAG:   llvm.func @free(!llvm.ptr)

// After the full conversion only llvm ops remain.
// FULL-NOT:    builtin.unrealized_conversion_cast
// FULL-NOT:    {{^ *(%[a-z0-9_]+ = )?memref\.}}
// FULL-NOT:    func.
// FULL:        llvm.func @glob() -> !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)>
// FULL-NOT:    builtin.unrealized_conversion_cast
// FULL-NOT:    {{^ *(%[a-z0-9_]+ = )?memref\.}}
// FULL-NOT:    func.
// FULL:        llvm.func @free(!llvm.ptr)
func.func @scalar_buf() -> f32 {
  %s = memref.alloca() : memref<f32>
  %z = arith.constant 1.0 : f32
  memref.store %z, %s[] : memref<f32>
  %v = memref.load %s[] : memref<f32>
  return %v : f32
}
