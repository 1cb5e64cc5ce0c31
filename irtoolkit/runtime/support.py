"""The runtime functions that compiled code shares, compiled once per process.

What every dispatcher of a parallel loop or split gemm does the same way -- the
thread count, the chunks, ``pthread_create``, the chunk counter, the wait for the
chunks the workers took -- is one function, ``abi.PARALLEL_FOR_SYMBOL`` (its contract: the module doc of
``passes/lowering/to_llvm/parallel.py``), written here as LLVM IR: it calls the
loop's thunk through a pointer, which the llvm dialect the passes build has no
op for. So are the functions behind an entry point's jmp_buf,
``abi.CALL_HELPER_SYMBOLS`` (their contract: the module doc of
``passes/lowering/to_llvm/jit_interface.py``): their code is the same in every
module, which only declares them (about 170 ops and 40 % of ``add-jit-interface``'s
time a module were theirs). A module's code refers to them by name:

* the JIT compiles this text once per process (``irtoolkit.preload`` or the
  first executable that needs it: ``symbols.register``), or loads its object
  from the disk cache, into an MCJIT engine of its own and binds the name to
  it, for code just compiled and code from the disk cache alike;
* an object file (``translate.llvm_ir``) links in a copy of it, ``linkonce_odr``
  (``link_runtime``; the piece it calls only: the call helpers need the JIT's
  thread key and interrupt count): the object links alone, and several such
  objects into one program keep one copy.

Per loop (and chunk order) nothing changes: chunks and their combination are as
before, so results are bit-identical for a given thread count.
"""

from __future__ import annotations

import threading

from irtoolkit.abi import (
    CALL_HELPER_SYMBOLS, CHECK_FAILED_SYMBOL, CHECK_STACK_SYMBOL, COUNT_AT, ENTER_SYMBOL, ERROR_WORDS,
    ERRORS_AT, FAIL_SYMBOL, FAILED_ALLOCATION, FAILED_CHECK, GUARDED_MALLOC_SYMBOL, INTERRUPTED,
    INTERRUPTED_SYMBOL, INTERRUPTS_SYMBOL, LEAVE_SYMBOL, LIMIT_AT, MAX_CHUNKS, MAX_THREADS, MUTEX_BYTES,
    PARALLEL_FOR_SYMBOL, PREVIOUS_AT, STACK_EXHAUSTED, STACK_LIMIT_WORD, STATUS_AT, THREADS_ENV_VAR,
    TLS_KEY_SYMBOL, TRACK_AT, TRACKED_FREE_SYMBOL,
)
from irtoolkit.diagnostics import Diagnostic, DiagnosticError

_SC_NPROCESSORS_ONLN = 84  # glibc, Linux

