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
