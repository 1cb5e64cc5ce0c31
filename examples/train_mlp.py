"""Fit a one-hidden-layer tanh network to sin(x) by gradient descent, written in
Python: the program of examples/train_mlp.mlir, from the same data and initial
weights, translated by @irt.function (the training loop is one loop.for, the
gradient an autodiff.value_and_grad inside it, the print every 50 steps a
printf.print_format under a loop.if).

    python examples/train_mlp.py
"""

import numpy as np

import irtoolkit as irt
import irtoolkit.numpy as inp

STEPS = 200


@irt.function
def loss(w1, b1, w2, b2, x, y):
    h = inp.tanh(x @ w1 + b1)
    p = h @ w2 + b2
    return inp.sum((p - y) * (p - y)) / 16.0


@irt.function
def train(w1, b1, w2, b2, x, y):
    lr = 0.1
    hist = inp.zeros(STEPS)
    for i in range(STEPS):
        l, (g1, gb1, g2, gb2) = irt.value_and_grad(loss, argnums=(0, 1, 2, 3))(w1, b1, w2, b2, x, y)
        w1 = w1 - g1 * lr
        b1 = b1 - gb1 * lr
        w2 = w2 - g2 * lr
        b2 = b2 - gb2 * lr
        if i % 50 == 0:
            print("step", i, "loss", l)
        hist[i] = l
    return hist, loss(w1, b1, w2, b2, x, y)


def data():
    """The constants of train_mlp.mlir: 16 points of sin on [-2, 2], weights from seed 0."""
    x = np.linspace(-2.0, 2.0, 16).reshape(16, 1)
    w = np.random.default_rng(0).standard_normal(16)
    return w[:8].reshape(1, 8), np.zeros(8), (0.5 * w[8:]).reshape(8, 1), np.zeros(1), x, np.sin(x)


def main():
    hist, final = train(*data())
    print(f"final loss {final:.6f}")


if __name__ == "__main__":
    main()
