# lit configuration: FileCheck tests for every dialect, pass and command.
import os
import shutil
import sys

import lit.formats

config.name = "irtoolkit"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(os.path.dirname(os.path.dirname(__file__)), ".lit-out")
config.excludes = ["Inputs", "Output", "__pycache__"]

# Tools come from the environment irtoolkit is installed in: the directory of the
# interpreter running lit first (a venv's tools without activating it).
config.environment["PATH"] = os.pathsep.join(
    [os.path.dirname(sys.executable), *filter(None, [os.environ.get("PATH")])])
for var in ("HOME", "PYTHONPATH", "VIRTUAL_ENV", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
# A private compile cache (pytest's conftest sets one; plain `lit` gets its own).
config.environment["IRT_CACHE_DIR"] = os.environ.get(
    "IRT_CACHE_DIR", os.path.join(config.test_exec_root, "irt-cache"))

filecheck = shutil.which("filecheck", path=config.environment["PATH"]) or "filecheck"
config.substitutions.append(("FileCheck", filecheck))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
