import atexit
import gc
import os
import shutil
import subprocess
import sys
import tempfile

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
    if os.environ.get("IRT_FULL_TESTS") == "1":
        return
    skip = pytest.mark.skip(reason="long run: IRT_FULL_TESTS=1 runs it")
    for item in items:
        if "long" in item.keywords:
            item.add_marker(skip)


# The lit suite (test_lit.py) runs in a subprocess started as soon as the tests are
# collected, so it uses the second core while this process runs the Python tests;
# test_lit_suite waits for its result.
class LitRun:
    def __init__(self, jobs: int, nice: int = 0):
        lit = shutil.which("lit")
        here = os.path.dirname(os.path.abspath(__file__))
        command = [*([lit] if lit else [sys.executable, "-m", "lit"]), "-q", "-j", str(jobs), here]
        # output to a file, not a pipe: nobody reads it until the lit test runs
        self.output = tempfile.TemporaryFile("w+")
        self.process = subprocess.Popen(command, stdout=self.output, stderr=subprocess.STDOUT,
                                        text=True, preexec_fn=lambda: os.nice(nice))

    def result(self) -> tuple[int, str]:
        self.process.wait()
        self.output.seek(0)
        return self.process.returncode, self.output.read()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


_LIT_RUN = pytest.StashKey[LitRun]()


def pytest_collection_finish(session):
    if len(session.items) > 1 and any(item.name == "test_lit_suite" for item in session.items):
        session.config.stash[_LIT_RUN] = LitRun(max((os.cpu_count() or 1) - 1, 1), nice=5)


def pytest_unconfigure(config):
    if _LIT_RUN in config.stash:
        config.stash[_LIT_RUN].stop()


@pytest.fixture
def lit_result(request) -> tuple[int, str]:
    """(exit code, output) of the lit suite: the background run's, else a run now."""
    run = request.config.stash.get(_LIT_RUN, None) or LitRun(max(os.cpu_count() or 1, 2))
    return run.result()


def pytest_sessionfinish(session):
    # pytest's unraisable-exception plugin collects five times at exit to flush
    # pending __del__ errors; over the heap a whole run leaves (compiled modules
    # held by test modules) that took a minute. One collection does the flushing,
    # and freezing what survives it makes the plugin's rounds cheap.
    gc.collect()
    gc.freeze()
