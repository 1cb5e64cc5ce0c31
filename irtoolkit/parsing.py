"""Parsing MLIR text into a verified module, with every op located.

xDSL 0.74 leaves parsed ops at ``UnknownLoc`` and reports undefined values at
the end of input; this parser records ``file:line:col`` for each op and the
first use of each value that is never defined. It also:

* reports an error that xDSL raises as a plain exception while building an
  attribute, a type or an op (an attribute's verifier, a ``MemoryError``) at
  the start of that attribute, type or op, never at 1:1 or without a message;
* rejects dimensions that do not fit in a signed 64-bit integer, as MLIR does;
* keeps large splat dense literals (``dense<1.0> : tensor<100000000xf64>``)
  as one element (see :mod:`irtoolkit.dense`) instead of materializing every
  copy, and reads long lists of numbers in ``dense<[...]>`` in one pass;
* says what is wrong with ``1e5`` (MLIR float literals need a ``.``);
* parses a line that differs from an op parsed before only in its SSA names
  (``%v7 = arith.addf %v6, %x : f64`` after ``%v6 = arith.addf %v5, %x : f64``)
  without xDSL's generic machinery: see :class:`_OpTemplate`.

The module is parsed with Python's cyclic garbage collector paused (IR objects
all sit in cycles) and with xDSL's lexer sped up (:mod:`irtoolkit.xdsl_patches`).
"""

from __future__ import annotations

import bisect
import math
import re

from xdsl.context import Context
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    IntAttr,
    ModuleOp,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Operation, SSAValue
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

from irtoolkit import xdsl_patches
from irtoolkit.deepstack import run_with_deep_stack
from irtoolkit.dense import EXPAND_LIMIT, numbers_to_bytes, splat_dense
from irtoolkit.diagnostics import Diagnostic, DiagnosticError, Location, printable_name, register_source
from irtoolkit.gcpause import paused_gc

xdsl_patches.apply()

#: the largest dimension of a shaped type (MLIR: "invalid dimension" beyond)
MAX_DIM = (1 << 63) - 1

# `1e5`: an integer and an identifier for MLIR's lexer (floats need a '.')
_EXPONENT_IDENT = re.compile(r"[eE](?:[0-9]+)?$")
_NUMBER_BEFORE = re.compile(r"[0-9]+$")
_EXPONENT_LITERAL = re.compile(r"([0-9]+)([eE][-+]?[0-9]*)")
# characters of a plain list of decimal numbers in a dense literal; anything else
# (true, 0x.., a complex pair) takes xDSL's element-by-element path
_NUMBER_LIST_STOP = re.compile(r"[\[\]]|[^\[\]\s,0-9.eE+\-]")
#: lists shorter than this (characters) take xDSL's path: it is fast enough for them
_FAST_LIST_MIN = 2048

_new_loc = object.__new__
_set_field = object.__setattr__  # FileLineColLoc is a frozen dataclass

_SSA_NAME = re.compile(r"%(?:[0-9]+|[A-Za-z_$.\-][\w$.\-]*)")
_OP_NAME = re.compile(r"(?:%(?:\s*,\s*%)*\s*=\s*)?([\w.$]+)")
# lines that are not templates: attribute dicts and regions, strings, successors,
# result groups and aliases (#), explicit locations
_NOT_A_TEMPLATE = re.compile(r'[{}"^#]|\bloc\(')
_BLANK = re.compile(r"(?:\s+|//[^\n]*)*")

_BINDING = re.compile(r"Operation has ([0-9]+) results, but was given ([0-9]+) to bind")
# the op name after a result list: `%a, %b:2 = "name"` or `= name`
_OP_AFTER_RESULTS = re.compile(r'(?:%[^=]*)=\s*"?([A-Za-z_][A-Za-z0-9_$.]*)')


class _OpTemplate:
    """What parsing a one-line op without regions produced, apart from its SSA
    values: its class, result types, properties and attributes (immutable, shared),
    and the types its operands had. xDSL's parse of such a line is a function of
    the text (modulo SSA names), the enclosing dialects (``return`` means
    ``func.return`` in a function) and the operand types: a line whose text with
    the SSA names blanked out, dialect stack and operand types match a template
    gives the same op, built directly (about 5x faster than xDSL's declarative
    format interpreter, the bulk of parsing time in long programs). Anything
    else -- a forward reference, another operand type -- takes xDSL's path."""

    __slots__ = ("op_type", "result_types", "properties", "attributes", "operand_types", "n_bound")

    def __init__(self, op: Operation, n_bound: int):
        self.op_type = type(op)
        self.result_types = tuple(r.type for r in op.results)
        self.properties = dict(op.properties)
        self.attributes = dict(op.attributes)
        self.operand_types = tuple(v.type for v in op.operands)
        self.n_bound = n_bound


