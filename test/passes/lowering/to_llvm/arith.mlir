// RUN: irt-opt %s -p convert-arith-to-llvm | FileCheck %s
// RUN: irt-opt %s -p convert-arith-to-llvm | irt-opt | FileCheck %s
// RUN: irt-opt %s -p convert-arith-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts | FileCheck %s --check-prefix=FULL

// Each part alone: index values cross into the llvm ops through unrealized casts.
// CHECK-LABEL: func.func @index_add
// CHECK:         %[[A:.*]] = builtin.unrealized_conversion_cast %a : index to i64
// CHECK:         %[[B:.*]] = builtin.unrealized_conversion_cast %b : index to i64
// CHECK:         %[[S:.*]] = llvm.add %[[A]], %[[B]] : i64
// CHECK:         %[[R:.*]] = builtin.unrealized_conversion_cast %[[S]] : i64 to index
// CHECK:         func.return %[[R]] : index
// FULL-LABEL: llvm.func @index_add(%a: i64, %b: i64) -> i64
// FULL-NEXT:    %[[S:.*]] = llvm.add %a, %b : i64
// FULL-NEXT:    llvm.return %[[S]] : i64
func.func @index_add(%a: index, %b: index) -> index {
  %0 = arith.addi %a, %b : index
  return %0 : index
}

// CHECK-LABEL: func.func @float_ops
// CHECK:         llvm.fadd %x, %y : f64
// CHECK:         llvm.fsub
// CHECK:         llvm.fmul
// CHECK:         llvm.fdiv
// CHECK:         llvm.fneg
// CHECK:         llvm.call_intrinsic "llvm.maximum.f64"({{.*}}) : (f64, f64) -> f64
// CHECK:         llvm.call_intrinsic "llvm.minimum.f64"({{.*}}) : (f64, f64) -> f64
// CHECK:         llvm.call_intrinsic "llvm.maxnum.f64"
// CHECK:         llvm.call_intrinsic "llvm.minnum.f64"
// CHECK-NOT:     arith.
func.func @float_ops(%x: f64, %y: f64) -> f64 {
  %0 = arith.addf %x, %y : f64
  %1 = arith.subf %0, %y : f64
  %2 = arith.mulf %1, %y : f64
  %3 = arith.divf %2, %y : f64
  %4 = arith.negf %3 : f64
  %5 = arith.maximumf %4, %x : f64
  %6 = arith.minimumf %5, %y : f64
  %7 = arith.maxnumf %6, %x : f64
  %8 = arith.minnumf %7, %y : f64
  return %8 : f64
}

// CHECK-LABEL: func.func @int_ops
// CHECK:         llvm.add
// CHECK:         llvm.sub
// CHECK:         llvm.mul
// CHECK:         llvm.sdiv
// CHECK:         llvm.udiv
// CHECK:         llvm.srem
// CHECK:         llvm.urem
// CHECK:         llvm.and
// CHECK:         llvm.or
// CHECK:         llvm.xor
// CHECK:         llvm.shl
// CHECK:         llvm.ashr
// CHECK:         llvm.lshr
// CHECK:         %[[C:.*]] = llvm.icmp "sgt" %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    llvm.select %[[C]], %{{.*}}, %{{.*}} : i1, i32
// CHECK:         llvm.icmp "ult"
// CHECK:         llvm.select
func.func @int_ops(%a: i32, %b: i32) -> i32 {
  %0 = arith.addi %a, %b : i32
  %1 = arith.subi %0, %b : i32
  %2 = arith.muli %1, %b : i32
  %3 = arith.divsi %2, %b : i32
  %4 = arith.divui %3, %b : i32
  %5 = arith.remsi %4, %b : i32
  %6 = arith.remui %5, %b : i32
  %7 = arith.andi %6, %b : i32
  %8 = arith.ori %7, %b : i32
  %9 = arith.xori %8, %b : i32
  %10 = arith.shli %9, %b : i32
  %11 = arith.shrsi %10, %b : i32
  %12 = arith.shrui %11, %b : i32
  %13 = arith.maxsi %12, %a : i32
  %14 = arith.minui %13, %a : i32
  return %14 : i32
}

// floordivsi: sdiv, then subtract one when the remainder and divisor differ in sign.
// CHECK-LABEL: func.func @floordiv
// CHECK:         %[[Q:.*]] = llvm.sdiv %a, %b : i64
// CHECK:         %[[R:.*]] = llvm.srem %a, %b : i64
// CHECK:         llvm.xor
// CHECK:         %[[QM1:.*]] = llvm.sub %[[Q]], %{{.*}} : i64
// CHECK:         llvm.select %{{.*}}, %[[QM1]], %[[Q]] : i1, i64
func.func @floordiv(%a: i64, %b: i64) -> i64 {
  %0 = arith.floordivsi %a, %b : i64
  return %0 : i64
}

