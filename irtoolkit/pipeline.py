"""Pass pipelines: text -> passes, and running them with verify-each.

Accepts the flat form (``ad{checkpoint=sqrt},canonicalize``), named pipelines
(``lower-to-llvm``) and MLIR's nested form
(``builtin.module(ad,func.func(canonicalize))``); our passes all work on the
whole module, so an anchor like ``func.func(...)`` applies its passes there.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from irtoolkit.diagnostics import Diagnostic, DiagnosticError


def _pipeline_error(message: str) -> DiagnosticError:
    return DiagnosticError(Diagnostic(message))


def flatten_nested(text: str) -> str:
    """Drop op anchors (``builtin.module(``...``)``), keeping the passes inside."""
    out: list[str] = []
    stack: list[bool] = []  # per open paren: was it an anchor?
    depth_brace = 0
    i = 0
    while i < len(text):
        c = text[i]
        if c == "{":
            depth_brace += 1
        elif c == "}":
            depth_brace -= 1
        if depth_brace == 0 and c == "(":
            # the identifier just written is an anchor name: remove it
            j = len(out)
            while j > 0 and (out[j - 1].isalnum() or out[j - 1] in "._-"):
                j -= 1
            anchor = "".join(out[j:])
            if not anchor:
                raise _pipeline_error(f"malformed pass pipeline '{text}': '(' without an op anchor")
            del out[j:]
            stack.append(True)
            i += 1
            continue
        if depth_brace == 0 and c == ")":
            if not stack:
                raise _pipeline_error(f"malformed pass pipeline '{text}': unbalanced ')'")
            stack.pop()
            i += 1
            continue
        out.append(c)
        i += 1
    if stack or depth_brace:
        raise _pipeline_error(f"malformed pass pipeline '{text}': unbalanced brackets")
    flat = _strip_spaces_outside_braces("".join(out))
    # an anchor around several passes leaves empty items behind: drop them
    return ",".join(item for item in _split_top(flat) if item)


def _strip_spaces_outside_braces(text: str) -> str:
    kept, depth = [], 0
    for c in text:
        depth += (c == "{") - (c == "}")
        if c.isspace() and depth == 0:
            continue
        kept.append(c)
    return "".join(kept)


def _split_top(text: str) -> list[str]:
    items, depth, cur = [], 0, []
    for c in text:
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        if c == "," and depth == 0:
            items.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    items.append("".join(cur))
    return items


def build_passes(spec: str) -> list[ModulePass]:
    """Instantiate the passes of a pipeline text; unknown names are diagnostics."""
    from xdsl.utils.arg_spec import parse_pipeline
    from xdsl.utils.exceptions import ArgSpecParseError

    from irtoolkit.context import PASSES, PIPELINES, pass_class

    try:
        specs = list(parse_pipeline(flatten_nested(spec)))
    except ArgSpecParseError as err:
        raise _pipeline_error(f"malformed pass pipeline '{spec}': {err}") from None
    passes: list[ModulePass] = []
    for arg_spec in specs:
        if arg_spec.name in PIPELINES:
            if arg_spec.parameters:
                raise _pipeline_error(f"pipeline '{arg_spec.name}' takes no options")
            passes.extend(build_passes(PIPELINES[arg_spec.name][0]))
            continue
        if arg_spec.name not in PASSES:
            raise _pipeline_error(f"unknown pass '{arg_spec.name}' (see --list-passes)")
        try:
            cls = pass_class(arg_spec.name)
        except (ImportError, AttributeError) as err:
            raise _pipeline_error(f"pass '{arg_spec.name}' is not available: {err}") from None
        try:
            passes.append(cls.from_spec(arg_spec))
        except Exception as err:
            raise _pipeline_error(f"invalid options for pass '{arg_spec.name}': {err}") from None
    return passes


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


@dataclass
class PipelineRunner:
    """Runs passes over a module, verifying after each (as mlir-opt's --verify-each).

    ``verify_each=None`` (the default) follows ``verify_each_default`` (True
    unless inside ``verify_each_default(False)``)."""

    passes: list[ModulePass]
    verify_each: bool | None = None
    before_pass: Callable[[ModulePass, ModuleOp], None] | None = None
    after_pass: Callable[[ModulePass, ModuleOp], None] | None = None
    timings: list[tuple[str, float]] = field(default_factory=list)

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
        for p in self.passes:
            if self.before_pass:
                self.before_pass(p, module)
            start = time.perf_counter()
            try:
                p.apply(ctx, module)
            except DiagnosticError:
                raise
            except Exception as err:  # a bug in a pass: still a diagnostic, not a traceback
                raise DiagnosticError(
                    Diagnostic(f"pass '{p.name}' failed: {type(err).__name__}: {err}")
                ) from err
            self.timings.append((p.name, time.perf_counter() - start))
            if self.after_pass:
                self.after_pass(p, module)
            if verify_each:
                try:
                    verify_module(module)
                except DiagnosticError as err:
                    err.diagnostics[0].message += f" (after pass '{p.name}')"
                    raise DiagnosticError(err.diagnostics) from None
        return module


def run_pipeline(module: ModuleOp, spec: str, verify_each: bool = True) -> ModuleOp:
    """Run the pipeline ``spec`` on ``module`` in place and return it."""
    return PipelineRunner(build_passes(spec), verify_each).run(module)
