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
disables it. Entries are written atomically (temporary file + rename). The
directory is bounded: at most ``$IRT_CACHE_MAX_ENTRIES`` entries (default 1000)
and ``$IRT_CACHE_MAX_MB`` megabytes (default 256); the least recently used
entries (by modification time, refreshed on every hit) go first.

Trust. Loading an entry runs its machine code, so the cache is trusted as ssh
trusts ``~/.ssh``: the directory is created mode 0700 (missing parents too), and
a directory -- the default or ``IRT_CACHE_DIR`` -- that is not owned by the
current user or is writable by its group or others is not used at all (one
``CacheWarning``; programs compile without the cache), nor is one holding an
entry of another owner or writable by others. Files are opened relative to the
checked directory's descriptor, with ``O_NOFOLLOW`` and ``O_NONBLOCK``; only
regular files no larger than the cache bound are read. Each entry carries an
HMAC-SHA256 of its contents keyed by the directory's secret (``secret.key``, 32
random bytes, mode 0600, made on first use), so an entry written by anyone who
cannot read that secret fails verification. An entry that fails any check --
here, or the object and metadata checks of the loader (``jit``) -- is removed
and the program compiled again.

Entry file ``<key>.irtc``::

    b"IRTC" version:u32 meta_len:u32 obj_len:u64 meta(json) obj hmac_sha256(secret, all before)
