"""Helpers shared by ``irt-opt`` and ``irt-run``: argument rewriting, error
reporting without tracebacks, reading inputs and writing outputs atomically.

Kept cheap to import: only the standard library at module level.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from irtoolkit.diagnostics import Diagnostic, DiagnosticError

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_INTERRUPTED = 130


def error(message: str) -> DiagnosticError:
    """An unlocated diagnostic (``error: message``)."""
    return DiagnosticError(Diagnostic(message))


@dataclass
class Timer:
    """Wall-clock time per phase (parser, each pass, verifier, output), as --mlir-timing;
    "Rest" is the time outside them (start-up, reading input), so the rows add up to the total."""

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
        rows = [*self.phases.items(), ("Rest", max(total - sum(self.phases.values()), 0.0))]
        for name, secs in rows:
            pct = 100.0 * secs / total if total > 0 else 0.0
            lines.append(f"  {secs:8.4f} ({pct:5.1f}%)  {name}")
        lines.append(f"  {total:8.4f} (100.0%)  Total")
        return "\n".join(lines) + "\n"


def print_diagnostics(err: DiagnosticError, stream: IO[str] | None = None) -> None:
    stream = stream or sys.stderr
    stream.write(err.format() + "\n")
    stream.flush()


def rewrite_single_dash(argv: Sequence[str], long_options: Iterable[str]) -> list[str]:
    """Accept MLIR's single-dash spellings of long options (``-pass-pipeline=x``).

    click would read ``-pass-pipeline=x`` as ``-p ass-pipeline=x``; any
    ``-name`` or ``-name=value`` whose ``--name`` is a known long option is
    rewritten to the double-dash form. Arguments after ``--`` are left alone,
    as are values of options that take one (``-p -x`` keeps ``-x``).
    """
    known = set(long_options)
    out: list[str] = []
    rest = False
    for arg in argv:
        if rest:
            out.append(arg)
            continue
        if arg == "--":
            rest = True
        elif arg.startswith("-") and not arg.startswith("--") and len(arg) > 2:
            name = "-" + arg.split("=", 1)[0]
            if name in known:
                arg = "-" + arg
        out.append(arg)
    return out


def finish(code: int) -> int:
    """Flush stdout before exiting; a reader that went away is not our failure."""
    try:
        sys.stdout.flush()
    except (BrokenPipeError, ValueError, OSError):
        pass
    return code


def run_guarded(body: Callable[[], int], debug: bool, prog: str) -> int:
    """Run ``body``; turn every failure into a diagnostic and an exit code.

    Tracebacks only with ``debug``. KeyboardInterrupt exits with 130 quietly.
    """
    import click
    import warnings

    from irtoolkit.deepstack import run_with_deep_stack
    from irtoolkit.gcpause import exit_without_collecting

    def one_line_warning(message, category, filename, lineno, file=None, line=None):
        sys.stderr.write(f"{prog}: warning: {message}\n")  # (the compile cache's refusals)

    warnings.showwarning = one_line_warning
    exit_without_collecting()
    try:
        # deeply nested programs recurse deeply in xDSL's walkers and printer
        return run_with_deep_stack(body)
    except DiagnosticError as err:
        if debug:
            traceback.print_exception(err, file=sys.stderr)
        print_diagnostics(err)
        return EXIT_FAILURE
    except click.exceptions.Exit as err:
        return err.exit_code
    except click.Abort:
        return EXIT_INTERRUPTED
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except click.ClickException as err:
        if debug:
            traceback.print_exception(err, file=sys.stderr)
        message = err.format_message()
        sys.stderr.write(f"error: {message}\nTry '{prog} --help' for help.\n")
        return EXIT_FAILURE
    except BrokenPipeError:
        # the reader went away (`irt-opt big.mlir | head`): not our failure
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
        except OSError:
            pass
        return EXIT_FAILURE
    except SystemExit as err:
        code = err.code
        return code if isinstance(code, int) else (0 if code is None else EXIT_FAILURE)
    except RecursionError as err:
        if debug:
            traceback.print_exception(err, file=sys.stderr)
        sys.stderr.write("error: program nested too deeply (recursion limit)\n")
        return EXIT_FAILURE
    except MemoryError as err:  # the program's data does not fit: not a bug of the tool
        if debug:
            traceback.print_exception(err, file=sys.stderr)
        detail = str(err)
        sys.stderr.write("error: out of memory" + (f" ({detail})" if detail else "") + "\n")
        return EXIT_FAILURE
    except Exception as err:  # a bug: still no traceback unless --debug
        if debug:
            traceback.print_exception(err, file=sys.stderr)
        detail = str(err)
        sys.stderr.write(f"error: internal error: {type(err).__name__}" + (f": {detail}" if detail else "") + "\n")
        if not debug:
            sys.stderr.write("(run with --debug for a traceback)\n")
        return EXIT_FAILURE


def read_text(path: str) -> tuple[str, str]:
    """Read an input file (``-`` is stdin); returns ``(text, display name)``."""
    if path == "-":
        data = _read_text_bytes(sys.stdin.buffer, "<stdin>")
        name = "<stdin>"
    else:
        if os.path.isdir(path):
            raise error(f"cannot open input file '{path}': is a directory")
        try:
            with open(path, "rb") as f:
                data = _read_text_bytes(f, path)
        except OSError as err:
            raise error(f"cannot open input file '{path}': {err.strerror or err}") from None
        name = path
    nul = data.find(b"\0")
    if nul >= 0:
        from irtoolkit.diagnostics import Location, printable_name

        line = data.count(b"\n", 0, nul) + 1
        col = nul - (data.rfind(b"\n", 0, nul) + 1) + 1
        raise DiagnosticError(Diagnostic("unexpected NUL byte: the input is not a text file",
                                         Location(printable_name(name), line, col)))
    try:
        return data.decode("utf-8"), name
    except UnicodeDecodeError as err:
        raise error(f"cannot read input file '{name}': not valid UTF-8 (byte {err.start})") from None


#: the largest input read (MLIR text); a device such as /dev/zero never ends
MAX_INPUT_BYTES = 1 << 31


def _read_text_bytes(f: IO[bytes], name: str) -> bytes:
    """Read ``f`` in chunks, stopping at a NUL byte (not MLIR text: an endless
    /dev/zero is refused at once) or past MAX_INPUT_BYTES."""
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = f.read(1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if b"\0" in chunk:
            return b"".join(chunks)
        if size > MAX_INPUT_BYTES:
            raise error(f"cannot read input file '{name}': larger than {MAX_INPUT_BYTES >> 30} GiB")


def _is_special(path: str) -> bool:
    """An existing path that is not a regular file (/dev/null, a fifo, ...)."""
    try:
        import stat

        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def atomic_write(path: str, writer: Callable[[IO[Any]], None], binary: bool = False) -> None:
    """Write ``path`` whole or not at all: a temporary file in the same
    directory, then ``os.replace``. An existing file is untouched on failure.
    ``-`` writes to stdout; devices and fifos (``/dev/null``) are written directly;
    a symbolic link is written through (its target is replaced, the link stays).
    """
    if path == "-":
        stream = sys.stdout.buffer if binary else sys.stdout
        writer(stream)
        stream.flush()
        return
    if os.path.islink(path):
        # write through the link, as mlir-opt does: the target is replaced atomically
        path = os.path.realpath(path)
    if _is_special(path):
        try:
            with open(path, "wb" if binary else "w", encoding=None if binary else "utf-8") as f:
                writer(f)
        except OSError as err:
            raise error(f"cannot write output file '{path}': {err.strerror or err}") from None
        return
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    except OSError as err:
        raise error(f"cannot write output file '{path}': {err.strerror or err}") from None
    try:
        with os.fdopen(fd, "wb" if binary else "w", encoding=None if binary else "utf-8") as f:
            writer(f)
            f.flush()
            os.fsync(f.fileno())
        try:
            mode = os.stat(path).st_mode & 0o7777
        except OSError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException as err:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(err, OSError):
            raise error(f"cannot write output file '{path}': {err.strerror or err}") from None
        raise


def atomic_write_text(path: str, text: str) -> None:
    atomic_write(path, lambda f: f.write(text))
