"""Module text as the tools print it: xDSL's printer, plus mlir-opt's
``--mlir-elide-elementsattrs-if-larger`` (large constants shown as
``dense_resource<__elided__>``, as mlir-opt does, so that IR dumps stay readable),
and a direct path for the ops that make up nearly all of a lowered module's
text (llvm float arithmetic and direct calls), whose text is xDSL's to the byte."""

from __future__ import annotations

import io
import sys
from dataclasses import dataclass, field
from functools import cache

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FunctionType, SymbolRefAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.printer import Printer


@dataclass(eq=False, repr=False)
class ElidingPrinter(Printer):
    """A Printer that elides dense elements attributes with more than
    ``elide_larger`` elements (splats are short and always printed).

    The common ops of a lowered module (see ``_DIRECT``) in their plain form
    (no attribute dictionary, no flags) are written as one string each, with
    the text of their types and callees kept per attribute object; any other
    op, and every op when printing generically, with debug info or with
    diagnostics attached, goes through xDSL's printing."""

    elide_larger: int | None = None
    # id(attribute) -> (attribute, its text): the attribute is kept so that its id stays its own
    _attribute_texts: dict[int, tuple[Attribute, str]] = field(default_factory=dict, init=False)
    _segment_texts: dict[int, tuple[Attribute, tuple]] = field(default_factory=dict, init=False)
    # form of a call (property names, ids of property values and types) -> text around its
    # argument names, or None, with the attributes it is made of (``_call_text``)
    _call_forms: dict[tuple, tuple] = field(default_factory=dict, init=False)
    _plain_flags: Attribute | None = field(default=None, init=False)  # fastmath flags found plain

    def print_attribute(self, attribute: Attribute) -> None:
        if (
            self.elide_larger is not None
            and isinstance(attribute, DenseIntOrFPElementsAttr)
            and not attribute.is_splat()
            and attribute.get_type().element_count() > self.elide_larger
        ):
            self.print_string("dense_resource<__elided__> : ")
            super().print_attribute(attribute.get_type())
            return
        super().print_attribute(attribute)

    def _writes_directly(self) -> bool:
        """Whether ops may be written as their direct texts: not when printing
        generically, with debug info or with diagnostics attached."""
        return not (self.print_generic_format or self.print_debuginfo or self.diagnostic.op_messages)

    def print_op(self, op: Operation) -> None:
        direct = _DIRECT.get(op.name)
        if direct is None or not self._writes_directly():
            super().print_op(op)
            return
        text = direct(self, op)
        if text is None:  # not in the plain form
            super().print_op(op)
            return
        self.print_string(text)

    def print_block(self, block: Block, print_block_args: bool = True,
                    print_block_terminator: bool = True) -> None:
        """xDSL's ``print_block``, with the runs of ops that have a direct text
        (nearly all of a lowered module's) written at once: one string per run,
        the newlines and indentation as ``_print_new_line`` writes them."""
        if not print_block_terminator or not self._writes_directly():
            super().print_block(block, print_block_args, print_block_terminator)
            return
        if print_block_args:  # (as xDSL's)
            self._print_new_line()
            if block not in self._blocks:
                self._populate_block_name(block)
            self.print_block_name(block)
            if len(block.args) != 0:
                with self.in_parens():
                    self.print_list(block.args, self.print_block_argument)
            self.print_string(":")
        with self.indented():
            indent = " " * (self._indent * self.indent_num_spaces)
            newline = "\n" + indent
            run: list[str] = []  # texts of the ops not written yet
            for op in block.ops:
                direct = _DIRECT.get(op.name)
                text = None if direct is None else direct(self, op)
                if text is not None and not self._next_line_callback:
                    run.append(text)
                    continue
                if run:
                    self._write_lines(run, newline)
                self._print_new_line()
                if text is None:
                    super().print_op(op)
                else:
                    self.print_string(text)
            if run:
                self._write_lines(run, newline)

    def _write_lines(self, texts: list[str], newline: str) -> None:
        """Each of ``texts`` on a new line (``_print_new_line``, then the text), and ``texts`` emptied."""
        stream = self.stream
        (sys.stdout if stream is None else stream).write(newline + newline.join(texts))
        self._current_line += len(texts)
        self._current_column = len(newline) - 1 + len(texts[-1])
        texts.clear()

    def _attribute_text(self, attribute: Attribute) -> str | None:
        """What ``print_attribute`` prints for ``attribute`` (None: text over lines)."""
        entry = self._attribute_texts.get(id(attribute))
        if entry is not None and entry[0] is attribute:
            return entry[1]
        stream, column = self.stream, self._current_column
        self.stream = buf = io.StringIO()
        try:
            self.print_attribute(attribute)
        finally:
            self.stream, self._current_column = stream, column
        text = buf.getvalue()
        if "\n" in text:
            return None
        self._attribute_texts[id(attribute)] = (attribute, text)
        return text

    def _segment_sizes(self, sizes: Attribute | None) -> tuple[int, ...] | None:
        """The values of an ``operandSegmentSizes`` property, read once per attribute object."""
        if sizes is None:
            return None
        entry = self._segment_texts.get(id(sizes))
        if entry is not None and entry[0] is sizes:
            return entry[1]
        values = tuple(sizes.get_values())
        self._segment_texts[id(sizes)] = (sizes, values)
        return values

    def _ssa_name(self, value: SSAValue) -> str:
        """``print_ssa_value``'s name for ``value`` (assigned as it assigns it), unprinted."""
        name = self._ssa_values.get(value)
        if name is not None:
            return name
        hint = value.name_hint
        if hint:
            names = self._ssa_names[-1]
            index = names.get(hint, 0)
            name = f"{hint}_{index}" if index != 0 else hint
            names[hint] = index + 1
        else:  # (``_get_new_valid_name_id``, inlined: most values of a lowered module have no hint)
            ids = self._next_valid_name_id
            name = str(ids[-1])
            ids[-1] += 1
        self._ssa_values[value] = name
        return name


