"""Central differences of a Python-callable scalar function (the ad tests' helper)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "passes" / "ad"))
from adcheck import fd_grad  # noqa: E402


def fd(f, args, argnum, eps=1e-6):
    """d f(*args) / d args[argnum], for ``f`` an @irt.function (or any function of arrays)."""
    return fd_grad(None, None, list(args), [argnum], eps=eps, run=lambda _name, *a: (f(*a),))[0]
