// RUN: irt-opt %s -p lower-loop-to-cf | FileCheck %s
// RUN: irt-opt %s -p lower-loop-to-cf | irt-opt | FileCheck %s
// RUN: irt-opt %s -p lower-loop-to-cf{parallel=false} | FileCheck %s --check-prefix=SEQ
// RUN: irt-opt %s -p lower-loop-to-cf,convert-to-llvm | FileCheck %s --check-prefix=LLVM
// RUN: irt-opt %s -p lower-loop-to-cf,convert-to-llvm --emit llvm | FileCheck %s --check-prefix=IR
// RUN: irt-opt %s -p lower-loop-to-cf,convert-to-llvm,define-parallel-dispatchers | FileCheck %s --check-prefix=DISPATCH

// Loops that may be split over threads are outlined into a private function over
// [lo, hi); the loop becomes a (sequential) call of it tagged with how each
// iteration value combines and the cost of one iteration.

// CHECK-LABEL: func.func @scale(
// CHECK:         %[[OUT:.*]] = memref.alloc(%[[N:.*]]) : memref<?xf64>
// CHECK-NEXT:    %[[R:.*]] = func.call @__irt_par_scale_0(%{{.*}}, %[[N]], %[[OUT]], %x, %c) {irt.parallel = ["same"], irt.work = 24 : i64} : (index, index, memref<?xf64>, memref<?xf64>, f64) -> memref<?xf64>
// CHECK-NEXT:    func.return %[[R]]
// SEQ-LABEL:   func.func @scale(
// SEQ-NOT:       func.call
// SEQ:           cf.cond_br
// SEQ-NOT:     __irt_par_
func.func @scale(%x: memref<?xf64>, %c: f64) -> memref<?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf64>
  %out = memref.alloc(%n) : memref<?xf64>
  %r = loop.for %i = %c0 to %n step %c1 iter_args(%o = %out) -> (memref<?xf64>) {
    %v = memref.load %x[%i] : memref<?xf64>
    %e = math.exp %v : f64
    %m = arith.mulf %e, %c : f64
    memref.store %m, %o[%i] : memref<?xf64>
    loop.yield %o : memref<?xf64>
  }
  func.return %r : memref<?xf64>
}

// A reassociable float sum combines by addition.
// CHECK-LABEL: func.func @sum(
// CHECK:         %[[Z:.*]] = arith.constant 0.000000e+00 : f64
// CHECK:         func.call @__irt_par_sum_0(%{{.*}}, %{{.*}}, %[[Z]], %x) {irt.parallel = ["sum"], irt.work = 3 : i64}
func.func @sum(%x: memref<?xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %n = memref.dim %x, %c0 : memref<?xf64>
  %r = loop.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> (f64) {
    %v = memref.load %x[%i] : memref<?xf64>
    %s = arith.addf %a, %v fastmath<reassoc> : f64
    loop.yield %s : f64
  }
  func.return %r : f64
}

