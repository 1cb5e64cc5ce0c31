"""Pass pipelines: text -> passes, and running them with verify-each.

Accepts the flat form (``ad{checkpoint=sqrt},canonicalize``), named pipelines
(``lower-to-llvm{blas=false}``) and MLIR's nested form
(``builtin.module(ad,func.func(canonicalize))``); our passes all work on the
whole module, so an anchor like ``func.func(...)`` applies its passes there.

A pass's options are its dataclass fields (xDSL's convention), written in
kebab-case (``max-iterations``); ``option()`` gives a field its help text and,
for a word-valued option, the words it accepts. The whole pipeline text is
checked when it is parsed, before any pass runs: an unknown pass or option, or
a value of the wrong kind, is a diagnostic pointing into the pipeline text
(``<pass-pipeline>:1:4``, as mlir-opt's "MLIR Textual PassPipeline Parser").
"""

from __future__ import annotations

import dataclasses
import difflib
import re
import time
import types
import typing
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from irtoolkit.diagnostics import Diagnostic, DiagnosticError, Location, register_source

if TYPE_CHECKING:  # cheap to import: the tools read options before loading xDSL
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass

# The name under which pipeline texts are registered for diagnostics (and carets).
PIPELINE_SOURCE = "<pass-pipeline>"


def _pipeline_error(message: str) -> DiagnosticError:
    return DiagnosticError(Diagnostic(message))


def did_you_mean(word: str, candidates: Sequence[str]) -> str:
    """``"; did you mean 'x'?"`` for the closest candidate, or ``""``."""
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


# ---------------------------------------------------------------------------
# options: declared once, as dataclass fields of the pass


def option(default: Any, help: str, *, values: tuple[str, ...] = (), minimum: int | None = None) -> Any:
    """A pass option: a dataclass field with its help text.

    ``values``: the words a string option accepts (checked, and offered as
    corrections); ``minimum``: the least integer accepted.
    """
    return field(default=default, metadata={"help": help, "values": values, "minimum": minimum})


_KIND_NAMES = {bool: "bool", int: "int", float: "number", str: "string"}


@dataclass(frozen=True)
class PassOption:
    """One option of a pass, as written in a pipeline (``name`` in kebab-case)."""

    name: str
    attr: str  # the dataclass field
    kinds: tuple[type, ...]  # among bool, int, float, str
    optional: bool  # unset (None) is a value
    default: Any
    help: str = ""
    values: tuple[str, ...] = ()
    minimum: int | None = None

    def expected(self) -> str:
        """What the option takes, in words (``true or false``, ``sqrt or an integer``)."""
        parts: list[str] = [f"'{v}'" for v in self.values]
        for kind in self.kinds:
            if kind is bool:
                parts.append("true or false")
            elif kind is int:
                parts.append("an integer" if self.minimum is None else f"an integer >= {self.minimum}")
            elif kind is float:
                parts.append("a number")
            elif kind is str and not self.values:
                parts.append("a string")
        return " or ".join(parts) if len(parts) < 3 else ", ".join(parts[:-1]) + " or " + parts[-1]

    def metavar(self) -> str:
        words = list(self.values)
        words += [f"<{_KIND_NAMES[k]}>" for k in self.kinds if not (k is str and self.values)]
        return "|".join(words)

    def convert(self, raw: str | None) -> Any:
        """The value of ``raw`` (None: the option written without ``=``); ValueError
        with a message for a value of the wrong kind."""
        if raw is None:
            if bool in self.kinds:
                return True  # `{parallel}` turns a flag on, as in MLIR
            if self.optional:
                return None
            raise ValueError(f"option '{self.name}' needs a value ({self.expected()})")
        if raw in self.values:
            return raw
        for kind in self.kinds:
            if kind is bool and raw.lower() in ("true", "false", "1", "0"):
                return raw.lower() in ("true", "1")
            if kind is int and re.fullmatch(r"[-+]?[0-9]+", raw):
                value = int(raw)
                if self.minimum is not None and value < self.minimum:
                    break
                return value
            if kind is float:
                try:
                    return float(raw)
                except ValueError:
                    pass
            if kind is str and not self.values:
                return raw
        raise ValueError(f"invalid value '{raw}' for option '{self.name}': expected "
                         f"{self.expected()}{did_you_mean(raw, self.values)}")

    def format(self, value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, str) and not re.fullmatch(r"[A-Za-z0-9_.+-]+", value):
            return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
        return str(value)

    def describe_default(self) -> str:
        if self.default is None:
            return "unset"
        return self.format(self.default)


