"""``irt-run``: run a function of an MLIR file on numpy inputs.

Compiles (default pipeline ``convert-stablehlo-to-tensor,ad,lower-to-llvm``; ``-p`` replaces it and must
reach the llvm dialect) and calls the entry function, or with ``--interpret``
runs it on the reference interpreter. Inputs (``-i``) are ``.npy`` files,
``.npz`` archives (arrays in argument order, or by argument name when every
key names an argument), literal scalars (``-i 0.1``) and ``name=value`` for
an argument by its SSA name (``-i lr=0.1``, ``-i x=x.npy``); all are checked
against the entry's signature before anything runs. Results are printed (big
arrays summarized, with shape, dtype, min and max) and, with ``-o``, saved:
``out.npz`` (``result0``, ``result1``, ...), ``out.npy`` (one result) or
``DIR/`` (``DIR/result0.npy`` ...), each file written whole or not at all.
"""

from __future__ import annotations

import os
import re
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from irtoolkit.cli.common import (
    EXIT_OK,
    Timer,
    atomic_write,
    error,
    read_text,
    rewrite_single_dash,
    finish,
    run_guarded,
)
from irtoolkit.diagnostics import Diagnostic, DiagnosticError
from irtoolkit.pipeline import PassInstrumentation, pass_display_name

if TYPE_CHECKING:
    import numpy as np
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.dialects.func import FuncOp
    from xdsl.ir import Attribute
    from xdsl.passes import ModulePass

    from irtoolkit.runtime.signature import ValueSpec

PROG = "irt-run"


@dataclass
class Options:
    input_file: str
    entry: str = "main"
    inputs: tuple[str, ...] = ()
    output: str | None = None
    pipeline: str | None = None
    interpret: bool = False
    timing: bool = False
    debug: bool = False


# ---------------------------------------------------------------------------
# inputs: what -i says, then one value per argument


_LITERAL = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|[-+]?(?:inf|nan)|true|false",
                      re.IGNORECASE)
_NAMED = re.compile(r"([A-Za-z_][A-Za-z0-9_$.]*)=(.*)", re.DOTALL)


@dataclass(frozen=True)
class Input:
    """One ``-i``: a file (``.npy``/``.npz``) or a literal scalar, maybe for a named argument."""

    text: str  # as written
    source: str  # the path or the literal
    name: str | None = None  # `name=...`: the argument named %name

    @property
    def literal(self) -> bool:
        return _LITERAL.fullmatch(self.source) is not None

    @property
    def is_npz(self) -> bool:
        return not self.literal and self.source.endswith(".npz")

    @staticmethod
    def parse(text: str) -> Input:
        m = _NAMED.fullmatch(text)
        if m is not None and not os.path.exists(text):
            return Input(text, m.group(2), m.group(1))
        return Input(text, text)


@dataclass
class Given:
    """A value from the command line, before it is checked against its argument."""

    label: str  # for diagnostics: the path, `archive.npz[key]` or the literal
    value: Any  # an ndarray, or the literal's text
    literal: bool = False


def _describe(value: np.ndarray) -> str:
    if value.ndim == 0:
        return f"a 0-d {value.dtype} array"
    return f"a {value.dtype} array of shape {tuple(value.shape)}"


def convert_input(index: int, path: str, value: np.ndarray, t: Attribute) -> Any:
    """Check one input against its argument type; the value to pass (or a diagnostic)."""
    from xdsl.dialects.builtin import MemRefType, TensorType

    from irtoolkit.runtime.signature import value_spec

    spec = value_spec(t)
    if spec is None:
        where = f"input {index} ('{path}')"
        if isinstance(t, (TensorType, MemRefType)):
            raise error(f"{where}: argument type {t} has no numpy equivalent")
        raise error(f"{where}: argument type {t} cannot be given from the command line")
    return convert_value(index, path, value, spec)


