"""The compile cache runs no code it cannot vouch for (issue 15, items 1 and 2).

Item 1: another local user planted machine code in the cache (a shared or
world-writable directory) and the victim ran it. Item 2: an entry with a valid
digest but bad contents crashed or hung every later run. Each case below must
end with the right result -- compiled afresh -- and never a signal, a hang, a
traceback or the planted code running. The tests run as root here: "another
user" is a chown to another uid (or, when not root, a patched notion of the
current uid).
"""

import json
import os
import signal
import stat
import subprocess
import sys
import warnings

import numpy as np
import pytest

import irtoolkit as irt
from irtoolkit.runtime import clear_cache, diskcache
from irtoolkit.runtime.executable import init_llvm

PROGRAM = """\
func.func @main(%x: f64, %v: tensor<3xf64>) -> (f64, tensor<3xf64>) {
  %y = arith.mulf %x, %x : f64
  %e = tensor.exp %v : tensor<3xf64>
  return %y, %e : f64, tensor<3xf64>
}
"""
V = np.array([0.0, 1.0, -2.0])
OTHER_UID = 4242

pytestmark = pytest.mark.usefixtures("fresh_cache")


@pytest.fixture(autouse=True)
def _fresh_trust(monkeypatch):
    """Each test decides anew which directories this process refuses."""
    monkeypatch.setattr(diskcache, "_REFUSED", {})
    monkeypatch.setattr(diskcache, "_WARNED", set())


@pytest.fixture(autouse=True)
def _no_hang():
    """A test that blocks (a FIFO opened without O_NONBLOCK) fails instead."""
    def timeout(signum, frame):
        raise TimeoutError("the cache blocked")

    old = signal.signal(signal.SIGALRM, timeout)
    signal.alarm(120)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def compile_program():
    return irt.compile(irt.parse(PROGRAM, "trust.mlir"))


def check(exe):
    y, e = exe["main"](3.0, V)
    assert y == 9.0
    np.testing.assert_allclose(e, np.exp(V), rtol=1e-15)


def the_entry() -> tuple[str, str]:
    """(key, path) of the one entry that compiling PROGRAM wrote."""
    ((path, _, _),) = diskcache.entries()
    return os.path.basename(path)[: -len(diskcache.SUFFIX)], path


def compiled_entry() -> tuple[str, str, dict, bytes]:
    exe = compile_program()
    assert not exe.from_cache
    check(exe)
    key, path = the_entry()
    with open(path, "rb") as f:
        meta, obj = diskcache.decode_entry(key, f.read(), diskcache.current_secret())
    clear_cache()
    return key, path, meta, obj


def write_entry(path: str, key: str, meta: dict, objects: list[bytes], secret: bytes | None = None):
    meta = dict(meta, object_sizes=[len(o) for o in objects])
    data = diskcache.encode_entry(key, meta, b"".join(objects), secret or diskcache.current_secret())
    with open(path, "wb") as f:
        f.write(data)


def recompiled_correctly(path: str | None = None, rewritten: bool = True):
    """Compiling again neither crashes nor uses the bad entry; the result is right."""
    exe = compile_program()
    assert not exe.from_cache
    check(exe)
    if path is not None and rewritten:
        clear_cache()
        again = compile_program()  # the bad entry was replaced by a good one
        assert again.from_cache
        check(again)


def other_owner(path: str, monkeypatch) -> None:
    """Make ``path`` belong to someone else (or make this process someone else)."""
    if os.geteuid() == 0:
        os.lchown(path, OTHER_UID, OTHER_UID)
    else:
        monkeypatch.setattr(diskcache, "current_uid", lambda: os.geteuid() + 1)


# --------------------------------------------------------------------------- item 2

def elf_for(triple: str) -> bytes:
    import llvmlite.binding as llvm

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    m = llvm.parse_assembly("define i64 @_irt_call_main(ptr %frame) {\n  ret i64 0\n}\n")
    m.triple = triple
    return llvm.Target.from_triple(triple).create_target_machine().emit_object(m)


def malformed_metas(meta: dict) -> list[dict]:
    sig = meta["signatures"][0]
    return [
        dict(meta, signatures="main"),
        dict(meta, signatures=[[sig[0], sig[1]]]),
        dict(meta, signatures=[[sig[0], [["f64", "|O", None]], sig[2], None]]),
        dict(meta, signatures=[[sig[0], [["f64", "<f8", [-1]]], sig[2], None]]),
        dict(meta, entries=[]),
        dict(meta, entries={"main": "system"}),
        dict(meta, opt="3"),
        {k: v for k, v in meta.items() if k != "entries"},
    ]


