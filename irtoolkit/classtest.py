"""``isinstance`` tests answered once per class.

xDSL's op and attribute classes are abstract (``ABCMeta``): ``isinstance``
against them is a Python call through ``ABCMeta.__instancecheck__``. Passes
that test every op or value of a program (10^5 of them) ask
:func:`instance_test` for a predicate that remembers its answer per class;
:class:`ClassMemo` remembers any other fact of a class.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class ClassMemo(dict):
    """``memo[cls]`` is ``answer(cls)``, worked out once per class: for the loops that
    ask a per-class fact of every op or value of a program, a subscript without a
    Python call once the class was seen."""

    __slots__ = ("answer",)

    def __init__(self, answer: Callable[[type], Any]) -> None:
        super().__init__()
        self.answer = answer

    def __missing__(self, cls: type) -> Any:
        found = self[cls] = self.answer(cls)
        return found


class ClassAnswers(ClassMemo):
    """``answers[type(x)]`` is ``isinstance(x, classes)``, worked out once per class:
    for the loops that ask it of every value of a program, a dict lookup without
    the Python call of an :func:`instance_test` predicate."""

    __slots__ = ()

    def __init__(self, *classes: type) -> None:
        super().__init__(lambda cls: issubclass(cls, classes))


def instance_test(*classes: type) -> Callable[[Any], bool]:
    """``lambda x: isinstance(x, classes)``, with the answer for each class of ``x``
    worked out once (classes whose instances ``isinstance`` would answer
    differently, through ``__instancecheck__`` tricks, are not for this)."""
    answers = ClassAnswers(*classes)

    def test(x: Any) -> bool:
        return answers[type(x)]

    return test
