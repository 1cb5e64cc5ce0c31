"""Parsing MLIR text into a verified module, with every op located.

xDSL 0.74 leaves parsed ops at ``UnknownLoc`` and reports undefined values at
the end of input; this parser records ``file:line:col`` for each op and the
first use of each value that is never defined.
"""

from __future__ import annotations

import bisect
import re

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Operation, SSAValue
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError

from irtoolkit.deepstack import run_with_deep_stack
from irtoolkit.gcpause import paused_gc
from irtoolkit.diagnostics import Diagnostic, DiagnosticError, Location, register_source


def _patch_string_literal_regex() -> None:
    """xDSL's string-literal regex backtracks exponentially on an unterminated
    string (`(a+)*` shape); the possessive form accepts the same strings."""
    from xdsl.utils.mlir_lexer import MLIRLexer

    MLIRLexer._unescaped_characters_regex = re.compile(
        r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"'
    )


_patch_string_literal_regex()


def _patch_hex_float_literals() -> None:
    """In `dense<0xFF800000> : tensor<f32>` the hex literal is the bit pattern of
    the float (MLIR's rule, and how xDSL itself prints inf and NaN); xDSL 0.74
    reads it as the integer 4286578688 converted to float."""
    from xdsl.dialects.builtin import AnyFloat
    from xdsl.parser.attribute_parser import AttrParser

    element = AttrParser._TensorLiteralElement
    to_type = element.to_type

    def hex_aware_to_type(self, parser, type):
        text = self.span.text
        if isinstance(type, AnyFloat) and text[:2] in ("0x", "0X") and isinstance(self.value, int):
            raw = self.value.to_bytes(type.compile_time_size, "little")
            return next(type.iter_unpack(raw))
        return to_type(self, parser, type)

    element.to_type = hex_aware_to_type


_patch_hex_float_literals()


class LocatedParser(Parser):
    def __init__(self, ctx: Context, text: str, name: str = "<stdin>", line_offset: int = 0):
        super().__init__(ctx, text, name)
        self._name = name
        self._line_offset = line_offset
        self._first_use: dict[str, object] = {}
        # offsets of line starts: Span.get_location counts newlines from the
        # start of the input for every call, which is quadratic over a file
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def _line_col(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1

    def parse_operation(self) -> Operation:
        start = self._current_token.span.start
        op = super().parse_operation()
        if isinstance(op.location, UnknownLoc):
            line, col = self._line_col(start)
            op.location = FileLineColLoc(
                StringAttr(self._name), IntAttr(line + self._line_offset), IntAttr(col)
            )
        return op

    def resolve_operand(self, operand, type) -> SSAValue:
        name = operand.operand_name
        if name not in self.ssa_values and name not in self._first_use:
            self._first_use[name] = operand.span
        return super().resolve_operand(operand, type)

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        from xdsl.utils.mlir_lexer import MLIRTokenKind

        if allow_implicit_module and self._current_token.kind == MLIRTokenKind.EOF:
            return ModuleOp([])  # an empty input (or chunk) is an empty module, as in MLIR
        try:
            return super().parse_module(allow_implicit_module)
        except ParseError as err:
            undefined = [n for n in self.forward_ssa_references if n in self._first_use]
            if err.msg.startswith("values used but not defined") and undefined:
                span = self._first_use[undefined[0]]
                raise ParseError(span, f"use of undeclared SSA value name '%{undefined[0]}'") from None
            raise


def parse_error_to_diagnostic(err: ParseError, name: str, line_offset: int = 0) -> DiagnosticError:
    loc = err.span.get_location()
    return DiagnosticError(Diagnostic(err.msg, Location(name, loc.line + line_offset, loc.col)))


def parse_module(
    text: str,
    filename: str = "<stdin>",
    ctx: Context | None = None,
    verify: bool = True,
    line_offset: int = 0,
) -> ModuleOp:
    """Parse (and by default verify) ``text``; errors raise DiagnosticError.

    ``line_offset`` shifts reported lines, for chunks of a split input file.
    """
    from irtoolkit.context import context as make_context

    register_source(filename, text if line_offset == 0 else "\n" * line_offset + text)
    ctx = ctx or make_context()
    try:
        try:
            with paused_gc():
                module = LocatedParser(ctx, text, filename, line_offset).parse_module()
        except RecursionError:
            module = _parse_deeply_nested(ctx, text, filename, line_offset)
    except ParseError as err:
        raise parse_error_to_diagnostic(err, filename, line_offset) from None
    except DiagnosticError:
        raise
    except Exception as err:  # xDSL raises plain exceptions for some malformed input
        raise DiagnosticError(Diagnostic(f"parse error: {err}", Location(filename, 1 + line_offset, 1))) from None
    if verify:
        from irtoolkit.verifier import verify_module

        verify_module(module)
    return module


# The parser recurses once per nested region; deep programs get a thread with
# a large stack rather than a RecursionError.
def _parse_deeply_nested(ctx: Context, text: str, filename: str, line_offset: int) -> ModuleOp:
    try:
        return run_with_deep_stack(lambda: LocatedParser(ctx, text, filename, line_offset).parse_module())
    except RecursionError:
        raise DiagnosticError(Diagnostic("program nested too deeply to parse")) from None
