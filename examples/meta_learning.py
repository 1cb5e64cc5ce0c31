"""A meta-learning step (MAML): the loss after one inner gradient step on a
task, differentiated with respect to the initial weights — the gradient of a
function of a gradient. The inner `irt.grad` is an autodiff.grad op in the IR
of `adapted_loss`; the `ad` pass differentiates it again.

    python examples/meta_learning.py
"""

import numpy as np

import irtoolkit as irt
import irtoolkit.numpy as inp

INNER_LR = 0.1


@irt.function
def task_loss(w, x, y):
    return inp.mean((inp.tanh(x @ w) - y) ** 2)


@irt.function
def adapted_loss(w, x_train, y_train, x_test, y_test):
    w_task = w - INNER_LR * irt.grad(task_loss)(w, x_train, y_train)
    return task_loss(w_task, x_test, y_test)


meta_grad = irt.value_and_grad(adapted_loss)


def tasks(seed=0, n=4):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        a = rng.standard_normal((3, 1))
        x_train, x_test = rng.standard_normal((8, 3)), rng.standard_normal((8, 3))
        yield x_train, np.tanh(x_train @ a), x_test, np.tanh(x_test @ a)


def main():
    w = np.zeros((3, 1))
    for step, task in enumerate(tasks()):
        value, g = meta_grad(w, *task)
        w = w - 0.5 * g
        print(f"meta step {step}: loss after adaptation {float(value):.6f}")


if __name__ == "__main__":
    main()
