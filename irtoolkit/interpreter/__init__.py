"""The reference interpreter: the meaning of every op, in numpy (SPEC §9).

``interpret_function(module, name, *args)`` runs a function on numpy values.
Rules live in one module per dialect (``arith``, ``math``, ``tensor``, ``loop``,
``memref``, ``cf``, ``builtin_func``, ``scf``, ``autodiff``), in tables keyed
by op class (:mod:`irtoolkit.interpreter.core`).
"""

from irtoolkit.interpreter.core import (
    RULES,
    SPECIALIZERS,
    TERMINATORS,
    Interpreter,
    dtype_of,
    has_rule,
    interpret_function,
    load_rules,
)

__all__ = [
    "Interpreter", "interpret_function", "has_rule", "load_rules", "dtype_of",
    "RULES", "SPECIALIZERS", "TERMINATORS",
]
