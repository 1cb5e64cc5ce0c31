"""``irt-opt``: parse, verify, run a pass pipeline, print MLIR (or LLVM IR).

The command-line handling only; the work is in the core (parsing, pipeline,
runtime). Imports are lazy so that ``irt-opt --version`` starts fast.
"""

from __future__ import annotations

import io
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import click

from irtoolkit.cli.common import (
    EXIT_FAILURE,
    EXIT_OK,
    atomic_write,
    atomic_write_text,
    error,
    read_text,
    rewrite_single_dash,
    finish,
    run_guarded,
)
from irtoolkit.diagnostics import Diagnostic, DiagnosticError

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
    print_op_generic: bool = False
    print_debuginfo: bool = False
    allow_unregistered_dialect: bool = False
    list_passes: bool = False
    show_dialects: bool = False
    timing: bool = False
    version: bool = False
    debug: bool = False
    pass_flags: tuple[str, ...] = ()


@dataclass
class Timer:
    """Wall-clock time per phase (parser, each pass, verifier, output), as --mlir-timing."""

    start: float = field(default_factory=time.perf_counter)
    phases: dict[str, float] = field(default_factory=dict)

    def add(self, name: str, seconds: float) -> None:
        self.phases[name] = self.phases.get(name, 0.0) + seconds

    def report(self) -> str:
        total = time.perf_counter() - self.start
        bar = "===" + "-" * 73 + "==="
        lines = [
            bar,
            "                         ... Execution time report ...",
            bar,
            f"  Total Execution Time: {total:.4f} seconds",
            "",
            "  ----Wall Time----  ----Name----",
        ]
        for name, secs in self.phases.items():
            pct = 100.0 * secs / total if total > 0 else 0.0
            lines.append(f"  {secs:8.4f} ({pct:5.1f}%)  {name}")
        lines.append(f"  {total:8.4f} (100.0%)  Total")
        return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# argument handling


def _pass_display_name(p: ModulePass) -> str:
    cls = type(p).__name__
    if cls.endswith("Pass") and len(cls) > 4:
        cls = cls[:-4]
    return f"{cls} ({p.name})"


def _mlir_pass_flags(argv: list[str], long_options: set[str]) -> tuple[list[str], list[str]]:
    """MLIR's per-pass flags: ``--canonicalize --cse`` or ``--ad=checkpoint=sqrt``
    (``-ad="checkpoint=sqrt"`` too) become pipeline elements, in order."""
    from irtoolkit.context import PASSES, PIPELINES

    rest: list[str] = []
    flags: list[str] = []
    after_dashes = False
    takes_value = {"-p", "--pass-pipeline", "--passes", "-o", "--output", "--emit"}
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
    from xdsl.printer import Printer

    buf = io.StringIO()
    printer = Printer(
        stream=buf,
        print_generic_format=opts.print_op_generic,
        print_debuginfo=opts.print_debuginfo,
    )
    printer.print_op(module)
    buf.write("\n")
    return buf.getvalue()


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


class Driver:
    def __init__(self, opts: Options, pipeline: str):
        self.opts = opts
        self.pipeline = pipeline
        self.timer = Timer() if opts.timing else None

    def _dump(self, when: str, p: ModulePass, module: ModuleOp) -> None:
        sys.stdout.flush()
        header = f"// -----// IR Dump {when} {_pass_display_name(p)} //----- //\n"
        sys.stderr.write(header + print_module(module, self.opts) + "\n")
        sys.stderr.flush()

    def run_chunk(self, text: str, filename: str, line_offset: int) -> str:
        """Parse, run the pipeline and print one module; errors raise DiagnosticError."""
        from irtoolkit.parsing import parse_module
        from irtoolkit.pipeline import PipelineRunner, build_passes

        opts = self.opts
        t0 = time.perf_counter()
        ctx = None
        if opts.allow_unregistered_dialect:
            from irtoolkit.context import context

            ctx = context()
            ctx.allow_unregistered = True
        module = parse_module(text, filename, ctx=ctx, line_offset=line_offset)
        t1 = time.perf_counter()
        if self.timer:
            self.timer.add("Parser (and verifier)", t1 - t0)
        if self.pipeline:
            runner = PipelineRunner(
                build_passes(self.pipeline),
                before_pass=(lambda p, m: self._dump("Before", p, m)) if opts.print_ir_before_all else None,
                after_pass=(lambda p, m: self._dump("After", p, m)) if opts.print_ir_after_all else None,
            )
            runner.run(module)
            if self.timer:
                t2 = time.perf_counter()
                spent = 0.0
                for p, (_, secs) in zip(runner.passes, runner.timings):
                    self.timer.add(_pass_display_name(p), secs)
                    spent += secs
                self.timer.add("Verifier (after each pass)", max(t2 - t1 - spent, 0.0))
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

            build_passes(self.pipeline)  # unknown passes and bad options fail before reading input
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
    from irtoolkit.context import PIPELINES, available_passes

    table = available_passes()
    width = max(len(n) for n in table) + 2
    lines = ["Available passes and pipelines (use with -p NAME{option=value},...):"]
    for name, desc in table.items():
        if name in PIPELINES:
            desc = f"{desc} [pipeline: {PIPELINES[name][0]}]"
        lines.append(f"  {name.ljust(width)}{desc}")
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
    return Driver(opts, pipeline).run()


# ---------------------------------------------------------------------------
# click command


@click.command(
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
              help="Print MLIR, or LLVM IR, assembly, or (with -o) an object file for this "
                   "host (the module is lowered to the llvm dialect first if it is not).")
@click.option("--split-input-file", is_flag=True,
              help="Split the input on '// -----' lines and process each chunk on its own.")
@click.option("--verify-diagnostics", is_flag=True,
              help="Check diagnostics against '// expected-error {{...}}' comments, as mlir-opt.")
@click.option("--print-ir-after-all", "--mlir-print-ir-after-all", "print_ir_after_all", is_flag=True,
              help="Print the IR to stderr after every pass.")
@click.option("--print-ir-before-all", "--mlir-print-ir-before-all", "print_ir_before_all", is_flag=True,
              help="Print the IR to stderr before every pass.")
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