# {public}: the linkage of __irt_parallel_for, {private}: its helpers' (and the
# cached CPU count's); the shared context of the threads, in i64 words: the mutex
# (MUTEX_BYTES) and the condition (COND_BYTES, both zeroed = initialized), then
# counter, chunks, size, lb, ub, thunk, ctx, results, result size, chunks done,
# references. It is malloc'ed: the workers are detached, and the last of the
# calling thread and the workers to let go of it frees it (``_SHARED_FIELDS``)
_PARALLEL_TEXT = """\
@__irt_env_num_threads = private unnamed_addr constant [{env_len} x i8] c"{env}\\00"
@__irt_ncpu = {private}global i64 0, align 8

declare ptr @getenv(ptr)
declare i64 @atol(ptr)
declare i64 @sysconf(i32)
declare ptr @malloc(i64)
declare void @free(ptr)
declare i32 @pthread_mutex_lock(ptr)
declare i32 @pthread_mutex_unlock(ptr)
declare i32 @pthread_cond_wait(ptr, ptr)
declare i32 @pthread_cond_broadcast(ptr)
declare i32 @pthread_create(ptr, ptr, ptr, ptr)
declare i32 @pthread_detach(i64)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

; IRT_NUM_THREADS if set (at least 1), else the online CPUs (sysconf, cached); at most MAX_THREADS
define {private}i64 @__irt_num_threads() {{
entry:
  %p = call ptr @getenv(ptr @__irt_env_num_threads)
  %unset = icmp eq ptr %p, null
  br i1 %unset, label %cpus, label %env
env:
  %e = call i64 @atol(ptr %p)
  br label %done
cpus:
  %cached = load atomic i64, ptr @__irt_ncpu monotonic, align 8
  %known = icmp sgt i64 %cached, 0
  br i1 %known, label %done, label %ask
ask:
  %v = call i64 @sysconf(i32 {sc})
  %none = icmp slt i64 %v, 1
  %v1 = select i1 %none, i64 1, i64 %v
  store atomic i64 %v1, ptr @__irt_ncpu monotonic, align 8
  br label %done
done:
  %t = phi i64 [ %e, %env ], [ %cached, %cpus ], [ %v1, %ask ]
  %low = icmp slt i64 %t, 1
  %t1 = select i1 %low, i64 1, i64 %t
  %high = icmp sgt i64 %t1, {max_threads}
  %t2 = select i1 %high, i64 {max_threads}, i64 %t1
  ret i64 %t2
}}

; "while (k = counter++) < chunks: thunk(ctx, k, chunk k, results + k * size); done++"
; (the one that makes done reach chunks wakes the calling thread)
define {private}void @__irt_parallel_chunks(ptr %s) noinline {{
entry:
{fields_s}
  %cond = getelementptr inbounds i8, ptr %s, i64 {mutex_bytes}
  br label %next
next:
  %k = atomicrmw add ptr %counter, i64 1 monotonic, align 8
  %chunks = load i64, ptr %chunksp, align 8
  %more = icmp slt i64 %k, %chunks
  br i1 %more, label %chunk, label %done
chunk:
  %size = load i64, ptr %sizep, align 8
  %lb = load i64, ptr %lbp, align 8
  %ub = load i64, ptr %ubp, align 8
  %from = mul i64 %k, %size
  %lo0 = add i64 %lb, %from
  %lo_out = icmp sgt i64 %lo0, %ub
  %lo = select i1 %lo_out, i64 %ub, i64 %lo0
  %hi0 = add i64 %lo, %size
  %hi_out = icmp sgt i64 %hi0, %ub
  %hi = select i1 %hi_out, i64 %ub, i64 %hi0
  %thunk = load ptr, ptr %thunkp, align 8
  %ctx = load ptr, ptr %ctxp, align 8
  %results = load ptr, ptr %resultsp, align 8
  %rsize = load i64, ptr %rsizep, align 8
  %at = mul i64 %k, %rsize
  %slot = getelementptr i8, ptr %results, i64 %at
  call void %thunk(ptr %ctx, i64 %k, i64 %lo, i64 %hi, ptr %slot)
  %d = atomicrmw add ptr %donep, i64 1 acq_rel, align 8
  %d1 = add i64 %d, 1
  %last = icmp eq i64 %d1, %chunks
  br i1 %last, label %wake, label %next
wake:
  call i32 @pthread_mutex_lock(ptr %s)
  call i32 @pthread_cond_broadcast(ptr %cond)
  call i32 @pthread_mutex_unlock(ptr %s)
  br label %next
done:
  ret void
}}

; the calling thread or a worker lets go of the context: the last one frees it
define {private}void @__irt_parallel_release(ptr %s) noinline {{
entry:
{fields_s}
  %r = atomicrmw sub ptr %refsp, i64 1 acq_rel, align 8
  %last = icmp eq i64 %r, 1
  br i1 %last, label %free, label %done
free:
  call void @free(ptr %s)
  br label %done
done:
  ret void
}}

; what a thread runs: chunks while there are any, then it lets go (a worker the
; system runs late finds none left, and nobody waits for it)
define {private}ptr @__irt_parallel_worker(ptr %s) noinline {{
entry:
  call void @__irt_parallel_chunks(ptr %s)
  call void @__irt_parallel_release(ptr %s)
  ret ptr null
}}

define {public}i64 @{parallel_for}(ptr %thunk, ptr %ctx, i64 %lb, i64 %ub, i64 %need, i64 %per, ptr %results, i64 %rsize, ptr %serial, ptr %gate) noinline {{
entry:
  %stack = alloca [{shared_words} x i64], align 16
  %tid = alloca i64, align 8
  %n = sub i64 %ub, %lb
  %big = icmp sge i64 %n, %need
  br i1 %big, label %count, label %one
count:
  %t0 = call i64 @__irt_num_threads()
  %several = icmp sgt i64 %t0, 1
  br i1 %several, label %gated, label %one
gated:
  %ungated = icmp eq ptr %gate, null
  br i1 %ungated, label %split, label %ask_gate
ask_gate:
  %g = load atomic i64, ptr %gate monotonic, align 8
  %open = icmp ne i64 %g, 0
  br i1 %open, label %split, label %one
one:
  call void %thunk(ptr %ctx, i64 0, i64 %lb, i64 %ub, ptr %results)
  ret i64 1
split:
  %m0 = sdiv i64 %n, %per
  %few = icmp slt i64 %m0, 2
  %m1 = select i1 %few, i64 2, i64 %m0
  %many = icmp sgt i64 %m1, {max_chunks}
  %m2 = select i1 %many, i64 {max_chunks}, i64 %m1
  %past = icmp sgt i64 %m2, %n
  %m = select i1 %past, i64 %n, i64 %m2
  %m_1 = sub i64 %m, 1
  %n_up = add i64 %n, %m_1
  %size = sdiv i64 %n_up, %m
  %idle = icmp sgt i64 %t0, %m
  %t1 = select i1 %idle, i64 %m, i64 %t0
  %no_serial = icmp eq ptr %serial, null
  br i1 %no_serial, label %start, label %ask_serial
ask_serial:
  %sv = load atomic i64, ptr %serial monotonic, align 8
  %on = icmp ne i64 %sv, 0
  %t2 = select i1 %on, i64 1, i64 %t1
  br label %start
start:
  %t = phi i64 [ %t1, %split ], [ %t2, %ask_serial ]
  %threads = icmp sgt i64 %t, 1
  br i1 %threads, label %allocate, label %fill
allocate:
  %heap = call ptr @malloc(i64 {shared_bytes})
  br label %fill
fill:
  ; the context on the heap when threads share it (on the stack without threads,
  ; or memory, to share it with)
  %h = phi ptr [ null, %start ], [ %heap, %allocate ]
  %shared_heap = icmp ne ptr %h, null
  %shared = select i1 %shared_heap, ptr %h, ptr %stack
  %ts = select i1 %shared_heap, i64 %t, i64 1
  call void @llvm.memset.p0.i64(ptr align 16 %shared, i8 0, i64 {header_bytes}, i1 false)
{fields_shared}
  br label %spawn_head
spawn_head:
  %j = phi i64 [ 1, %fill ], [ %j1, %spawned ]
  %to_spawn = icmp slt i64 %j, %ts
  br i1 %to_spawn, label %spawn, label %work
spawn:
  %rc = call i32 @pthread_create(ptr %tid, ptr null, ptr @__irt_parallel_worker, ptr %shared)
  %ok = icmp eq i32 %rc, 0
  br i1 %ok, label %detach, label %not_started
detach:
  %tidv = load i64, ptr %tid, align 8
  call i32 @pthread_detach(i64 %tidv)
  br label %spawned
not_started:
  ; (its chunks are this thread's)
  atomicrmw sub ptr %refsp, i64 1 acq_rel, align 8
  br label %spawned
spawned:
  %j1 = add i64 %j, 1
  br label %spawn_head
work:
  ; this thread takes chunks too (all of them if no thread started), then waits
  ; for the chunks the workers took only, not for workers yet to run
  call void @__irt_parallel_chunks(ptr %shared)
  br i1 %shared_heap, label %wait, label %done
wait:
  %cond = getelementptr inbounds i8, ptr %shared, i64 {mutex_bytes}
  call i32 @pthread_mutex_lock(ptr %shared)
  br label %wait_head
wait_head:
  %dn = load atomic i64, ptr %donep acquire, align 8
  %pending = icmp slt i64 %dn, %m
  br i1 %pending, label %sleep, label %woken
sleep:
  call i32 @pthread_cond_wait(ptr %cond, ptr %shared)
  br label %wait_head
woken:
  call i32 @pthread_mutex_unlock(ptr %shared)
  call void @__irt_parallel_release(ptr %shared)
  br label %done
done:
  ret i64 %m
}}
"""


