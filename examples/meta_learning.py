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
    batch = list(tasks())
    w = np.zeros((3, 1))
    for step in range(6):  # meta-gradient descent on the mean loss after adaptation
        results = [meta_grad(w, *task) for task in batch]
        w = w - 1.0 * np.mean([g for _, g in results], axis=0)
        print(f"meta step {step}: mean loss after adaptation {np.mean([v for v, _ in results]):.6f}")


if __name__ == "__main__":
    main()
