import atexit
import gc
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

collect_ignore_glob = ["Inputs/*", "**/Output/*"]

# Compiled programs are cached on disk (irtoolkit/runtime/diskcache.py): the suite must
# neither depend on nor fill the user's cache, so it gets a fresh one (subprocesses and
# lit inherit it).
os.environ["IRT_CACHE_DIR"] = tempfile.mkdtemp(prefix="irt-test-cache-")
atexit.register(shutil.rmtree, os.environ["IRT_CACHE_DIR"], ignore_errors=True)

# Long runs are opt-in (the suite stays under ten minutes on 2 cores): tests marked
# `long` run with IRT_FULL_TESTS=1.
import pytest  # noqa: E402


def pytest_configure(config):
    config.addinivalue_line("markers", "long: a long run, opt-in with IRT_FULL_TESTS=1")


def pytest_collection_modifyitems(config, items):
    if os.environ.get("IRT_FULL_TESTS") != "1":
        skip = pytest.mark.skip(reason="long run: IRT_FULL_TESTS=1 runs it")
        for item in items:
            if "long" in item.keywords:
                item.add_marker(skip)
    _move_to_the_second_core(config, items)


# The suite is one process; on a machine with two cores or more, the lit suite and
# the tests of SECOND_CORE_DIRS run in subprocesses started as soon as the tests are
# collected, while this process runs the rest. test_lit_suite and
# test_second_core_tests wait for their results (and show their failures).
HERE = os.path.dirname(os.path.abspath(__file__))
SECOND_CORE_DIRS = ("frontend", "frontends", "property", "fuzz", "reliability")
IN_SECOND_PROCESS = "IRT_TEST_SECOND_PROCESS"


class Background:
    def __init__(self, command: list[str], nice: int = 0):
        # output to a file, not a pipe: nobody reads it until the waiting test runs
        self.output = tempfile.TemporaryFile("w+")
        self.process = subprocess.Popen(command, stdout=self.output, stderr=subprocess.STDOUT,
                                        text=True, env={**os.environ, IN_SECOND_PROCESS: "1"},
                                        preexec_fn=lambda: os.nice(nice))

    def result(self) -> tuple[int, str]:
        self.process.wait()
        self.output.seek(0)
        return self.process.returncode, self.output.read()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def lit_run(jobs: int, nice: int = 0) -> Background:
    # this interpreter's lit first (a venv's pytest run without activating it);
    # lit's package has no __main__ since 18, so `python -m lit` is not a fallback
    beside = Path(sys.executable).with_name("lit")
    lit = str(beside) if beside.exists() else shutil.which("lit")
    command = [lit] if lit else [sys.executable, "-c", "from lit.main import main; main()"]
    return Background([*command, "-q", "-j", str(jobs), HERE], nice)


_LIT_RUN = pytest.StashKey[Background]()
_SECOND_CORE_RUN = pytest.StashKey[Background]()
_SECOND_CORE_MOVED = pytest.StashKey[bool]()


def _move_to_the_second_core(config, items) -> None:
    """When the whole suite runs, deselect SECOND_CORE_DIRS' tests here: they run in
    the background process test_second_core_tests waits for."""
    if (os.cpu_count() or 1) < 2 or os.environ.get(IN_SECOND_PROCESS) \
            or config.option.keyword or config.option.markexpr:
        return
    dirs = tuple(os.path.join(HERE, d) + os.sep for d in SECOND_CORE_DIRS)
    moved = [item for item in items if str(item.path).startswith(dirs)]
    whole = all(any(str(item.path).startswith(d) for item in moved) for d in dirs)
    if not whole or not any(item.name == "test_second_core_tests" for item in items):
        return
    config.stash[_SECOND_CORE_MOVED] = True
    config.hook.pytest_deselected(items=moved)
    waiting = [item for item in items if item.name in ("test_lit_suite", "test_second_core_tests")]
    items[:] = [item for item in items if not str(item.path).startswith(dirs) and item not in waiting] + waiting


def pytest_collection_finish(session):
    if len(session.items) <= 1 or os.environ.get(IN_SECOND_PROCESS):
        return
    if any(item.name == "test_lit_suite" for item in session.items):
        session.config.stash[_LIT_RUN] = lit_run(max((os.cpu_count() or 1) - 1, 1), nice=5)
    if _SECOND_CORE_MOVED in session.config.stash:
        session.config.stash[_SECOND_CORE_RUN] = Background(
            [sys.executable, "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider",
             *(os.path.join(HERE, d) for d in SECOND_CORE_DIRS)])


def pytest_unconfigure(config):
    for key in (_LIT_RUN, _SECOND_CORE_RUN):
        if key in config.stash:
            config.stash[key].stop()


@pytest.fixture
def lit_result(request) -> tuple[int, str]:
    """(exit code, output) of the lit suite: the background run's, else a run now."""
    run = request.config.stash.get(_LIT_RUN, None) or lit_run(max(os.cpu_count() or 1, 2))
    return run.result()


@pytest.fixture
def second_core_result(request) -> tuple[int, str] | None:
    """(exit code, output) of the background run of SECOND_CORE_DIRS' tests; None
    when they ran in this process."""
    run = request.config.stash.get(_SECOND_CORE_RUN, None)
    return None if run is None else run.result()


def pytest_sessionfinish(session):
    # pytest's unraisable-exception plugin collects five times at exit to flush
    # pending __del__ errors; over the heap a whole run leaves (compiled modules
    # held by test modules) that took a minute. One collection does the flushing,
    # and freezing what survives it makes the plugin's rounds cheap.
    gc.collect()
    gc.freeze()