def convert_literal(index: int, text: str, spec: ValueSpec) -> Any:
    """A literal scalar (``0.1``, ``3``, ``true``) as a value of the argument's type."""
    import numpy as np

    where = f"input {index} ('{text}')"
    if spec.shape not in (None, ()):
        raise error(f"{where}: expected {spec.type_text}, an array: give an .npy file, not a literal")
    kind, word = spec.dtype.kind, text.lower()
    if kind == "b":
        if word not in ("true", "false", "1", "0"):
            raise error(f"{where}: expected {spec.type_text}: true or false")
        value: Any = word in ("true", "1")
    elif kind in "iu":
        if not re.fullmatch(r"[-+]?[0-9]+", text):
            raise error(f"{where}: expected an integer for {spec.type_text}")
        value = int(text)
        info = np.iinfo(spec.dtype)
        if not info.min <= value <= info.max:
            raise error(f"{where}: {value} does not fit in {spec.type_text}")
    else:
        if word in ("true", "false"):
            raise error(f"{where}: expected a number for {spec.type_text}")
        value = float(text)
    return np.array(value, dtype=spec.dtype) if spec.shape == () else spec.dtype.type(value)


def convert_value(index: int, path: str, value: np.ndarray, spec: ValueSpec) -> Any:
    """Check one input against the argument it is for; the value to pass (or a diagnostic)."""
    import numpy as np

    where = f"input {index} ('{path}')"
    expected, dtype = spec.type_text, spec.dtype
    if spec.shape is not None:
        shape = spec.shape
        dims_ok = value.ndim == len(shape) and all(d is None or d == s for d, s in zip(shape, value.shape))
        if not dims_ok or value.dtype != dtype:
            dims = ", ".join("?" if d is None else str(d) for d in shape)
            dims = f"({dims},)" if len(shape) == 1 else f"({dims})"
            raise error(f"{where}: expected {expected} ({dtype} array of shape {dims}), "
                        f"got {_describe(value)}")
        return np.asarray(value, order="C")  # (np.ascontiguousarray makes 0-d arrays 1-d)
    if value.ndim != 0:
        raise error(f"{where}: expected a scalar {expected} (a 0-d array), got {_describe(value)}")
    kind_ok = (
        (dtype.kind == "f" and value.dtype.kind in "fiu")
        or (dtype.kind in "iu" and value.dtype.kind in "iu")
        or (dtype.kind == "b" and value.dtype.kind == "b")
    )
    if not kind_ok:
        raise error(f"{where}: expected a scalar {expected}, got {_describe(value)}")
    return dtype.type(value.item())


def _check_npy_size(path: str, what: str) -> None:
    """Refuse an .npy file whose header claims more data than the file holds
    (numpy would first allocate what the header says)."""
    import math
    import os

    import numpy as np

    with open(path, "rb") as fh:
        version = np.lib.format.read_magic(fh)
        read_header = {(1, 0): np.lib.format.read_array_header_1_0,
                       (2, 0): np.lib.format.read_array_header_2_0}.get(version)
        if read_header is None:  # np.load reports other versions itself
            return
        shape, _, dtype = read_header(fh)
        available = os.fstat(fh.fileno()).st_size - fh.tell()
    if dtype.hasobject:
        return  # np.load refuses it (no pickles)
    claimed = math.prod(shape) * dtype.itemsize
    if claimed > available:
        raise error(f"cannot read {what} '{path}': not a valid .npy file (its header claims "
                    f"{math.prod(shape)} elements of {dtype}, {claimed} bytes, but the file "
                    f"holds {available} bytes of data)")


def _read_array_file(path: str, what: str) -> Any:
    """np.load of an .npy or .npz file, every failure a diagnostic."""
    import numpy as np

    want = ".npz archive" if path.endswith(".npz") else ".npy file"
    try:
        with open(path, "rb") as fh:
            magic = fh.read(6)
        if magic[:2] == b"PK" and not path.endswith(".npz"):
            raise error(f"cannot read {what} '{path}': expected an .npy array, got an .npz archive "
                        "(name it .npz to pass its arrays)")
        if magic != b"\x93NUMPY" and magic[:2] != b"PK":
            raise error(f"cannot read {what} '{path}': not an {want}")
        if magic == b"\x93NUMPY":
            _check_npy_size(path, what)
        value = np.load(path, allow_pickle=False)
    except MemoryError:
        raise error(f"cannot read {what} '{path}': out of memory") from None
    except FileNotFoundError:
        raise error(f"cannot read {what} '{path}': no such file") from None
    except IsADirectoryError:
        raise error(f"cannot read {what} '{path}': is a directory") from None
    except PermissionError:
        raise error(f"cannot read {what} '{path}': permission denied") from None
    except (OSError, ValueError, EOFError) as err:
        detail = str(err).split(". ")[0]
        raise error(f"cannot read {what} '{path}': not a valid {want} ({detail})") from None
    if path.endswith(".npz") and isinstance(value, np.ndarray):
        raise error(f"cannot read {what} '{path}': expected an .npz archive, got an .npy array")
    if not isinstance(value, np.ndarray):
        try:
            return {key: value[key] for key in value.files}
        except MemoryError:  # a member whose header claims more than there is
            raise error(f"cannot read {what} '{path}': out of memory reading its arrays") from None
        except (OSError, ValueError, EOFError) as err:
            raise error(f"cannot read {what} '{path}': not a valid .npz archive ({err})") from None
        finally:
            value.close()
    return value


