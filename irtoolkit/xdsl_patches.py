"""The few places where irtoolkit changes xDSL 0.74's own code (it is pinned).

Each patch keeps xDSL's behaviour and fixes a measured problem; ``apply()``
installs them once (the parser and the verifier call it). Tested in
``test/test_xdsl_patches.py``.

* The string-literal regex backtracks exponentially on an unterminated string
  (``(a+)*`` shape); the possessive form accepts the same strings.
"""

from __future__ import annotations

import re

_APPLIED: list[bool] = []


def _string_literal_regex() -> None:
    from xdsl.utils.mlir_lexer import MLIRLexer

    MLIRLexer._unescaped_characters_regex = re.compile(
        r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"'
    )


def apply() -> None:
    if _APPLIED:
        return
    _APPLIED.append(True)
    _string_literal_regex()