# The call helpers ({public}/{private} as above). The call's buffer is the thread's
# (pthread_getspecific of the key at @{tls_key} minus one), null outside a call (a
# worker thread, a C caller). Every failure stores its status and the error words
# in it and longjmps to the entry point's _setjmp (@__irt_jump_back); outside a
# call a failed allocation or check aborts instead.
_CALLS_TEXT = """\
@{tls_key} = external global i8
@{interrupts} = external global i64

declare ptr @pthread_getspecific(i32)
declare i32 @pthread_setspecific(i32, ptr)
declare void @longjmp(ptr, i32) noreturn
declare void @abort() noreturn
declare i32 @puts(ptr)
declare ptr @malloc(i64)
declare ptr @realloc(ptr, i64)
declare void @free(ptr)

define {private}i32 @__irt_key() alwaysinline {{
  %a = ptrtoint ptr @{tls_key} to i64
  %t = trunc i64 %a to i32
  %k = sub i32 %t, 1
  ret i32 %k
}}

define {private}ptr @__irt_buffer() alwaysinline {{
  %k = call i32 @__irt_key()
  %buf = call ptr @pthread_getspecific(i32 %k)
  ret ptr %buf
}}

define {private}void @__irt_jump_back(ptr %buf, i64 %status, i64 %d0, i64 %d1, i64 %d2, i64 %d3) noinline noreturn cold {{
  %sp = getelementptr inbounds i64, ptr %buf, i64 {status_at}
  store i64 %status, ptr %sp, align 8
  %p0 = getelementptr inbounds i64, ptr %buf, i64 {errors_at}
  store i64 %d0, ptr %p0, align 8
  %p1 = getelementptr inbounds i64, ptr %p0, i64 1
  store i64 %d1, ptr %p1, align 8
  %p2 = getelementptr inbounds i64, ptr %p0, i64 2
  store i64 %d2, ptr %p2, align 8
  %p3 = getelementptr inbounds i64, ptr %p0, i64 3
  store i64 %d3, ptr %p3, align 8
  call void @longjmp(ptr %buf, i32 1)
  unreachable
}}

; jumps back if the interrupt count moved since the call began
define {private}void @__irt_jump_back_if_interrupted(ptr %buf) alwaysinline {{
entry:
  %now = load atomic i64, ptr @{interrupts} monotonic, align 8
  %thenp = getelementptr inbounds i64, ptr %buf, i64 {count_at}
  %then = load i64, ptr %thenp, align 8
  %moved = icmp ne i64 %now, %then
  br i1 %moved, label %jump, label %same
jump:
  call void @__irt_jump_back(ptr %buf, i64 {interrupted_status}, i64 0, i64 0, i64 0, i64 0)
  unreachable
same:
  ret void
}}

; malloc, or a jump back (FAILED_ALLOCATION, the size): a null result for a
; non-zero size, a negative size; the buffer joins the call's list (grown by realloc)
define {public}ptr @{malloc}(i64 %n) {{
entry:
  %p = call ptr @malloc(i64 %n)
  %buf = call ptr @__irt_buffer()
  %neg = icmp slt i64 %n, 0
  %null = icmp eq ptr %p, null
  %some = icmp ne i64 %n, 0
  %none = and i1 %null, %some
  %bad = or i1 %neg, %none
  br i1 %bad, label %fail, label %ok
fail:
  %outside = icmp eq ptr %buf, null
  br i1 %outside, label %abort, label %jump
abort:
  call void @abort()
  unreachable
jump:
  call void @__irt_jump_back(ptr %buf, i64 {failed_allocation}, i64 %n, i64 0, i64 0, i64 0)
  unreachable
ok:
  %unlisted = icmp eq ptr %buf, null
  br i1 %unlisted, label %done, label %listed
listed:
  %arrp = getelementptr inbounds i64, ptr %buf, i64 {track_at}
  %countp = getelementptr inbounds i64, ptr %arrp, i64 1
  %capp = getelementptr inbounds i64, ptr %arrp, i64 2
  %count = load i64, ptr %countp, align 8
  %cap = load i64, ptr %capp, align 8
  %full = icmp sge i64 %count, %cap
  br i1 %full, label %grow, label %store
grow:
  %small = icmp slt i64 %cap, 16
  %twice = mul i64 %cap, 2
  %newcap = select i1 %small, i64 16, i64 %twice
  %old = load ptr, ptr %arrp, align 8
  %bytes = mul i64 %newcap, 8
  %grown = call ptr @realloc(ptr %old, i64 %bytes)
  %lost = icmp eq ptr %grown, null
  br i1 %lost, label %unlist, label %kept
unlist:
  call void @free(ptr %p)
  call void @__irt_jump_back(ptr %buf, i64 {failed_allocation}, i64 %n, i64 0, i64 0, i64 0)
  unreachable
kept:
  store ptr %grown, ptr %arrp, align 8
  store i64 %newcap, ptr %capp, align 8
  br label %store
store:
  %arr = load ptr, ptr %arrp, align 8
  %slot = getelementptr inbounds ptr, ptr %arr, i64 %count
  store ptr %p, ptr %slot, align 8
  %count1 = add i64 %count, 1
  store i64 %count1, ptr %countp, align 8
  br label %done
done:
  ret ptr %p
}}

; drops p from the call's list (searched from the end: buffers die young), then frees it
define {public}void @{free}(ptr %p) {{
entry:
  %buf = call ptr @__irt_buffer()
  %unlisted = icmp eq ptr %buf, null
  br i1 %unlisted, label %done, label %search
search:
  %arrp = getelementptr inbounds i64, ptr %buf, i64 {track_at}
  %countp = getelementptr inbounds i64, ptr %arrp, i64 1
  %arr = load ptr, ptr %arrp, align 8
  %count = load i64, ptr %countp, align 8
  br label %loop
loop:
  %i = phi i64 [ %count, %search ], [ %j, %body ]
  %more = icmp sgt i64 %i, 0
  br i1 %more, label %body, label %done
body:
  %j = sub i64 %i, 1
  %slot = getelementptr inbounds ptr, ptr %arr, i64 %j
  %q = load ptr, ptr %slot, align 8
  %hit = icmp eq ptr %q, %p
  br i1 %hit, label %found, label %loop
found:
  %last = sub i64 %count, 1
  %lastp = getelementptr inbounds ptr, ptr %arr, i64 %last
  %moved = load ptr, ptr %lastp, align 8
  store ptr %moved, ptr %slot, align 8
  store i64 %last, ptr %countp, align 8
  br label %done
done:
  call void @free(ptr %p)
  ret void
}}

; frees the call's list, and with %all every buffer still in it (after a failure)
define {private}void @__irt_release(ptr %buf, i1 %all) {{
entry:
  %arrp = getelementptr inbounds i64, ptr %buf, i64 {track_at}
  %countp = getelementptr inbounds i64, ptr %arrp, i64 1
  %arr = load ptr, ptr %arrp, align 8
  %count = load i64, ptr %countp, align 8
  br i1 %all, label %loop, label %done
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %body ]
  %more = icmp slt i64 %i, %count
  br i1 %more, label %body, label %done
body:
  %slot = getelementptr inbounds ptr, ptr %arr, i64 %i
  %q = load ptr, ptr %slot, align 8
  call void @free(ptr %q)
  %i1 = add i64 %i, 1
  br label %loop
done:
  call void @free(ptr %arr)
  ret void
}}

; a failed cf.assert: a jump back (FAILED_CHECK, the message, the flag, the values);
; outside a call, the message printed and abort
define {public}void @{check_failed}(ptr %msg, i64 %flag, i64 %a, i64 %b) noinline noreturn cold {{
entry:
  %buf = call ptr @__irt_buffer()
  %outside = icmp eq ptr %buf, null
  br i1 %outside, label %abort, label %jump
abort:
  call i32 @puts(ptr %msg)
  call void @abort()
  unreachable
jump:
  %m = ptrtoint ptr %msg to i64
  call void @__irt_jump_back(ptr %buf, i64 {failed_check}, i64 %m, i64 %flag, i64 %a, i64 %b)
  unreachable
}}

; on entry to a recursive function: a jump back (STACK_EXHAUSTED) when sp is below
; the call's stack limit, and a poll for an interrupt
define {public}void @{check_stack}(i64 %sp) noinline {{
entry:
  %buf = call ptr @__irt_buffer()
  %outside = icmp eq ptr %buf, null
  br i1 %outside, label %done, label %inside
inside:
  %limitp = getelementptr inbounds i64, ptr %buf, i64 {limit_at}
  %limit = load i64, ptr %limitp, align 8
  %deep = icmp ult i64 %sp, %limit
  br i1 %deep, label %jump, label %fine
jump:
  call void @__irt_jump_back(ptr %buf, i64 {stack_exhausted}, i64 0, i64 0, i64 0, i64 0)
  unreachable
fine:
  call void @__irt_jump_back_if_interrupted(ptr %buf)
  br label %done
done:
  ret void
}}

; what a loop's poll calls when the interrupt count is not 0
define {public}void @{interrupted}() noinline cold {{
entry:
  %buf = call ptr @__irt_buffer()
  %outside = icmp eq ptr %buf, null
  br i1 %outside, label %done, label %inside
inside:
  call void @__irt_jump_back_if_interrupted(ptr %buf)
  br label %done
done:
  ret void
}}

; the call's buffer ready (tail: the frame's error words, then its stack limit) and
; the thread's, its previous one kept in it
define {public}void @{enter}(ptr %buf, ptr %tail) {{
  %arrp = getelementptr inbounds i64, ptr %buf, i64 {track_at}
  store i64 0, ptr %arrp, align 8
  %countp = getelementptr inbounds i64, ptr %arrp, i64 1
  store i64 0, ptr %countp, align 8
  %capp = getelementptr inbounds i64, ptr %arrp, i64 2
  store i64 0, ptr %capp, align 8
  %limitp = getelementptr inbounds i64, ptr %tail, i64 {stack_limit_word}
  %limit = load i64, ptr %limitp, align 8
  %limitq = getelementptr inbounds i64, ptr %buf, i64 {limit_at}
  store i64 %limit, ptr %limitq, align 8
  %now = load atomic i64, ptr @{interrupts} monotonic, align 8
  %countq = getelementptr inbounds i64, ptr %buf, i64 {count_at}
  store i64 %now, ptr %countq, align 8
  %k = call i32 @__irt_key()
  %previous = call ptr @pthread_getspecific(i32 %k)
  %previousp = getelementptr inbounds i64, ptr %buf, i64 {previous_at}
  store ptr %previous, ptr %previousp, align 8
  call i32 @pthread_setspecific(i32 %k, ptr %buf)
  ret void
}}

; the call's list released (with %failed, every buffer in it too), the thread's
; previous buffer restored
define {public}void @{leave}(ptr %buf, i1 %failed) {{
  call void @__irt_release(ptr %buf, i1 %failed)
  %previousp = getelementptr inbounds i64, ptr %buf, i64 {previous_at}
  %previous = load ptr, ptr %previousp, align 8
  %k = call i32 @__irt_key()
  call i32 @pthread_setspecific(i32 %k, ptr %previous)
  ret void
}}

; after a jump back: the error words copied to the frame, {leave}, the status
define {public}i64 @{fail}(ptr %buf, ptr %tail) cold {{
  %from = getelementptr inbounds i64, ptr %buf, i64 {errors_at}
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %tail, ptr align 8 %from, i64 {error_bytes}, i1 false)
  call void @{leave}(ptr %buf, i1 true)
  %statusp = getelementptr inbounds i64, ptr %buf, i64 {status_at}
  %status = load i64, ptr %statusp, align 8
  ret i64 %status
}}

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
"""