def pass_options(cls: type[ModulePass]) -> list[PassOption]:
    """The options of a pass class, from its dataclass fields."""
    if not dataclasses.is_dataclass(cls):
        return []
    hints = typing.get_type_hints(cls)
    options: list[PassOption] = []
    for f in dataclasses.fields(cls):
        if f.name == "name" or not f.init:
            continue
        hint = hints.get(f.name, str)
        args = typing.get_args(hint) if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union else (hint,)
        kinds = tuple(a for a in args if a is not type(None))
        default = f.default if f.default is not dataclasses.MISSING else None
        options.append(PassOption(
            name=f.name.replace("_", "-"),
            attr=f.name,
            kinds=kinds,
            optional=len(kinds) < len(args),
            default=default,
            help=f.metadata.get("help", ""),
            values=tuple(f.metadata.get("values", ())),
            minimum=f.metadata.get("minimum"),
        ))
    return options


def pipeline_options(name: str) -> list[PassOption]:
    """The options a named pipeline takes: those of the passes it forwards them to."""
    from irtoolkit.context import PIPELINE_OPTIONS, pass_class

    return [o for p in PIPELINE_OPTIONS.get(name, ()) for o in pass_options(pass_class(p))]


def pass_text(p: ModulePass) -> str:
    """A pass as pipeline text, with every option that has a value (``--dump-pass-pipeline``)."""
    opts = [f"{o.name}={o.format(getattr(p, o.attr))}" for o in pass_options(type(p))
            if getattr(p, o.attr) is not None]
    return p.name + ("{" + " ".join(opts) + "}" if opts else "")


# ---------------------------------------------------------------------------
# the pipeline text


@dataclass
class _Option:
    key: str
    at: int  # offset of the key
    raw: str | None  # None: written without `=`
    value_at: int


@dataclass
class _Element:
    name: str
    at: int
    options: list[_Option] = field(default_factory=list)