@pytest.mark.parametrize("case", ["random", "zeros", "aarch64", "truncated", "entry-missing",
                                  *(f"meta{i}" for i in range(8))])
def test_a_bad_entry_with_a_valid_digest_is_evicted_and_recompiled(case):
    key, path, meta, obj = compiled_entry()
    assert meta["object_sizes"] == [len(obj)]  # one public function: one object
    if case == "random":
        objects = [os.urandom(len(obj))]
    elif case == "zeros":
        objects = [bytes(64)]
    elif case == "aarch64":
        objects = [elf_for("aarch64-unknown-linux-gnu")]
    elif case == "truncated":
        objects = [obj[: len(obj) // 2]]
    elif case == "entry-missing":  # a valid object that lacks the entry point
        objects = [elf_for("x86_64-unknown-linux-gnu").replace(b"_irt_call_main", b"_irt_call_mair")]
    else:
        meta = malformed_metas(meta)[int(case[4:])]
        objects = [obj]
    write_entry(path, key, meta, objects)
    with warnings.catch_warnings():
        warnings.simplefilter("error", diskcache.CacheWarning)  # evicting ours needs no warning
        recompiled_correctly(path)


@pytest.mark.parametrize("kind", ["fifo", "symlink-to-dev-zero", "directory", "too-large"])
def test_an_entry_that_is_not_a_small_regular_file_is_evicted(kind, monkeypatch):
    key, path, meta, obj = compiled_entry()
    os.unlink(path)
    if kind == "fifo":
        os.mkfifo(path, 0o600)
    elif kind == "symlink-to-dev-zero":
        os.symlink("/dev/zero", path)
    elif kind == "directory":
        os.mkdir(path, 0o700)
    else:
        write_entry(path, key, meta, [obj])
        monkeypatch.setenv("IRT_CACHE_MAX_MB", str(os.path.getsize(path) / 2 / 2**20))
    recompiled_correctly(path, rewritten=kind in ("fifo", "symlink-to-dev-zero"))
    if kind == "directory":  # (not removed: a directory is not ours to delete; never read)
        assert os.path.isdir(path)
    elif kind == "too-large":
        assert not os.path.exists(path)
    else:
        assert stat.S_ISREG(os.lstat(path).st_mode)  # replaced by a real entry


# --------------------------------------------------------------------------- item 1

def object_calling_system(marker: str) -> bytes:
    """A valid object for this host whose entry point runs ``touch marker`` and
    returns 666 -- what the attacker planted."""
    import llvmlite.binding as llvm

    cmd = f"touch {marker}".encode() + b"\0"
    escaped = "".join("\\%02X" % b for b in cmd)
    text = f"""
@cmd = private constant [{len(cmd)} x i8] c"{escaped}"
declare i32 @system(ptr)
define i64 @_irt_call_main(ptr %frame) {{
  %r = call i32 @system(ptr @cmd)
  %slot = getelementptr i8, ptr %frame, i64 8
  store double 666.0, ptr %slot
  ret i64 0
}}
"""
    init_llvm()
    m = llvm.parse_assembly(text)
    m.triple = llvm.get_process_triple()
    tm = llvm.Target.from_triple(m.triple).create_target_machine()
    return tm.emit_object(m)


@pytest.fixture
def marker(tmp_path):
    path = tmp_path / "attacker-was-here"
    yield str(path)
    assert not path.exists(), "the planted code ran"


def test_an_entry_calling_system_is_refused_even_with_a_valid_hmac(marker):
    key, path, meta, obj = compiled_entry()
    write_entry(path, key, meta, [object_calling_system(marker)])
    with pytest.warns(diskcache.CacheWarning, match="system"):
        recompiled_correctly(path)


def test_an_entry_keyed_with_another_secret_fails_verification(marker):
    key, path, meta, obj = compiled_entry()
    write_entry(path, key, meta, [obj], secret=os.urandom(32))
    recompiled_correctly(path)
    with open(path, "rb") as f:
        assert diskcache.decode_entry(key, f.read(), diskcache.current_secret()) is not None


@pytest.mark.parametrize("mode", [0o777, 0o1777, 0o775])
def test_a_directory_others_can_write_is_not_used(marker, mode):
    """Planted code with a valid HMAC (the attacker could read or replace the
    secret in such a directory) is never loaded, and nothing is written."""
    key, path, meta, obj = compiled_entry()
    write_entry(path, key, meta, [object_calling_system(marker)])
    d = os.path.dirname(path)
    os.chmod(d, mode)
    before = sorted(os.listdir(d))
    with pytest.warns(diskcache.CacheWarning, match="writable by"):
        recompiled_correctly()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once is enough
        clear_cache()
        recompiled_correctly()
    assert sorted(os.listdir(d)) == before


def test_a_directory_of_another_owner_is_not_used(marker, monkeypatch):
    key, path, meta, obj = compiled_entry()
    write_entry(path, key, meta, [object_calling_system(marker)])
    other_owner(os.path.dirname(path), monkeypatch)
    with pytest.warns(diskcache.CacheWarning, match="owned by uid"):
        recompiled_correctly()


@pytest.mark.parametrize("what", ["entry", "secret"])
def test_a_file_of_another_owner_makes_the_directory_untrusted(marker, monkeypatch, what):
    key, path, meta, obj = compiled_entry()
    write_entry(path, key, meta, [object_calling_system(marker)])
    target = path if what == "entry" else os.path.join(os.path.dirname(path), diskcache.SECRET_NAME)
    if os.geteuid() != 0:
        pytest.skip("needs root to give a file to another uid")
    os.lchown(target, OTHER_UID, OTHER_UID)
    with pytest.warns(diskcache.CacheWarning, match="owned by uid"):
        recompiled_correctly()
    assert os.path.exists(target)  # not ours to remove


def test_a_group_writable_entry_makes_the_directory_untrusted(marker):
    key, path, meta, obj = compiled_entry()
    write_entry(path, key, meta, [object_calling_system(marker)])
    os.chmod(path, 0o664)
    with pytest.warns(diskcache.CacheWarning, match="writable by its group"):
        recompiled_correctly()


def test_the_cache_is_created_private(tmp_path, monkeypatch):
    d = tmp_path / "a" / "b" / "cache"
    monkeypatch.setenv("IRT_CACHE_DIR", str(d))
    old = os.umask(0)
    try:
        check(compile_program())
    finally:
        os.umask(old)
    for p in (tmp_path / "a", tmp_path / "a" / "b", d):
        assert stat.S_IMODE(os.stat(p).st_mode) == 0o700, p
    files = os.listdir(d)
    assert diskcache.SECRET_NAME in files and len(files) == 2
    for name in files:
        assert stat.S_IMODE(os.stat(d / name).st_mode) == 0o600, name


def test_a_secret_others_can_read_is_replaced():
    key, path, meta, obj = compiled_entry()
    secret_path = os.path.join(os.path.dirname(path), diskcache.SECRET_NAME)
    old = diskcache.current_secret()
    os.chmod(secret_path, 0o644)
    recompiled_correctly(path)  # the entry keyed with the exposed secret no longer verifies
    assert diskcache.current_secret() != old
    assert stat.S_IMODE(os.stat(secret_path).st_mode) == 0o600


def test_hmac_matches_the_standard_library():
    import hmac

    for n in (0, 1, 63, 64, 65, 1000):
        data = os.urandom(n)
        secret = os.urandom(32)
        assert diskcache.hmac_sha256(secret, data) == hmac.new(secret, data, "sha256").digest()


def test_irt_run_says_so_in_one_line(tmp_path, marker):
    """The command-line tools print a refusal as one line and still run."""
    prog = tmp_path / "p.mlir"
    prog.write_text("func.func @main(%x: f64) -> f64 {\n  %y = arith.mulf %x, %x : f64\n"
                    "  return %y : f64\n}\n")
    np.save(tmp_path / "x.npy", np.array(3.0))
    d = tmp_path / "shared"
    d.mkdir()
    os.chmod(d, 0o777)
    env = dict(os.environ, IRT_CACHE_DIR=str(d))
    proc = subprocess.run([sys.executable, "-m", "irtoolkit.cli.run", str(prog), "-i",
                           str(tmp_path / "x.npy")], capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "9.0" in proc.stdout
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("irt-run: warning: irtoolkit compile cache: "
                                                   f"not using {d}"), proc.stderr
    assert os.listdir(d) == []


def test_a_planted_entry_in_a_second_process(marker, tmp_path):
    """The scenario of the report, end to end: the victim's fresh process."""
    key, path, meta, obj = compiled_entry()
    write_entry(path, key, meta, [object_calling_system(marker)])
    os.chmod(os.path.dirname(path), 0o777)
    code = ("import json, numpy as np, irtoolkit as irt\n"
            f"exe = irt.compile(irt.parse({PROGRAM!r}, 'trust.mlir'))\n"
            "y, e = exe['main'](3.0, np.zeros(3))\n"
            "print(json.dumps([float(y), exe.from_cache]))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[-1]) == [9.0, False]
    assert "CacheWarning" in proc.stderr
