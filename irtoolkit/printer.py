"""Module text as the tools print it: xDSL's printer, plus mlir-opt's
``--mlir-elide-elementsattrs-if-larger`` (large constants shown as
``dense_resource<__elided__>``, as mlir-opt does, so that IR dumps stay readable)."""

from __future__ import annotations

import io
from dataclasses import dataclass

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.ir import Attribute, Operation
from xdsl.printer import Printer


@dataclass(eq=False, repr=False)
class ElidingPrinter(Printer):
    """A Printer that elides dense elements attributes with more than
    ``elide_larger`` elements (splats are short and always printed)."""

    elide_larger: int | None = None

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


def module_text(op: Operation, generic: bool = False, debuginfo: bool = False,
                elide_elements_larger: int | None = None) -> str:
    """The text of ``op`` (a module), ending in a newline."""
    buf = io.StringIO()
    printer = ElidingPrinter(stream=buf, print_generic_format=generic, print_debuginfo=debuginfo,
                             elide_larger=elide_elements_larger)
    printer.print_op(op)
    buf.write("\n")
    return buf.getvalue()