def _exception_message(err: BaseException) -> str:
    message = str(err).removeprefix("Operation does not verify: ")
    if isinstance(err, MemoryError):
        return "out of memory" + (f": {message}" if message else "")
    return message or type(err).__name__


class LocatedParser(Parser):
    def __init__(self, ctx: Context, text: str, name: str = "<stdin>", line_offset: int = 0,
                 templates: bool = True):
        super().__init__(ctx, text, name)
        self._use_templates = templates
        self._name = name
        self._line_offset = line_offset
        self._first_use: dict[str, Span] = {}
        self._defined_at: dict[str, Span] = {}
        self._text = text
        self._file_attr = StringAttr(name)
        self._ints: dict[int, IntAttr] = {}
        self._templates: dict[object, _OpTemplate] = {}
        # offsets of line starts: Span.get_location counts newlines from the
        # start of the input for every call, which is quadratic over a file
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def _line_col(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1

    def _location(self, offset: int) -> Location:
        line, col = self._line_col(offset)
        return Location(self._name, line + self._line_offset, col)

    def _error_from(self, start: int, err: Exception) -> ParseError:
        end = max(self._current_token.span.start, start + 1)
        return ParseError(Span(start, end, self.lexer.input), _exception_message(err))

    def _loc_attr(self, offset: int) -> FileLineColLoc:
        """``loc(file:line:col)`` of ``offset``, built without re-verifying its
        parts (a third of the time of parsing a simple op otherwise)."""
        line, col = self._line_col(offset)
        ints = self._ints
        line_attr = ints.get(line + self._line_offset)
        if line_attr is None:
            line_attr = ints[line + self._line_offset] = IntAttr(line + self._line_offset)
        col_attr = ints.get(col)
        if col_attr is None:
            col_attr = ints[col] = IntAttr(col)
        loc = _new_loc(FileLineColLoc)
        _set_field(loc, "filename", self._file_attr)
        _set_field(loc, "line", line_attr)
        _set_field(loc, "column", col_attr)
        return loc

    # -- operations ------------------------------------------------------------
    def parse_operation(self) -> Operation:
        token = self._current_token
        start = token.span.start
        text = self._text
        eol = text.find("\n", start)
        if eol < 0:
            eol = len(text)
        line = text[start:eol]
        comment = line.find("//")
        if comment >= 0 and '"' not in line:  # outside a string, `//` starts a comment
            line = line[:comment]
        key = None
        if self._use_templates and not _NOT_A_TEMPLATE.search(line):
            key = _SSA_NAME.sub("%", line).rstrip()
            name = _OP_NAME.match(key)
            if name is not None and "." not in name.group(1):
                # `return` means `func.return` in a function: the enclosing dialects count
                key = (key, *self._parser_state.dialect_stack)
            template = self._templates.get(key)
            if template is not None:
                op = self._from_template(template, start, line, eol)
                if op is not None:
                    return op
        if token.kind == MLIRTokenKind.BARE_IDENT:
            self._check_exponent_literal(token)
        try:
            op = super().parse_operation()
        except ParseError as err:
            raise self._binding_error(err, start) or err from None
        except (RecursionError, DiagnosticError):
            raise
        except Exception as err:  # xDSL builds some ops in ways that raise plain exceptions
            # (a VerifyException when a type breaks the op's constraints): at the op
            raise self._error_from(start, err) from None
        if isinstance(op.location, UnknownLoc):
            op.location = self._loc_attr(start)
        if key is not None:
            self._record_template(key, op, line, eol)
        return op

    def _record_template(self, key, op: Operation, line: str, eol: int) -> None:
        """Keep ``op`` (just parsed from ``line``) as a template if the line held
        exactly this op and its SSA names map onto its results and operands in order."""
        if op.regions or op.successors or _BLANK.match(self._text, eol).end() != self._current_token.span.start:
            return  # not exactly one op on this line
        names = _SSA_NAME.findall(line)
        n_bound = 0
        if line.startswith("%"):
            n_bound = _SSA_NAME.findall(line[:line.find("=")]).__len__() if "=" in line else -1
            if n_bound != len(op.results):
                return
        operands = names[n_bound:]
        if len(operands) != len(op.operands):
            return
        for name, value in zip(operands, op.operands):
            values = self.ssa_values.get(name[1:])
            if not values or values[0] is not value:
                return
        self._templates[key] = _OpTemplate(op, n_bound)

    def _from_template(self, template: _OpTemplate, start: int, line: str, eol: int) -> Operation | None:
        names = _SSA_NAME.findall(line)
        n_bound = template.n_bound
        operands = []
        ssa_values = self.ssa_values
        for name, want in zip(names[n_bound:], template.operand_types):
            values = ssa_values.get(name[1:])
            if not values or values[0].type != want:
                return None  # a forward reference or another type: xDSL's path
            operands.append(values[0])
        op = template.op_type.create(
            operands=operands, result_types=template.result_types,
            properties=dict(template.properties), attributes=dict(template.attributes),
            location=self._loc_attr(start),
        )
        if n_bound:
            source = self.lexer.input
            offsets = [m.start() for m in _SSA_NAME.finditer(line)] if n_bound > 1 else [0]
            for i in range(n_bound):
                span = Span(start + offsets[i], start + offsets[i] + len(names[i]), source)
                self._register_ssa_definition(names[i][1:], (op.results[i],), span)
        self._resume_from(eol)
        return op

    def _check_exponent_literal(self, token) -> None:
        """``arith.constant 1e5 : f64``: xDSL reads ``1`` and then an op named
        ``e5``; say that a float literal needs a ``.`` instead."""
        text = self.lexer.input.content
        start = token.span.start
        digits = _NUMBER_BEFORE.search(text, max(0, start - 64), start)
        if digits is None or not _EXPONENT_IDENT.match(token.text):
            return
        m = _EXPONENT_LITERAL.match(text, digits.start())
        assert m is not None
        literal = m.group()
        fixed = f"{m.group(1)}.0{m.group(2)}" + ("0" if m.group(2)[-1:] in "eE+-" else "")
        raise ParseError(Span(m.start(), m.end(), self.lexer.input),
                         f"'{literal}' is not a valid number: a float literal needs a '.' "
                         f"(as in {fixed})")

    # -- attributes and types --------------------------------------------------
    def _located(self, parse):
        """``parse()``, with a plain exception it raises (an attribute's own
        verifier, a ``MemoryError``) reported at the start of what it parsed."""
        start = self._current_token.span.start
        try:
            return parse()
        except (ParseError, RecursionError):
            raise
        except Exception as err:
            raise self._error_from(start, err) from None

    def parse_optional_attribute(self):
        return self._located(super().parse_optional_attribute)

    def parse_optional_type(self):
        return self._located(super().parse_optional_type)

    def parse_shape_dimension(self, allow_dynamic: bool = True) -> int:
        span = self._current_token.span
        dim = super().parse_shape_dimension(allow_dynamic)
        if dim > MAX_DIM:
            raise ParseError(span, f"invalid dimension: {dim} does not fit in a signed "
                                   "64-bit integer")
        return dim

    def parse_dense_int_or_fp_elements_attr(self, type):
        """xDSL's, except that a splat keeps one element, a long list of numbers is
        read in one pass, and sizes are checked before any data is replicated."""
        start = self._current_token.span.start
        if self.lexer.input.content[max(0, start - 5):start] == "dense":
            start -= 5  # errors about the elements point at `dense`
        self.parse_punctuation("<", " in dense attribute")
        empty = self.parse_optional_punctuation(">") is not None
        hex_text = literal = numbers = None
        list_start = self._current_token.span.start
        if not empty:
            hex_text = self.parse_optional_str_literal()
            if hex_text is None:
                numbers = self._parse_number_list()
                if numbers is None:
                    literal = self._parse_tensor_literal()
            self.parse_punctuation(">", " in dense attribute")
        parsed_type = type
        if parsed_type is None:
            self.parse_punctuation(":", " in dense attribute")
            parsed_type = self._parse_dense_literal_type()
        shape = list(parsed_type.get_shape())
        count = math.prod(shape)
        element = parsed_type.element_type
        if empty:
            if count != 0:
                self.raise_error("Expected at least one element in the dense literal, but got None")
            return DenseIntOrFPElementsAttr(parsed_type, BytesAttr(b""))
        if hex_text is not None:
            return self._dense_from_hex(parsed_type, hex_text, count)
        if numbers is not None:
            array, list_shape = numbers
            data = numbers_to_bytes(array, element) if list_shape == shape else None
            if data is not None:
                return DenseIntOrFPElementsAttr(parsed_type, BytesAttr(data))
            # a mismatch or values the element type cannot hold: xDSL's path says what
            self._resume_from(list_start)
            literal = self._parse_tensor_literal()
            self.parse_punctuation(">", " in dense attribute")
            if type is None:
                self.parse_punctuation(":", " in dense attribute")
                self._parse_dense_literal_type()
        assert literal is not None
        elements, literal_shape = literal
        try:
            values = [value.to_type(self, element) for value in elements]
        except AssertionError:  # xDSL asserts when a real number meets a complex type
            raise ParseError(Span(start, start + 5, self.lexer.input),
                             f"dense literal elements do not match the element type {element}") from None
        if not literal_shape:  # a splat: one element if the type has many (irtoolkit.dense)
            return splat_dense(parsed_type, values[0])
        if shape != literal_shape:
            self.raise_error(
                f"Shape mismatch in dense literal. Expected {shape} "
                f"shape from the type, but got {literal_shape} shape."
            )
        return DenseIntOrFPElementsAttr.from_list(parsed_type, values)

    def _dense_from_hex(self, type, hex_text: str, count: int) -> DenseIntOrFPElementsAttr:
        try:
            data = bytes.fromhex(hex_text[2:])
        except ValueError:
            self.raise_error("Hex string in denseAttr is invalid")
        size = type.element_type.compile_time_size
        if len(data) == size and count != 1:  # a splat given in hex
            return DenseIntOrFPElementsAttr(type, BytesAttr(data * count if count <= EXPAND_LIMIT else data))
        if len(data) != count * size:
            self.raise_error(
                f"Shape mismatch in dense literal. Expected {count} "
                f"elements from the type, but got {len(data) / size:g} elements."
            )
        return DenseIntOrFPElementsAttr(type, BytesAttr(data))

    def _parse_number_list(self):
        """A long ``[..]`` of decimal numbers as a numpy array and its shape, read
        with the JSON decoder (C) instead of token by token; None (nothing
        consumed) when the literal is short or not such a list."""
        if self._current_token.kind != MLIRTokenKind.L_SQUARE:
            return None
        text = self.lexer.input.content
        start = self._current_token.span.start
        depth = 0
        end = -1
        for m in _NUMBER_LIST_STOP.finditer(text, start):
            c = m.group()
            if c == "[":
                depth += 1
            elif c == "]":
                depth -= 1
                if depth == 0:
                    end = m.end()
                    break
            else:
                return None
        if end < 0 or end - start < _FAST_LIST_MIN:
            return None
        import json

        import numpy as np

        try:
            array = np.array(json.loads(text[start:end]))
        except (ValueError, RecursionError):
            return None
        if array.dtype.kind not in "if" or array.ndim == 0:
            return None
        self._resume_from(end)
        return array, list(array.shape)

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

    # -- values ------------------------------------------------------------------
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
    return DiagnosticError(Diagnostic(_mlir_wording(err.msg) or "invalid input",
                                      Location(name, loc.line + line_offset, loc.col)))


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
    A file name that is not valid UTF-8 is shown with its bad bytes escaped.
    """
    from irtoolkit.context import context as make_context

    if not isinstance(text, str):
        raise TypeError(f"parse_module expects the program's text as str, got {type(text).__name__}")
    filename = printable_name(filename)
    register_source(filename, text if line_offset == 0 else "\n" * line_offset + text)
    ctx = ctx or make_context()
    parser: LocatedParser | None = None
    try:
        try:
            with paused_gc():
                parser = LocatedParser(ctx, text, filename, line_offset)
                module = parser.parse_module()
        except RecursionError:
            parser = LocatedParser(ctx, text, filename, line_offset)
            module = _parse_deeply_nested(parser)
    except ParseError as err:
        raise parse_error_to_diagnostic(err, filename, line_offset) from None
    except DiagnosticError:
        raise
    except Exception as err:  # xDSL raises plain exceptions for some malformed input
        where = Location(filename, 1 + line_offset, 1)
        if parser is not None:
            line, col = parser._line_col(parser._current_token.span.start)
            where = Location(filename, line + line_offset, col)
        raise DiagnosticError(Diagnostic(_exception_message(err), where)) from None
    if verify:
        from irtoolkit.verifier import verify_module

        with paused_gc():  # (its caches and walks allocate; the module is all cycles)
            verify_module(module)
    return module


# The parser recurses once per nested region; deep programs get a thread with
# a large stack rather than a RecursionError.
def _parse_deeply_nested(parser: LocatedParser) -> ModuleOp:
    try:
        with paused_gc():
            return run_with_deep_stack(parser.parse_module)
    except RecursionError:
        raise DiagnosticError(Diagnostic("program nested too deeply to parse")) from None
