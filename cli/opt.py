"""``irt-opt``: parse, verify, run a pass pipeline, print MLIR (or LLVM IR).

The command-line handling only; the work is in the core (parsing, pipeline,
runtime). Imports are lazy so that ``irt-opt --version`` starts fast.
"""

from __future__ import annotations

import gc
import io
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from irtoolkit.cli.common import (
    EXIT_FAILURE,
    EXIT_OK,
    Timer,
    atomic_write,
    atomic_write_text,
    error,
    read_text,
    rewrite_single_dash,
    finish,
    run_guarded,
)
from irtoolkit.diagnostics import Diagnostic, DiagnosticError
from irtoolkit.pipeline import PassInstrumentation, pass_display_name

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass

PROG = "irt-opt"
SPLIT_MARKER = "// -----"
_SPLIT_LINE = re.compile(r"^[ \t]*// -----[ \t]*\r?\n?$")


@dataclass
class Options:
    input_file: str = "-"
    pipeline: tuple[str, ...] = ()
    output: str = "-"
    emit: str = "mlir"
    split_input_file: bool = False
    verify_diagnostics: bool = False
    print_ir_after_all: bool = False
    print_ir_before_all: bool = False
    print_ir_after: tuple[str, ...] = ()
    print_ir_before: tuple[str, ...] = ()
    print_ir_after_change: bool = False
    print_ir_after_failure: bool = False
    elide_elementsattrs_if_larger: int | None = None
    verify_each: bool = True
    dump_pass_pipeline: bool = False
    print_op_generic: bool = False
    print_debuginfo: bool = False
    allow_unregistered_dialect: bool = False
    list_passes: bool = False
    show_dialects: bool = False
    timing: bool = False
    version: bool = False
    debug: bool = False
    pass_flags: tuple[str, ...] = ()


# ---------------------------------------------------------------------------
# argument handling


def _mlir_pass_flags(argv: list[str], long_options: set[str]) -> tuple[list[str], list[str]]:
    """MLIR's per-pass flags: ``--canonicalize --cse`` or ``--ad=checkpoint=sqrt``
    (``-ad="checkpoint=sqrt"`` too) become pipeline elements, in order."""
    from irtoolkit.context import PASSES, PIPELINES

    rest: list[str] = []
    flags: list[str] = []
    after_dashes = False
    takes_value = {"-p", "--pass-pipeline", "--passes", "-o", "--output", "--emit", "--print-ir-after",
                   "--mlir-print-ir-after", "--print-ir-before", "--mlir-print-ir-before"}
    expect_value = False
    for arg in argv:
        if after_dashes or expect_value:
            rest.append(arg)
            expect_value = False
            continue
        if arg == "--":
            after_dashes = True
            rest.append(arg)
            continue
        if arg in takes_value:
            expect_value = True
            rest.append(arg)
            continue
        if arg.startswith("-") and len(arg) > 2:
            body = arg.lstrip("-")
            name, eq, opts = body.partition("=")
            dashed = "--" + name
            if dashed not in long_options and (name in PASSES or name in PIPELINES) and (
                arg.startswith("--") or len(name) > 1
            ):
                opts = opts.strip().strip("'\"")
                flags.append(f"{name}{{{opts}}}" if eq and opts else name)
                continue
        rest.append(arg)
    return rest, flags


# ---------------------------------------------------------------------------
# the work


def split_chunks(text: str) -> list[tuple[str, int]]:
    """Split on lines ``// -----``; each chunk with the number of lines before it."""
    chunks: list[tuple[str, int]] = []
    current: list[str] = []
    start = 0
    for index, line in enumerate(text.splitlines(keepends=True)):
        if _SPLIT_LINE.match(line):
            chunks.append(("".join(current), start))
            current = []
            start = index + 1
        else:
            current.append(line)
    chunks.append(("".join(current), start))
    return chunks


def print_module(module: Any, opts: Options) -> str:
    from irtoolkit.printer import module_text

    return module_text(module, generic=opts.print_op_generic, debuginfo=opts.print_debuginfo,
                       elide_elements_larger=opts.elide_elementsattrs_if_larger)


def emit_llvm(module: ModuleOp) -> str:
    try:
        from irtoolkit import runtime
    except ImportError as err:
        raise error(f"LLVM emission unavailable: {err}") from None
    llvm_ir = getattr(runtime, "llvm_ir", None)
    if llvm_ir is None:
        raise error("LLVM emission unavailable: irtoolkit.runtime.llvm_ir is missing")
    text = llvm_ir(module)
    return text if text.endswith("\n") else text + "\n"


