"""Cases and naive references for `tensor.conv` and the windowed reductions,
shared by the interpreter, lowering and derivative tests.

The references loop over every output element and window tap, straight from
the definition (StableHLO's convolution / reduce_window, channels last), and
share no code with the interpreter."""

from __future__ import annotations

import itertools

import numpy as np

# name -> (input shape, filter shape, clauses, result shape)
CONV_CASES = {
    "1d": ((2, 7, 3), (3, 3, 2), "", (2, 5, 2)),
    "1d_stride_pad": ((2, 8, 2), (3, 2, 3), "stride [2] pad [[2, 1]]", (2, 5, 3)),
    "2d": ((2, 5, 4, 3), (3, 2, 3, 4), "", (2, 3, 3, 4)),
    "2d_stride_pad": ((1, 7, 6, 2), (3, 3, 2, 3), "stride [2, 3] pad [[1, 1], [2, 0]]", (1, 4, 2, 3)),
    "2d_dilation": ((2, 7, 7, 2), (2, 3, 2, 2), "dilation [2, 1]", (2, 5, 5, 2)),
    "2d_input_dilation": ((1, 4, 3, 2), (2, 2, 2, 3), "stride [2, 1] pad [[1, 0], [0, 1]] input_dilation [2, 3]",
                          (1, 4, 7, 3)),
    "2d_negative_pad": ((1, 6, 6, 1), (2, 2, 1, 2), "pad [[-1, 0], [0, -2]]", (1, 4, 3, 2)),
    "2d_groups": ((2, 5, 5, 4), (3, 3, 2, 6), "groups 2", (2, 3, 3, 6)),
    "2d_depthwise": ((2, 6, 5, 3), (3, 2, 1, 3), "stride [2, 1] pad [[1, 1], [0, 1]] groups 3", (2, 3, 5, 3)),
    "2d_depthwise_multiplier": ((1, 5, 5, 2), (3, 3, 1, 4), "pad [[1, 1], [1, 1]] groups 2", (1, 5, 5, 4)),
    "2d_all": ((1, 6, 7, 4), (2, 3, 2, 4),
               "stride [2, 1] pad [[1, 0], [1, 2]] input_dilation [1, 2] dilation [2, 1] groups 2", (1, 3, 14, 4)),
    "2d_1x1": ((2, 3, 3, 4), (1, 1, 4, 5), "", (2, 3, 3, 5)),
    "2d_size1": ((1, 1, 1, 1), (1, 1, 1, 1), "", (1, 1, 1, 1)),
    "2d_stride_skips_tail": ((1, 6, 6, 1), (2, 2, 1, 1), "stride [3, 3]", (1, 2, 2, 1)),
    "2d_large": ((4, 12, 12, 3), (5, 5, 3, 8), "pad [[2, 2], [2, 2]]", (4, 12, 12, 8)),
    "2d_deep": ((2, 5, 5, 128), (3, 3, 128, 4), "stride [2, 1] pad [[1, 1], [0, 1]]", (2, 3, 4, 4)),
    "3d": ((1, 4, 3, 4, 2), (2, 2, 3, 2, 2), "stride [1, 2, 1] pad [[0, 1], [1, 1], [0, 0]]", (1, 4, 2, 2, 2)),
    "3d_groups_dilation": ((1, 5, 4, 4, 2), (2, 2, 2, 1, 4), "dilation [2, 1, 2] groups 2", (1, 3, 3, 2, 4)),
}

# name -> (operand shape, window, clauses, result shape)
WINDOW_CASES = {
    "pool_2x2": ((2, 4, 6, 3), [1, 2, 2, 1], "stride [1, 2, 2, 1]", (2, 2, 3, 3)),
    "pool_3x3_pad": ((1, 5, 5, 2), [1, 3, 3, 1], "stride [1, 2, 2, 1] pad [[0, 0], [1, 1], [1, 1], [0, 0]]",
                     (1, 3, 3, 2)),
    "overlap_1d": ((7,), [3], "", (5,)),
    "every_dim": ((3, 4), [2, 3], "stride [1, 2] pad [[1, 0], [0, 2]]", (3, 2)),
    "negative_pad": ((6, 5), [2, 2], "stride [2, 1] pad [[-1, 0], [0, -1]]", (2, 3)),
    "size1": ((1, 1), [1, 1], "", (1, 1)),
    "3d": ((2, 4, 4, 4, 1), [1, 2, 2, 2, 1], "stride [1, 2, 2, 2, 1]", (2, 2, 2, 2, 1)),
    "wide_window": ((1, 6, 5), [1, 5, 4], "pad [[0, 0], [1, 0], [0, 1]]", (1, 3, 3)),  # taps as loops, not unrolled
    # disjoint windows (stride >= window, no padding): each tap stored once, no read-add-write
    "disjoint_tail": ((1, 5, 7, 2), [1, 2, 2, 1], "stride [1, 2, 2, 1]", (1, 2, 3, 2)),  # last row, column left out
    "disjoint_sparse_crop": ((7, 5, 3), [2, 2, 1], "stride [3, 2, 1] pad [[-1, 0], [0, 0], [0, 0]]", (2, 2, 3)),
    "disjoint_wide": ((2, 10, 4), [1, 5, 4], "stride [1, 5, 4]", (2, 2, 1)),  # taps as loops
}