#: the bytes of a pthread_cond_t at most (48 with glibc on x86-64; zeroed = initialized)
COND_BYTES = 64
#: the words after the mutex and the condition in the context __irt_parallel_for
#: shares with its threads: (pointer name, type, the value __irt_parallel_for stores);
#: the references are the calling thread's and its workers'
_SHARED_FIELDS = (("counter", "i64", "0"), ("chunksp", "i64", "%m"), ("sizep", "i64", "%size"),
                  ("lbp", "i64", "%lb"), ("ubp", "i64", "%ub"), ("thunkp", "ptr", "%thunk"),
                  ("ctxp", "ptr", "%ctx"), ("resultsp", "ptr", "%results"), ("rsizep", "i64", "%rsize"),
                  ("donep", "i64", "0"), ("refsp", "i64", "%ts"))
_HEADER_BYTES = MUTEX_BYTES + COND_BYTES


def _field_pointers(base: str, store: bool) -> str:
    """The lines that point at each shared field of context ``base`` (and, with
    ``store``, store its value there)."""
    first = _HEADER_BYTES // 8
    lines = []
    for k, (name, ty, value) in enumerate(_SHARED_FIELDS):
        lines.append(f"  %{name} = getelementptr inbounds i64, ptr %{base}, i64 {first + k}")
        if store:
            lines.append(f"  store {ty} {value}, ptr %{name}, align 8")
    return "\n".join(lines)


