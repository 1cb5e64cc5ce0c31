// RUN: irt-opt %s -p convert-cf-to-llvm | FileCheck %s
// RUN: irt-opt %s -p convert-cf-to-llvm | irt-opt | FileCheck %s

// The message of cf.assert becomes a global string "file\1Fline\1Fcol\1Fmessage"
// (the runtime turns it into a located RuntimeCheckError).
// CHECK-DAG:   llvm.mlir.global internal constant @__irt_assert_msg_{{[01]}}("{{.*}}cf.mlir\1F{{[0-9]+}}\1F3\1Fx must be positive\00")
// CHECK-DAG:   llvm.mlir.global internal constant @__irt_assert_msg_{{[01]}}("{{.*}}cf.mlir\1F{{[0-9]+}}\1F3\1F'tensor.add' op operand shapes differ\00")

// Branches become llvm branches; arguments of non-entry blocks get their llvm types.
// CHECK-LABEL: func.func @loop
// CHECK:         %[[Z:.*]] = builtin.unrealized_conversion_cast %{{.*}} : index to i64
// CHECK:         llvm.br ^[[HEAD:.*]](%[[Z]], %{{.*}} : i64, f64)
// CHECK:       ^[[HEAD]](%[[I:.*]]: i64, %[[ACC:.*]]: f64):
// CHECK:         %[[II:.*]] = builtin.unrealized_conversion_cast %[[I]] : i64 to index
// CHECK:         llvm.cond_br %{{.*}}, ^[[BODY:.*]], ^[[EXIT:.*]]
// CHECK:       ^[[BODY]]:
// CHECK:         llvm.br ^[[HEAD]](%{{.*}}, %{{.*}} : i64, f64)
// CHECK:       ^[[EXIT]]:
// CHECK:         func.return %[[ACC]] : f64
func.func @loop(%n: index, %x: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.br ^head(%c0, %x : index, f64)
^head(%i: index, %acc: f64):
  %c = arith.cmpi slt, %i, %n : index
  cf.cond_br %c, ^body, ^exit
^body:
  %next = arith.addi %i, %c1 : index
  %y = arith.mulf %acc, %acc : f64
  cf.br ^head(%next, %y : index, f64)
^exit:
  return %acc : f64
}

// A switch is a chain of compares and conditional branches.
// CHECK-LABEL: func.func @switch
// CHECK:         %[[C1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK:         %[[E1:.*]] = llvm.icmp "eq" %flag, %[[C1]] : i32
// CHECK:         llvm.cond_br %[[E1]], ^[[ONE:.*]], ^[[NEXT:.*]]
// CHECK:       ^[[NEXT]]:
// CHECK:         %[[C5:.*]] = llvm.mlir.constant(5 : i32) : i32
// CHECK:         %[[E5:.*]] = llvm.icmp "eq" %flag, %[[C5]] : i32
// CHECK:         llvm.cond_br %[[E5]], ^[[FIVE:.*]](%{{.*}} : f32), ^[[DEFAULT:.*]]
func.func @switch(%flag: i32, %a: f32, %b: f32) -> f32 {
  cf.switch %flag : i32, [
    default: ^default,
    1: ^one,
    5: ^five(%b : f32)
  ]
^default:
  return %a : f32
^one:
  return %b : f32
^five(%v: f32):
  return %v : f32
}

// An assert branches to a cold block calling @__irt_check_failed(message,
// has_values, a, b): no values for a float condition ...
// CHECK-LABEL: func.func @check
// CHECK:         llvm.cond_br %{{.*}}, ^[[OK:.*]], ^[[FAIL:.*]]
// CHECK:       ^[[FAIL]]:
// CHECK:         %[[MSG:.*]] = llvm.mlir.addressof @__irt_assert_msg_{{[01]}} : !llvm.ptr
// CHECK:         %[[ZERO:.*]] = llvm.mlir.constant(0) : i64
// CHECK:         llvm.call @__irt_check_failed(%[[MSG]], %[[ZERO]], %[[ZERO]], %[[ZERO]]) : (!llvm.ptr, i64, i64, i64) -> ()
// CHECK:         llvm.unreachable
// CHECK:       ^[[OK]]:
// CHECK:         func.return
func.func @check(%x: f64) -> f64 {
  %z = arith.constant 0.0 : f64
  %c = arith.cmpf ogt, %x, %z : f64
  cf.assert %c, "x must be positive"
  return %x : f64
}

// ... and the two compared i64 values for an integer comparison.
// CHECK-LABEL: func.func @check_values
// CHECK:         %[[C:.*]] = llvm.icmp "eq" %[[A:.*]], %[[B:[^ ]*]] : i64
// CHECK:         llvm.cond_br %[[C]], ^[[OK:.*]], ^[[FAIL:.*]]
// CHECK:       ^[[FAIL]]:
// CHECK:         %[[ONE:.*]] = llvm.mlir.constant(1) : i64
// CHECK:         llvm.call @__irt_check_failed(%{{.*}}, %[[ONE]], %[[A]], %[[B]])
// CHECK:         llvm.unreachable
func.func @check_values(%a: i64, %b: i64) -> i64 {
  %c = llvm.icmp "eq" %a, %b : i64
  cf.assert %c, "'tensor.add' op operand shapes differ"
  return %a : i64
}
// Outside the JIT a failed check prints its message and aborts, as MLIR's
// lowering of cf.assert (the JIT's add-jit-interface replaces this body).
// CHECK-LABEL: llvm.func internal @__irt_check_failed(%{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64) attributes {passthrough = ["noinline", "cold"]}
// CHECK-NEXT:    llvm.call @puts(
// CHECK-NEXT:    llvm.call @abort()
// CHECK-NEXT:    llvm.unreachable
// CHECK: llvm.func @puts(!llvm.ptr) -> i32
// CHECK: llvm.func @abort() attributes {passthrough = ["noreturn"]}
