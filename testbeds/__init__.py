"""Experiments: bandit testbeds and their runner, results files, plots, tournaments, the command line.

    run_testbed(policies, testbed, horizon, seed=0, workers=1, ...) -> TestbedResult
    GaussianTestbed(n_tasks, n_arms, mean_sd=1, reward_sd=1, seed=0), BernoulliTestbed(n_tasks, n_arms, seed=0),
    NonStationaryTestbed(n_tasks, n_arms=10, walk_sd=0.01, ...), bai_testbed(experiment, n_tasks) (the
    best-arm experiments of Audibert, Bubeck & Munos 2010), Testbed (their base), make_testbed(env, ...)
    TestbedResult, write_results(result, folder), read_results(folder), METRICS

The names are loaded on first use (PEP 562), so ``import testbeds`` (and the command line's start)
does not import numba; ``testbeds.run_testbed`` imports :mod:`testbeds.runner` when first touched.
Tournaments, tables and plots live in their modules: :mod:`testbeds.tournament`, :mod:`testbeds.tables`,
:mod:`testbeds.plots`.
"""
from importlib import import_module
from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("banditree")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.1.0"

#: public name -> the submodule that defines it
_LAZY = {
    "run_testbed": "testbeds.runner",
    "Testbed": "testbeds.testbed",
    "GaussianTestbed": "testbeds.testbed",
    "BernoulliTestbed": "testbeds.testbed",
    "NonStationaryTestbed": "testbeds.testbed",
    "bai_testbed": "testbeds.bai",
    "make_testbed": "testbeds.testbed",
    "TestbedResult": "testbeds.results",
    "write_results": "testbeds.results",
    "read_results": "testbeds.results",
    "METRICS": "testbeds.results",
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str):
    """Load a public name from its submodule on first access (then it is a plain attribute)."""
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'testbeds' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The module's attributes including the public names not loaded yet."""
    return sorted(set(globals()) | set(_LAZY))
