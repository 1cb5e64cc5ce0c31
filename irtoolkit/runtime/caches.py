"""Compiling with two caches: executables in memory, machine code on disk.

``compile_module`` keys on the module's generic text with locations, the
pipeline and the LLVM settings; ``compile_source`` adds a level keyed on the
source text and file name, so that a program compiled before (by any
process) loads from the disk cache without parsing or importing xDSL. What a
disk entry holds besides the objects -- the signatures, the entry points, and
which of them the objects hold (an entry point's code is built at its first
call: the entry is stored again as a program calls more of them, and when it
tiers up) -- is checked against its schema here before anything is loaded
(``InvalidEntry``); the file itself is ``diskcache``'s business.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import numpy as np

from irtoolkit.abi import ENTRY_PREFIX
from irtoolkit.diagnostics import DiagnosticError
from irtoolkit.runtime import symbols
from irtoolkit.runtime.executable import (Executable, default_opt, init_llvm, llvm_config,
                                          verify_each_requested)
from irtoolkit.runtime.objectfile import external_symbols, read_object
from irtoolkit.runtime.signature import Signature, ValueSpec, capture_signatures

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

_CACHE: OrderedDict[tuple, Executable] = OrderedDict()
_CACHE_SIZE = 64  # executables kept in memory (each holds an MCJIT engine)
_cache_lock = threading.Lock()


def clear_cache(disk: bool = False) -> None:
    """Forget the in-memory executables (and with ``disk``, the disk cache's entries)."""
    with _cache_lock:
        _CACHE.clear()
    if disk:
        from irtoolkit.runtime import diskcache

        diskcache.clear()


def module_key_text(module: ModuleOp) -> str:
    """The text a compiled module is cached under: the generic form with locations."""
    from xdsl.printer import Printer
    import io

    buf = io.StringIO()
    Printer(stream=buf, print_generic_format=True, print_debuginfo=True).print_op(module)
    return buf.getvalue()


def _encode_signatures(sigs: dict[str, Signature]) -> list:
    def spec(s: ValueSpec) -> list:
        return [s.type_text, s.dtype.str, None if s.shape is None else list(s.shape)]

    return [[s.name, [spec(x) for x in s.inputs], [spec(x) for x in s.outputs], s.unsupported]
            for s in sigs.values()]


# the dtypes a cached signature may name (what irtoolkit.types maps element types to)
_DTYPES = frozenset(np.dtype(t).str for t in (
    np.float16, np.float32, np.float64, np.bool_, np.int8, np.int16, np.int32, np.int64,
    np.uint8, np.uint16, np.uint32, np.uint64))
_MAX_RANK = 64


class InvalidEntry(ValueError):
    """Metadata of a disk-cache entry that does not follow the schema."""


def _expect(ok: bool, what: str) -> None:
    if not ok:
        raise InvalidEntry(what)


def _decode_spec(x: Any) -> ValueSpec:
    _expect(isinstance(x, list) and len(x) == 3, "a value spec is not [type, dtype, shape]")
    t, dt, shape = x
    _expect(isinstance(t, str) and isinstance(dt, str) and dt in _DTYPES, "bad type or dtype")
    if shape is not None:
        _expect(isinstance(shape, list) and len(shape) <= _MAX_RANK
                and all(d is None or (type(d) is int and d >= 0) for d in shape), "bad shape")
        shape = tuple(shape)
    return ValueSpec(t, np.dtype(dt), shape)


def _decode_signatures(data: Any) -> dict[str, Signature]:
    _expect(isinstance(data, list), "signatures is not a list")
    out = {}
    for item in data:
        _expect(isinstance(item, list) and len(item) == 4, "a signature is not [name, ins, outs, why]")
        name, ins, outs, why = item
        _expect(isinstance(name, str) and isinstance(ins, list) and isinstance(outs, list)
                and (why is None or isinstance(why, str)) and name not in out, "bad signature")
        out[name] = Signature(name, tuple(_decode_spec(x) for x in ins),
                              tuple(_decode_spec(x) for x in outs), why)
    return out


def _decode_meta(meta: dict, blob: bytes, opt: int):
    """(signatures, entry points, objects, tier, the entry points the objects
    hold) of a cache entry's metadata and object code; ``InvalidEntry`` for
    anything outside the schema."""
    _expect(set(meta) == {"key", "signatures", "entries", "opt", "tier", "built", "object_sizes"},
            "unexpected keys")
    _expect(meta["tier"] in (0, 1), "bad tier")
    sigs = _decode_signatures(meta["signatures"])
    entries = meta["entries"]
    _expect(isinstance(entries, dict) and set(entries) == set(sigs), "entries do not match signatures")
    for name, wrapper in entries.items():
        _expect(wrapper is None or wrapper == ENTRY_PREFIX + name, "bad entry point name")
    built = meta["built"]
    _expect(isinstance(built, list) and len(set(built)) == len(built)
            and all(isinstance(n, str) and entries.get(n) is not None for n in built),
            "built entry points are not callable ones")
    _expect(meta["opt"] == opt, "another optimization level")
    sizes = meta["object_sizes"]
    _expect(isinstance(sizes, list) and 0 < len(sizes) <= 1024
            and all(type(n) is int and n > 0 for n in sizes) and sum(sizes) == len(blob),
            "object sizes do not add up")
    objects, start = [], 0
    for size in sizes:
        objects.append(blob[start:start + size])
        start += size
    return sigs, entries, objects, meta["tier"], built


def _load_from_disk(key: str, source: tuple[str, str, str | None], opt: int) -> Executable | None:
    from irtoolkit.runtime import diskcache

    entry = diskcache.load(key)
    if entry is None:
        return None
    meta, blob = entry
    try:
        sigs, entries, objects, tier, built = _decode_meta(meta, blob, opt)
        contents = [read_object(obj) for obj in objects]
        bad = symbols.forbidden(external_symbols(contents))
        if bad:
            diskcache.warn_once(f"entry {key} refers to {', '.join(bad)}, which compiled code may "
                                "not call: discarded")
            raise InvalidEntry("forbidden symbols")
        defined = {name for c in contents for name in c.defined}
        _expect(all(entries[n] in defined for n in built), "entry point missing")
        exe = Executable.from_objects(objects, sigs, entries, opt, source, contents, tier, built)
    except (ValueError, DiagnosticError):  # InvalidEntry, InvalidObject, a symbol not found ...
        diskcache.discard(key)  # compile afresh
        return None
    _keep_on_disk(key, exe, now=False)  # the tier-up and later builds replace the entry
    return exe


def _keep_on_disk(key: str, exe: Executable, now: bool = True) -> None:
    """Store ``exe``'s machine code under ``key`` (``now`` if it has any), and
    again whenever it changes: an entry point built at its first call, a tier-up."""
    exe._on_code[key] = lambda e: _store_on_disk(key, e)
    if now and exe._objects:
        _store_on_disk(key, exe)


def _store_on_disk(key: str, exe: Executable) -> None:
    """Store ``exe``'s machine code under ``key`` (called with its build lock held,
    or before any build: the objects, tier and built entry points agree)."""
    from irtoolkit.runtime import diskcache

    objects = exe._objects
    meta = dict(signatures=_encode_signatures(exe.signatures), entries=exe._entries, opt=exe.opt,
                tier=exe.tier, built=sorted(exe._built), object_sizes=[len(o) for o in objects])
    diskcache.store(key, meta, b"".join(objects))


def compile_module(module: ModuleOp, pipeline: str | None = None, opt: int | None = None) -> Executable:
    """Lower a clone of ``module`` and JIT-compile it (``module`` is left unchanged).

    Compiling the same module (text and locations) with the same pipeline again
    returns the same Executable (in-memory cache); another process compiling it
    loads the machine code from the disk cache (``irtoolkit.runtime.diskcache``).
    """
    if opt is None:
        opt = default_opt()
    text = module_key_text(module)
    mkey = (text, f"{pipeline or ''}|O{llvm_config(opt)}")
    with _cache_lock:
        hit = _CACHE.get(mkey)
        if hit is not None:
            _CACHE.move_to_end(mkey)
            return hit
    from irtoolkit.runtime import diskcache

    dkey = None
    if diskcache.cache_dir() is not None:
        dkey = diskcache.make_key(text, pipeline, llvm_config(opt), init_llvm())
        exe = _load_from_disk(dkey, (text, "<cached module>", pipeline), opt)
        if exe is not None:
            return _remember(mkey, exe)
    exe = _compile_fresh(module, pipeline, opt)
    exe._source = (text, "<cached module>", pipeline)
    if dkey is not None:
        _keep_on_disk(dkey, exe)
    return _remember(mkey, exe)


def compile_source(text: str, filename: str = "<string>", pipeline: str | None = None,
                   opt: int | None = None, module: ModuleOp | None = None) -> Executable:
    """Parse (and verify) ``text`` and compile it: ``compile_module(parse_module(text))``,
    with one more cache level keyed on the source text and file name, so that a
    program compiled before (by any process) is loaded from the disk cache
    without parsing -- without even importing xDSL (a few ms in all). ``module``:
    ``text`` parsed already."""
    if opt is None:
        opt = default_opt()
    exe, skey, dkey = _cached_source(text, filename, pipeline, opt)
    if exe is not None:
        return exe
    if module is None:
        from irtoolkit.parsing import parse_module

        module = parse_module(text, filename)
    exe = compile_module(module, pipeline, opt)
    if dkey is not None:
        _keep_on_disk(dkey, exe)
    return _remember(skey, exe)


def cached_source(text: str, filename: str = "<string>", pipeline: str | None = None,
                  opt: int | None = None) -> Executable | None:
    """The executable of ``compile_source(text, ...)`` if it is in the in-memory or
    the disk cache (nothing is parsed or compiled); else None."""
    return _cached_source(text, filename, pipeline, default_opt() if opt is None else opt)[0]


def _cached_source(text: str, filename: str, pipeline: str | None,
                   opt: int) -> tuple[Executable | None, tuple, str | None]:
    """(the cached executable or None, its in-memory key, its disk key or None
    when the disk cache is off)."""
    skey = ("source", text, filename, f"{pipeline or ''}|O{llvm_config(opt)}")
    with _cache_lock:
        hit = _CACHE.get(skey)  # type: ignore[call-overload]
        if hit is not None:
            _CACHE.move_to_end(skey)  # type: ignore[arg-type]
            return hit, skey, None
    from irtoolkit.runtime import diskcache

    if diskcache.cache_dir() is None:
        return None, skey, None
    dkey = diskcache.make_key(text, pipeline, llvm_config(opt), init_llvm(), source_name=filename)
    exe = _load_from_disk(dkey, (text, filename, pipeline), opt)
    return (None if exe is None else _remember(skey, exe)), skey, dkey


def _remember(mkey, exe: Executable) -> Executable:
    with _cache_lock:
        _CACHE[mkey] = exe
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return exe


def _compile_fresh(module: ModuleOp, pipeline: str | None, opt: int) -> Executable:
    from irtoolkit.gcpause import paused_gc
    from irtoolkit.runtime import translate
    from irtoolkit.pipeline import verify_each_default
    from irtoolkit.verifier import verify_module

    signatures = capture_signatures(module)
    with paused_gc():  # IR and llvmlite objects: the collector's rescans cost seconds
        check_each = verify_each_requested()
        if not check_each:
            # the input is verified once; the internal passes are not re-verified
            # (LLVM's verifier checks the end result). IRT_VERIFY_EACH=1 turns it on.
            verify_module(module)
        with verify_each_default(check_each):
            lowered = translate.lower_module(module, pipeline)
        return Executable(lowered, signatures, opt)