"""

from __future__ import annotations

import json
import os
import stat
import struct
import time
import warnings

try:  # the builtin module: hashlib loads OpenSSL (5-10 ms at the first compile)
    from _sha256 import sha256 as _sha256
except ImportError:  # pragma: no cover
    from hashlib import sha256 as _sha256

FORMAT_VERSION = 5
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


# --------------------------------------------------------------------------- trust


class CacheWarning(UserWarning):
    """The disk cache refused a directory or an entry (the program still runs,
    compiled without the cache)."""


_REFUSED: dict[str, str] = {}  # directory -> why this process does not use it
_WARNED: set[str] = set()


def current_uid() -> int:
    """The user the cache belongs to (a function: tests simulate other users)."""
    return os.geteuid()


def warn_once(message: str) -> None:
    if message not in _WARNED:
        _WARNED.add(message)
        warnings.warn(f"irtoolkit compile cache: {message}", CacheWarning, stacklevel=4)


def _refuse(d: str, why: str) -> None:
    """Stop using ``d`` in this process, and say so once."""
    if d not in _REFUSED:
        _REFUSED[d] = why
        warn_once(f"not using {d}: {why} (compiling without the cache)")


def _untrusted(st: os.stat_result, what: str) -> str | None:
    """Why a directory or file with this status cannot be trusted, or None."""
    uid = current_uid()
    if st.st_uid != uid:
        return f"{what} is owned by uid {st.st_uid}, not by this user (uid {uid})"
    if st.st_mode & 0o022:
        return (f"{what} is writable by {'others' if st.st_mode & 0o002 else 'its group'} "
                f"(mode {stat.S_IMODE(st.st_mode):o}; chmod go-w fixes it)")
    return None


def _make_dirs(d: str) -> None:
    """Create ``d`` and its missing parents, mode 0700 (whatever the umask allows less)."""
    missing = []
    p = d
    while not os.path.exists(p):
        missing.append(p)
        parent = os.path.dirname(p)
        if parent == p:
            break
        p = parent
    for p in reversed(missing):
        try:
            os.mkdir(p, 0o700)
        except FileExistsError:
            pass


def _open_dir(create: bool) -> tuple[str, int] | None:
    """(path, descriptor) of the cache directory if it exists (or was created)
    and can be trusted: owned by this user, writable by nobody else. Everything
    in it is then opened relative to the descriptor, so that the directory
    checked is the directory used."""
    d = cache_dir()
    if d is None or d in _REFUSED:
        return None
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
    try:
        fd = os.open(d, flags)
    except FileNotFoundError:
        if not create:
            return None
        try:
            _make_dirs(d)
            fd = os.open(d, flags)
        except OSError:
            return None  # not creatable: no cache, as for a read-only home
    except OSError:
        return None  # not a directory, not searchable ...
    try:
        why = _untrusted(os.fstat(fd), "the directory")
    except OSError:
        why = "cannot be examined"
    if why is not None:
        os.close(fd)
        _refuse(d, why)
        return None
    return d, fd


class _Refused(Exception):
    """A file of the cache directory that makes the whole directory untrusted."""


def _open_file(dfd: int, name: str, max_size: int) -> bytes | None:
    """The bytes of regular file ``name`` (at most ``max_size``), None if it
    does not exist; ``_Refused`` if it is not this user's or is writable by
    others; ``ValueError`` for anything else wrong with it (a symlink, a FIFO,
    a device, too large), which the caller evicts."""
    try:
        # O_NOFOLLOW: a symlink fails (ELOOP); O_NONBLOCK: a FIFO does not wait
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                     dir_fd=dfd)
    except FileNotFoundError:
        return None
    except OSError as err:
        raise ValueError(f"cannot open {name}: {err.strerror}") from None
    try:
        st = os.fstat(fd)
        why = _untrusted(st, f"entry {name}")
        if why is not None:
            raise _Refused(why)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError(f"{name} is not a regular file")
        if st.st_size > max_size:
            raise ValueError(f"{name} is larger than the cache")
        chunks, left = [], st.st_size
        while left > 0:
            chunk = os.read(fd, left)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        if left or os.read(fd, 1):
            raise ValueError(f"{name} changed while being read")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _evict(d: str, dfd: int, name: str) -> None:
    """Remove a bad file we own; one owned by someone else refuses the directory."""
    try:
        st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
    except OSError:
        return
    if st.st_uid != current_uid():
        _refuse(d, f"entry {name} is owned by uid {st.st_uid}, not by this user")
        return
    try:
        os.unlink(name, dir_fd=dfd)
    except OSError:
        pass


# --------------------------------------------------------------------------- the secret

SECRET_NAME = "secret.key"
_SECRET_BYTES = 32


def _secret(d: str, dfd: int, create: bool) -> bytes | None:
    """The directory's secret (``secret.key``, 32 random bytes, mode 0600): the
    key of every entry's HMAC. Made on first use; one that others may read or
    that is damaged is replaced (invalidating the entries keyed with it)."""
    for _ in range(3):
        try:
            data = _open_file(dfd, SECRET_NAME, _SECRET_BYTES)
            if data is not None:
                st = os.stat(SECRET_NAME, dir_fd=dfd, follow_symlinks=False)
                if len(data) == _SECRET_BYTES and not st.st_mode & 0o077:
                    return data
                raise ValueError("the secret is readable by others or damaged")
        except _Refused as err:
            _refuse(d, str(err).replace(f"entry {SECRET_NAME}", f"the secret {SECRET_NAME}"))
            return None
        except (ValueError, OSError):
            _evict(d, dfd, SECRET_NAME)
            if d in _REFUSED:
                return None
        if not create:
            return None
        _new_secret(dfd)
    return None


def _new_secret(dfd: int) -> None:
    """Write a new secret, atomically: a complete file appears under its name or
    nothing does (if another process won the race, its secret stays)."""
    tmp = f".tmp-{os.getpid()}-{os.urandom(6).hex()}.key"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                     0o600, dir_fd=dfd)
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(os.urandom(_SECRET_BYTES))
        os.link(tmp, SECRET_NAME, src_dir_fd=dfd, dst_dir_fd=dfd)
    except OSError:
        pass
    finally:
        try:
            os.unlink(tmp, dir_fd=dfd)
        except OSError:
            pass


def hmac_sha256(secret: bytes, data: bytes | memoryview) -> bytes:
    """HMAC-SHA256 (RFC 2104) on the builtin sha256 (``hmac`` would load OpenSSL)."""
    key = secret.ljust(64, b"\0")
    inner = _sha256(bytes(b ^ 0x36 for b in key))
    inner.update(data)
    outer = _sha256(bytes(b ^ 0x5C for b in key))
    outer.update(inner.digest())
    return outer.digest()


def current_secret() -> bytes | None:
    """The secret of the cache directory (None: no trusted cache, or no secret yet)."""
    opened = _open_dir(create=False)
    if opened is None:
        return None
    d, dfd = opened
    try:
        return _secret(d, dfd, create=False)
    finally:
        os.close(dfd)


# --------------------------------------------------------------------------- entries


def _name(key: str) -> str:
    return key + SUFFIX


def encode_entry(key: str, meta: dict, obj: bytes, secret: bytes) -> bytes:
    meta = dict(meta, key=key)
    mbytes = json.dumps(meta, sort_keys=True).encode()
    body = _HEADER.pack(MAGIC, FORMAT_VERSION, len(mbytes), len(obj)) + mbytes + obj
    return body + hmac_sha256(secret, body)


def decode_entry(key: str, data: bytes, secret: bytes) -> tuple[dict, bytes] | None:
    """(meta, object code), or None for anything but a complete entry of ``key``
    authenticated with ``secret``."""
    if len(data) < _HEADER.size + _DIGEST:
        return None
    magic, version, mlen, olen = _HEADER.unpack_from(data, 0)
    if magic != MAGIC or version != FORMAT_VERSION:
        return None
    if _HEADER.size + mlen + olen + _DIGEST != len(data):
        return None
    body = memoryview(data)[: len(data) - _DIGEST]
    if hmac_sha256(secret, body) != data[len(data) - _DIGEST:]:
        return None
    try:
        meta = json.loads(bytes(body[_HEADER.size: _HEADER.size + mlen]))
    except ValueError:
        return None
    if not isinstance(meta, dict) or meta.get("key") != key:
        return None
    return meta, bytes(body[_HEADER.size + mlen:])


def load(key: str) -> tuple[dict, bytes] | None:
    """The entry of ``key`` if the cache is trusted and the entry intact and
    authentic; a damaged entry is removed (the caller recompiles)."""
    opened = _open_dir(create=False)
    if opened is None:
        return None
    d, dfd = opened
    name = _name(key)
    try:
        secret = _secret(d, dfd, create=False)
        if secret is None:
            return None
        try:
            data = _open_file(dfd, name, max_bytes())
        except _Refused as err:
            _refuse(d, str(err))
            return None
        except ValueError:
            data = b""  # evicted below
        if data is None:
            return None
        entry = decode_entry(key, data, secret)
        if entry is None:
            _evict(d, dfd, name)
            return None
        try:
            os.utime(name, dir_fd=dfd, follow_symlinks=False)  # least recently used goes first
        except OSError:
            pass
        return entry
    finally:
        os.close(dfd)


def discard(key: str) -> None:
    """Remove the entry of ``key`` (it failed to load)."""
    opened = _open_dir(create=False)
    if opened is not None:
        d, dfd = opened
        try:
            _evict(d, dfd, _name(key))
        finally:
            os.close(dfd)


def store(key: str, meta: dict, obj: bytes) -> bool:
    """Write an entry atomically; False if the cache is disabled, untrusted or not writable."""
    if max_entries() == 0:
        return False
    opened = _open_dir(create=True)
    if opened is None:
        return False
    d, dfd = opened
    tmp = None
    try:
        secret = _secret(d, dfd, create=True)
        if secret is None:
            return False
        data = encode_entry(key, meta, obj, secret)
        if len(data) > max_bytes():
            return False
        tmp = f".tmp-{os.getpid()}-{os.urandom(6).hex()}{SUFFIX}.part"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                     0o600, dir_fd=dfd)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, _name(key), src_dir_fd=dfd, dst_dir_fd=dfd)
        tmp = None
        _prune(dfd)
        return True
    except OSError:
        return False
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp, dir_fd=dfd)
            except OSError:
                pass
        os.close(dfd)


def _listing(dfd: int) -> list[tuple[str, int, float]]:
    """(name, size, mtime) of this user's entries in the directory."""
    out = []
    uid = current_uid()
    try:
        it = os.scandir(dfd)
    except OSError:
        return out
    with it:
        for e in it:
            if e.name.endswith(SUFFIX) and not e.name.startswith("."):
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    continue
                if stat.S_ISREG(st.st_mode) and st.st_uid == uid:
                    out.append((e.name, st.st_size, st.st_mtime))
    return out


