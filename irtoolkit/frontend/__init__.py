"""The Python frontend (SPEC §11): ``@irt.function`` translates a Python
function's source (``if`` / ``for`` / ``while``, calls, ``irtoolkit.numpy``)
into IR built with the public dialect classes, as an outside compiler would;
``irt.grad`` & co. become ``autodiff`` ops.

Modules: ``api`` (traceables, specialization, the compile cache),
``translate`` (AST to IR, SSA construction), ``emitter`` (located ops,
broadcasting and promotion), ``indexing`` (basic indexing and slicing); the
op table is ``irtoolkit.numpy``.
"""

from irtoolkit.frontend.api import Function, function, grad, jvp, stop_gradient, value_and_grad, vjp

__all__ = ["Function", "function", "grad", "value_and_grad", "jvp", "vjp", "stop_gradient"]
