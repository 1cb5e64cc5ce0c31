"""Runs the lit + FileCheck suite as part of `pytest`, and waits for the tests
conftest.py runs in a second process (both in the background when the whole
suite runs)."""


def test_lit_suite(lit_result):
    returncode, output = lit_result
    assert returncode == 0, output


def test_second_core_tests(second_core_result):
    if second_core_result is not None:
        returncode, output = second_core_result
        assert returncode == 0, output[-20000:]
