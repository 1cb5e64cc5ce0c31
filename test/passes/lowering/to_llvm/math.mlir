// RUN: irt-opt %s -p convert-math-to-llvm | FileCheck %s
// RUN: irt-opt %s -p convert-math-to-llvm | irt-opt | FileCheck %s

// CHECK-LABEL: func.func @intrinsics_f64
// CHECK:         llvm.call_intrinsic "llvm.exp.f64"(%x) : (f64) -> f64
// CHECK:         llvm.call_intrinsic "llvm.log.f64"
// CHECK:         llvm.call_intrinsic "llvm.tanh.f64"
// CHECK:         llvm.call_intrinsic "llvm.sin.f64"
// CHECK:         llvm.call_intrinsic "llvm.cos.f64"
// CHECK:         llvm.call_intrinsic "llvm.sqrt.f64"
// CHECK:         llvm.call_intrinsic "llvm.fabs.f64"
// CHECK:         llvm.call_intrinsic "llvm.pow.f64"(%{{.*}}, %y) : (f64, f64) -> f64
// CHECK:         llvm.call_intrinsic "llvm.exp2.f64"
// CHECK:         llvm.call_intrinsic "llvm.log2.f64"
// CHECK:         llvm.call_intrinsic "llvm.log10.f64"
// CHECK:         llvm.call_intrinsic "llvm.floor.f64"
// CHECK:         llvm.call_intrinsic "llvm.ceil.f64"
// CHECK:         llvm.call_intrinsic "llvm.fma.f64"(%{{.*}}, %{{.*}}, %{{.*}}) : (f64, f64, f64) -> f64
// CHECK:         llvm.call_intrinsic "llvm.atan2.f64"
// CHECK-NOT:     math.
func.func @intrinsics_f64(%x: f64, %y: f64) -> f64 {
  %0 = math.exp %x : f64
  %1 = math.log %0 : f64
  %2 = math.tanh %1 : f64
  %3 = math.sin %2 : f64
  %4 = math.cos %3 : f64
  %5 = math.sqrt %4 : f64
  %6 = math.absf %5 : f64
  %7 = math.powf %6, %y : f64
  %8 = math.exp2 %7 : f64
  %9 = math.log2 %8 : f64
  %10 = math.log10 %9 : f64
  %11 = math.floor %10 : f64
  %12 = math.ceil %11 : f64
  %13 = math.fma %12, %x, %y : f64
  %14 = math.atan2 %13, %y : f64
  return %14 : f64
}

// CHECK-LABEL: func.func @intrinsics_f32
// CHECK:         llvm.call_intrinsic "llvm.exp.f32"(%x) : (f32) -> f32
// CHECK:         %[[R:.*]] = llvm.call_intrinsic "llvm.sqrt.f32"
// CHECK:         %[[ONE:.*]] = llvm.mlir.constant(1.000000e+00 : f32) : f32
// CHECK:         llvm.fdiv %[[ONE]], %[[R]] : f32
func.func @intrinsics_f32(%x: f32) -> f32 {
  %0 = math.exp %x : f32
  %1 = math.rsqrt %0 : f32
  return %1 : f32
}

// Functions LLVM has no intrinsic for call libm (f suffix for f32).
// CHECK-LABEL: func.func @libm
// CHECK:         llvm.call @erf(%x) : (f64) -> f64
// CHECK:         llvm.call @log1pf(%y) : (f32) -> f32
// CHECK:         llvm.call @expm1(%{{.*}}) : (f64) -> f64
func.func @libm(%x: f64, %y: f32) -> (f64, f32) {
  %0 = math.erf %x : f64
  %1 = math.log1p %y : f32
  %2 = math.expm1 %0 : f64
  return %2, %1 : f64, f32
}

// CHECK-LABEL: func.func @integers
// CHECK:         %[[F:.*]] = llvm.mlir.constant(false) : i1
// CHECK:         llvm.call_intrinsic "llvm.abs.i32"(%a, %[[F]]) : (i32, i1) -> i32
// CHECK:         llvm.call_intrinsic "llvm.ctpop.i32"
// CHECK:         llvm.call_intrinsic "llvm.powi.f64.i32"(%x, %{{.*}}) : (f64, i32) -> f64
func.func @integers(%a: i32, %x: f64) -> f64 {
  %0 = math.absi %a : i32
  %1 = math.ctpop %0 : i32
  %2 = math.fpowi %x, %1 : f64, i32
  return %2 : f64
}

// The libm declarations are added once, at the end of the module.
// CHECK-DAG:   llvm.func @erf(f64) -> f64
// CHECK-DAG:   llvm.func @log1pf(f32) -> f32
// CHECK-DAG:   llvm.func @expm1(f64) -> f64