def gather(inputs: Sequence[Input], arg_names: Sequence[str | None] | None) -> tuple[list[Given], dict[int, Given]]:
    """The ``-i`` values: positional ones in order, and named ones by argument index.

    ``arg_names`` None: names unknown (the program was not parsed); every input
    must then be positional.
    """
    from irtoolkit.pipeline import did_you_mean

    positional: list[Given] = []
    named: dict[int, Given] = {}

    def put(name: str, given: Given, where: str) -> None:
        assert arg_names is not None
        if name not in arg_names:
            known = [n for n in arg_names if n]
            listing = ", ".join("%" + n for n in known) or "none"
            raise error(f"{where}: the entry has no argument '%{name}'{did_you_mean(name, known)} "
                        f"(arguments: {listing})")
        index = arg_names.index(name)
        if index in named:
            raise error(f"{where}: argument '%{name}' is given twice")
        named[index] = given

    for count, inp in enumerate(inputs):
        what = f"input {count}"
        if inp.literal:
            given = [("", Given(inp.source, inp.source, literal=True))]
        else:
            data = _read_array_file(inp.source, what)
            if isinstance(data, dict):
                keys_are_names = arg_names is not None and data and all(k in arg_names for k in data)
                if inp.name is not None:
                    raise error(f"{what} '{inp.text}': an .npz archive holds several arrays; "
                                "give it without a name")
                if keys_are_names:
                    for key, arr in data.items():
                        put(key, Given(f"{inp.source}[{key}]", arr), f"{what} '{inp.source}'")
                    continue
                given = [(key, Given(f"{inp.source}[{key}]", arr)) for key, arr in data.items()]
            else:
                given = [("", Given(inp.source, data))]
        if inp.name is not None:
            put(inp.name, given[0][1], f"{what} '{inp.text}'")
        else:
            positional.extend(g for _, g in given)
    return positional, named


def bind_inputs(entry: str, specs: Sequence[ValueSpec | None], types: Sequence[str],
                positional: list[Given], named: dict[int, Given]) -> list[Any]:
    """One checked value per argument: named inputs in their places, positional
    ones filling the others in order."""
    if len(positional) + len(named) != len(types):
        raise error(f"'@{entry}' takes {len(types)} argument(s) ({', '.join(types)}), "
                    f"{len(positional) + len(named)} input(s) given with -i")
    free = iter(positional)
    problems: list[Diagnostic] = []
    values: list[Any] = []
    for index, spec in enumerate(specs):
        given = named[index] if index in named else next(free)
        try:
            if spec is None:
                raise error(f"input {index} ('{given.label}'): argument type {types[index]} "
                            "cannot be given from the command line")
            elif given.literal:
                values.append(convert_literal(index, given.value, spec))
            else:
                values.append(convert_value(index, given.label, given.value, spec))
        except DiagnosticError as err:
            problems.extend(err.diagnostics)
    if problems:
        raise DiagnosticError(problems)
    return values


def find_entry(module: ModuleOp, entry: str, filename: str) -> FuncOp:
    from xdsl.dialects.func import FuncOp

    funcs = [op for op in module.body.block.ops if isinstance(op, FuncOp)]
    for f in funcs:
        if f.sym_name.data == entry:
            if f.is_declaration:
                raise error(f"entry function '@{entry}' is a declaration without a body")
            if f.sym_visibility is not None and f.sym_visibility.data == "private":
                raise error(f"entry function '@{entry}' is private; only public functions can be run")
            return f
    names = ", ".join("@" + f.sym_name.data for f in funcs if not f.is_declaration) or "none"
    raise error(f"no function '@{entry}' in '{filename}' (functions: {names}); choose one with -e")


