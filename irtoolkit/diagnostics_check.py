"""``--verify-diagnostics``: check emitted diagnostics against comments, as mlir-opt.

Comments of the form (MLIR's syntax)::

    %0 = tensor.add %a, %b : ...  // expected-error {{shapes differ}}
    // expected-error @+1 {{shapes differ}}      (line offsets: @+N, @-N)
    // expected-note @above {{...}}               (@above, @below, @unknown)
    // expected-warning-re {{value {{[0-9]+}} is}} (literal text, {{regex}} parts)

A diagnostic matches an expectation of the same severity on the same line
whose message is a substring of the diagnostic's (or whose regex matches).
Diagnostics without an expectation and expectations without a diagnostic are
both failures, reported like mlir-opt:
``file:line:col: error: unexpected error: ...`` and
``file:line:col: error: expected error "..." was not produced``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from irtoolkit.diagnostics import Diagnostic, DiagnosticError, Location

SEVERITIES = ("error", "warning", "note", "remark")

_EXPECTED = re.compile(
    r"expected-(?P<sev>error|note|remark|warning)(?P<re>-re)? *"
    r"(?:@(?P<off>[+-][0-9]+|above|below|unknown))? *\{\{(?P<msg>.*)\}\}$"
)
# A directive that starts like one but does not parse: reported, not ignored.
_DIRECTIVE_START = re.compile(r"//\s*(expected-(?:error|note|remark|warning)(?:-re)?)\b")


@dataclass
class Expectation:
    severity: str
    message: str
    line: int | None  # the line the diagnostic must be on; None for @unknown
    location: Location  # where the comment is
    regex: re.Pattern[str] | None = None
    matched: bool = False

    def at(self, diag: Diagnostic) -> bool:
        """Whether ``diag`` is on the line this expectation is for."""
        if self.line is None:
            if diag.location is not None:
                return False
        elif diag.location is None or diag.location.line != self.line or (
            diag.location.file != self.location.file
        ):
            return False
        return True

    def matches(self, message: str) -> bool:
        if self.regex is not None:
            return self.regex.search(message) is not None
        return self.message in message


def _compile_re(body: str) -> re.Pattern[str]:
    """MLIR's -re bodies: literal text with ``{{regex}}`` parts."""
    parts: list[str] = []
    pos = 0
    while True:
        start = body.find("{{", pos)
        if start < 0:
            parts.append(re.escape(body[pos:]))
            break
        end = body.find("}}", start + 2)
        if end < 0:
            raise ValueError("found start of regex with no end '}}'")
        parts.append(re.escape(body[pos:start]))
        parts.append("(?:" + body[start + 2 : end] + ")")
        pos = end + 2
    return re.compile("".join(parts))


def parse_expectations(text: str, filename: str, line_offset: int = 0) -> list[Expectation]:
    """The ``expected-*`` directives of ``text`` (lines numbered from ``line_offset + 1``).

    A malformed directive raises a located DiagnosticError.
    """
    found: list[Expectation] = []
    problems: list[Diagnostic] = []
    pending_below: list[Expectation] = []
    last_plain_line = 0
    for index, raw in enumerate(text.splitlines()):
        lineno = index + 1 + line_offset
        line = raw.rstrip()
        m = _EXPECTED.search(line)
        if m is None:
            d = _DIRECTIVE_START.search(line)
            if d is not None:
                problems.append(
                    Diagnostic(
                        f"malformed '{d.group(1)}' directive: expected a message in {{{{...}}}}",
                        Location(filename, lineno, d.start(1) + 1),
                    )
                )
                continue
            for exp in pending_below:
                exp.line = lineno
            pending_below.clear()
            last_plain_line = lineno
            continue
        where = Location(filename, lineno, m.start() + 1)
        regex = None
        if m.group("re"):
            try:
                regex = _compile_re(m.group("msg"))
            except (ValueError, re.error) as err:
                problems.append(Diagnostic(f"invalid regex in expected-{m.group('sev')}-re: {err}", where))
                continue
        exp = Expectation(m.group("sev"), m.group("msg"), lineno, where, regex)
        off = m.group("off")
        if off is None:
            pass
        elif off == "unknown":
            exp.line = None
        elif off == "above":
            exp.line = last_plain_line
        elif off == "below":
            pending_below.append(exp)
        else:
            exp.line = lineno + int(off)
        found.append(exp)
    for exp in pending_below:  # dangling @below: the last line, as MLIR
        exp.line = line_offset + len(text.splitlines())
    if problems:
        raise DiagnosticError(problems)
    return found


def flatten(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Diagnostics with their attached notes, each as its own diagnostic."""
    out: list[Diagnostic] = []
    for d in diagnostics:
        out.append(Diagnostic(d.message, d.location, d.severity))
        out.extend(flatten(d.notes))
    return out


def check(expectations: list[Expectation], diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Match ``diagnostics`` against ``expectations``; the failures, as diagnostics.

    An empty list means every diagnostic was expected and every expectation met.
    """
    failures: list[Diagnostic] = []
    for diag in flatten(diagnostics):
        near_miss = None
        for exp in expectations:
            if exp.at(diag) and exp.matches(diag.message):
                if exp.severity == diag.severity:
                    exp.matched = True
                    break
                near_miss = exp
        else:
            if near_miss is not None:
                failures.append(
                    Diagnostic(
                        f"'{diag.severity}' diagnostic emitted when expecting a '{near_miss.severity}'",
                        near_miss.location,
                    )
                )
            else:
                failures.append(Diagnostic(f"unexpected {diag.severity}: {diag.message}", diag.location))
    for exp in expectations:
        if not exp.matched:
            failures.append(
                Diagnostic(f'expected {exp.severity} "{exp.message}" was not produced', exp.location)
            )
    return failures
