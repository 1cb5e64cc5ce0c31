"""The runtime tests never read or write the user's compile cache: they run
with a disk cache of their own (a temporary directory for the session), or,
using ``fresh_cache``, an empty one per test."""

import os

import pytest

from irtoolkit.runtime import clear_cache
from irtoolkit.runtime.executable import wait_for_tier_ups


@pytest.fixture(scope="session", autouse=True)
def _private_compile_cache(tmp_path_factory):
    saved = {k: os.environ.get(k) for k in ("IRT_CACHE_DIR", "IRT_NO_CACHE")}
    os.environ["IRT_CACHE_DIR"] = str(tmp_path_factory.mktemp("irt-cache"))
    os.environ.pop("IRT_NO_CACHE", None)
    yield
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """An empty disk cache of this test's own and an empty in-memory cache (earlier
    tests' background tier-ups, which store into the cache configured then, done first)."""
    wait_for_tier_ups()
    monkeypatch.setenv("IRT_CACHE_DIR", str(tmp_path / "irt-cache"))
    monkeypatch.delenv("IRT_NO_CACHE", raising=False)
    clear_cache()
    yield
    clear_cache()
