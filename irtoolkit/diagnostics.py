"""Located diagnostics: ``file:line:col: error: message``, the source line, a caret.

A leaf module: any layer may raise :class:`DiagnosticError`. The parser
registers each source text it reads, so that a diagnostic that only knows an
op's location can still show the offending line.
"""

from __future__ import annotations

import re

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xdsl.ir import Operation

# filename -> text of every source parsed in this process (for carets).
_SOURCES: dict[str, str] = {}


def printable_name(name: str) -> str:
    """``name`` as valid UTF-8 text: the bytes of a file name that is not UTF-8
    (which Python decodes to lone surrogates) are shown escaped, ``bad\\xff.mlir``."""
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        try:
            raw = name.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            return name.encode("utf-8", "backslashreplace").decode("utf-8")
        return raw.decode("utf-8", "backslashreplace")


def register_source(filename: str, text: str) -> None:
    _SOURCES[filename] = text


def source_line(filename: str, line: int) -> str | None:
    text = _SOURCES.get(filename)
    if text is None:
        return None
    lines = text.splitlines()
    return lines[line - 1] if 0 < line <= len(lines) else None


@dataclass(frozen=True)
class Location:
    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass
class Diagnostic:
    message: str
    location: Location | None = None
    severity: str = "error"  # error | warning | note
    notes: list[Diagnostic] = field(default_factory=list)

    def format(self) -> str:
        head = f"{self.severity}: {self.message}"
        if self.location is None:
            text = head
        else:
            text = f"{self.location}: {head}"
            line = source_line(self.location.file, self.location.line)
            if line is not None:
                text += "\n" + line + "\n" + " " * (self.location.col - 1) + "^"
        for note in self.notes:
            text += "\n" + note.format()
        return text


class DiagnosticError(Exception):
    """An error the user caused, reported as located diagnostics, never a traceback."""

    def __init__(self, diagnostics: Diagnostic | list[Diagnostic]):
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics = diagnostics
        super().__init__(self.format())

    def format(self) -> str:
        return "\n".join(d.format() for d in self.diagnostics)

    @property
    def message(self) -> str:
        return self.diagnostics[0].message

    @property
    def location(self) -> Location | None:
        return self.diagnostics[0].location


def location_of(op: Operation | None) -> Location | None:
    """The source location of ``op``, or of its nearest located ancestor."""
    from xdsl.dialects.builtin import FileLineColLoc

    while op is not None:
        loc = op.location
        if isinstance(loc, FileLineColLoc):
            return Location(loc.filename.data, loc.line.data, loc.column.data)
        op = op.parent_op()
    return None


_OP_PREFIXED = re.compile(r"'[\w.$-]+' op ")


def op_error(op: Operation, message: str, severity: str = "error") -> DiagnosticError:
    """A diagnostic located at ``op``, MLIR-style: ``'tensor.add' op <message>``."""
    if not _OP_PREFIXED.match(message):
        message = f"'{op.name}' op {message}"
    return DiagnosticError(Diagnostic(message, location_of(op), severity))


def inherit_location(new_ops, old: Operation) -> None:
    """Give ops created by a pass the location of the op they come from."""
    from xdsl.ir import Operation

    if isinstance(new_ops, Operation):
        new_ops = [new_ops]
    for new in new_ops:
        for nested in new.walk():
            nested.location = old.location
