"""Code out (issue 16 item 7): ``irt-opt --emit obj|asm|llvm`` and upstream's C
interface, so that a C program calls what we compile as it calls code from
``mlir-opt | mlir-translate | llc``."""

import os
import shutil
import subprocess
import sys

import pytest

from irtoolkit.abi import CALL_HELPER_SYMBOLS, ENTER_SYMBOL, PARALLEL_FOR_SYMBOL, TLS_KEY_SYMBOL

PROGRAM = """\
func.func @scale(%x: tensor<?xf64>, %s: f64) -> (tensor<?xf64>, f64) attributes {llvm.emit_c_interface} {
  %y = tensor.add %x, %x : tensor<?xf64>
  %z = tensor.reduce_sum %y [0] : tensor<?xf64> -> tensor<f64>
  %t = tensor.extract %z[] : tensor<f64>
  %v = arith.mulf %t, %s : f64
  return %y, %v : tensor<?xf64>, f64
}
func.func @hypot2(%a: f64, %b: f64) -> f64 attributes {llvm.emit_c_interface} {
  %p = arith.mulf %a, %a : f64
  %q = arith.mulf %b, %b : f64
  %r = arith.addf %p, %q : f64
  return %r : f64
}
func.func @plain(%a: i64) -> i64 {
  return %a : i64
}
"""

DRIVER = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* upstream MLIR's descriptor of a rank-1 memref */
typedef struct { double *allocated, *aligned; int64_t offset, sizes[1], strides[1]; } memref_1d;
typedef struct { memref_1d y; double v; } scale_result;

void _mlir_ciface_scale(scale_result *out, memref_1d *x, double s);
double _mlir_ciface_hypot2(double a, double b);
int64_t plain(int64_t a);

int main(void) {
    double data[5] = {1, 2, 3, 4, 5};
    memref_1d x = {data, data, 0, {5}, {1}};
    scale_result r;
    _mlir_ciface_scale(&r, &x, 0.5);
    for (int64_t i = 0; i < r.y.sizes[0]; i++)
        printf("%g ", r.y.aligned[r.y.offset + i * r.y.strides[0]]);
    printf("| %g | %g | %ld\n", r.v, _mlir_ciface_hypot2(3.0, 4.0), (long)plain(7));
    free(r.y.allocated);
    return 0;
}
"""


def irt_opt(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "irtoolkit.cli.opt", *args], capture_output=True,
                          text=True, timeout=300, cwd=cwd)


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    d = tmp_path_factory.mktemp("emit")
    (d / "prog.mlir").write_text(PROGRAM)
    return d


def test_a_c_program_calls_the_object_file(program):
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler on this machine: the object file cannot be linked here")
    proc = irt_opt(str(program / "prog.mlir"), "--emit", "obj", "-o", str(program / "prog.o"))
    assert proc.returncode == 0, proc.stderr
    (program / "driver.c").write_text(DRIVER)
    build = subprocess.run([cc, "-o", str(program / "driver"), str(program / "driver.c"),
                            str(program / "prog.o"), "-lm", "-lpthread"],
                           capture_output=True, text=True, timeout=120)
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(program / "driver")], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "2 4 6 8 10 | 15 | 25 | 7"


THREADED_DRIVER = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct { double *allocated, *aligned; int64_t offset, sizes[1], strides[1]; } memref_1d;
typedef struct { memref_1d y; double v; } scale_result;

void _mlir_ciface_scale(scale_result *out, memref_1d *x, double s);

int main(void) {
    int64_t n = 1000000;
    double *data = malloc(n * sizeof(double));
    for (int64_t i = 0; i < n; i++) data[i] = (double)(i % 7);
    memref_1d x = {data, data, 0, {n}, {1}};
    scale_result r;
    _mlir_ciface_scale(&r, &x, 0.5);
    printf("%.17g %g\n", r.v, r.y.aligned[n - 1]);
    free(r.y.allocated);
    free(data);
    return 0;
}
"""


