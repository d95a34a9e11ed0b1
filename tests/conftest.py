"""Shared test helpers."""
import os
import sys

import matplotlib

matplotlib.use("Agg")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true", default=False,
                     help="also run the tests marked slow (e.g. the full-size regret equivalence of the "
                          "bandit zoo: 2000 runs x 10 000 plays, many minutes)")


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: a long test, run only with --slow")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--slow"):
        return
    import pytest

    skip = pytest.mark.skip(reason="slow: run with --slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


# A Ctrl-C that lands in one of numba's ctypes callbacks while a test (or the collection of a test
# file) compiles is 'ignored' by ctypes ("Exception ignored on calling ctypes callback"), and a
# first run of the suite compiles for minutes: Ctrl-C after Ctrl-C was lost.  Every test and the
# collection run inside bandits.compiling.interrupts_delivered(), as every command of the command
# line does (issue 24, item 12; the notebook tests: tests/notebook_helpers.py).
import pytest  # noqa: E402


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    from bandits.compiling import interrupts_delivered

    with interrupts_delivered():
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session):
    from bandits.compiling import interrupts_delivered

    with interrupts_delivered():
        yield
