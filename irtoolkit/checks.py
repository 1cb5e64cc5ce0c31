"""What compiled code checks at run time where MLIR leaves the result undefined,
and what the failed check says: one definition that the lowering (which emits
the check) and the interpreter (which raises the same located error) share.

A leaf module: it imports nothing from irtoolkit.
"""

from __future__ import annotations

#: integer divisions and remainders: a zero divisor is an error (hardware traps)
DIVISIONS = ("arith.divsi", "arith.divui", "arith.remsi", "arith.remui",
             "arith.floordivsi", "arith.ceildivsi", "arith.ceildivui")
#: the signed divisions whose quotient overflows for the minimum / -1
SIGNED_DIVISIONS = ("arith.divsi", "arith.floordivsi", "arith.ceildivsi")


def division_by_zero(op_name: str) -> str:
    return f"'{op_name}' op division by zero"


def division_overflow(op_name: str, width: int) -> str:
    return f"'{op_name}' op signed division overflow: {-(1 << (width - 1))} / -1"


def step_not_positive(op_name: str) -> str:
    """A ``loop.for`` step of 0 or less (the step and 0 are appended, as for
    every check comparing two values)."""
    return f"'{op_name}' op step must be positive (step vs 0)"
