"""The packages' public names exist: every name in ``__all__`` and every ``package.NAME`` the docs mention."""
import importlib
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("testbeds", "bandits", "treepolicies")
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# `bandits.make_policy`, `treepolicies.interop.sgf.load_sgf`, ... (not `bandits/kernels.py`: no slash before or after)
MENTION = re.compile(r"(?<![\w/.])((?:testbeds|bandits|treepolicies)(?:\.[A-Za-z_]\w*)+)(?![\w/])")


def documented_names() -> list[str]:
    """Every dotted ``testbeds.`` / ``bandits.`` / ``treepolicies.`` name in README.md and docs/*.md."""
    names = set()
    for path in DOCS:
        for match in MENTION.finditer(path.read_text(encoding="utf-8")):
            name = match.group(1)
            if name.endswith((".py", ".md")):  # a file name, not an attribute
                continue
            names.add(name)
    return sorted(names)


def resolve(dotted: str):
    """The object ``dotted`` names, by attribute access from its package (a submodule is imported if needed)."""
    parts = dotted.split(".")
    obj = importlib.import_module(parts[0])
    for i, part in enumerate(parts[1:], start=1):
        if not hasattr(obj, part):  # an attribute that is a submodule not imported yet
            importlib.import_module(".".join(parts[: i + 1]))
        obj = getattr(obj, part)
    return obj


def test_the_docs_mention_names_of_each_package():
    names = documented_names()
    for package in PACKAGES:
        assert any(name.startswith(package + ".") for name in names), package
    assert "testbeds.run_testbed" in names and "testbeds.GaussianTestbed" in names


@pytest.mark.parametrize("package", PACKAGES)
def test_every_name_in_all_exists(package):
    module = importlib.import_module(package)
    assert module.__all__, package
    assert len(set(module.__all__)) == len(module.__all__), f"{package}.__all__ lists a name twice"
    missing = [name for name in module.__all__ if not hasattr(module, name)]
    assert not missing, f"{package}.__all__ names missing attributes: {missing}"


@pytest.mark.parametrize("dotted", documented_names())
def test_documented_name_resolves(dotted):
    package, first = dotted.split(".")[:2]
    module = importlib.import_module(package)
    # a name directly under a package is its public API: an attribute of the package or a submodule
    assert first in getattr(module, "__all__", ()) or importlib.util.find_spec(f"{package}.{first}") is not None, \
        f"{package}.{first} is documented but neither in {package}.__all__ nor a submodule"
    assert resolve(dotted) is not None


def test_testbeds_exports_the_documented_api():
    import testbeds
    from testbeds.results import TestbedResult, read_results
    from testbeds.runner import run_testbed
    from testbeds.testbed import BernoulliTestbed, GaussianTestbed, Testbed

    assert testbeds.run_testbed is run_testbed
    assert testbeds.GaussianTestbed is GaussianTestbed and testbeds.BernoulliTestbed is BernoulliTestbed
    assert testbeds.Testbed is Testbed and testbeds.TestbedResult is TestbedResult
    assert testbeds.read_results is read_results
    assert isinstance(testbeds.__version__, str) and testbeds.__version__
    assert set(testbeds.__all__) <= set(dir(testbeds))
    with pytest.raises(AttributeError, match="no_such_name"):
        testbeds.no_such_name  # noqa: B018


def test_import_testbeds_is_cheap_and_star_import_works():
    # the command line imports testbeds for its version: that must not load numba or the runner
    code = ("import sys, testbeds; assert 'numba' not in sys.modules and 'testbeds.runner' not in sys.modules; "
            "from testbeds import *; assert run_testbed.__module__ == 'testbeds.runner'; "
            "assert GaussianTestbed(2, 3, seed=0).means.shape == (2, 3); print('ok')")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