def emit_code(module: ModuleOp, kind: str) -> str | bytes:
    """``--emit obj`` (bytes) or ``--emit asm`` (text) for this host."""
    from irtoolkit.runtime import emit_code as emit

    code = emit(module, assembly=kind == "asm")
    return code.decode() if kind == "asm" else code


def _internal(err: BaseException, debug: bool) -> Diagnostic:
    if debug:
        import traceback

        traceback.print_exception(err, file=sys.stderr)
    detail = str(err)
    return Diagnostic(f"internal error: {type(err).__name__}" + (f": {detail}" if detail else ""))


class IRPrinting(PassInstrumentation):
    """mlir-opt's IR printing around passes (--mlir-print-ir-before/after...), to stderr."""

    def __init__(self, opts: Options):
        self.opts = opts
        self.before = set(opts.print_ir_before)
        self.after = set(opts.print_ir_after)
        # --mlir-print-ir-after-change alone: after every pass that changed the IR
        self.after_all = opts.print_ir_after_all or (opts.print_ir_after_change and not self.after)
        self.before_text: str | None = None

    def active(self) -> bool:
        o = self.opts
        return bool(o.print_ir_before_all or self.before or self.after_all or self.after
                    or o.print_ir_after_failure)

    def _dump(self, header: str, text: str) -> None:
        sys.stdout.flush()
        sys.stderr.write(f"// -----// IR Dump {header} //----- //\n" + text + "\n")
        sys.stderr.flush()

    def _prints_after(self, p: ModulePass) -> bool:
        return self.after_all or p.name in self.after

    def before_pass(self, p: ModulePass, module: ModuleOp) -> None:
        text = None
        if self.opts.print_ir_before_all or p.name in self.before:
            text = print_module(module, self.opts)
            self._dump(f"Before {pass_display_name(p)}", text)
        if self.opts.print_ir_after_change and self._prints_after(p):
            self.before_text = text if text is not None else print_module(module, self.opts)

    def after_pass(self, p: ModulePass, module: ModuleOp, seconds: float) -> None:
        if not self._prints_after(p):
            return
        text = print_module(module, self.opts)
        if self.opts.print_ir_after_change and text == self.before_text:
            return
        self._dump(f"After {pass_display_name(p)}", text)

    def after_failure(self, p: ModulePass, module: ModuleOp) -> None:
        if self._prints_after(p) or self.opts.print_ir_after_failure:
            cls, _, name = pass_display_name(p).partition(" ")
            self._dump(f"After {cls} Failed {name}", print_module(module, self.opts))


