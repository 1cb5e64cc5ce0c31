// RUN: irt-opt %s -p convert-scf-to-loop,lower-loop-to-cf,convert-to-llvm --split-input-file --verify-diagnostics | FileCheck %s
// RUN: irt-opt %s -p convert-scf-to-loop,lower-loop-to-cf,convert-to-llvm --split-input-file --verify-diagnostics | irt-opt --split-input-file | FileCheck %s

// printf.print_format becomes a call of the runtime's @__irt_print(spec, frame):
// the spec global lists each value's numpy dtype and rank (-1: a scalar), then
// the format; the frame is allocated once, in the entry block (not per
// iteration of the loop around the print), and holds the memref descriptor
// (pointers as addresses) and the scalars in 8-byte words.
// CHECK:       llvm.mlir.global internal constant @__irt_print_spec_0("<f4/2;<f8/-1;|b1/-1\1Fm={} s={} b={}\0A\00")
// CHECK-LABEL: llvm.func @show(
// CHECK-NEXT:    %[[N:.*]] = llvm.mlir.constant(9) : i64
// CHECK-NEXT:    %[[FRAME:.*]] = llvm.alloca %[[N]] x i64 {alignment = 8 : i64}
// CHECK:       ^bb2:
// CHECK:         %[[ALLOC:.*]] = llvm.extractvalue %m[0]
// CHECK-NEXT:    %[[AI:.*]] = llvm.ptrtoint %[[ALLOC]] : !llvm.ptr to i64
// CHECK-NEXT:    %[[W0:.*]] = llvm.getelementptr %[[FRAME]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:    llvm.store %[[AI]], %[[W0]] : i64, !llvm.ptr
// CHECK:         llvm.extractvalue %m[4, 1]
// CHECK:         %[[W7:.*]] = llvm.getelementptr %[[FRAME]][7] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:    %[[F:.*]] = llvm.getelementptr %[[W7]][0] : (!llvm.ptr) -> !llvm.ptr, f64
// CHECK-NEXT:    llvm.store %s, %[[F]] : f64, !llvm.ptr
// CHECK-NEXT:    %[[B:.*]] = llvm.zext %b : i1 to i8
// CHECK:         llvm.store %[[B]]
// CHECK-NEXT:    %[[SPEC:.*]] = llvm.mlir.addressof @__irt_print_spec_0 : !llvm.ptr
// CHECK-NEXT:    llvm.call @__irt_print(%[[SPEC]], %[[FRAME]]) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK:       llvm.func @__irt_print(!llvm.ptr, !llvm.ptr)
func.func @show(%m: memref<2x3xf32>, %s: f64, %b: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    printf.print_format "m={} s={} b={}\n", %m : memref<2x3xf32>, %s : f64, %b : i1
  }
  func.return
}

// -----

func.func @tensor(%t: tensor<2xf64>) {
  // expected-error @+1 {{'printf.print_format' op prints a tensor: bufferize it first ('lower-tensor-to-loop')}}
  printf.print_format "{}", %t : tensor<2xf64>
  func.return
}
