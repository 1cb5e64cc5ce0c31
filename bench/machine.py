"""The machine a bench run measures, and a background load for the busy-machine scenario.

``describe()`` names the CPU (``/proc/cpuinfo``), its vector width -- from the
CPU's flags and from LLVM's view of the host (the features the compiled code
may use: AVX-512F, AVX2 ...) -- the cores and the load average, so that every
table says where it was taken.

``background_load()`` keeps one core busy in another process (a spinning
interpreter) for the duration of a ``with`` block: the ``--background-load``
scenario, in which every contender is timed again.
"""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import contextmanager


def _cpuinfo() -> dict[str, str]:
    info: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if not line.strip():
                    break  # the first processor is enough
                key, _, value = line.partition(":")
                info[key.strip()] = value.strip()
    except OSError:
        pass
    return info


def vector_isa(flags: set[str]) -> str:
    """The widest x86 vector extension among ``flags`` (cpuinfo or LLVM names)."""
    for isa, bits in (("avx512f", 512), ("avx2", 256), ("avx", 256), ("sse2", 128)):
        if isa in flags:
            return f"{isa.upper()} ({bits}-bit)"
    return "unknown"


def llvm_host() -> tuple[str, set[str]]:
    """LLVM's name of the host CPU and the features it enables for it."""
    import llvmlite.binding as llvm

    llvm.initialize_native_target()
    features = llvm.get_host_cpu_features()
    return llvm.get_host_cpu_name(), {k for k, on in features.items() if on}


def describe() -> list[str]:
    info = _cpuinfo()
    model = info.get("model name") or info.get("Processor") or "unknown CPU"
    flags = set(info.get("flags", "").split())
    lines = [f"CPU {model}, {os.cpu_count()} cores; vector width (cpuinfo flags): {vector_isa(flags)}"]
    try:
        name, features = llvm_host()
        lines.append(f"LLVM host CPU {name}: {vector_isa(features)}, "
                     f"avx512f {'yes' if 'avx512f' in features else 'no'}, "
                     f"avx2 {'yes' if 'avx2' in features else 'no'}, fma {'yes' if 'fma' in features else 'no'}")
    except Exception as err:  # noqa: BLE001 -- the run goes on without it
        lines.append(f"LLVM host CPU: unknown ({type(err).__name__}: {err})")
    one, five, _ = os.getloadavg()
    lines.append(f"load average {one:.2f} (1 min), {five:.2f} (5 min): other work on the machine makes timings noisy")
    return lines


SPIN = "while True:\n    pass\n"


@contextmanager
def background_load():
    """Another process keeps one core busy while the block runs."""
    proc = subprocess.Popen([sys.executable, "-c", SPIN], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()
