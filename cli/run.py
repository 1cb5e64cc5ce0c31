"""``irt-run``: run a function of an MLIR file on numpy inputs.

Compiles (default pipeline ``ad,lower-to-llvm``) and calls the entry
function, or with ``--interpret`` runs it on the reference interpreter.
Inputs are ``.npy`` files, checked against the entry function's signature
before anything runs; results are printed and, with ``-o``, saved as
``result0``, ``result1``, ... in an ``.npz`` written whole or not at all.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from irtoolkit.cli.common import (
    EXIT_OK,
    atomic_write,
    error,
    read_text,
    rewrite_single_dash,
    finish,
    run_guarded,
)
from irtoolkit.diagnostics import Diagnostic, DiagnosticError

if TYPE_CHECKING:
    import numpy as np
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.dialects.func import FuncOp
    from xdsl.ir import Attribute

    from irtoolkit.runtime.signature import Signature, ValueSpec

PROG = "irt-run"


@dataclass
class Options:
    input_file: str
    entry: str = "main"
    inputs: tuple[str, ...] = ()
    output: str | None = None
    pipeline: str | None = None
    interpret: bool = False
    debug: bool = False


# ---------------------------------------------------------------------------
# signature checks (on the JIT's ValueSpecs: the same checks whether the entry's
# signature comes from the parsed module or from the compile cache)


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
        raise error(f"{where}: argument type {t} cannot be given from a .npy file")
    return convert_value(index, path, value, spec)


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
        return np.ascontiguousarray(value)
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


def _check_npy_size(path: str, index: int) -> None:
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
        raise error(f"cannot read input {index} '{path}': not a valid .npy file (its header "
                    f"claims {math.prod(shape)} elements of {dtype}, {claimed} bytes, but the "
                    f"file holds {available} bytes of data)")


def load_inputs(paths: Sequence[str]) -> list[np.ndarray]:
    import numpy as np

    arrays = []
    for index, path in enumerate(paths):
        try:
            with open(path, "rb") as fh:
                magic = fh.read(6)
            if magic != b"\x93NUMPY":
                if magic[:2] == b"PK":
                    raise error(f"cannot read input {index} '{path}': expected an .npy array, got an .npz archive")
                raise error(f"cannot read input {index} '{path}': not an .npy file")
            _check_npy_size(path, index)
            value = np.load(path, allow_pickle=False)
        except MemoryError:
            raise error(f"cannot read input {index} '{path}': out of memory") from None
        except FileNotFoundError:
            raise error(f"cannot read input {index} '{path}': no such file") from None
        except IsADirectoryError:
            raise error(f"cannot read input {index} '{path}': is a directory") from None
        except PermissionError:
            raise error(f"cannot read input {index} '{path}': permission denied") from None
        except (OSError, ValueError, EOFError) as err:
            detail = str(err).split(". ")[0]
            raise error(f"cannot read input {index} '{path}': not a valid .npy file ({detail})") from None
        if not isinstance(value, np.ndarray):  # an .npz archive
            value.close()
            raise error(f"cannot read input {index} '{path}': expected an .npy array, got an .npz archive")
        arrays.append(value)
    return arrays


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


def check_inputs(f: FuncOp, paths: Sequence[str], arrays: Sequence[np.ndarray]) -> list[Any]:
    arg_types = list(f.function_type.inputs.data)
    return _check_all(f.sym_name.data, [str(t) for t in arg_types], paths, arrays,
                      lambda index, path, value: convert_input(index, path, value, arg_types[index]))


def check_inputs_against(sig: Signature, paths: Sequence[str], arrays: Sequence[np.ndarray]) -> list[Any]:
    return _check_all(sig.name, [s.type_text for s in sig.inputs], paths, arrays,
                      lambda index, path, value: convert_value(index, path, value, sig.inputs[index]))


def _check_all(name: str, types: Sequence[str], paths: Sequence[str], arrays: Sequence[np.ndarray],
               convert: Callable[[int, str, np.ndarray], Any]) -> list[Any]:
    if len(arrays) != len(types):
        raise error(f"'@{name}' takes {len(types)} argument(s) ({', '.join(types)}), "
                    f"{len(arrays)} input(s) given with -i")
    problems: list[Diagnostic] = []
    values: list[Any] = []
    for index, (path, value) in enumerate(zip(paths, arrays)):
        try:
            values.append(convert(index, path, value))
        except DiagnosticError as err:
            problems.extend(err.diagnostics)
    if problems:
        raise DiagnosticError(problems)
    return values


# ---------------------------------------------------------------------------
# running


def as_results(value: Any, count: int) -> list[Any]:
    if count == 0 and value is None:
        return []
    if isinstance(value, (tuple, list)):
        return list(value)
    return [value]


def format_result(index: int, value: Any) -> str:
    import numpy as np

    if isinstance(value, np.ndarray):
        text = np.array_repr(value)
    elif isinstance(value, np.generic):
        text = f"{value.item()!r} ({value.dtype})"
    else:
        text = repr(value)
    return f"result{index} = {text}"


def run_cached(text: str, filename: str, opts: Options) -> list[Any] | None:
    """The results, if the program is in the compile cache (compiled before with
    this pipeline, by any process): nothing is parsed or compiled. None otherwise,
    and for an entry the cache cannot check (unknown, private, not callable):
    the parsed path reports those."""
    try:
        from irtoolkit.runtime.jit import cached_source
    except ImportError:
        return None
    exe = cached_source(text, filename, opts.pipeline)
    sig = None if exe is None else exe.signatures.get(opts.entry)
    if exe is None or sig is None or sig.unsupported is not None:
        return None
    values = check_inputs_against(sig, opts.inputs, load_inputs(opts.inputs))
    return as_results(exe[opts.entry](*values), len(sig.outputs))


def run_parsed(text: str, filename: str, opts: Options) -> list[Any]:
    from irtoolkit.parsing import parse_module

    if opts.pipeline is not None:
        from irtoolkit.pipeline import build_passes

        build_passes(opts.pipeline)  # unknown passes fail before anything runs
    module = parse_module(text, filename)
    f = find_entry(module, opts.entry, filename)
    values = check_inputs(f, opts.inputs, load_inputs(opts.inputs))
    return as_results(execute(module, text, filename, opts, values), len(f.function_type.outputs.data))


def execute(module: ModuleOp, text: str, filename: str, opts: Options, values: list[Any]) -> Any:
    import irtoolkit

    if opts.interpret:
        if opts.pipeline:
            from irtoolkit.pipeline import run_pipeline

            run_pipeline(module, opts.pipeline)
        try:
            from irtoolkit.interpreter import interpret_function  # noqa: F401
        except ImportError as err:
            raise error(f"the interpreter is unavailable: {err}") from None
        return irtoolkit.interpret(module, opts.entry, *values)
    try:
        from irtoolkit.runtime import compile_module  # noqa: F401
    except ImportError as err:
        raise error(f"the JIT compiler is unavailable: {err}") from None
    from irtoolkit.runtime.jit import compile_source

    exe = compile_source(text, filename, opts.pipeline, module=module)  # cached for run_cached
    return exe[opts.entry](*values)


def run(opts: Options) -> int:
    text, filename = read_text(opts.input_file)
    results = None if opts.interpret else run_cached(text, filename, opts)
    if results is None:
        results = run_parsed(text, filename, opts)
    for index, value in enumerate(results):
        sys.stdout.write(format_result(index, value) + "\n")
    sys.stdout.flush()
    if opts.output is not None:
        import numpy as np

        arrays = {f"result{i}": np.asarray(v) for i, v in enumerate(results)}
        atomic_write(opts.output, lambda stream: np.savez(stream, **arrays), binary=True)
    return EXIT_OK


@click.command(
    name=PROG,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    help="Run function ENTRY of FILE on numpy inputs.\n\n"
    "Compiles FILE (default pipeline 'ad,lower-to-llvm') and calls ENTRY with the "
    "-i inputs in order, or with --interpret runs it on the reference interpreter "
    "(after the -p passes, if any). Prints each result; -o saves them as result0, "
    "result1, ... in an .npz file.",
)
@click.argument("input_file", metavar="FILE")
@click.option("-e", "--entry", default="main", show_default=True, help="Function to call.")
@click.option("-i", "--input", "inputs", multiple=True, metavar="INPUT.npy",
              help="An argument, as an .npy file (repeat, in argument order; 0-d for scalars).")
@click.option("-o", "--output", default=None, metavar="OUT.npz", help="Save the results to an .npz file.")
@click.option("-p", "--pass-pipeline", "pipeline", default=None, metavar="PIPELINE",
              help="Pipeline to compile with (default 'ad,lower-to-llvm'); with --interpret, "
                   "passes to run before interpreting.")
@click.option("--interpret", is_flag=True, help="Run on the reference interpreter, without compiling.")
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