class Driver:
    def __init__(self, opts: Options, pipeline: str):
        self.opts = opts
        self.pipeline = pipeline
        self.timer = Timer() if opts.timing else None
        self.passes: list[ModulePass] = []
        self.ir_printing = IRPrinting(opts)
        self.noted_lowering = False

    def _run_passes(self, passes: list[ModulePass], module: ModuleOp) -> None:
        from irtoolkit.pipeline import PipelineRunner

        hooks = [self.ir_printing] if self.ir_printing.active() else []
        runner = PipelineRunner(passes, verify_each=self.opts.verify_each, instrumentations=hooks)
        try:
            runner.run(module)
        finally:
            if self.timer:
                for p, (_, secs) in zip(runner.passes, runner.timings):
                    self.timer.add(pass_display_name(p), secs)
                if runner.verify_seconds:
                    self.timer.add("Verifier (after each pass)", runner.verify_seconds)

    def _lower_for_llvm(self, module: ModuleOp) -> None:
        """--emit llvm|obj|asm on a module not in the llvm dialect: run the default
        lowering as passes of the pipeline (shown by the IR printing and the
        timing), after a note that says so."""
        from irtoolkit.context import DEFAULT_COMPILE_PIPELINE
        from irtoolkit.pipeline import build_passes
        from irtoolkit.runtime.translate import is_llvm_module

        if is_llvm_module(module):
            return
        if not self.noted_lowering:
            self.noted_lowering = True
            sys.stdout.flush()
            sys.stderr.write(f"note: --emit {self.opts.emit}: the module is not in the llvm dialect; appending "
                             f"the default lowering '{DEFAULT_COMPILE_PIPELINE}' to the pipeline\n")
        self._run_passes(build_passes(DEFAULT_COMPILE_PIPELINE), module)

    def run_chunk(self, text: str, filename: str, line_offset: int) -> str:
        """Parse, run the pipeline and print one module; errors raise DiagnosticError."""
        from irtoolkit.parsing import parse_module

        opts = self.opts
        t0 = time.perf_counter()
        ctx = None
        if opts.allow_unregistered_dialect:
            from irtoolkit.context import context

            ctx = context()
            ctx.allow_unregistered = True
        module = parse_module(text, filename, ctx=ctx, line_offset=line_offset)
        if self.timer:
            self.timer.add("Parser (and verifier)", time.perf_counter() - t0)
        if self.passes:
            self._run_passes(self.passes, module)
        if opts.emit in ("llvm", "obj", "asm"):
            self._lower_for_llvm(module)
        t3 = time.perf_counter()
        if opts.emit in ("obj", "asm"):
            out = emit_code(module, opts.emit)
        else:
            out = emit_llvm(module) if opts.emit == "llvm" else print_module(module, opts)
        if self.timer:
            self.timer.add("Output", time.perf_counter() - t3)
        return out

    def run(self) -> int:
        from irtoolkit.diagnostics import register_source

        opts = self.opts
        if self.pipeline:
            from irtoolkit.pipeline import build_passes

            self.passes = build_passes(self.pipeline)  # checked before the input is read
        if opts.dump_pass_pipeline:
            from irtoolkit.pipeline import pipeline_text

            sys.stderr.write(f"Pass Manager with {len(self.passes)} passes:\n{pipeline_text(self.passes)}\n")
        text, filename = read_text(opts.input_file)
        register_source(filename, text)
        chunks = split_chunks(text) if opts.split_input_file else [(text, 0)]

        expectations: list[list[Any]] = []
        if opts.verify_diagnostics:
            from irtoolkit.diagnostics_check import parse_expectations

            problems: list[Diagnostic] = []
            for chunk, offset in chunks:
                try:
                    expectations.append(parse_expectations(chunk, filename, offset))
                except DiagnosticError as err:
                    problems.extend(err.diagnostics)
                    expectations.append([])
            if problems:
                raise DiagnosticError(problems)

        to_stdout = opts.output == "-"
        outputs: list[str] = []
        failed = False
        for index, (chunk, offset) in enumerate(chunks):
            if index and opts.split_input_file:
                # the run pauses the collector (main): the chunk before is garbage in
                # cycles, all in the young generation, freed here so that memory stays
                # that of one chunk (200 chunks of 200 ops: 267 MB peak without, 59 with)
                gc.collect(0)
                outputs.append(SPLIT_MARKER + "\n")
                if to_stdout:
                    sys.stdout.write(SPLIT_MARKER + "\n")
            diagnostics: list[Diagnostic] = []
            try:
                out = self.run_chunk(chunk, filename, offset)
            except DiagnosticError as err:
                if opts.debug:
                    import traceback

                    traceback.print_exception(err, file=sys.stderr)
                diagnostics = err.diagnostics
                out = None
            except (KeyboardInterrupt, click.Abort):
                raise
            except RecursionError as err:
                diagnostics = [_internal(err, opts.debug)]
                diagnostics[0].message = "program nested too deeply (recursion limit)"
                out = None
            except Exception as err:  # a bug: a diagnostic, not a traceback
                diagnostics = [_internal(err, opts.debug)]
                out = None
            register_source(filename, text)  # carets show lines of the whole file
            if opts.verify_diagnostics:
                from irtoolkit.diagnostics_check import check

                diagnostics = check(expectations[index], diagnostics)
            if diagnostics:
                failed = True
                sys.stdout.flush()
                sys.stderr.write(DiagnosticError(diagnostics).format() + "\n")
                sys.stderr.flush()
            if out is not None:
                outputs.append(out)
                if to_stdout:
                    sys.stdout.write(out)
                    sys.stdout.flush()
        if not to_stdout and not failed:
            if opts.emit == "obj":
                data = b"".join(outputs)  # type: ignore[arg-type]
                atomic_write(opts.output, lambda f: f.write(data), binary=True)
            else:
                atomic_write_text(opts.output, "".join(outputs))
        if self.timer:
            sys.stdout.flush()
            sys.stderr.write(self.timer.report())
        return EXIT_FAILURE if failed else EXIT_OK


