// expand-vector-math (a step of lower-to-llvm): intrinsic calls become calls of
// always-inlined kernels; sin, cos and pow get libm helpers for huge or special
// arguments, with vector variants the loop vectorizer calls instead.
// RUN: irt-opt %s -p convert-to-llvm,expand-vector-math | FileCheck %s
// RUN: irt-opt %s -p convert-to-llvm,expand-vector-math | irt-opt | FileCheck %s
// RUN: irt-opt %s -p convert-to-llvm,expand-vector-math,expand-vector-math | FileCheck %s

// CHECK-LABEL: llvm.func @f(
// CHECK:         llvm.call @__irt_vm_sin_f64(
// CHECK:         llvm.call @__irt_vm_exp_f32(
// CHECK:         llvm.call @__irt_vm_pow_f64(
// CHECK-NOT:     llvm.call_intrinsic
// CHECK:       llvm.func internal @__irt_vm_sin_f64(%{{.*}}: f64) -> f64 attributes {passthrough = ["alwaysinline"]}
// CHECK:         llvm.call @irt_vm_sin_big(
// CHECK:       llvm.func internal @irt_vm_sin_big(%{{.*}}: f64) -> f64 attributes {passthrough = ["noinline", "nounwind", "willreturn", "memory(none)", ["vector-function-abi-variant", "_ZGV_LLVM_N2v_irt_vm_sin_big(irt_vm_sin_big_v2),_ZGV_LLVM_N4v_irt_vm_sin_big(irt_vm_sin_big_v4),_ZGV_LLVM_N8v_irt_vm_sin_big(irt_vm_sin_big_v8),_ZGV_LLVM_N16v_irt_vm_sin_big(irt_vm_sin_big_v16)"]]}
// CHECK:         llvm.call @sin(
// CHECK:       llvm.func internal @__irt_vm_exp_f32(%{{.*}}: f32) -> f32 attributes {passthrough = ["alwaysinline"]}
// CHECK:       llvm.func internal @irt_vm_pow_big(%{{.*}}: f64, %{{.*}}: f64, %{{.*}}: f64) -> f64
// CHECK:         llvm.call @pow(
// The vector variant: libm only when some lane needs it, lane by lane.
// CHECK-LABEL: llvm.func internal @irt_vm_sin_big_v4(%{{.*}}: vector<4xf64>) -> vector<4xf64>
// CHECK:         llvm.call_intrinsic "llvm.vector.reduce.fmaximum.v4f64"
// CHECK:         llvm.call @sin(
// Kept until the vectorizer runs.
// CHECK:       llvm.mlir.global appending @llvm.compiler.used([@irt_vm_sin_big_v2, @irt_vm_sin_big_v4, @irt_vm_sin_big_v8, @irt_vm_sin_big_v16, @irt_vm_pow_big_v2, @irt_vm_pow_big_v4, @irt_vm_pow_big_v8, @irt_vm_pow_big_v16]) {{.*}}section = "llvm.metadata"
func.func @f(%x: f64, %y: f32) -> (f64, f32, f64) {
  %s = math.sin %x : f64
  %e = math.exp %y : f32
  %p = math.powf %x, %x : f64
  return %s, %e, %p : f64, f32, f64
}
