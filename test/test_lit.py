"""Runs the lit + FileCheck suite as part of `pytest` (conftest.py starts it in
the background when the whole suite runs)."""


def test_lit_suite(lit_result):
    returncode, output = lit_result
    assert returncode == 0, output
