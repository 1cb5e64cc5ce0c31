"""Facts shared by the lowering passes and the runtime, and nothing else.

A leaf module: it imports nothing from irtoolkit, so that `passes/` and
`irtoolkit/runtime/` can both read it without importing each other (what the
JIT needs from the lowering is a named pass; what a lowering needs to know
about the runtime is a pass option or a constant here).
"""

from __future__ import annotations

# ---------------------------------------------------------------------------
# BLAS: the symbols and enums of the GEMM calls that lowered matmuls make
# ---------------------------------------------------------------------------

#: element type name -> the row-major CBLAS gemm with 64-bit integers that numpy's
#: bundled OpenBLAS exports:
#: ``void gemm(int order, int transA, int transB, i64 M, i64 N, i64 K, T alpha,
#: T *A, i64 lda, T *B, i64 ldb, T beta, T *C, i64 ldc)``
GEMM_SYMBOLS = {"f32": "scipy_cblas_sgemm64_", "f64": "scipy_cblas_dgemm64_"}

#: an i64 the JIT defines in each process: nonzero while a call that holds OpenBLAS
#: at one thread and splits its gemms runs (runtime/blas.py); the dispatchers of
#: split gemms (to_llvm/parallel.py) go parallel only then
BLAS_SPLIT_SYMBOL = "__irt_blas_split"
#: an i64 the JIT defines in each process: nonzero while a call that runs its loops on
#: the calling thread runs (runtime/blas.py, the SERIAL way); the dispatchers of
#: parallel loops (to_llvm/parallel.py) then start no thread. Referenced weakly
LOOPS_SERIAL_SYMBOL = "__irt_loops_serial"
#: the runtime function that runs a parallel loop's or split gemm's chunks on threads
#: (to_llvm/parallel.py): the JIT builds it once per process (runtime/support.py), an
#: object file (``--emit obj``) holds its own copy
#: ``i64 (ptr thunk, ptr ctx, i64 lb, i64 ub, i64 need, i64 per, ptr results,
#: i64 result_size, ptr serial_flag, ptr gate_flag)``
PARALLEL_FOR_SYMBOL = "__irt_parallel_for"
#: its limits: threads at most, chunks of a split range at most, the environment
#: variable that sets the thread count, the bytes of a pthread_mutex_t at most (40
#: with glibc on x86-64; zeroed = initialized)
MAX_THREADS = 8
MAX_CHUNKS = 32
THREADS_ENV_VAR = "IRT_NUM_THREADS"
MUTEX_BYTES = 64

# CBLAS enums
ROW_MAJOR = 101
NO_TRANS = 111
TRANS = 112


# ---------------------------------------------------------------------------
# The native calling convention: frame layout, thread key, error reporting
# ---------------------------------------------------------------------------

# A call's status (what the entry point returns): 0, or why it stopped early
OK = 0
FAILED_CHECK = 1  # a run-time check (cf.assert) failed
FAILED_ALLOCATION = 2  # malloc returned null, or a negative size was asked for
STACK_EXHAUSTED = 3  # recursion reached the stack limit
INTERRUPTED = 4  # SIGINT: the interrupt counter moved during the call

# words after a function's argument and result slots in the JIT's call frame,
# written by the entry point when the call failed: the detail (a failed check's
# message pointer, a failed allocation's size), value flag, two values
ERROR_WORDS = 4
# then one word the caller writes: the lowest stack address compiled code may
# use on this thread (0: no limit); recursive functions check it on entry
STACK_LIMIT_WORD = ERROR_WORDS
FRAME_TAIL_WORDS = ERROR_WORDS + 1
# an i64 the JIT defines in each process and increments on SIGINT; compiled
# loops and recursive functions poll it (a change during a call interrupts it)
INTERRUPTS_SYMBOL = "__irt_interrupts"
# the pthread key of the running call's jmp_buf is the address of this symbol
# minus one (never null): the JIT defines it in each process, since machine code
# is cached on disk and the key differs between processes
TLS_KEY_SYMBOL = "__irt_tls_key"

# the entry point of public function @f that the JIT calls: i64 @_irt_call_f(ptr frame)
ENTRY_PREFIX = "_irt_call_"

