"""The conventions at points where max-like ops have no derivative (SPEC §6), in one place
(used by the declarations' partials in dialects/ and by the `ad` pass's rules).

- Elementwise ``max``/``min`` (``tensor.max``/``min``, ``arith.maximumf``/
  ``minimumf``/``maxnumf``/``minnumf``): the operand that wins gets the
  cotangent; at a tie each gets half (:func:`winner_weights`), so ReLU
  written ``max(x, 0)`` has derivative 1/2 at 0. ``maxnumf``/``minnumf``
  return the other operand where one is NaN, which then gets it all.
- Reductions to an extreme (``reduce_max``, ``reduce_min``, a ``loop.reduce``
  whose combiner is a max or a min): the cotangent is split evenly among the
  elements equal to the result (:func:`even_split`, :func:`reduce_weights`).
- ``clamp(lo, x, hi)``: ``x`` gets the cotangent where ``lo <= x <= hi``,
  bounds included, the bound it is clamped to elsewhere
  (:func:`clamp_weights`).
- ``reduce_window_max`` gives the cotangent of a window to its first maximal
  element (XLA's select-and-scatter), not an even split.
- ``abs`` at ±0 has derivative 0 (``Emitter.sign``).

Weights are float values of the operands' type (scalar or tensor) to
multiply tangents or cotangents by; emitted with an :class:`Emitter`.
"""

from __future__ import annotations

from xdsl.ir import SSAValue


def winner_weights(E, a: SSAValue, b: SSAValue, pred: str, nan_loses: bool = False) -> tuple[SSAValue, SSAValue]:
    """Weights of ``a`` and ``b`` in ``max(a, b)`` (``pred="gt"``) or ``min`` (``"lt"``):
    1 to the winner, 1/2 each at a tie. With ``nan_loses`` (maxnum, minnum) a NaN
    operand gets 0 and the other 1; otherwise a NaN result gives all to ``b``."""
    one, half, zero = E.const(1.0, a), E.const(0.5, a), E.zeros(a)
    wa = E.select(E.cmp(pred, a, b), one, E.select(E.cmp("eq", a, b), half, zero))
    if nan_loses:
        wa = E.select(E.cmp("ne", b, b), one, wa)  # "ne" is unordered: true for NaN only
        wa = E.select(E.cmp("ne", a, a), zero, wa)
    return wa, E.sub(one, wa)


def even_split(E, x: SSAValue, extreme: SSAValue, count: SSAValue) -> SSAValue:
    """Weight of each element of ``x`` in a reduction to ``extreme`` (broadcast to
    ``x``'s shape) over ``count`` ties (same shape): ``[x == extreme] / count``."""
    mask = E.select(E.cmp("eq", x, extreme), E.const(1.0, x), E.zeros(x))
    return E.div(mask, count)


def reduce_weights(E, x: SSAValue, y: SSAValue, dims, broadcast_like) -> SSAValue:
    """Weights of the elements of ``x`` in ``y = reduce_max/min(x, dims)``: the
    tied extremes share equally. ``broadcast_like(v)`` broadcasts a value of
    ``y``'s shape back to ``x``'s."""
    yb = broadcast_like(y)
    mask = E.select(E.cmp("eq", x, yb), E.const(1.0, x), E.zeros(x))
    count = E.reduce_sum(mask, list(dims))
    return E.div(mask, broadcast_like(count))


def clamp_weights(E, lo: SSAValue, x: SSAValue, hi: SSAValue) -> tuple[SSAValue, SSAValue, SSAValue]:
    """Weights of ``lo``, ``x``, ``hi`` in ``clamp(lo, x, hi) = min(max(x, lo), hi)``:
    ``x`` where ``lo <= x <= hi`` (at a bound too), else the bound it is clamped to."""
    one, zero = E.const(1.0, x), E.zeros(x)
    above = E.cmp("gt", x, hi)
    below = E.cmp("lt", x, lo)
    w_hi = E.select(above, one, zero)
    w_lo = E.select(above, zero, E.select(below, one, zero))
    return w_lo, E.sub(E.sub(one, w_lo), w_hi), w_hi