def list_passes() -> str:
    """Every pass and named pipeline with its options (name, kind, default, help)."""
    from irtoolkit.context import PIPELINES, available_passes, pass_class
    from irtoolkit.pipeline import pass_options, pipeline_options

    table = available_passes()
    rows: list[tuple[str, str]] = []
    for name, desc in table.items():
        if name in PIPELINES:
            rows.append((name, f"{desc} [pipeline: {PIPELINES[name][0]}]"))
            options = pipeline_options(name)
        else:
            try:
                options = pass_options(pass_class(name))
            except (ImportError, AttributeError) as err:
                options = []
                desc = f"{desc} (not available: {err})"
            rows.append((name, desc))
        rows.extend((f"  {o.name}={o.metavar()}", f"{o.help} (default: {o.describe_default()})")
                    for o in options)
    width = max(len(n) for n, _ in rows) + 2
    lines = ["Available passes and pipelines, with their options "
             "(-p 'NAME{option=value option=value},NAME,...'):"]
    lines.extend(f"  {name.ljust(width)}{desc}" for name, desc in rows)
    return "\n".join(lines) + "\n"


def show_dialects() -> str:
    from irtoolkit.context import DIALECTS

    return "Available Dialects: " + ", ".join(sorted(DIALECTS)) + "\n"


def version() -> str:
    from irtoolkit import __version__

    return f"{PROG} (irtoolkit) {__version__}\n"


def run(opts: Options) -> int:
    if opts.version:
        sys.stdout.write(version())
        return EXIT_OK
    if opts.list_passes or opts.show_dialects:
        if opts.show_dialects:
            sys.stdout.write(show_dialects())
        if opts.list_passes:
            sys.stdout.write(list_passes())
        return EXIT_OK
    if opts.pipeline and opts.pass_flags:
        raise error("'-p/--pass-pipeline' cannot be combined with individual pass flags (--NAME)")
    # an empty -p '' runs no passes (as mlir-opt's empty pipeline)
    parts = [p.strip() for p in (*opts.pipeline, *opts.pass_flags) if p.strip()]
    pipeline = ",".join(parts)
    if opts.emit not in ("mlir", "llvm", "obj", "asm"):
        raise error(f"unknown --emit target '{opts.emit}' (mlir, llvm, obj or asm)")
    if opts.emit == "obj" and (opts.output == "-" or opts.split_input_file):
        raise error("--emit obj writes one object file: give -o FILE (and no --split-input-file)")
    opts.print_ir_after = _pass_names("--mlir-print-ir-after", opts.print_ir_after)
    opts.print_ir_before = _pass_names("--mlir-print-ir-before", opts.print_ir_before)
    return Driver(opts, pipeline).run()


def _pass_names(flag: str, values: Sequence[str]) -> tuple[str, ...]:
    """The pass names of a repeatable, comma-separated flag, each checked."""
    from irtoolkit.context import PASSES
    from irtoolkit.pipeline import did_you_mean

    names = tuple(n.strip() for v in values for n in v.split(",") if n.strip())
    for name in names:
        if name not in PASSES:
            raise error(f"{flag}: '{name}' is not a pass{did_you_mean(name, list(PASSES))} (see --list-passes)")
    return names


# ---------------------------------------------------------------------------
# click command