def argument_names(f: FuncOp) -> list[str | None]:
    """The SSA names of the entry's arguments (``%lr`` -> ``lr``), as written."""
    return [arg.name_hint for arg in f.body.blocks.first.args]  # the entry block (of a CFG too)


# ---------------------------------------------------------------------------
# outputs


def output_kind(path: str, count: int) -> str:
    """``npz``, ``npy`` or ``dir`` for ``-o path``; checked before anything runs."""
    if path.endswith(("/", os.sep)) or os.path.isdir(path):
        return "dir"
    if path.endswith(".npz"):
        return "npz"
    if path.endswith(".npy"):
        if count != 1:
            raise error(f"-o {path}: an .npy file holds one array, and the entry returns {count} "
                        "results; use an .npz file or a directory (-o DIR/)")
        return "npy"
    raise error(f"-o {path}: expected an .npz file, an .npy file (one result) or a directory (DIR/)")


def save_results(path: str, kind: str, results: Sequence[Any]) -> None:
    import numpy as np

    arrays = {f"result{i}": np.asarray(v) for i, v in enumerate(results)}
    if kind == "npz":
        atomic_write(path, lambda stream: np.savez(stream, **arrays), binary=True)
    elif kind == "npy":
        atomic_write(path, lambda stream: np.save(stream, arrays["result0"]), binary=True)
    else:
        try:
            os.makedirs(path, exist_ok=True)
        except OSError as err:
            raise error(f"cannot create output directory '{path}': {err.strerror or err}") from None
        for key, arr in arrays.items():
            atomic_write(os.path.join(path, key + ".npy"), lambda stream, a=arr: np.save(stream, a),
                         binary=True)


def format_result(index: int, value: Any) -> str:
    """``resultN = <numpy repr>``; an array big enough for numpy to summarize
    gets a second line with its shape, dtype, min and max."""
    import numpy as np

    if isinstance(value, np.ndarray):
        text = np.array_repr(value)
        if value.size > np.get_printoptions()["threshold"]:
            text += "\n" + summary(f"result{index}", value)
    elif isinstance(value, np.generic):
        text = f"{value.item()!r} ({value.dtype})"
    else:
        text = repr(value)
    return f"result{index} = {text}"


def summary(name: str, value: np.ndarray) -> str:
    """``name: shape (..), dtype .., min .., max ..`` (NaNs left out of min and max, and counted)."""
    import numpy as np

    line = f"{name}: shape {tuple(value.shape)}, dtype {value.dtype}"
    if value.size and value.dtype.kind in "fiub":
        finite = value[~np.isnan(value)] if value.dtype.kind == "f" else value
        if finite.size:
            line += f", min {finite.min().item()!r}, max {finite.max().item()!r}"
        if finite.size < value.size:
            line += f", {value.size - finite.size} NaN"
    return line


# ---------------------------------------------------------------------------
# progress and timing while compiling


class Progress(PassInstrumentation):
    """Per-pass times for --timing, and a status line on a terminal's stderr when
    compiling takes more than a second (nothing when stderr is not a tty)."""

    DELAY = 1.0

    def __init__(self, filename: str, show: bool):
        self.filename = filename
        self.phase = "parsing"
        self.passes: list[tuple[str, float]] = []
        self._show = show
        self._start = time.perf_counter()
        self._stop = threading.Event()
        self._shown = False
        self._thread: threading.Thread | None = None

    def before_pass(self, p: ModulePass, module: ModuleOp) -> None:
        self.phase = p.name

    def after_pass(self, p: ModulePass, module: ModuleOp, seconds: float) -> None:
        self.passes.append((pass_display_name(p), seconds))
        self.phase = "LLVM"

    def set_phase(self, phase: str) -> None:
        self.phase = phase

    @contextmanager
    def running(self) -> Iterator[Progress]:
        if self._show:
            self._thread = threading.Thread(target=self._status, daemon=True)
            self._thread.start()
        try:
            yield self
        finally:
            self._stop.set()
            if self._thread is not None:
                self._thread.join()
            if self._shown:
                sys.stderr.write("\r\x1b[K")
                sys.stderr.flush()

    def _status(self) -> None:
        if self._stop.wait(self.DELAY):
            return
        while True:
            elapsed = time.perf_counter() - self._start
            sys.stderr.write(f"\r\x1b[K{PROG}: compiling {self.filename}: {self.phase} ({elapsed:.1f} s)")
            sys.stderr.flush()
            self._shown = True
            if self._stop.wait(0.25):
                return


