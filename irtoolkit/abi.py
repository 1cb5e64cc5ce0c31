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


# ---------------------------------------------------------------------------
# The native calling convention: frame layout, thread key, error reporting
# ---------------------------------------------------------------------------

# words after a function's argument and result slots in the JIT's call frame: a
# failed check's message pointer, value flag, two values (written by the entry
# wrapper, read by the Python caller)
ERROR_WORDS = 4
# the pthread key of the running call's jmp_buf is the address of this symbol
# minus one (never null): the JIT defines it in each process, since machine code
# is cached on disk and the key differs between processes
TLS_KEY_SYMBOL = "__irt_tls_key"

# the entry point of public function @f that the JIT calls: i64 @_irt_call_f(ptr frame)
ENTRY_PREFIX = "_irt_call_"

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