# The functions behind an entry point's jmp_buf (``add-jit-interface``: when they are
# called and why), shared by every module as PARALLEL_FOR_SYMBOL is: the JIT builds
# them once per process (runtime/support.py), a module only declares them.
GUARDED_MALLOC_SYMBOL = "__irt_malloc"  # ptr (i64 n): malloc, listed for the call
TRACKED_FREE_SYMBOL = "__irt_free"  # void (ptr p): free, dropped from the list
CHECK_FAILED_SYMBOL = "__irt_check_failed"  # void (ptr msg, i64 has_values, i64 a, i64 b)
CHECK_STACK_SYMBOL = "__irt_check_stack"  # void (i64 sp), on entry to a recursive function
INTERRUPTED_SYMBOL = "__irt_interrupted"  # void (), when the interrupt count is not 0
ENTER_SYMBOL = "__irt_enter"  # void (ptr buf, ptr tail), before the entry's _setjmp
LEAVE_SYMBOL = "__irt_leave"  # void (ptr buf, i1 failed), when the call returns
FAIL_SYMBOL = "__irt_fail"  # i64 (ptr buf, ptr tail), after a jump back: the status
CALL_HELPER_SYMBOLS = (GUARDED_MALLOC_SYMBOL, TRACKED_FREE_SYMBOL, CHECK_FAILED_SYMBOL,
                       CHECK_STACK_SYMBOL, INTERRUPTED_SYMBOL, ENTER_SYMBOL, LEAVE_SYMBOL, FAIL_SYMBOL)

# the call's buffer (an entry point's alloca of CALL_BUFFER_WORDS i64 words; the
# thread's, under the pthread key, while the call runs): the jmp_buf, then the
# status, the error words (copied to the frame), the stack limit and the interrupt
# count when the call began, the list of buffers the call malloc'ed and has not
# freed {ptr array, count, capacity}, and the thread's previous buffer (restored
# when the call ends)
JMPBUF_WORDS = 64  # glibc's x86-64 jmp_buf is 25 words; room for any target
STATUS_AT = JMPBUF_WORDS
ERRORS_AT = STATUS_AT + 1
LIMIT_AT = ERRORS_AT + ERROR_WORDS
COUNT_AT = LIMIT_AT + 1
TRACK_AT = COUNT_AT + 1
PREVIOUS_AT = TRACK_AT + 3
CALL_BUFFER_WORDS = PREVIOUS_AT + 1

# printf.print_format in compiled code (passes/lowering/to_llvm/printf.py) calls
#   void PRINT_SYMBOL(ptr spec, ptr frame)
# ``spec``: a NUL-terminated string "<arg>;<arg>...<PRINT_SEPARATOR><format>", each
# <arg> "<numpy dtype str>/<rank>" (rank -1: a scalar), <format> the op's format
# string (each "{}" a value, in order). ``frame``: 8-byte words, as the entry
# frames: a scalar in one word (its value in the first bytes, i1 as one byte), a
# rank-R memref descriptor in 3 + 2R words. The JIT defines the symbol
# (irtoolkit/runtime/printf.py: formats as the interpreter does, to sys.stdout).
PRINT_SYMBOL = "__irt_print"
PRINT_SEPARATOR = "\x1f"


def descriptor_words(rank: int) -> int:
    """Frame words of a rank-``rank`` memref descriptor
    ``{allocated, aligned, offset, sizes[rank], strides[rank]}`` (a scalar takes one)."""
    return 3 + 2 * rank


#: prefix of the functions holding one expanded vector-math kernel each
#: (``expand-vector-math``; always inlined)
KERNEL_PREFIX = "__irt_vm_"

#: interleave count of the loops that call a kernel (the translation to LLVM IR
#: attaches it). A kernel is one long dependency chain; LLVM's cost model keeps such
#: loops at one vector per iteration, latency-bound. Measured on bench W1 (AVX2,
#: 4 f64 lanes, CPU time single-threaded): forward 7.3 -> 5.5 ms, gradient 7.6 ->
#: 5.4 ms with 4; 2 gained less.
LOOP_INTERLEAVE = 4

#: LLVM function attribute (a ``"key"="value"`` pair of ``passthrough``) that the
#: lowering passes put on the runtime's scaffolding: entry wrappers, thread
#: dispatchers and their thunks (the allocation, failure and thread helpers they
#: call are the shared runtime's, runtime/support.py: built once per process, at
#: full optimization). They run once per call or per parallel loop, never
#: per element, yet were most of LLVM's work at the JIT's first tier on small
#: programs; that tier compiles them unoptimized (``translate.first_tier_text``:
#: ``noinline optnone``), the tier-up and every other build as all the rest.
UNOPTIMIZED_AT_TIER0 = ("irt-tier0", "optnone")

#: prefix of the functions ``lower-loop-to-cf`` outlines runs of a large function's
#: loop nests into (plain calls, for the JIT's code generation to spread over the
#: cores: runtime/codegen.py). The JIT's first tier compiles them ``noinline``
#: (``translate.first_tier_text``): LLVM's inliner otherwise simplifies a nest in
#: its function and then again in its caller, after inlining it.
NEST_PREFIX = "__irt_nest_"
