"""The runtime tests never read or write the user's compile cache: they run
with a disk cache of their own (a temporary directory for the session)."""

import os

import pytest


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