// Division by a divisor that may be zero, and signed division of the minimum by
// -1, branch to a run-time check (RuntimeCheckError at the op) before dividing.
// CHECK-LABEL: func.func @checked_divsi
// CHECK:         %[[Z:.*]] = llvm.icmp "eq" %b, %{{.*}} : i64
// CHECK:         %[[NZ:.*]] = llvm.xor %[[Z]], %{{.*}} : i1
// CHECK:         llvm.cond_br %[[NZ]], ^[[OK:.*]], ^[[FAIL:[^ ]*]]
// CHECK:       ^[[FAIL]]:
// CHECK:         llvm.mlir.addressof @[[MSG:[^ ]*]]
// CHECK:         llvm.call @__irt_check_failed
// CHECK:       ^[[OK]]:
// CHECK:         %[[MIN:.*]] = llvm.mlir.constant(-9223372036854775808) : i64
// CHECK:         llvm.icmp "eq" %a, %[[MIN]] : i64
// CHECK:         llvm.cond_br
// CHECK:         llvm.call @__irt_check_failed
// CHECK:         llvm.sdiv %a, %b : i64
func.func @checked_divsi(%a: i64, %b: i64) -> i64 {
  %0 = arith.divsi %a, %b : i64
  return %0 : i64
}

// A constant divisor other than 0 and -1 needs no check; remsi by an unknown
// divisor replaces -1 by 1 (min % -1 would trap; the remainder is 0 either way).
// CHECK-LABEL: func.func @constant_divisor
// CHECK-NOT:     __irt_check_failed
// CHECK:         llvm.sdiv %a, %{{.*}} : i64
// CHECK-NOT:     __irt_check_failed
// CHECK:         llvm.udiv %a, %{{.*}} : i64
// CHECK:         func.return
func.func @constant_divisor(%a: i64) -> i64 {
  %c7 = arith.constant 7 : i64
  %0 = arith.divsi %a, %c7 : i64
  %1 = arith.divui %a, %c7 : i64
  %2 = arith.addi %0, %1 : i64
  return %2 : i64
}

// CHECK-LABEL: func.func @remsi_minus_one
// CHECK:         llvm.call @__irt_check_failed
// CHECK:         %[[M1:.*]] = llvm.icmp "eq" %b, %{{.*}} : i64
// CHECK:         %[[B:.*]] = llvm.select %[[M1]], %{{.*}}, %b : i1, i64
// CHECK:         llvm.srem %a, %[[B]] : i64
func.func @remsi_minus_one(%a: i64, %b: i64) -> i64 {
  %0 = arith.remsi %a, %b : i64
  return %0 : i64
}

// Vectors: a zero in any lane fails the check.
// CHECK-LABEL: func.func @vector_div
// CHECK:         llvm.icmp "eq" %{{.*}}, %{{.*}} : vector<4xi32>
// CHECK:         llvm.call_intrinsic "llvm.vector.reduce.or.v4i1"
// CHECK:         llvm.call @__irt_check_failed
// CHECK:         llvm.udiv %{{.*}}, %{{.*}} : vector<4xi32>
func.func @vector_div(%a: vector<4xi32>, %b: vector<4xi32>) -> vector<4xi32> {
  %0 = arith.divui %a, %b : vector<4xi32>
  return %0 : vector<4xi32>
}

// Shifts by the width or more: shl/lshr select 0, ashr clamps the amount to
// width - 1 (the sign); a constant amount in range is a bare shift.
// CHECK-LABEL: func.func @shifts
// CHECK:         %[[SHL:.*]] = llvm.shl %a, %b : i32
// CHECK:         %[[IN:.*]] = llvm.icmp "ult" %b, %{{.*}} : i32
// CHECK:         llvm.select %[[IN]], %[[SHL]], %{{.*}} : i1, i32
// CHECK:         %[[BIG:.*]] = llvm.icmp "ugt" %b, %{{.*}} : i32
// CHECK:         %[[AMT:.*]] = llvm.select %[[BIG]], %{{.*}}, %b : i1, i32
// CHECK:         llvm.ashr %{{.*}}, %[[AMT]] : i32
// CHECK:         llvm.lshr
// CHECK:         llvm.select
// CHECK:         llvm.shl %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    func.return
func.func @shifts(%a: i32, %b: i32) -> i32 {
  %0 = arith.shli %a, %b : i32
  %1 = arith.shrsi %0, %b : i32
  %2 = arith.shrui %1, %b : i32
  %c3 = arith.constant 3 : i32
  %3 = arith.shli %2, %c3 : i32
  return %3 : i32
}

