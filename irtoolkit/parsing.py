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
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Span

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

_BINDING = re.compile(r"Operation has ([0-9]+) results, but was given ([0-9]+) to bind")
# the op name after a result list: `%a, %b:2 = "name"` or `= name`
_OP_AFTER_RESULTS = re.compile(r'(?:%[^=]*)=\s*"?([A-Za-z_][A-Za-z0-9_$.]*)')


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


def _patch_spaced_dimension_lists() -> None:
    """`tensor<42 x i32>` is MLIR (spaces around `x`); xDSL 0.74 gives a trailing
    `x` back by stepping one character back, which loses an `x` followed by a
    space. The same loop, giving the `x` back from where it started."""
    from xdsl.parser.attribute_parser import AttrParser
    from xdsl.utils.mlir_lexer import MLIRTokenKind

    dims_kinds = (MLIRTokenKind.INTEGER_LIT, MLIRTokenKind.QUESTION)

    def parse_dimension_list(self) -> list[int]:
        if self._current_token.kind not in dims_kinds:
            return []
        dims = [self.parse_shape_dimension()]
        while True:
            x_start = self._current_token.span.start
            if self._parse_optional_shape_delimiter() is None:
                break
            if self._current_token.kind not in dims_kinds:
                self._resume_from(x_start)
                break
            dims.append(self.parse_shape_dimension())
        return dims

    AttrParser.parse_dimension_list = parse_dimension_list


_patch_spaced_dimension_lists()


class LocatedParser(Parser):
    def __init__(self, ctx: Context, text: str, name: str = "<stdin>", line_offset: int = 0):
        super().__init__(ctx, text, name)
        self._name = name
        self._line_offset = line_offset
        self._first_use: dict[str, Span] = {}
        self._defined_at: dict[str, Span] = {}
        # offsets of line starts: Span.get_location counts newlines from the
        # start of the input for every call, which is quadratic over a file
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def _line_col(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1

    def _location(self, offset: int) -> Location:
        line, col = self._line_col(offset)
        return Location(self._name, line + self._line_offset, col)

    def parse_operation(self) -> Operation:
        start_span = self._current_token.span
        start = start_span.start
        try:
            op = super().parse_operation()
        except ParseError as err:
            raise self._binding_error(err, start) or err from None
        except VerifyException as err:
            # xDSL checks types against the op's constraints while parsing and
            # raises a bare VerifyException, which would be reported at 1:1
            raise ParseError(start_span, str(err)) from None
        if isinstance(op.location, UnknownLoc):
            line, col = self._line_col(start)
            op.location = FileLineColLoc(
                StringAttr(self._name), IntAttr(line + self._line_offset), IntAttr(col)
            )
        return op

    def _binding_error(self, err: ParseError, start: int) -> DiagnosticError | None:
        """xDSL's "Operation has N results, but was given M to bind", saying which op."""
        m = _BINDING.match(err.msg)
        if m is None:
            return None
        found = _OP_AFTER_RESULTS.match(self.lexer.input.content, start)
        name = f" '{found.group(1)}'" if found else ""
        defined = int(m.group(1))
        return DiagnosticError(Diagnostic(
            f"operation{name} defines {defined} result{'s' if defined != 1 else ''} "
            f"but was provided {m.group(2)} to bind", self._location(start)))

    def resolve_operand(self, operand, type) -> SSAValue:
        name = operand.operand_name
        prior = self._prior_value(name, operand.index)
        if prior is not None and prior.type != type:
            # as mlir-opt: the use, and a note at the definition (or first use)
            where = self._defined_at.get(name) or self._first_use.get(name)
            notes = [] if where is None else [Diagnostic("prior use here", self._location(where.start), "note")]
            raise DiagnosticError(Diagnostic(
                f"use of value '%{name}' expects different type than prior uses: '{type}' vs "
                f"'{prior.type}'", self._location(operand.span.start), notes=notes))
        if name not in self.ssa_values and name not in self._first_use:
            self._first_use[name] = operand.span
        return super().resolve_operand(operand, type)

    def _prior_value(self, name: str, index: int) -> SSAValue | None:
        values = self.ssa_values.get(name)
        if values is not None:
            return values[index] if index < len(values) else None
        return self.forward_ssa_references.get(name, {}).get(index)

    def _register_ssa_definition(self, name: str, values, span) -> None:
        for index, used in self.forward_ssa_references.get(name, {}).items():
            if index < len(values) and used.type != values[index].type:
                shown = f"%{name}" if len(values) == 1 else f"%{name}#{index}"
                first = self._first_use.get(name)
                notes = [] if first is None else [Diagnostic(
                    f"previously used here with type '{used.type}'", self._location(first.start), "note")]
                raise DiagnosticError(Diagnostic(
                    f"definition of SSA value '{shown}' has type '{values[index].type}'",
                    self._location(span.start), notes=notes))
        super()._register_ssa_definition(name, values, span)
        self._defined_at[name] = span

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
    return DiagnosticError(Diagnostic(_mlir_wording(err.msg), Location(name, loc.line + line_offset, loc.col)))


def _mlir_wording(msg: str) -> str:
    """xDSL's parser says "Expected ':'", MLIR's "expected ':'" (which
    `// expected-error {{expected ':'}}` in upstream's tests matches)."""
    return "e" + msg[1:] if msg.startswith("Expected ") else msg


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
