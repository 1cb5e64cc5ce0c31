"""The on-disk compile cache: machine code of compiled modules, keyed by their input.

``compile_module`` keys an entry on everything that determines the machine
code, taken BEFORE any pass runs: the printed input module (generic form, with
locations: run-time check messages carry them), the pipeline, the LLVM
optimization level, irtoolkit's version and a fingerprint of its source files,
xDSL's, llvmlite's and LLVM's versions, and the host triple, CPU name and CPU
features. A hit skips ``ad``, the lowering and LLVM: the object code is loaded
with MCJIT's ``add_object_file`` (a few ms).

Location: ``$IRT_CACHE_DIR``, else ``$XDG_CACHE_HOME/irtoolkit``, else
``~/.cache/irtoolkit``. ``IRT_CACHE_DIR=`` (set but empty) or ``IRT_NO_CACHE=1``
disables it. Entries are written atomically (temporary file + rename); an
entry that is truncated, corrupted or of another format is ignored (and
removed). The directory is bounded: at most ``$IRT_CACHE_MAX_ENTRIES`` entries
(default 1000) and ``$IRT_CACHE_MAX_MB`` megabytes (default 256); the least
recently used entries (by modification time, refreshed on every hit) go first.

Entry file ``<key>.irtc``::

    b"IRTC" version:u32 meta_len:u32 obj_len:u64 meta(json) obj sha256(all before)
"""

from __future__ import annotations

import json
import os
import struct
import tempfile
import time

try:  # the builtin module: hashlib loads OpenSSL (5-10 ms at the first compile)
    from _sha256 import sha256 as _sha256
except ImportError:  # pragma: no cover
    from hashlib import sha256 as _sha256

FORMAT_VERSION = 2
MAGIC = b"IRTC"
SUFFIX = ".irtc"
_HEADER = struct.Struct("<4sIIQ")
_DIGEST = 32

DEFAULT_MAX_ENTRIES = 1000
DEFAULT_MAX_BYTES = 256 * 1024 * 1024


def cache_dir() -> str | None:
    """The cache directory, or None when the disk cache is disabled."""
    if os.environ.get("IRT_NO_CACHE", "").strip() not in ("", "0"):
        return None
    d = os.environ.get("IRT_CACHE_DIR")
    if d is not None:
        return os.path.abspath(os.path.expanduser(d)) if d.strip() else None
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or os.path.join(
        os.path.expanduser("~"), ".cache")
    return os.path.join(base, "irtoolkit")


def _env_int(name: str, default: int) -> int:
    try:
        v = int(os.environ.get(name, ""))
        return v if v >= 0 else default
    except ValueError:
        return default


def max_entries() -> int:
    return _env_int("IRT_CACHE_MAX_ENTRIES", DEFAULT_MAX_ENTRIES)


def max_bytes() -> int:
    mb = os.environ.get("IRT_CACHE_MAX_MB", "")
    try:
        v = float(mb)
        if v >= 0:
            return int(v * 1024 * 1024)
    except ValueError:
        pass
    return DEFAULT_MAX_BYTES


# --------------------------------------------------------------------------- the key

_FINGERPRINT: list[str] = []


def _source_dirs() -> list[str]:
    import importlib.util

    import irtoolkit

    dirs = [os.path.dirname(os.path.abspath(irtoolkit.__file__))]
    for sub in ("irtoolkit.dialects", "irtoolkit.passes"):
        try:
            spec = importlib.util.find_spec(sub)
        except (ImportError, ValueError):
            spec = None
        if spec is not None and spec.submodule_search_locations:
            dirs.extend(os.path.abspath(p) for p in spec.submodule_search_locations)
    return sorted(set(dirs))


def code_fingerprint() -> str:
    """irtoolkit's version, its source files (names, sizes, mtimes) and the
    versions of what it builds on: an edited pass never hits an old entry."""
    if _FINGERPRINT:
        return _FINGERPRINT[0]
    import llvmlite
    import llvmlite.binding as llvm

    import irtoolkit

    h = _sha256()
    import importlib.util

    # (xdsl.__version__ asks importlib.metadata: 20 ms; its files say as much,
    # and finding them does not import xDSL)
    deps = []
    for name in ("xdsl", "llvmlite"):
        try:
            spec = importlib.util.find_spec(name)
            origin = spec.origin if spec is not None else None
            st = os.stat(origin)  # type: ignore[arg-type]
            deps.append(f"{origin}|{st.st_size}|{st.st_mtime_ns}")
        except (OSError, TypeError, ValueError, ImportError):
            deps.append(name)
    xdsl_version = ";".join(deps)
    h.update(f"irtoolkit {irtoolkit.__version__}|xdsl {xdsl_version}|llvmlite "
             f"{llvmlite.__version__}|llvm {llvm.llvm_version_info}|format {FORMAT_VERSION}\n"
             .encode())
    for root in _source_dirs():
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                if not name.endswith(".py"):
                    continue
                path = os.path.join(dirpath, name)
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                h.update(f"{path}|{st.st_size}|{st.st_mtime_ns}\n".encode())
    _FINGERPRINT.append(h.hexdigest())
    return _FINGERPRINT[0]


