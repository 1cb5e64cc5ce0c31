"""The ``backend`` fixture: every numeric ad test runs on the interpreter and compiled."""

import pytest


@pytest.fixture(params=["interp", "jit"])
def backend(request):
    return request.param