class _Scanner:
    """The pipeline grammar, with the offset of every name (for diagnostics)::

        pipeline ::= (element (`,` element)*)?
        element  ::= name (`{` option* `}`)? | anchor `(` pipeline `)`
        option   ::= key (`=` value)?        (separated by spaces)
        value    ::= quoted string | word (`,` word)* (words may hold `{...}`)
    """

    NAME = re.compile(r"[A-Za-z0-9_.$-]+")

    def __init__(self, text: str):
        self.text = text
        self.i = 0

    def error(self, message: str, at: int | None = None) -> DiagnosticError:
        return located_error(self.text, self.i if at is None else at, message)

    def skip_spaces(self) -> None:
        while self.i < len(self.text) and self.text[self.i].isspace():
            self.i += 1

    def peek(self) -> str:
        return self.text[self.i] if self.i < len(self.text) else ""

    def pipeline(self, closing: str = "", anchor: str = "") -> list[_Element]:
        elements: list[_Element] = []
        self.skip_spaces()
        if self.peek() == closing:
            return elements
        while True:
            self.skip_spaces()
            m = self.NAME.match(self.text, self.i)
            if m is None:
                what = f"'{self.peek()}'" if self.peek() else "end of pipeline"
                raise self.error(f"expected a pass name, found {what}")
            self.i = m.end()
            self.skip_spaces()
            if self.peek() == "(":  # an op anchor: its passes run on the whole module
                self.i += 1
                elements.extend(self.pipeline(")", m.group()))  # returns at the ')'
                self.i += 1
            else:
                element = _Element(m.group(), m.start())
                if self.peek() == "{":
                    self.i += 1
                    element.options = self.options()
                elements.append(element)
            self.skip_spaces()
            c = self.peek()
            if c == ",":
                self.i += 1
                continue
            if c == closing:
                return elements
            if c == ")":
                raise self.error("unbalanced ')'")
            if c == "":
                raise self.error(f"expected ')' to close '{anchor}('")
            raise self.error(f"expected ',' between passes, found '{c}'")

    def options(self) -> list[_Option]:
        found: list[_Option] = []
        while True:
            self.skip_spaces()
            if self.peek() == "}":
                self.i += 1
                return found
            m = self.NAME.match(self.text, self.i)
            if m is None:
                if self.peek() == "":
                    raise self.error("expected '}' to close the options")
                raise self.error(f"expected an option name, found '{self.peek()}'")
            self.i = m.end()
            if self.peek() != "=":
                found.append(_Option(m.group(), m.start(), None, m.start()))
                continue
            self.i += 1
            value_at = self.i
            found.append(_Option(m.group(), m.start(), self.value(), value_at))
            if self.peek() not in ("}", "") and not self.peek().isspace():
                raise self.error(f"expected a space or '}}' after the value of '{m.group()}'")

    def value(self) -> str:
        if self.peek() == '"':
            out: list[str] = []
            self.i += 1
            while self.i < len(self.text) and self.text[self.i] != '"':
                if self.text[self.i] == "\\" and self.i + 1 < len(self.text):
                    self.i += 1
                out.append(self.text[self.i])
                self.i += 1
            if self.peek() != '"':
                raise self.error("unterminated string")
            self.i += 1
            return "".join(out)
        start, depth = self.i, 0
        while self.i < len(self.text):
            c = self.text[self.i]
            if c == "{":
                depth += 1
            elif c == "}":
                if depth == 0:
                    break
                depth -= 1
            elif c.isspace() and depth == 0:
                break
            self.i += 1
        if self.i == start:
            raise self.error("expected a value after '='")
        return self.text[start:self.i]


def located_error(text: str, offset: int, message: str) -> DiagnosticError:
    """A diagnostic at ``offset`` of the pipeline ``text``."""
    register_source(PIPELINE_SOURCE, text)
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return DiagnosticError(Diagnostic(message, Location(PIPELINE_SOURCE, line, col)))


def _known_names() -> list[str]:
    from irtoolkit.context import PASSES, PIPELINES

    return [*PASSES, *PIPELINES]


def _convert_options(text: str, element: _Element, options: list[PassOption], owner: str) -> dict[str, Any]:
    """Option values by dataclass field, checked against the declarations."""
    by_name = {o.name: o for o in options}
    values: dict[str, Any] = {}
    for opt in element.options:
        decl = by_name.get(opt.key) or by_name.get(opt.key.replace("_", "-"))
        if decl is None:
            if options:
                listing = "options: " + ", ".join(o.name for o in options)
            else:
                listing = "it takes no options"
            raise located_error(text, opt.at, f"{owner} has no option '{opt.key}'"
                                f"{did_you_mean(opt.key, list(by_name))} ({listing})")
        if decl.attr in values:
            raise located_error(text, opt.at, f"option '{decl.name}' of {owner} is given twice")
        try:
            values[decl.attr] = decl.convert(opt.raw)
        except ValueError as err:
            raise located_error(text, opt.value_at, f"{owner}: {err}") from None
    return values


def _instantiate(text: str, element: _Element, options: dict[str, Any]) -> ModulePass:
    from irtoolkit.context import pass_class

    try:
        cls = pass_class(element.name)
    except (ImportError, AttributeError) as err:
        raise located_error(text, element.at, f"pass '{element.name}' is not available: {err}") from None
    try:
        return cls(**options)
    except (TypeError, ValueError) as err:  # a pass's own check of its options
        raise located_error(text, element.at, f"invalid options for pass '{element.name}': {err}") from None