_HOST: list[str] = []


def host_fingerprint(llvm) -> str:
    if not _HOST:
        _HOST.append(f"{llvm.get_process_triple()}|{llvm.get_host_cpu_name()}|"
                     f"{llvm.get_host_cpu_features().flatten()}")
    return _HOST[0]


def make_key(module_text: str, pipeline: str | None, opt: int | str, llvm,
             source_name: str | None = None) -> str:
    """The key of a module (its generic text with locations), or with
    ``source_name`` of a source text parsed under that file name."""
    h = _sha256()
    h.update(code_fingerprint().encode())
    h.update(b"\0")
    h.update(host_fingerprint(llvm).encode())
    h.update(f"\0{pipeline or ''}\0O{opt}\0".encode())
    if source_name is not None:
        h.update(b"source\0" + source_name.encode("utf-8", "surrogatepass") + b"\0")
    h.update(module_text.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


# --------------------------------------------------------------------------- entries


def _path(d: str, key: str) -> str:
    return os.path.join(d, key + SUFFIX)


def encode_entry(key: str, meta: dict, obj: bytes) -> bytes:
    meta = dict(meta, key=key)
    mbytes = json.dumps(meta, sort_keys=True).encode()
    body = _HEADER.pack(MAGIC, FORMAT_VERSION, len(mbytes), len(obj)) + mbytes + obj
    return body + _sha256(body).digest()


def decode_entry(key: str, data: bytes) -> tuple[dict, bytes] | None:
    """(meta, object code), or None for anything but a complete, intact entry of ``key``."""
    if len(data) < _HEADER.size + _DIGEST:
        return None
    magic, version, mlen, olen = _HEADER.unpack_from(data, 0)
    if magic != MAGIC or version != FORMAT_VERSION:
        return None
    if _HEADER.size + mlen + olen + _DIGEST != len(data):
        return None
    body = memoryview(data)[: len(data) - _DIGEST]
    if _sha256(body).digest() != data[len(data) - _DIGEST:]:
        return None
    try:
        meta = json.loads(bytes(body[_HEADER.size: _HEADER.size + mlen]))
    except ValueError:
        return None
    if not isinstance(meta, dict) or meta.get("key") != key:
        return None
    return meta, bytes(body[_HEADER.size + mlen:])


def load(key: str) -> tuple[dict, bytes] | None:
    d = cache_dir()
    if d is None:
        return None
    path = _path(d, key)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    entry = decode_entry(key, data)
    if entry is None:
        _remove(path)  # truncated or corrupted: drop it, the caller recompiles
        return None
    try:
        os.utime(path)  # least recently used goes first when pruning
    except OSError:
        pass
    return entry


def discard(key: str) -> None:
    d = cache_dir()
    if d is not None:
        _remove(_path(d, key))


def store(key: str, meta: dict, obj: bytes) -> bool:
    """Write an entry atomically; False if the cache is disabled or not writable."""
    d = cache_dir()
    if d is None:
        return False
    data = encode_entry(key, meta, obj)
    if len(data) > max_bytes() or max_entries() == 0:
        return False
    tmp = None
    try:
        os.makedirs(d, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=SUFFIX + ".part", dir=d)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, _path(d, key))
        tmp = None
    except OSError:
        return False
    finally:
        if tmp is not None:
            _remove(tmp)
    prune(d)
    return True


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def entries(d: str | None = None) -> list[tuple[str, int, float]]:
    """(path, size, mtime) of the cache's entries."""
    d = d or cache_dir()
    out = []
    if d is None:
        return out
    try:
        it = os.scandir(d)
    except OSError:
        return out
    with it:
        for e in it:
            if e.name.endswith(SUFFIX) and not e.name.startswith("."):
                try:
                    st = e.stat()
                except OSError:
                    continue
                out.append((e.path, st.st_size, st.st_mtime))
    return out


def prune(d: str | None = None) -> int:
    """Remove the least recently used entries beyond the bounds (and stale
    temporary files); returns the number of entries removed."""
    d = d or cache_dir()
    if d is None:
        return 0
    limit_n, limit_b = max_entries(), max_bytes()
    found = entries(d)
    total = sum(s for _, s, _ in found)
    removed = 0
    if len(found) > limit_n or total > limit_b:
        found.sort(key=lambda e: e[2])
        for path, size, _ in found:
            if len(found) - removed <= limit_n and total <= limit_b:
                break
            _remove(path)
            removed += 1
            total -= size
    # temporary files of writers that died (an hour old)
    try:
        now = time.time()
        with os.scandir(d) as it:
            for e in it:
                if e.name.startswith(".tmp-") and e.name.endswith(".part"):
                    try:
                        if now - e.stat().st_mtime > 3600:
                            _remove(e.path)
                    except OSError:
                        pass
    except OSError:
        pass
    return removed


def clear(d: str | None = None) -> None:
    for path, _, _ in entries(d):
        _remove(path)
