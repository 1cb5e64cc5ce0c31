"""``isinstance`` tests answered once per class.

xDSL's op and attribute classes are abstract (``ABCMeta``): ``isinstance``
against them is a Python call through ``ABCMeta.__instancecheck__``. Passes
that test every op or value of a program (10^5 of them) ask
:func:`instance_test` for a predicate that remembers its answer per class.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class ClassAnswers(dict):
    """``answers[type(x)]`` is ``isinstance(x, classes)``, worked out once per class:
    for the loops that ask it of every value of a program, a dict lookup without
    the Python call of an :func:`instance_test` predicate."""

    __slots__ = ("classes",)

    def __init__(self, *classes: type) -> None:
        super().__init__()
        self.classes = classes

    def __missing__(self, cls: type) -> bool:
        found = self[cls] = issubclass(cls, self.classes)
        return found


def instance_test(*classes: type) -> Callable[[Any], bool]:
    """``lambda x: isinstance(x, classes)``, with the answer for each class of ``x``
    worked out once (classes whose instances ``isinstance`` would answer
    differently, through ``__instancecheck__`` tricks, are not for this)."""
    answers = ClassAnswers(*classes)

    def test(x: Any) -> bool:
        return answers[type(x)]

    return test