def _expand_named(name: str, forwarded: dict[str, Any]) -> list[ModulePass]:
    """The passes of named pipeline ``name``, each given the forwarded options it declares."""
    from irtoolkit.context import PIPELINES, pass_class

    passes: list[ModulePass] = []
    inner = PIPELINES[name][0]
    for element in _Scanner(inner).pipeline():
        if element.name in PIPELINES:
            passes.extend(_expand_named(element.name, forwarded))
            continue
        own = _convert_options(inner, element, pass_options(pass_class(element.name)), f"pass '{element.name}'")
        for o in pass_options(pass_class(element.name)):
            if o.attr in forwarded:
                own[o.attr] = forwarded[o.attr]
        passes.append(_instantiate(inner, element, own))
    return passes


def build_passes(spec: str) -> list[ModulePass]:
    """Instantiate the passes of a pipeline text; any error is a diagnostic in the text."""
    from irtoolkit.context import PASSES, PIPELINES, pass_class

    elements = _Scanner(spec).pipeline()
    passes: list[ModulePass] = []
    for element in elements:
        if element.name in PIPELINES:
            options = pipeline_options(element.name)
            values = _convert_options(spec, element, options, f"pipeline '{element.name}'")
            passes.extend(_expand_named(element.name, values))
            continue
        if element.name not in PASSES:
            raise located_error(spec, element.at,
                                f"'{element.name}' does not refer to a registered pass or pipeline"
                                f"{did_you_mean(element.name, _known_names())} (see --list-passes)")
        try:
            cls = pass_class(element.name)
        except (ImportError, AttributeError) as err:
            raise located_error(spec, element.at, f"pass '{element.name}' is not available: {err}") from None
        values = _convert_options(spec, element, pass_options(cls), f"pass '{element.name}'")
        passes.append(_instantiate(spec, element, values))
    return passes


def pass_display_name(p: ModulePass) -> str:
    """``ClassName (pass-name)``, as mlir-opt names passes in IR dumps and timings."""
    cls = type(p).__name__
    if cls.endswith("Pass") and len(cls) > 4:
        cls = cls[:-4]
    return f"{cls} ({p.name})"


def pipeline_text(passes: Sequence[ModulePass]) -> str:
    """The pipeline that ``passes`` are, in MLIR's nested form (``--dump-pass-pipeline``)."""
    return "builtin.module(" + ",".join(pass_text(p) for p in passes) + ")"


# ---------------------------------------------------------------------------
# running passes


class PassInstrumentation:
    """Hooks around each pass a PipelineRunner runs (as MLIR's PassInstrumentation)."""

    def before_pass(self, p: ModulePass, module: ModuleOp) -> None:
        pass

    def after_pass(self, p: ModulePass, module: ModuleOp, seconds: float) -> None:
        pass

    def after_failure(self, p: ModulePass, module: ModuleOp) -> None:
        """``p`` raised, or the module failed to verify after it."""


# Instrumentations that every runner in this context calls (``instrumented``): so
# that a tool sees the passes the JIT runs, for timing and a progress line.
_AMBIENT: ContextVar[tuple[PassInstrumentation, ...]] = ContextVar("irt_instrumentation", default=())


@contextmanager
def instrumented(*hooks: PassInstrumentation) -> Iterator[None]:
    """Within the body, every PipelineRunner also calls ``hooks``."""
    token = _AMBIENT.set(_AMBIENT.get() + hooks)
    try:
        yield
    finally:
        _AMBIENT.reset(token)


# Whether a PipelineRunner created without an explicit ``verify_each`` verifies
# after each pass: yes (mlir-opt's --verify-each), except inside
# ``verify_each_default(False)`` -- the JIT's internal lowering, whose input is
# verified once and whose end result LLVM's verifier checks.
_VERIFY_EACH_DEFAULT: ContextVar[bool] = ContextVar("irt_verify_each", default=True)


@contextmanager
def verify_each_default(value: bool) -> Iterator[None]:
    """Within the body, runners without an explicit ``verify_each`` use ``value``."""
    token = _VERIFY_EACH_DEFAULT.set(bool(value))
    try:
        yield
    finally:
        _VERIFY_EACH_DEFAULT.reset(token)