def parse_clauses(clauses: str) -> dict:
    """{stride, pad, input_dilation, dilation, groups} of a clause string (absent: None)."""
    import re

    def ints(name):
        m = re.search(rf"(?<![a-z_]){name} \[([-\d, ]*)\]", clauses)
        return None if m is None else [int(v) for v in m.group(1).split(",")]

    m = re.search(r"pad \[((?:\[[-\d, ]+\](?:, )?)+)\]", clauses)
    pad = None if m is None else [tuple(int(v) for v in p.split(",")) for p in re.findall(r"\[([-\d, ]+)\]", m.group(1))]
    g = re.search(r"groups (\d+)", clauses)
    return {"stride": ints("stride"), "pad": pad, "input_dilation": ints("input_dilation"),
            "dilation": ints("dilation"), "groups": int(g.group(1)) if g else 1}


def naive_conv(x, w, clauses: str):
    c = parse_clauses(clauses)
    d = x.ndim - 2
    stride = c["stride"] or [1] * d
    pads = c["pad"] or [(0, 0)] * d
    ld, rd = c["input_dilation"] or [1] * d, c["dilation"] or [1] * d
    groups = c["groups"]
    n, sizes = x.shape[0], x.shape[1:-1]
    ks, cg, f = w.shape[:d], w.shape[d], w.shape[-1]
    fg = f // groups
    outs = []
    for i in range(d):
        padded = (sizes[i] - 1) * ld[i] + 1 + pads[i][0] + pads[i][1]
        span = (ks[i] - 1) * rd[i] + 1
        outs.append((padded - span) // stride[i] + 1 if padded >= span else 0)
    y = np.zeros((n, *outs, f), dtype=np.float64)
    for b in range(n):
        for o in itertools.product(*map(range, outs)):
            for fo in range(f):
                acc = 0.0
                for k in itertools.product(*map(range, ks)):
                    pos = [o[i] * stride[i] + k[i] * rd[i] - pads[i][0] for i in range(d)]
                    if any(p < 0 or p % ld[i] or p // ld[i] >= sizes[i] for i, p in enumerate(pos)):
                        continue
                    at = tuple(p // ld[i] for i, p in enumerate(pos))
                    for ci in range(cg):
                        acc += float(x[(b, *at, (fo // fg) * cg + ci)]) * float(w[(*k, ci, fo)])
                y[(b, *o, fo)] = acc
    return y


def _windows(x, window, clauses):
    """(output index, [values of the window's taps in row-major order, None for padding])."""
    c = parse_clauses(clauses)
    r = x.ndim
    stride = c["stride"] or [1] * r
    pads = c["pad"] or [(0, 0)] * r
    outs = []
    for i in range(r):
        padded = x.shape[i] + pads[i][0] + pads[i][1]
        outs.append((padded - window[i]) // stride[i] + 1 if padded >= window[i] else 0)
    for o in itertools.product(*map(range, outs)):
        taps = []
        for k in itertools.product(*map(range, window)):
            pos = tuple(o[i] * stride[i] + k[i] - pads[i][0] for i in range(r))
            taps.append(pos if all(0 <= p < s for p, s in zip(pos, x.shape)) else None)
        yield o, taps, tuple(outs)


def naive_reduce_window(x, window, clauses, kind: str):
    out = None
    for o, taps, outs in _windows(x, window, clauses):
        if out is None:
            out = np.zeros(outs, dtype=x.dtype)
        vals = [x[p] if p is not None else (0 if kind == "sum" else -np.inf) for p in taps]
        out[o] = sum(vals) if kind == "sum" else max(vals)
    return out


def naive_first_max(x, window, clauses):
    """Per window: the position of its first maximal element (None: padding)."""
    for o, taps, outs in _windows(x, window, clauses):
        vals = [x[p] if p is not None else -np.inf for p in taps]
        yield o, taps[int(np.argmax(vals))]


def naive_window_max_scatter(x, g, window, clauses):
    dx = np.zeros_like(x)
    for o, p in naive_first_max(x, window, clauses):
        if p is not None:
            dx[p] += g[o]
    return dx


def naive_window_max_select(x, t, window, clauses, out_shape):
    y = np.zeros(out_shape, dtype=x.dtype)
    for o, p in naive_first_max(x, window, clauses):
        y[o] = t[p] if p is not None else 0
    return y


def tensor_type(shape, et="f64") -> str:
    return "tensor<" + "".join(f"{s}x" for s in shape) + et + ">"


def conv_function(name: str, x, w, clauses: str, out, et="f64") -> str:
    tx, tw, to = tensor_type(x, et), tensor_type(w, et), tensor_type(out, et)
    return f"""
func.func @{name}(%x: {tx}, %w: {tw}) -> {to} {{
  %y = tensor.conv %x, %w {clauses} : ({tx}, {tw}) -> {to}
  return %y : {to}
}}
"""


def window_functions(name: str, shape, window, clauses: str, out, et="f64") -> str:
    """@{name}: (reduce_window_sum, reduce_window_max, window_max_scatter of %g,
    window_max_select of %t) of %x."""
    tx, to = tensor_type(shape, et), tensor_type(out, et)
    spec = f"window [{', '.join(map(str, window))}] {clauses}"
    return f"""
func.func @{name}(%x: {tx}, %g: {to}, %t: {tx}) -> ({to}, {to}, {tx}, {to}) {{
  %s = tensor.reduce_window_sum %x {spec} : {tx} -> {to}
  %m = tensor.reduce_window_max %x {spec} : {tx} -> {to}
  %d = tensor.window_max_scatter %x, %g {spec} : ({tx}, {to}) -> {tx}
  %e = tensor.window_max_select %x, %t {spec} : ({tx}, {tx}) -> {to}
  return %s, %m, %d, %e : {to}, {to}, {tx}, {to}
}}
"""


def window_operand(rng, shape, dtype=np.float64):
    """Values with ties (rounded), so that 'first maximal element' matters."""
    return np.round(rng.standard_normal(shape) * 2).astype(dtype)