def _parallel_text(public: str, private: str) -> str:
    return _PARALLEL_TEXT.format(
        public=public, private=private,
        env=THREADS_ENV_VAR, env_len=len(THREADS_ENV_VAR) + 1, sc=_SC_NPROCESSORS_ONLN,
        max_threads=MAX_THREADS, max_chunks=MAX_CHUNKS, mutex_bytes=MUTEX_BYTES, header_bytes=_HEADER_BYTES,
        shared_words=_HEADER_BYTES // 8 + len(_SHARED_FIELDS),
        shared_bytes=_HEADER_BYTES + 8 * len(_SHARED_FIELDS), parallel_for=PARALLEL_FOR_SYMBOL,
        fields_s=_field_pointers("s", store=False), fields_shared=_field_pointers("shared", store=True))


def _calls_text(public: str, private: str) -> str:
    return _CALLS_TEXT.format(
        public=public, private=private, tls_key=TLS_KEY_SYMBOL, interrupts=INTERRUPTS_SYMBOL,
        malloc=GUARDED_MALLOC_SYMBOL, free=TRACKED_FREE_SYMBOL, check_failed=CHECK_FAILED_SYMBOL,
        check_stack=CHECK_STACK_SYMBOL, interrupted=INTERRUPTED_SYMBOL, enter=ENTER_SYMBOL,
        leave=LEAVE_SYMBOL, fail=FAIL_SYMBOL, status_at=STATUS_AT, errors_at=ERRORS_AT,
        error_bytes=8 * ERROR_WORDS, limit_at=LIMIT_AT, count_at=COUNT_AT, track_at=TRACK_AT,
        previous_at=PREVIOUS_AT, stack_limit_word=STACK_LIMIT_WORD, failed_allocation=FAILED_ALLOCATION,
        failed_check=FAILED_CHECK, stack_exhausted=STACK_EXHAUSTED, interrupted_status=INTERRUPTED)


