"""Runs the lit + FileCheck suite as part of `pytest`."""

import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def test_lit_suite():
    lit = shutil.which("lit")
    cmd = [lit] if lit else [sys.executable, "-m", "lit"]
    jobs = str(max(os.cpu_count() or 1, 2))
    proc = subprocess.run(
        [*cmd, "-q", "-j", jobs, HERE], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