@cache
def _no_fastmath() -> Attribute:
    """llvm's ``fastmathFlags`` property of no flags (the dialect is loaded once an
    op of it is printed: printing a module without one does not import it)."""
    from xdsl.dialects import llvm

    return llvm.FastMathAttr(None)


def _float_arith_text(printer: ElidingPrinter, op: Operation) -> str | None:
    """``%r = llvm.fmul %a, %b : f64`` (format ``$lhs `,` $rhs attr-dict `:` type($lhs)``)."""
    props = op.properties
    if op.attributes or len(props) != 1 or len(op._operands) != 2 or len(op.results) != 1:
        return None
    flags = props.get("fastmathFlags")
    if flags is not printer._plain_flags:
        if flags != _no_fastmath():
            return None
        printer._plain_flags = flags  # (the ops of a module share a few flags attributes)
    lhs, rhs = op._operands
    t = lhs.type
    entry = printer._attribute_texts.get(id(t))  # (``_attribute_text``'s first test inlined)
    ty = entry[1] if entry is not None and entry[0] is t else printer._attribute_text(t)
    if ty is None:
        return None
    # names in xDSL's order: the result, then the operands (named before, but for a
    # use before its definition)
    (result,) = op.results
    res = printer._ssa_name(result)
    names = printer._ssa_values
    a = names.get(lhs) or printer._ssa_name(lhs)
    b = names.get(rhs) or printer._ssa_name(rhs)
    return f"%{res} = {op.name} %{a}, %{b} : {ty}"


_CALL_PROPERTIES = frozenset(("callee", "fastmathFlags", "CConv", "TailCallKind", "op_bundle_sizes",
                              "operandSegmentSizes"))


def _call_text(printer: ElidingPrinter, op: Operation) -> str | None:
    """``%r = llvm.call @f(%a) : (f64) -> f64``: a direct call with the
    default convention, tail-call kind and fastmath flags, no operand
    bundles and no other attribute (``CallOp.print``).

    The text around the argument names is made once per form of call (its
    property names, property values and types, by identity: a module's calls
    share the attributes of a few forms)."""
    results = op.results
    if op.attributes or len(results) > 1:
        return None
    props = op.properties
    args = op._operands
    types = [a.type for a in args]
    if results:
        types.append(results[0].type)
    key = (tuple(props), len(args), *map(id, props.values()), *map(id, types))
    form = printer._call_forms.get(key)
    if form is None:
        # (the attributes kept with it: their ids stay their own)
        form = printer._call_forms[key] = (_call_form(printer, props, len(args), types),
                                           tuple(props.values()), types)
    around = form[0]
    if around is None:
        return None
    # (xDSL names the result before the arguments)
    head = f"%{printer._ssa_name(results[0])} = " if results else ""
    values = printer._ssa_values
    names = ", ".join(["%" + (values.get(a) or printer._ssa_name(a)) for a in args])
    return f"{head}{around[0]}{names}{around[1]}"


def _call_form(printer: ElidingPrinter, props: dict[str, Attribute], n_args: int,
               types: list[Attribute]) -> tuple[str, str] | None:
    """The text of a call of these properties and types before and after its
    argument names; None if it is not in the plain form."""
    from xdsl.dialects import llvm

    callee = props.get("callee")
    if type(callee) is not SymbolRefAttr or callee.nested_references.data or not _CALL_PROPERTIES.issuperset(props):
        return None
    cconv, tail, fastmath = props.get("CConv"), props.get("TailCallKind"), props.get("fastmathFlags")
    if (cconv is None or cconv.convention.data != "ccc" or tail is None
            or tail.data != llvm.TailCallKind.NONE or fastmath != _no_fastmath()
            or printer._segment_sizes(props.get("operandSegmentSizes")) != (n_args, 0)):
        return None  # (the last: operand bundles, or the segments cannot be told)
    if len(types) > n_args and isinstance(types[-1], FunctionType):
        return None
    texts = [printer._attribute_text(t) for t in (callee, *types)]
    if None in texts:
        return None
    ret_text = texts[-1] if len(types) > n_args else "()"
    return f"llvm.call {texts[0]}(", f") : ({', '.join(texts[1:1 + n_args])}) -> {ret_text}"


#: the ops printed directly, by name: an op named so is the llvm dialect's (the
#: context registers it), and this module need not import the dialect
_DIRECT = {name: _float_arith_text for name in ("llvm.fadd", "llvm.fsub", "llvm.fmul", "llvm.fdiv",
                                                 "llvm.frem")}
_DIRECT["llvm.call"] = _call_text


def module_text(op: Operation, generic: bool = False, debuginfo: bool = False,
                elide_elements_larger: int | None = None) -> str:
    """The text of ``op`` (a module), ending in a newline."""
    buf = io.StringIO()
    printer = ElidingPrinter(stream=buf, print_generic_format=generic, print_debuginfo=debuginfo,
                             elide_larger=elide_elements_larger)
    printer.print_op(op)
    buf.write("\n")
    return buf.getvalue()