#: the pieces of the runtime: (the names each defines, its text's writer)
_PIECES = (((PARALLEL_FOR_SYMBOL,), _parallel_text), (CALL_HELPER_SYMBOLS, _calls_text))


def runtime_text(for_object: bool = False, names: frozenset[str] | None = None) -> str:
    """The LLVM IR of the shared runtime functions (with ``names``: of the pieces
    that define one of them); ``for_object``: every definition ``linkonce_odr`` (a
    copy in each object file, one kept by the linker)."""
    public = "linkonce_odr " if for_object else ""
    private = "linkonce_odr " if for_object else "internal "
    text = "\n".join(text(public, private) for defined, text in _PIECES
                      if names is None or not names.isdisjoint(defined))
    return _declared_once(text)


def _declared_once(text: str) -> str:
    """``text`` without the repeats of a ``declare`` line (the pieces declare what
    each calls: both call malloc and free)."""
    seen: set[str] = set()
    lines = []
    for line in text.split("\n"):
        if line.startswith("declare "):
            if line in seen:
                continue
            seen.add(line)
        lines.append(line)
    return "\n".join(lines)


#: the names the shared runtime defines (``symbols.register`` binds them)
SYMBOLS = tuple(name for names, _ in _PIECES for name in names)

_lock = threading.Lock()
_addresses: dict[str, int] = {}
_code: list = []  # the engine's holder, kept alive for the process