// Stay sequential: too little static work; a sum without reassoc; a store into an
// argument; a loop-carried read of the written buffer; a run-time check.
// CHECK-LABEL: func.func @small(
// CHECK-NOT:     func.call
// CHECK:         cf.cond_br
// CHECK-LABEL: func.func @ordered(
// CHECK-NOT:     func.call
// CHECK:         cf.cond_br
// CHECK-LABEL: func.func @into_arg(
// CHECK-NOT:     func.call
// CHECK:         cf.cond_br
// CHECK-LABEL: func.func @recurrence(
// CHECK-NOT:     func.call
// CHECK:         cf.cond_br
// CHECK-LABEL: func.func @checked(
// CHECK-NOT:     func.call
// CHECK:         cf.assert
// CHECK-LABEL: func.func @view_alias(
// CHECK-NOT:     func.call
// CHECK:         cf.cond_br
func.func @small(%x: memref<100xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %z = arith.constant 0.0 : f64
  %r = loop.for %i = %c0 to %c100 step %c1 iter_args(%a = %z) -> (f64) {
    %v = memref.load %x[%i] : memref<100xf64>
    %s = arith.addf %a, %v fastmath<reassoc> : f64
    loop.yield %s : f64
  }
  func.return %r : f64
}
func.func @ordered(%x: memref<?xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %n = memref.dim %x, %c0 : memref<?xf64>
  %r = loop.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> (f64) {
    %v = memref.load %x[%i] : memref<?xf64>
    %s = arith.addf %a, %v : f64
    loop.yield %s : f64
  }
  func.return %r : f64
}
func.func @into_arg(%x: memref<?xf64>, %y: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf64>
  loop.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf64>
    memref.store %v, %y[%i] : memref<?xf64>
  }
  func.return
}
func.func @recurrence(%x: memref<?xf64>) -> memref<?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf64>
  %out = memref.alloc(%n) : memref<?xf64>
  loop.for %i = %c1 to %n step %c1 {
    %j = arith.subi %i, %c1 : index
    %p = memref.load %out[%j] : memref<?xf64>
    %v = memref.load %x[%i] : memref<?xf64>
    %s = arith.addf %p, %v : f64
    memref.store %s, %out[%i] : memref<?xf64>
  }
  func.return %out : memref<?xf64>
}
func.func @checked(%x: memref<?xf64>, %m: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %n = memref.dim %x, %c0 : memref<?xf64>
  %r = loop.for %i = %c0 to %m step %c1 iter_args(%a = %z) -> (f64) {
    %ok = arith.cmpi ult, %i, %n : index
    cf.assert %ok, "out of bounds"
    %v = memref.load %x[%i] : memref<?xf64>
    %s = arith.addf %a, %v fastmath<reassoc> : f64
    loop.yield %s : f64
  }
  func.return %r : f64
}

// (reads the written buffer through a view)
func.func @view_alias(%x: memref<?xf64>) -> memref<?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf64>
  %out = memref.alloc(%n) : memref<?xf64>
  %v = "memref.cast"(%out) : (memref<?xf64>) -> memref<?xf64>
  loop.for %i = %c1 to %n step %c1 {
    %j = arith.subi %i, %c1 : index
    %p = memref.load %v[%j] : memref<?xf64>
    memref.store %p, %out[%i] : memref<?xf64>
  }
  func.return %out : memref<?xf64>
}

// A loop outlined the same as another (a gradient recomputes its forward pass)
// calls the other's function, compiled once: here @scale's.
// CHECK-LABEL: func.func @twice(
// CHECK:         func.call @__irt_par_scale_0(%{{.*}}, %{{.*}}, %{{.*}}, %x, %c)
// CHECK:         func.call @__irt_par_scale_0(%{{.*}}, %{{.*}}, %{{.*}}, %y, %c)
// CHECK-NOT:   func.func private @__irt_par_twice
func.func @twice(%x: memref<?xf64>, %y: memref<?xf64>, %c: f64) -> (memref<?xf64>, memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf64>
  %a = memref.alloc(%n) : memref<?xf64>
  %b = memref.alloc(%n) : memref<?xf64>
  %ra = loop.for %i = %c0 to %n step %c1 iter_args(%o = %a) -> (memref<?xf64>) {
    %v = memref.load %x[%i] : memref<?xf64>
    %e = math.exp %v : f64
    %m = arith.mulf %e, %c : f64
    memref.store %m, %o[%i] : memref<?xf64>
    loop.yield %o : memref<?xf64>
  }
  %rb = loop.for %i = %c0 to %n step %c1 iter_args(%o = %b) -> (memref<?xf64>) {
    %v = memref.load %y[%i] : memref<?xf64>
    %e = math.exp %v : f64
    %m = arith.mulf %e, %c : f64
    memref.store %m, %o[%i] : memref<?xf64>
    loop.yield %o : memref<?xf64>
  }
  func.return %ra, %rb : memref<?xf64>, memref<?xf64>
}