// Every predicate maps to the llvm one of the same name.
// CHECK-LABEL: func.func @compares
// CHECK:         llvm.fcmp "oeq"
// CHECK:         llvm.fcmp "one"
// CHECK:         llvm.fcmp "olt"
// CHECK:         llvm.fcmp "ole"
// CHECK:         llvm.fcmp "ogt"
// CHECK:         llvm.fcmp "oge"
// CHECK:         llvm.fcmp "une"
// CHECK:         llvm.fcmp "ult"
// CHECK:         llvm.fcmp "uno"
// CHECK:         llvm.fcmp "ord"
// CHECK:         llvm.mlir.constant(true) : i1
// CHECK:         llvm.mlir.constant(false) : i1
// CHECK:         llvm.icmp "eq"
// CHECK:         llvm.icmp "ne"
// CHECK:         llvm.icmp "slt"
// CHECK:         llvm.icmp "sle"
// CHECK:         llvm.icmp "sgt"
// CHECK:         llvm.icmp "sge"
// CHECK:         llvm.icmp "ult"
// CHECK:         llvm.icmp "ule"
// CHECK:         llvm.icmp "ugt"
// CHECK:         llvm.icmp "uge"
func.func @compares(%x: f32, %y: f32, %a: index, %b: index) {
  %0 = arith.cmpf oeq, %x, %y : f32
  %1 = arith.cmpf one, %x, %y : f32
  %2 = arith.cmpf olt, %x, %y : f32
  %3 = arith.cmpf ole, %x, %y : f32
  %4 = arith.cmpf ogt, %x, %y : f32
  %5 = arith.cmpf oge, %x, %y : f32
  %6 = arith.cmpf une, %x, %y : f32
  %7 = arith.cmpf ult, %x, %y : f32
  %8 = arith.cmpf uno, %x, %y : f32
  %9 = arith.cmpf ord, %x, %y : f32
  %10 = arith.cmpf true, %x, %y : f32
  %11 = arith.cmpf false, %x, %y : f32
  %12 = arith.cmpi eq, %a, %b : index
  %13 = arith.cmpi ne, %a, %b : index
  %14 = arith.cmpi slt, %a, %b : index
  %15 = arith.cmpi sle, %a, %b : index
  %16 = arith.cmpi sgt, %a, %b : index
  %17 = arith.cmpi sge, %a, %b : index
  %18 = arith.cmpi ult, %a, %b : index
  %19 = arith.cmpi ule, %a, %b : index
  %20 = arith.cmpi ugt, %a, %b : index
  %21 = arith.cmpi uge, %a, %b : index
  return
}

// Float to integer conversions truncate toward zero and saturate.
// CHECK-LABEL: func.func @casts
// CHECK:         llvm.sitofp %{{.*}} : i64 to f64
// CHECK:         llvm.call_intrinsic "llvm.fptosi.sat.i32.f64"(%{{.*}}) : (f64) -> i32
// CHECK:         llvm.call_intrinsic "llvm.fptoui.sat.i64.f32"
// CHECK:         llvm.fpext %{{.*}} : f32 to f64
// CHECK:         llvm.fptrunc %{{.*}} : f64 to f32
// CHECK:         llvm.sext %{{.*}} : i32 to i64
// CHECK:         llvm.zext %{{.*}} : i32 to i64
// CHECK:         llvm.trunc %{{.*}} : i64 to i32
// CHECK:         llvm.select
// CHECK:         llvm.bitcast %{{.*}} : f64 to i64
func.func @casts(%i: i64, %f: f64, %g: f32, %n: i32, %u: i64) {
  %0 = arith.sitofp %i : i64 to f64
  %1 = arith.fptosi %f : f64 to i32
  %2 = arith.fptoui %g : f32 to i64
  %3 = arith.extf %g : f32 to f64
  %4 = arith.truncf %f : f64 to f32
  %5 = arith.extsi %n : i32 to i64
  %6 = arith.extui %n : i32 to i64
  %7 = arith.trunci %i : i64 to i32
  %8 = arith.uitofp %u : i64 to f64
  %9 = arith.bitcast %f : f64 to i64
  return
}

// index_cast is a no-op between index and i64, an extension or truncation otherwise.
// FULL-LABEL: llvm.func @index_casts(
// FULL-SAME:     %[[A:[a-z0-9_]+]]: i64, %[[B:[a-z0-9_]+]]: i32) -> i64
// FULL-NEXT:    %[[E:.*]] = llvm.sext %[[B]] : i32 to i64
// FULL-NEXT:    %[[S:.*]] = llvm.add %[[A]], %[[E]] : i64
// FULL-NEXT:    llvm.return %[[S]] : i64
func.func @index_casts(%a: i64, %b: i32) -> i64 {
  %0 = arith.index_cast %a : i64 to index
  %1 = arith.index_cast %b : i32 to index
  %2 = arith.addi %0, %1 : index
  %3 = arith.index_cast %2 : index to i64
  return %3 : i64
}

// CHECK-LABEL: func.func @constants
// CHECK:         llvm.mlir.constant(1.500000e+00 : f32) : f32
// CHECK:         llvm.mlir.constant(7) : i64
// CHECK:         llvm.mlir.constant(true) : i1
// CHECK:         llvm.mlir.constant(dense<2.000000e+00> : vector<4xf32>) : vector<4xf32>
func.func @constants() -> (f32, index, i1, vector<4xf32>) {
  %0 = arith.constant 1.5 : f32
  %1 = arith.constant 7 : index
  %2 = arith.constant true
  %3 = arith.constant dense<2.0> : vector<4xf32>
  return %0, %1, %2, %3 : f32, index, i1, vector<4xf32>
}