def address(name: str) -> int:
    """The address of the shared runtime function ``name`` in this process,
    compiling the runtime first if it is not yet (once)."""
    with _lock:
        if not _addresses:
            _build()
        return _addresses[name]


def _build() -> None:
    """Compile the runtime (LLVM's pipeline and code generator: ~50 ms on a quiet
    machine, mostly fixed costs) or load its object from the disk cache."""
    from irtoolkit.runtime import codegen, diskcache
    from irtoolkit.runtime.executable import _Code, default_opt, init_llvm, target_machine

    llvm = init_llvm()
    opt = max(2, default_opt())
    text = runtime_text()
    key = diskcache.make_key(text, "irt-runtime", opt, llvm)
    cached = diskcache.load(key)
    if cached is not None:
        obj = cached[1]
    else:
        try:
            obj = codegen.emit_file(llvm, text, target_machine(llvm, opt), opt, False)
        except RuntimeError as err:
            raise DiagnosticError(Diagnostic(f"cannot compile the JIT's runtime functions: {err}")) from None
        diskcache.store(key, {"runtime": True}, obj)
    code = _Code(opt)  # (checks the object, cached or not, as every other)
    _addresses.update(code.add(llvm, [obj], None, {n: n for n in SYMBOLS}))
    _code.append(code)


def link_runtime(mod) -> bool:
    """Link a ``linkonce_odr`` copy of the pieces of the shared runtime that the
    llvmlite module ``mod`` declares a function of into it (an object file's
    module); whether it did."""
    import llvmlite.binding as llvm

    declared = {f.name for f in mod.functions if f.is_declaration}
    if declared.isdisjoint(SYMBOLS):
        return False
    # (in ``mod``'s context: the global one)
    runtime = llvm.parse_assembly(runtime_text(True, frozenset(declared)))
    runtime.triple = mod.triple
    runtime.data_layout = mod.data_layout
    mod.link_in(runtime)
    return True
