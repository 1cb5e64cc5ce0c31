// add-jit-interface: what the JIT adds after lower-to-llvm (irtoolkit.runtime runs it).
// RUN: irt-opt %s -p convert-scf-to-loop,lower-loop-to-cf,convert-to-llvm,add-jit-interface | FileCheck %s
// RUN: irt-opt %s -p convert-scf-to-loop,lower-loop-to-cf,convert-to-llvm,add-jit-interface | irt-opt | FileCheck %s
// RUN: irt-opt %s -p convert-scf-to-loop,lower-loop-to-cf,convert-to-llvm,add-jit-interface | FileCheck %s --check-prefix=SHARED

// Functions are moved aside (a user function named like a C library function
// must not catch LLVM's library calls); each public one gets an entry point
// reading its arguments from a frame of 8-byte words and writing its results
// after them: memref descriptor (5 words), index, i1 (one byte), f64, i1, then
// the error words and the stack limit (5).
// CHECK-LABEL: llvm.func @__irt_fn_f(
// CHECK-SAME:    attributes {irt.source_name = "f"}
// CHECK:         llvm.call @__irt_check_failed(
// CHECK:         llvm.call @__irt_malloc(
// CHECK:         llvm.call @__irt_free(
func.func @f(%m: memref<?xf64>, %i: index, %flag: i1) -> (f64, i1) {
  %c = arith.constant 4 : index
  %ok = arith.cmpi ult, %i, %c : index
  cf.assert %ok, "index out of range"
  %t = memref.alloc(%i) : memref<?xf64>
  memref.dealloc %t : memref<?xf64>
  %v = memref.load %m[%i] : memref<?xf64>
  return %v, %flag : f64, i1
}

// A function on a cycle of the call graph checks the stack on entry.
// CHECK-LABEL: llvm.func @__irt_fn_depth(
// CHECK-NEXT:    %[[SP:.*]] = llvm.call_intrinsic "llvm.stacksave.p0"() : () -> !llvm.ptr
// CHECK-NEXT:    %[[A:.*]] = llvm.ptrtoint %[[SP]] : !llvm.ptr to i64
// CHECK-NEXT:    llvm.call @__irt_check_stack(%[[A]])
func.func @depth(%n: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %is0 = arith.cmpi eq, %n, %c0 : i64
  cf.cond_br %is0, ^done, ^more
^more:
  %c1 = arith.constant 1 : i64
  %m = arith.subi %n, %c1 : i64
  %d = func.call @depth(%m) : (i64) -> i64
  %s = arith.muli %d, %d : i64
  return %s : i64
^done:
  return %c0 : i64
}

// A while loop polls the interrupt counter at the end of its latch (a call LLVM
// inlines: @__irt_poll, below); a counted innermost loop does not (it ends by
// itself and stays vectorizable).
// CHECK-LABEL: llvm.func @__irt_fn_loops(
// CHECK:         llvm.call @__irt_poll() : () -> ()
// CHECK-NEXT:    llvm.br ^{{bb[0-9]+}}(%{{.*}} : i64) {irt.latch = "while"}
// CHECK-NOT:     llvm.call @__irt_poll()
// CHECK-LABEL: llvm.func @_setjmp(!llvm.ptr) -> i32 attributes {passthrough = ["returns_twice"]}
func.func @loops(%n: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %w = scf.while (%a = %c0) : (i64) -> i64 {
    %go = arith.cmpi slt, %a, %n : i64
    scf.condition(%go) %a : i64
  } do {
  ^bb0(%b: i64):
    %b1 = arith.addi %b, %c1 : i64
    scf.yield %b1 : i64
  }
  %lb = arith.constant 0 : index
  %ub = arith.constant 100 : index
  %st = arith.constant 1 : index
  %f = scf.for %i = %lb to %ub step %st iter_args(%acc = %w) -> (i64) {
    %acc1 = arith.addi %acc, %c1 : i64
    scf.yield %acc1 : i64
  }
  return %f : i64
}

