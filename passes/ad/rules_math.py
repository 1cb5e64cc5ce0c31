"""Derivative rules of the `math` dialect (scalars).

The float ops need none: their rules come from the partial derivatives of
their declarations (``irtoolkit/dialects/scalar.py``), and the piecewise
constant ones (floor, ceil, round ...) are declared non-differentiable there.
"""

from __future__ import annotations

from xdsl.dialects import math

from irtoolkit.passes.ad.rules import nondiff

# Integer ops.
nondiff(math.AbsIOp, math.CountLeadingZerosOp, math.CountTrailingZerosOp, math.CtPopOp, math.IPowIOp)