# Whether the JIT may finish a given pipeline that stops short of the llvm
# dialect with the rest of the default lowering (the Python API's convenience,
# `irt.compile(m, "canonicalize")`). irt-run turns it off: its -p is exactly
# the pipeline that runs.
_COMPLETE_LOWERING: ContextVar[bool] = ContextVar("irt_complete_lowering", default=True)


@contextmanager
def exact_pipelines() -> Iterator[None]:
    """Within the body, a compile pipeline that does not reach the llvm dialect is an error."""
    token = _COMPLETE_LOWERING.set(False)
    try:
        yield
    finally:
        _COMPLETE_LOWERING.reset(token)


def completes_lowering() -> bool:
    return _COMPLETE_LOWERING.get()


def not_lowered_error(module: ModuleOp, pipeline: str) -> DiagnosticError:
    """Pipeline ``pipeline`` left ``module`` outside the llvm dialect: which op, and what to do."""
    from irtoolkit.context import DEFAULT_COMPILE_PIPELINE
    from irtoolkit.diagnostics import location_of

    left = [o for o in module.walk() if o is not module and not o.name.startswith("llvm.")]
    # an op of the body says more than the func.func around it
    op = next((o for o in left if not o.regions), left[0] if left else None)
    notes = []
    if op is not None:
        notes.append(Diagnostic(f"'{op.name}' is not in the llvm dialect", location_of(op), "note"))
    notes.append(Diagnostic(
        f"end the pipeline with 'lower-to-llvm' (-p '{pipeline},lower-to-llvm'), or leave out -p "
        f"for the default '{DEFAULT_COMPILE_PIPELINE}'", None, "note"))
    return DiagnosticError(Diagnostic(
        f"pipeline '{pipeline}' does not lower the program to the llvm dialect, which compiling needs",
        notes=notes))


@dataclass
class PipelineRunner:
    """Runs passes over a module, verifying after each (as mlir-opt's --verify-each).

    ``verify_each=None`` (the default) follows ``verify_each_default`` (True
    unless inside ``verify_each_default(False)``). ``instrumentations`` are
    called around each pass, after those of ``instrumented``."""

    passes: list[ModulePass]
    verify_each: bool | None = None
    instrumentations: list[PassInstrumentation] = field(default_factory=list)
    timings: list[tuple[str, float]] = field(default_factory=list)
    verify_seconds: float = 0.0  # spent verifying after the passes

    def run(self, module: ModuleOp) -> ModuleOp:
        from irtoolkit.context import context
        from irtoolkit.gcpause import paused_gc

        with paused_gc():
            return self._run(module, context())

    def _run(self, module: ModuleOp, ctx) -> ModuleOp:
        from irtoolkit.verifier import verify_module

        verify_each = self.verify_each
        if verify_each is None:
            verify_each = _VERIFY_EACH_DEFAULT.get()
        hooks = (*_AMBIENT.get(), *self.instrumentations)
        signatures: dict = {}  # op signatures that verified, shared by the verifications of this run
        for p in self.passes:
            for h in hooks:
                h.before_pass(p, module)
            start = time.perf_counter()
            try:
                try:
                    p.apply(ctx, module)
                except DiagnosticError:
                    raise
                except Exception as err:  # a bug in a pass: still a diagnostic, not a traceback
                    raise DiagnosticError(
                        Diagnostic(f"pass '{p.name}' failed: {type(err).__name__}: {err}")
                    ) from err
                seconds = time.perf_counter() - start
                self.timings.append((p.name, seconds))
                if verify_each:
                    start = time.perf_counter()
                    try:
                        verify_module(module, signatures)
                    except DiagnosticError as err:
                        err.diagnostics[0].message += f" (after pass '{p.name}')"
                        raise DiagnosticError(err.diagnostics) from None
                    finally:
                        self.verify_seconds += time.perf_counter() - start
            except DiagnosticError:
                for h in hooks:
                    h.after_failure(p, module)
                raise
            for h in hooks:
                h.after_pass(p, module, seconds)
        return module


def run_pipeline(module: ModuleOp, spec: str, verify_each: bool = True) -> ModuleOp:
    """Run the pipeline ``spec`` on ``module`` in place and return it."""
    return PipelineRunner(build_passes(spec), verify_each).run(module)