// The runtime helpers: failures jump back to the entry point. Their code is the
// same in every module: the JIT's shared runtime (irtoolkit/runtime/support.py,
// built once per process) defines them, the module declares those it calls (the
// portable check handler of convert-cf-to-llvm gives way). The poll stays: LLVM
// inlines it.
// CHECK-NEXT:  llvm.func @__irt_enter(!llvm.ptr, !llvm.ptr)
// CHECK-NEXT:  llvm.func @__irt_leave(!llvm.ptr, i1)
// CHECK-NEXT:  llvm.func @__irt_fail(!llvm.ptr, !llvm.ptr) -> i64 attributes {passthrough = ["cold"]}
// CHECK-NEXT:  llvm.func @__irt_malloc(i64) -> !llvm.ptr
// CHECK-NEXT:  llvm.func @__irt_free(!llvm.ptr)
// CHECK-NEXT:  llvm.func @__irt_check_failed(!llvm.ptr, i64, i64, i64) attributes {passthrough = ["noreturn", "cold"]}
// CHECK-NEXT:  llvm.func @__irt_check_stack(i64)
// CHECK-NEXT:  llvm.func @__irt_interrupted() attributes {passthrough = ["cold"]}
// SHARED-NOT:  llvm.func internal @__irt_{{(malloc|free|release|check_failed|check_stack|interrupted|enter|leave|fail)}}(
// SHARED-NOT:  llvm.call @longjmp(
// SHARED-NOT:  @__irt_tls_key
// The poll each loop calls: the test of the counter, inlined; the rest out of line.
// CHECK-LABEL: llvm.func internal @__irt_poll() attributes {passthrough = ["alwaysinline"]}
// CHECK:         %[[N:.*]] = llvm.load %{{.*}} atomic monotonic {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK:         %[[NZ:.*]] = llvm.icmp "ne" %[[N]], %{{.*}} : i64
// CHECK:         llvm.cond_br %[[NZ]], ^[[SLOW:bb[0-9]+]], ^[[DONE:bb[0-9]+]]
// CHECK:       ^[[SLOW]]:
// CHECK-NEXT:    llvm.call @__irt_interrupted()
// CHECK-NEXT:    llvm.br ^[[DONE]]
// CHECK:       llvm.mlir.global external @__irt_interrupts()

// The entry points: the helpers around the call, _setjmp in the entry point's own frame.
// CHECK-LABEL: llvm.func @_irt_call_f(%{{.*}}: !llvm.ptr) -> i64 attributes {passthrough = {{\[}}["irt-tier0", "optnone"]], irt.frame_words = 14 : i64}
// CHECK:         %[[BUF:.*]] = llvm.alloca %{{.*}} x !llvm.array<75 x i64>
// CHECK:         %[[TAIL:.*]] = llvm.getelementptr inbounds %{{.*}}[72] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:    llvm.call @__irt_enter(%[[BUF]], %[[TAIL]])
// CHECK-NEXT:    %[[J:.*]] = llvm.call @_setjmp(%[[BUF]])
// CHECK:         llvm.cond_br %{{.*}}, ^[[FAILED:bb[0-9]+]], ^[[CALL:bb[0-9]+]]
// CHECK:       ^[[FAILED]]:
// CHECK-NEXT:    %[[S:.*]] = llvm.call @__irt_fail(%[[BUF]], %[[TAIL]])
// CHECK-NEXT:    llvm.return %[[S]] : i64
// CHECK:       ^[[CALL]]:
// CHECK:         llvm.call @__irt_fn_f(
// CHECK:         llvm.call @__irt_leave(%[[BUF]], %{{.*}})
// CHECK-LABEL: llvm.func @_irt_call_depth(%{{.*}}: !llvm.ptr) -> i64 attributes {passthrough = {{\[}}["irt-tier0", "optnone"]], irt.frame_words = 7 : i64}
// CHECK-LABEL: llvm.func @_irt_call_loops(
