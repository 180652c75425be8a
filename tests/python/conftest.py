"""Shared set-up of the Python package's tests.

The package under test is the one on PYTHONPATH (BUILD/python when CTest runs them).
A file whose every test was skipped exits with 77, which CTest reports as skipped,
and each reason is printed as a `skipped:` line for `make test`'s summary: a test
never passes without having run.
"""

from __future__ import annotations

import os
import shutil

import pytest


@pytest.fixture(scope="session")
def cli() -> str:
    """The bulkcrypt command built beside the package ($BULKCRYPT), or a skip."""
    path = os.environ.get("BULKCRYPT") or shutil.which("bulkcrypt")
    if not path or not os.access(path, os.X_OK):
        pytest.skip("no bulkcrypt command (set BULKCRYPT)")
    return path


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    skipped = reporter.stats.get("skipped", [])
    reasons = sorted({str(r.longrepr[2]).removeprefix("Skipped: ") for r in skipped if isinstance(r.longrepr, tuple)})
    for reason in reasons:
        print(f"\nskipped: {reason}")
    ran = reporter.stats.get("passed") or reporter.stats.get("failed") or reporter.stats.get("error")
    if exitstatus == 0 and skipped and not ran:
        session.exitstatus = 77
