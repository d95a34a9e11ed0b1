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
    beyond = _beyond_default()
    for item in items:
        if "slow" in item.keywords or item.nodeid in beyond:
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


# ------------------------------------------------------------------------------------------------
# The compiled search loops the default tier may compile.  Each search-loop variant (a
# treepolicies.mcts.steps.Config and executor entry point) compiles for 10-30 s on a fresh clone,
# so the five-minute default tier compiles the variants below only; a test that needs another is a
# slow test (mark it so) or its variant joins this list (then measure the default tier again:
# benchmarks/suite_tiers.py).  BANDITREE_TEST_VARIANTS=record writes every request to
# tests/.variants.tsv (what a new list is made from).

def variant_name(executor: str, ckey: str, pkey) -> str:
    """A loop variant as ``executor game storage leaf [enhanced] [rollout=R] [prior=P] [root]
    [specialised]``, from the config behind ``ckey``."""
    from treepolicies.mcts.steps import CONFIGS

    c = CONFIGS[ckey]
    game = c.game.split("|")[0].replace("treepolicies.games.", "")  # its legal kernel's name
    parts = [executor, game, c.storage, c.leaf] + (["enhanced"] if c.enhanced else [])
    def kernel(key):  # "rollout:pkg.mod.name|...#hash" -> "name"
        return key.split("|")[0].split("#")[0].rsplit(".", 1)[-1]

    parts += [f"rollout={kernel(c.rollout)}"] if c.rollout else []
    parts += [f"prior={kernel(c.prior)}"] if c.prior else []
    parts += ["root"] if c.root else []
    parts += [f"playout={c.playout.split(':')[1]}"] if getattr(c, "playout", "") else []
    parts += ["specialised"] if pkey is not None and executor != "leaf_helper" else []
    return " ".join(parts)


DEFAULT_VARIANTS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "default_variants.txt")


BEYOND_DEFAULT_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "beyond_default.txt")


def _beyond_default() -> set[str]:
    """The tests that compile a search loop outside the default set: slow tests (one node id a
    line; made from a BANDITREE_TEST_VARIANTS=record run by benchmarks/suite_tiers.py)."""
    if not os.path.exists(BEYOND_DEFAULT_FILE):
        return set()
    with open(BEYOND_DEFAULT_FILE) as fh:
        return {line.strip() for line in fh if line.strip() and not line.startswith("#")}


def _default_variants() -> set[str]:
    with open(DEFAULT_VARIANTS_FILE) as fh:
        return {line.strip() for line in fh if line.strip() and not line.startswith("#")}


_CURRENT = {"test": None}


@pytest.fixture(autouse=True)
def _name_the_test(request):
    _CURRENT["test"] = request.node.nodeid
    yield
    _CURRENT["test"] = None


def _guard_loop_variants(config) -> None:
    """In the default tier, a search loop outside tests/default_variants.txt fails the test that
    asks for it (with the variant's name) before anything compiles."""
    from treepolicies.mcts import executors, loops

    record = os.environ.get("BANDITREE_TEST_VARIANTS") == "record"
    allowed = _default_variants()
    build = loops.build

    def refuse(name):
        pytest.fail(f"this test compiles the search loop '{name}', which the default tier does not "
                    "(tests/default_variants.txt): mark the test slow or add the variant", pytrace=False)

    def note(name):
        if record:
            with open(os.path.join(os.path.dirname(DEFAULT_VARIANTS_FILE), ".variants.tsv"), "a") as fh:
                fh.write(f"{_CURRENT['test']}\t{name}\n")

    def guarded(executor, ckey, pkey=None):
        # Checked at every request, not at compilation: numba compiles a loop once per process, so
        # a check at compile time would fail only the first test of a worker that asks for it (which
        # one depends on how pytest-xdist shares the tests out).
        name = variant_name(executor, ckey, pkey)
        note(name)
        if name not in allowed:
            refuse(name)
        return build(executor, ckey, pkey)

    auto_choice = executors._auto_choice

    def shared_unless_allowed(run, tree):
        # The automatic choice of a specialised loop asks for it to look in numba's disk cache: in
        # the default tier it takes the shared loop, as on a fresh clone, unless the specialised
        # variant is one of the tier's (a machine whose cache holds it from a slow run would
        # otherwise use it, and fail the test).
        if any(variant_name(which, run.ckey, run.candidate) not in allowed for which in executors._auto_entries(run)):
            return False
        return auto_choice(run, tree)

    executors._auto_choice = shared_unless_allowed
    loops.build = guarded  # (executors calls loops.build through the module: it sees this one)


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session):
    if not session.config.getoption("--slow"):
        _guard_loop_variants(session.config)
