"""The failed-login limit, per address."""

from __future__ import annotations

import pytest
from fastapi import HTTPException

from arena.serve.auth import FAILURES_ALLOWED, FailedLogins


def test_an_address_is_refused_after_too_many_failures_and_only_that_address():
    failures = FailedLogins()
    for _ in range(FAILURES_ALLOWED):
        failures.note("10.0.0.1")
    with pytest.raises(HTTPException) as refused:
        failures.note("10.0.0.1")
    assert refused.value.status_code == 429
    failures.note("10.0.0.2")