# ---------------------------------------------------------------------------
# running


def as_results(value: Any, count: int) -> list[Any]:
    if count == 0 and value is None:
        return []
    if isinstance(value, (tuple, list)):
        return list(value)
    return [value]


@dataclass
class Session:
    """One irt-run: the options, the phase times, the progress line."""

    opts: Options
    text: str
    filename: str
    progress: Progress
    timer: Timer | None = None
    out_kind: str | None = None

    def phase(self, name: str, start: float) -> None:
        if self.timer is not None:
            self.timer.add(name, time.perf_counter() - start)

    def check_output(self, count: int) -> None:
        if self.opts.output is not None:
            self.out_kind = output_kind(self.opts.output, count)


def run_cached(session: Session, inputs: Sequence[Input]) -> list[Any] | None:
    """The results, if the program is in the compile cache (compiled before with
    this pipeline, by any process): nothing is parsed or compiled. None otherwise,
    for an entry the cache cannot check (unknown, private, not callable), and for
    inputs given by argument name (the names are in the source): the parsed path
    handles those."""
    opts = session.opts
    if any(i.name is not None or i.is_npz for i in inputs):
        return None
    t0 = time.perf_counter()
    try:
        from irtoolkit.runtime import cached_source
    except ImportError:
        return None
    exe = cached_source(session.text, session.filename, opts.pipeline)
    session.phase("Compile cache lookup (loads LLVM)", t0)
    sig = None if exe is None else exe.signatures.get(opts.entry)
    if exe is None or sig is None or sig.unsupported is not None:
        return None
    positional, named = gather(inputs, None)
    values = bind_inputs(sig.name, sig.inputs, [s.type_text for s in sig.inputs], positional, named)
    session.check_output(len(sig.outputs))
    t1 = time.perf_counter()
    results = as_results(exe[opts.entry](*values), len(sig.outputs))
    session.phase("Run", t1)
    return results


def run_parsed(session: Session, inputs: Sequence[Input]) -> list[Any]:
    opts = session.opts
    if opts.pipeline is not None:
        from irtoolkit.pipeline import build_passes

        t0 = time.perf_counter()
        build_passes(opts.pipeline)  # a bad pipeline fails before anything runs
        session.phase("Pipeline parser (loads the passes)", t0)
    t0 = time.perf_counter()
    from irtoolkit.parsing import parse_module
    from irtoolkit.runtime.signature import value_spec

    module = parse_module(session.text, session.filename)
    session.phase("Parser and verifier (loads xDSL)", t0)
    f = find_entry(module, opts.entry, session.filename)
    types = list(f.function_type.inputs.data)
    positional, named = gather(inputs, argument_names(f))
    values = bind_inputs(opts.entry, [value_spec(t) for t in types], [str(t) for t in types],
                         positional, named)
    session.check_output(len(f.function_type.outputs.data))
    return as_results(execute(module, session, values), len(f.function_type.outputs.data))


def execute(module: ModuleOp, session: Session, values: list[Any]) -> Any:
    import irtoolkit
    from irtoolkit.pipeline import exact_pipelines, instrumented

    opts = session.opts
    progress = session.progress
    if opts.interpret:
        try:
            from irtoolkit.interpreter import interpret_function  # noqa: F401
        except ImportError as err:
            raise error(f"the interpreter is unavailable: {err}") from None
        if opts.pipeline:
            from irtoolkit.pipeline import run_pipeline

            with instrumented(progress), progress.running():
                run_pipeline(module, opts.pipeline)
        t0 = time.perf_counter()
        result = irtoolkit.interpret(module, opts.entry, *values)
        session.phase("Interpreter", t0)
        return result
    try:
        from irtoolkit.runtime import compile_module  # noqa: F401
    except ImportError as err:
        raise error(f"the JIT compiler is unavailable: {err}") from None
    from irtoolkit.runtime import compile_source

    t0 = time.perf_counter()
    with instrumented(progress), progress.running():
        progress.set_phase("lowering")
        if opts.pipeline is not None:
            with exact_pipelines():  # -p is the whole pipeline: nothing appended
                exe = compile_source(session.text, session.filename, opts.pipeline, module=module)
        else:
            exe = compile_source(session.text, session.filename, None, module=module)  # cached for run_cached
    compile_seconds = time.perf_counter() - t0
    if session.timer is not None:
        for name, secs in progress.passes:
            session.timer.add(name, secs)
        session.timer.add("LLVM (verify, translate, optimize, load)",
                          max(compile_seconds - sum(s for _, s in progress.passes), 0.0))
    t1 = time.perf_counter()
    result = exe[opts.entry](*values)
    session.phase("Run", t1)
    return result


