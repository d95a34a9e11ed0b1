"""Experiments: bandit testbeds and their runner, results files, plots, tournaments, the command line."""
from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("banditree")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.1.0"

__all__ = ["__version__"]