// A buffer read and written at the iteration's own slice only (the induction
// variable as the index of one same dim of every access: col2im's read-add-write
// scatter) splits too; its worker's loads and stores are not told apart (below).
// Not when a read is at another dim.
// CHECK-LABEL: func.func @own_slices(
// CHECK:         func.call @__irt_par_own_slices_0({{.*}}) {irt.parallel = [], irt.work =
// CHECK-LABEL: func.func @other_slice(
// CHECK-NOT:     func.call
// CHECK:         cf.cond_br
func.func @own_slices(%x: memref<?x8xf64>) -> memref<?x8xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %n = memref.dim %x, %c0 : memref<?x8xf64>
  %acc = memref.alloc(%n) : memref<?x8xf64>
  loop.for %i = %c0 to %n step %c1 {
    loop.for %j = %c0 to %c8 step %c1 {
      %p = memref.load %acc[%i, %j] : memref<?x8xf64>
      %v = memref.load %x[%i, %j] : memref<?x8xf64>
      %s = arith.addf %p, %v : f64
      memref.store %s, %acc[%i, %j] : memref<?x8xf64>
    }
  }
  func.return %acc : memref<?x8xf64>
}
func.func @other_slice(%x: memref<?x?xf64>) -> memref<?x?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?x?xf64>
  %acc = memref.alloc(%n, %n) : memref<?x?xf64>
  loop.for %i = %c0 to %n step %c1 {
    loop.for %j = %c0 to %n step %c1 {
      %p = memref.load %acc[%j, %i] : memref<?x?xf64>
      %v = memref.load %x[%i, %j] : memref<?x?xf64>
      %s = arith.addf %p, %v : f64
      memref.store %s, %acc[%i, %j] : memref<?x?xf64>
    }
  }
  func.return %acc : memref<?x?xf64>
}

// The outlined functions: the loop over [lo, hi), constants cloned in.
// CHECK-LABEL: func.func private @__irt_par_scale_0(
// CHECK-SAME:      %[[LO:[^:]*]]: index, %[[HI:[^:]*]]: index, %[[O:[^:]*]]: memref<?xf64>, %[[X:[^:]*]]: memref<?xf64>, %[[C:[^:]*]]: f64) -> memref<?xf64>
// CHECK:         cf.br ^{{.*}}(%[[LO]] : index)
// CHECK:         arith.cmpi slt, %{{.*}}, %[[HI]] : index
// CHECK:         memref.load %[[X]]
// CHECK:         math.exp
// CHECK:         arith.mulf %{{.*}}, %[[C]] : f64
// CHECK:         memref.store
// CHECK-LABEL: func.func private @__irt_par_sum_0(
// CHECK:         arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f64
// CHECK:         func.return
// CHECK-LABEL: func.func private @__irt_par_own_slices_0(
// CHECK-NOT:     irt.reads_apart
// CHECK:         func.return

// convert-func-to-llvm: the call goes to a thread dispatcher, declared with what
// the LLVM translation needs to define it.
// LLVM-LABEL:  llvm.func @scale(
// LLVM:          llvm.call @__irt_pfor___irt_par_scale_0(
// LLVM-LABEL:  llvm.func @sum(
// LLVM:          llvm.call @__irt_pfor___irt_par_sum_0(
// LLVM-DAG:    llvm.func @__irt_pfor___irt_par_scale_0({{.*}}) -> {{.*}} attributes {irt.pfor = ["same"], irt.work = 24 : i64, irt.worker = @__irt_par_scale_0}
// LLVM-DAG:    llvm.func @__irt_pfor___irt_par_sum_0(i64, i64, f64, {{.*}}) -> f64 attributes {irt.pfor = ["sum"], irt.work = 3 : i64, irt.worker = @__irt_par_sum_0}