def run(opts: Options) -> int:
    timer = Timer() if opts.timing else None
    text, filename = read_text(opts.input_file)
    inputs = [Input.parse(t) for t in opts.inputs]
    session = Session(opts, text, filename, Progress(filename, show=_stderr_is_tty()), timer)
    results = None if opts.interpret else run_cached(session, inputs)
    if results is None:
        results = run_parsed(session, inputs)
    t0 = time.perf_counter()
    for index, value in enumerate(results):
        sys.stdout.write(format_result(index, value) + "\n")
    sys.stdout.flush()
    if opts.output is not None:
        save_results(opts.output, session.out_kind or output_kind(opts.output, len(results)), results)
    session.phase("Output", t0)
    if timer is not None:
        sys.stderr.write(timer.report())
    return EXIT_OK


def _stderr_is_tty() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


@click.command(
    name=PROG,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    help="Run function ENTRY of FILE on numpy inputs.\n\n"
    "Compiles FILE with the default pipeline 'convert-stablehlo-to-tensor,ad,lower-to-llvm' (-p replaces it: the pipeline "
    "given is all that runs, and it must reach the llvm dialect) and calls ENTRY with the -i "
    "inputs; with --interpret, runs it on the reference interpreter (after the -p passes, if any). "
    "Prints each result (big arrays summarized with shape, dtype, min and max); -o saves them.",
)
@click.argument("input_file", metavar="FILE")
@click.option("-e", "--entry", default="main", show_default=True, help="Function to call.")
@click.option("-i", "--input", "inputs", multiple=True, metavar="INPUT",
              help="An argument (repeat, in argument order): an .npy file (0-d for a scalar), an "
                   ".npz archive (its arrays in order, or by argument name when every key names "
                   "one), a literal scalar (0.1, 3, true), or NAME=VALUE for the argument %NAME "
                   "(lr=0.1, x=x.npy).")
@click.option("-o", "--output", default=None, metavar="OUT",
              help="Save the results: OUT.npz (result0, result1, ...), OUT.npy (a single result) "
                   "or DIR/ (DIR/result0.npy, ...).")
@click.option("-p", "--pass-pipeline", "pipeline", default=None, metavar="PIPELINE",
              help="Pipeline to compile with, instead of 'convert-stablehlo-to-tensor,ad,lower-to-llvm' (e.g. "
                   "'ad{checkpoint=sqrt},lower-to-llvm{blas=false}'); with --interpret, passes to "
                   "run before interpreting.")
@click.option("--interpret", is_flag=True, help="Run on the reference interpreter, without compiling.")
@click.option("--timing", "--mlir-timing", "timing", is_flag=True,
              help="Print the time of each phase (parser, passes, LLVM, run) to stderr.")
@click.option("--debug", is_flag=True, help="Show Python tracebacks for errors.")
def command(**kwargs: Any) -> int:
    kwargs["inputs"] = tuple(kwargs["inputs"])
    return run(Options(**kwargs))


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of ``irt-run``; exits with 0 on success, 1 on any error."""
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args

    def body() -> int:
        long_options = {o for p in command.params for o in p.opts if o.startswith("--")}
        rv = command.main(args=rewrite_single_dash(args, long_options), prog_name=PROG,
                          standalone_mode=False)
        return rv if isinstance(rv, int) else EXIT_OK

    sys.exit(finish(run_guarded(body, debug, PROG)))


if __name__ == "__main__":
    main()
