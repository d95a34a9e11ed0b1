"""Nothing changes by accident: fixed-seed searches of every driver and option, recorded from the code
before the one-skeleton redesign (tests/search_cases.py; tests/data/search_records.json), give the
same root visits, values, proofs, tree size, chosen move and whole tree, bit for bit.

The default tier checks a diagonal (every game, driver, option and policy at least once); ``--slow``
checks all of them.
"""
import json
import os

import pytest

from tests import search_cases

DATA = os.path.join(os.path.dirname(__file__), "data", "search_records.json")
with open(DATA) as fh:
    RECORDS = json.load(fh)
CASES = {name: (tier, fn) for name, tier, fn in search_cases.cases()}


def test_the_recordings_and_the_cases_agree():
    # every case has a recording and every recording a case (a renamed case would silently drop one)
    assert set(RECORDS) == set(CASES)
    assert {RECORDS[n]["tier"] for n in RECORDS} == {"default", "slow"}


@pytest.fixture(scope="module", autouse=True)
def _evaluator_registered():
    from treepolicies import register_evaluator

    register_evaluator("rec_eval", search_cases.rec_eval)


def _params():
    out = []
    for name in sorted(CASES):
        tier = CASES[name][0]
        out.append(pytest.param(name, marks=() if tier == "default" else pytest.mark.slow, id=name))
    return out


@pytest.mark.parametrize("name", _params())
def test_a_recorded_search_gives_the_same_result(name):
    want = RECORDS[name]
    fn = CASES[name][1]
    if "error" in want:
        with pytest.raises(ValueError) as err:
            fn()
        assert str(err.value) == want["error"]
        return
    got = [search_cases.compact(search_cases.summary(r), "visits" in want["searches"][0]) for r in fn()]
    assert len(got) == len(want["searches"])
    for k, (g, w) in enumerate(zip(got, want["searches"])):
        assert g == w, f"search {k} of {name}"
