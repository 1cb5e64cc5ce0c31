"""A recurrent encoder whose trip count depends on the data: it reads a
sequence until its state's energy passes a threshold (or the sequence ends),
a `while` on a tensor condition (one loop.while in the IR), and is
differentiated in reverse mode through that loop (which JAX's
`lax.while_loop` refuses).

    python examples/rnn_while.py
"""

import numpy as np

import irtoolkit as irt
import irtoolkit.numpy as inp


@irt.function
def encode(wx, wh, xs, threshold):
    h = inp.zeros(wh.shape[0])
    t = 0
    while inp.where(t < xs.shape[0], inp.sum(h * h), inp.inf) < threshold:
        h = inp.tanh(xs[t] @ wx + h @ wh)
        t = t + 1
    return h, t


@irt.function
def readout(wx, wh, xs, threshold):
    h, t = encode(wx, wh, xs, threshold)
    return inp.sum(h) / t


def encode_numpy(wx, wh, xs, threshold):
    h, t = np.zeros(wh.shape[0]), 0
    while t < len(xs) and np.sum(h * h) < threshold:
        h, t = np.tanh(xs[t] @ wx + h @ wh), t + 1
    return h, t


def problem(seed=0):
    rng = np.random.default_rng(seed)
    return (0.2 * rng.standard_normal((3, 8)), 0.4 * rng.standard_normal((8, 8)),
            rng.standard_normal((20, 3)), np.float64(2.0))


def main():
    wx, wh, xs, threshold = problem()
    h, t = encode(wx, wh, xs, threshold)
    print(f"read {int(t)} of {len(xs)} steps; numpy reads {encode_numpy(wx, wh, xs, threshold)[1]}")
    value, (gx, gh) = irt.value_and_grad(readout, argnums=(0, 1))(wx, wh, xs, threshold)
    print(f"readout {float(value):.6f}, |d/dwx| {np.linalg.norm(gx):.6f}, |d/dwh| {np.linalg.norm(gh):.6f}")


if __name__ == "__main__":
    main()