def test_an_object_file_with_parallel_loops_links_alone_and_runs_them_on_threads(program):
    """The runtime's thread dispatch (``__irt_parallel_for``, compiled once per process
    by the JIT) is in the object file as a ``linkonce_odr`` copy: the program links
    without irtoolkit, and the sum over chunks is the same for 1 and 3 threads."""
    from irtoolkit.runtime.objectfile import read_object

    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler on this machine: the object file cannot be linked here")
    obj = program / "threads.o"
    proc = irt_opt(str(program / "prog.mlir"), "--emit", "obj", "-o", str(obj))
    assert proc.returncode == 0, proc.stderr
    symbols = read_object(obj.read_bytes())
    assert "__irt_parallel_for" in symbols.defined
    assert "pthread_create" in symbols.undefined
    # (not the call helpers the JIT's runtime holds too: they need its thread key)
    assert not {*CALL_HELPER_SYMBOLS, TLS_KEY_SYMBOL} & {*symbols.defined, *symbols.undefined}
    (program / "threads.c").write_text(THREADED_DRIVER)
    build = subprocess.run([cc, "-o", str(program / "threads"), str(program / "threads.c"), str(obj),
                            "-lm", "-lpthread"], capture_output=True, text=True, timeout=120)
    assert build.returncode == 0, build.stderr
    outs = set()
    for threads in ("1", "3"):
        run = subprocess.run([str(program / "threads")], capture_output=True, text=True, timeout=60,
                             env={**os.environ, "IRT_NUM_THREADS": threads})
        assert run.returncode == 0, run.stderr
        outs.add(run.stdout.strip())
    expected = sum(2.0 * (i % 7) for i in range(1_000_000)) * 0.5
    assert len(outs) == 1 and float(outs.pop().split()[0]) == pytest.approx(expected, rel=1e-12)


def test_an_object_file_gets_the_pieces_of_the_runtime_it_calls_only():
    """``link_runtime`` copies the thread dispatch into an object that calls it, and
    never the call helpers (their thread key and interrupt count are the JIT's)."""
    from irtoolkit.runtime.support import runtime_text

    threads = runtime_text(for_object=True, names=frozenset({PARALLEL_FOR_SYMBOL}))
    assert f"@{PARALLEL_FOR_SYMBOL}(" in threads and TLS_KEY_SYMBOL not in threads
    helpers = runtime_text(for_object=True, names=frozenset({ENTER_SYMBOL}))
    assert f"@{ENTER_SYMBOL}(" in helpers and PARALLEL_FOR_SYMBOL not in helpers
    assert all("define linkonce_odr " in line for line in (threads + helpers).splitlines()
               if line.startswith("define "))


def test_the_object_file_has_the_c_interface(program):
    from irtoolkit.runtime.objectfile import read_object

    out = program / "syms.o"
    assert irt_opt(str(program / "prog.mlir"), "--emit", "obj", "-o", str(out)).returncode == 0
    symbols = read_object(out.read_bytes())
    assert {"scale", "_mlir_ciface_scale", "hypot2", "_mlir_ciface_hypot2", "plain"} \
        <= set(symbols.defined)
    assert "_mlir_ciface_plain" not in symbols.defined  # not marked
    assert not any(s.startswith(("_irt_call_", "__irt_tls")) for s in
                   (*symbols.defined, *symbols.undefined))  # no JIT interface in it


def test_llvm_ir_carries_the_target(program):
    import llvmlite.binding as llvm

    proc = irt_opt(str(program / "prog.mlir"), "--emit", "llvm")
    assert proc.returncode == 0, proc.stderr
    assert f'target triple = "{llvm.get_process_triple()}"' in proc.stdout
    assert 'target datalayout = "e-' in proc.stdout


def test_assembly(program):
    proc = irt_opt(str(program / "prog.mlir"), "--emit", "asm")
    assert proc.returncode == 0, proc.stderr
    assert "_mlir_ciface_scale:" in proc.stdout and ".text" in proc.stdout


def test_an_object_file_needs_an_output_file(program):
    proc = irt_opt(str(program / "prog.mlir"), "--emit", "obj")
    assert proc.returncode == 1
    assert "give -o FILE" in proc.stderr
