// RUN: irt-opt %s -p convert-to-llvm | FileCheck %s
// RUN: irt-opt %s -p convert-to-llvm | irt-opt | FileCheck %s
// RUN: irt-opt %s -p convert-to-llvm --emit llvm | FileCheck %s --check-prefix=IR

// All parts together, then reconcile-unrealized-casts: only llvm ops remain.
// CHECK-LABEL: llvm.func @poly(
// CHECK-SAME:    %[[X:.*]]: f64, %[[N:.*]]: i64) -> f64
// CHECK-NOT:     unrealized_conversion_cast
// CHECK:         llvm.br ^[[HEAD:.*]](%{{.*}}, %[[X]] : i64, f64)
// CHECK:       ^[[HEAD]](%[[I:.*]]: i64, %[[ACC:.*]]: f64):
// CHECK:         %[[C:.*]] = llvm.icmp "slt" %[[I]], %[[N]] : i64
// CHECK:         llvm.cond_br %[[C]], ^[[BODY:.*]], ^[[EXIT:.*]]
// CHECK:       ^[[BODY]]:
// CHECK:         llvm.call_intrinsic "llvm.tanh.f64"(%[[ACC]]) : (f64) -> f64
// CHECK:         llvm.br ^[[HEAD]]
// CHECK:       ^[[EXIT]]:
// CHECK:         llvm.return %[[ACC]] : f64

// IR-LABEL: define double @{{"?}}poly{{"?}}(double
// IR:         phi i64
// IR:         phi double
// IR:         icmp slt i64
// LLVM IR is emitted after the last steps of lower-to-llvm: tanh as a call of
// its always-inlined vectorizable kernel (expand-vector-math).
// IR:         call {{.*}}double @{{"?}}__irt_vm_tanh_f64{{"?}}(double
// IR:         ret double
// IR:       define internal double @{{"?}}__irt_vm_tanh_f64{{"?}}(double {{.*}}) alwaysinline
func.func @poly(%x: f64, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.br ^head(%c0, %x : index, f64)
^head(%i: index, %acc: f64):
  %c = arith.cmpi slt, %i, %n : index
  cf.cond_br %c, ^body, ^exit
^body:
  %t = math.tanh %acc : f64
  %next = arith.addi %i, %c1 : index
  cf.br ^head(%next, %t : index, f64)
^exit:
  return %acc : f64
}