// The dispatcher: its operands to a context, the chunks run by the runtime's
// @__irt_parallel_for (sequential below the threshold or with one thread, else
// pthread workers), the partial sums added in order. An object file (--emit llvm)
// holds a linkonce_odr copy of the runtime function, so that it links alone.
// IR:          c"IRT_NUM_THREADS\00"
// IR-LABEL:    define internal double @{{"?}}__irt_pfor___irt_par_sum_0{{"?}}({{.*}}) #{{[0-9]+}}
// IR:            call i64 @__irt_parallel_for(ptr @__irt_pthunk___irt_par_sum_0, ptr {{.*}}, ptr @__irt_loops_serial, ptr null)
// IR:            fadd double
// IR-NOT:        fadd
// IR:            ret double
// IR-LABEL:    define internal void @{{"?}}__irt_pthunk___irt_par_sum_0{{"?}}(ptr {{.*}}, i64 {{.*}}, i64 {{.*}}, i64 {{.*}}, ptr {{.*}})
// IR:            call double @{{"?}}__irt_par_sum_0{{"?}}(
// IR-LABEL:    define linkonce_odr i64 @__irt_parallel_for(
// IR-DAG:        call i32 @pthread_create(ptr {{.*}}, ptr null, ptr @__irt_parallel_worker, ptr {{.*}})
// IR-DAG:        call i32 @pthread_detach(
// IR-DAG:        call i64 @__irt_num_threads()
// IR:          define linkonce_odr i64 @__irt_num_threads()
// IR:            call ptr @getenv(

// define-parallel-dispatchers (a step of lower-to-llvm): the worker's loads and
// stores in separate alias scopes, the dispatcher and its thunk defined in the
// llvm dialect, the runtime function declared only. The dispatcher and its thunk
// are marked for the JIT's first tier to leave unoptimized; the worker (the loop)
// is not. Without the JIT's runtime the serial flag is absent (a weak reference).
// DISPATCH-LABEL: llvm.func internal @__irt_par_sum_0(
// DISPATCH-SAME:    attributes {passthrough = ["noinline"]}
// DISPATCH:         llvm.load %{{.*}} {alias_scopes = ["irt.reads.__irt_par_sum_0"]}
// DISPATCH-LABEL: llvm.func internal @__irt_par_own_slices_0(
// DISPATCH-NOT:     alias_scopes
// DISPATCH:         llvm.return
// DISPATCH-LABEL: llvm.func internal @__irt_pfor___irt_par_sum_0(
// DISPATCH-SAME:    irt.worker = @__irt_par_sum_0, passthrough = ["noinline", ["irt-tier0", "optnone"]]
// DISPATCH:         llvm.store %{{.*}}, %[[CTX:.*]] : f64, !llvm.ptr
// DISPATCH:         %[[SERIAL:.*]] = llvm.mlir.addressof @__irt_loops_serial
// DISPATCH:         %[[THUNK:.*]] = llvm.mlir.addressof @__irt_pthunk___irt_par_sum_0
// DISPATCH:         %[[M:.*]] = llvm.call @__irt_parallel_for(%[[THUNK]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[SERIAL]], %{{.*}})
// DISPATCH:         llvm.icmp "slt" %{{.*}}, %[[M]] : i64
// DISPATCH:         llvm.fadd %{{.*}}, %{{.*}} : f64
// DISPATCH-NOT:     fastmath
// DISPATCH-DAG:   llvm.mlir.global extern_weak @__irt_loops_serial() {addr_space = 0 : i32} : i64
// DISPATCH-DAG:   llvm.func @__irt_parallel_for(!llvm.ptr, !llvm.ptr, i64, i64, i64, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr) -> i64
// DISPATCH-LABEL: llvm.func internal @__irt_pthunk___irt_par_sum_0(
// DISPATCH-SAME:    passthrough = ["noinline", ["irt-tier0", "optnone"]]
// DISPATCH:         %[[FIRST:.*]] = llvm.icmp "eq" %{{.*}}, %{{.*}} : i64
// DISPATCH:         llvm.select %[[FIRST]], %{{.*}}, %{{.*}} : i1, f64
// DISPATCH:         %[[R:.*]] = llvm.call @__irt_par_sum_0(
// DISPATCH:         llvm.store %[[R]], %{{.*}} : f64, !llvm.ptr
