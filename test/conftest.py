import atexit
import os
import shutil
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