class _Command(click.Command):
    """``--help`` ends with the passes and their options, as mlir-opt's does
    (computed only when asked for: it imports every pass)."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_epilog(ctx, formatter)
        formatter.write("\n" + list_passes())


@click.command(
    cls=_Command,
    name=PROG,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    help="Parse, verify and transform irtoolkit IR.\n\n"
    "Reads FILE (or stdin with '-' or no FILE), verifies it, runs the pass "
    "pipeline (verifying after every pass) and prints MLIR or LLVM IR. MLIR "
    "spellings (--mlir-print-op-generic, -pass-pipeline=..., --canonicalize) are "
    "accepted too.",
)
@click.argument("input_file", metavar="[FILE|-]", required=False, default="-")
@click.option("-p", "--pass-pipeline", "--passes", "pipeline", multiple=True, metavar="PIPELINE",
              help="Passes to run, e.g. 'ad{checkpoint=sqrt},canonicalize' or "
                   "'builtin.module(ad,func.func(cse))'.")
@click.option("-o", "--output", "output", default="-", metavar="OUT",
              help="Output file (written whole, only on success); '-' is stdout.")
@click.option("--emit", type=click.Choice(["mlir", "llvm", "obj", "asm"]), default="mlir",
              show_default=True,
              help="Print MLIR, LLVM IR or assembly, or write (with -o) an object file, for this "
                   "host (a module not in the llvm dialect after the pipeline gets the default "
                   "lowering 'convert-stablehlo-to-tensor,ad,lower-to-llvm' appended, with a note).")
@click.option("--split-input-file", is_flag=True,
              help="Split the input on '// -----' lines and process each chunk on its own.")
@click.option("--verify-diagnostics", is_flag=True,
              help="Check diagnostics against '// expected-error {{...}}' comments, as mlir-opt.")
@click.option("--print-ir-after-all", "--mlir-print-ir-after-all", "print_ir_after_all", is_flag=True,
              help="Print the IR to stderr after every pass.")
@click.option("--print-ir-before-all", "--mlir-print-ir-before-all", "print_ir_before_all", is_flag=True,
              help="Print the IR to stderr before every pass.")
@click.option("--print-ir-after", "--mlir-print-ir-after", "print_ir_after", multiple=True, metavar="PASS",
              help="Print the IR to stderr after each run of PASS (repeat, or PASS,PASS).")
@click.option("--print-ir-before", "--mlir-print-ir-before", "print_ir_before", multiple=True, metavar="PASS",
              help="Print the IR to stderr before each run of PASS (repeat, or PASS,PASS).")
@click.option("--print-ir-after-change", "--mlir-print-ir-after-change", "print_ir_after_change",
              is_flag=True, help="Print the IR after a pass only if the pass changed it (alone: after "
                                 "every pass that changed it).")
@click.option("--print-ir-after-failure", "--mlir-print-ir-after-failure", "print_ir_after_failure",
              is_flag=True, help="Print the IR to stderr after a pass that fails (or whose result "
                                 "does not verify).")
@click.option("--elide-elementsattrs-if-larger", "--mlir-elide-elementsattrs-if-larger",
              "elide_elementsattrs_if_larger", type=click.IntRange(min=0), default=None, metavar="N",
              help="Print dense constants of more than N elements as dense_resource<__elided__>.")
@click.option("--verify-each", type=click.BOOL, default=True, is_flag=False, flag_value=True,
              metavar="[=true|false]", show_default="true",
              help="Verify the module after every pass (--verify-each=false: only the input).")
@click.option("--dump-pass-pipeline", is_flag=True,
              help="Print the pipeline (named pipelines expanded, with every option) to stderr.")
@click.option("--print-op-generic", "--mlir-print-op-generic", "print_op_generic", is_flag=True,
              help="Print ops in the generic form.")
@click.option("--print-debuginfo", "--mlir-print-debuginfo", "print_debuginfo", is_flag=True,
              help="Print op locations as loc(\"file\":line:col).")
@click.option("--allow-unregistered-dialect", is_flag=True,
              help="Accept ops of dialects that are not loaded.")
@click.option("--list-passes", is_flag=True, help="List every pass and named pipeline, then exit.")
@click.option("--show-dialects", is_flag=True, help="List the loaded dialects, then exit.")
@click.option("--timing", "--mlir-timing", "timing", is_flag=True,
              help="Print a per-pass timing report to stderr.")
@click.option("--version", is_flag=True, help="Print the version, then exit.")
@click.option("--debug", is_flag=True, help="Show Python tracebacks for errors.")
@click.option("--pass-flag", "pass_flags", multiple=True, hidden=True)
def command(**kwargs: Any) -> int:
    kwargs["pipeline"] = tuple(kwargs["pipeline"])
    kwargs["pass_flags"] = tuple(kwargs["pass_flags"])
    kwargs["print_ir_after"] = tuple(kwargs["print_ir_after"])
    kwargs["print_ir_before"] = tuple(kwargs["print_ir_before"])
    return run(Options(**kwargs))


def _long_options() -> set[str]:
    names: set[str] = set()
    for param in command.params:
        names.update(o for o in (*param.opts, *param.secondary_opts) if o.startswith("--"))
    return names


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of ``irt-opt``; exits with 0 on success, 1 on any error."""
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args or "-debug" in args

    def body() -> int:
        from irtoolkit.gcpause import paused_gc

        with paused_gc():  # (the IR is all cycles: a collection rescans all of it)
            return compile_()

    def compile_() -> int:
        long_options = _long_options()
        rewritten = rewrite_single_dash(args, long_options)
        rewritten, flags = _mlir_pass_flags(rewritten, long_options)
        prefix = [item for flag in flags for item in ("--pass-flag", flag)]
        rewritten = prefix + rewritten
        rv = command.main(args=rewritten, prog_name=PROG, standalone_mode=False)
        return rv if isinstance(rv, int) else EXIT_OK

    sys.exit(finish(run_guarded(body, debug, PROG)))


if __name__ == "__main__":
    main()