def entries() -> list[tuple[str, int, float]]:
    """(path, size, mtime) of the cache's entries."""
    opened = _open_dir(create=False)
    if opened is None:
        return []
    d, dfd = opened
    try:
        return [(os.path.join(d, n), size, t) for n, size, t in _listing(dfd)]
    finally:
        os.close(dfd)


def _prune(dfd: int) -> int:
    """Remove the least recently used entries beyond the bounds (and stale
    temporary files); returns the number of entries removed."""
    limit_n, limit_b = max_entries(), max_bytes()
    found = _listing(dfd)
    total = sum(s for _, s, _ in found)
    removed = 0
    if len(found) > limit_n or total > limit_b:
        found.sort(key=lambda e: e[2])
        for name, size, _ in found:
            if len(found) - removed <= limit_n and total <= limit_b:
                break
            try:
                os.unlink(name, dir_fd=dfd)
            except OSError:
                pass
            removed += 1
            total -= size
    # temporary files of writers that died (an hour old)
    now = time.time()
    try:
        with os.scandir(dfd) as it:
            for e in it:
                if e.name.startswith(".tmp-"):
                    try:
                        if now - e.stat(follow_symlinks=False).st_mtime > 3600:
                            os.unlink(e.name, dir_fd=dfd)
                    except OSError:
                        pass
    except OSError:
        pass
    return removed


def clear() -> None:
    """Remove this user's entries from the cache directory."""
    opened = _open_dir(create=False)
    if opened is None:
        return
    _d, dfd = opened
    try:
        for name, _, _ in _listing(dfd):
            try:
                os.unlink(name, dir_fd=dfd)
            except OSError:
                pass
    finally:
        os.close(dfd)
