"""Module text as the tools print it: xDSL's printer, plus mlir-opt's
``--mlir-elide-elementsattrs-if-larger`` (large constants shown as
``dense_resource<__elided__>``, as mlir-opt does, so that IR dumps stay readable),
and a direct path for the ops that make up nearly all of a lowered module's
text (llvm float arithmetic and direct calls), whose text is xDSL's to the byte."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from functools import cache

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FunctionType, SymbolRefAttr
from xdsl.ir import Attribute, Operation, SSAValue
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

    def print_op(self, op: Operation) -> None:
        direct = _DIRECT.get(op.name)
        if (direct is None or self.print_generic_format or self.print_debuginfo
                or self.diagnostic.op_messages):
            super().print_op(op)
            return
        text = direct(self, op)
        if text is None:  # not in the plain form
            super().print_op(op)
            return
        self.print_string(text)

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
        else:
            name = self._get_new_valid_name_id()
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
    if (op.attributes or len(props) != 1 or props.get("fastmathFlags") != _no_fastmath()
            or len(op._operands) != 2 or len(op.results) != 1):
        return None
    lhs, rhs = op._operands
    ty = printer._attribute_text(lhs.type)
    if ty is None:
        return None
    # names in xDSL's order: the result, then the operands
    (result,) = op.results
    res = printer._ssa_name(result)
    return f"%{res} = {op.name} %{printer._ssa_name(lhs)}, %{printer._ssa_name(rhs)} : {ty}"


_CALL_PROPERTIES = frozenset(("callee", "fastmathFlags", "CConv", "TailCallKind", "op_bundle_sizes",
                              "operandSegmentSizes"))


def _call_text(printer: ElidingPrinter, op: Operation) -> str | None:
    """``%r = llvm.call @f(%a) : (f64) -> f64``: a direct call with the
    default convention, tail-call kind and fastmath flags, no operand
    bundles and no other attribute (``CallOp.print``)."""
    from xdsl.dialects import llvm

    props = op.properties
    callee = props.get("callee")
    if (op.attributes or type(callee) is not SymbolRefAttr or callee.nested_references.data
            or not _CALL_PROPERTIES.issuperset(props) or len(op.results) > 1):
        return None
    cconv, tail, fastmath = props.get("CConv"), props.get("TailCallKind"), props.get("fastmathFlags")
    args = op._operands
    if (cconv is None or cconv.convention.data != "ccc" or tail is None
            or tail.data != llvm.TailCallKind.NONE or fastmath != _no_fastmath()
            or printer._segment_sizes(props.get("operandSegmentSizes")) != (len(args), 0)):
        return None  # (the last: operand bundles, or the segments cannot be told)
    results = op.results
    texts = [printer._attribute_text(callee)]
    texts.extend(printer._attribute_text(a.type) for a in args)
    if results:
        ret = results[0].type
        if isinstance(ret, FunctionType):
            return None
        texts.append(printer._attribute_text(ret))
    if None in texts:
        return None
    n = len(args)
    # (xDSL names the result before the arguments)
    head = f"%{printer._ssa_name(results[0])} = " if results else ""
    names = ", ".join(["%" + printer._ssa_name(a) for a in args])
    ret_text = texts[-1] if op.results else "()"
    return f"{head}llvm.call {texts[0]}({names}) : ({', '.join(texts[1:1 + n])}) -> {ret_text}"


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
