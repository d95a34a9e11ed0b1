"""The zoo's policies as node policies: a one-level tree reproduces each bandit exactly, and each
runs inside the tree on every registered game (the conformance checks of test_search_conformance)."""
import pytest

from tests.test_search import check_one_level_tree_is_the_bandit
from tests.test_search_conformance import test_policy_runs_in_the_tree as check_runs_in_the_tree
from treepolicies.games import GAMES

# every zoo policy; those with a horizon left unset are bound to the search's iteration budget
ZOO_NODE_SPECS = ["ucb1tuned", "ucbv", "moss", "moss:anytime=true", "klucb:plus=true",
                  "klucb:plus=true,family=gaussian", "bayesucb", "bayesucb:prior=gaussian", "bayesucb:c=1",
                  "softmax:tau=0.1", "gradient:alpha=0.2", "gradient:baseline=false", "exp3", "exp3ix",
                  "ducb:gamma=0.95", "swucb:window=40", "sr", "seqhalving"]


@pytest.mark.parametrize("spec", ZOO_NODE_SPECS)
def test_one_level_tree_is_exactly_the_zoo_bandit(spec):
    check_one_level_tree_is_the_bandit(spec, 400)


@pytest.mark.parametrize("game_name", sorted(GAMES))
@pytest.mark.parametrize("spec", ZOO_NODE_SPECS)
def test_zoo_policy_runs_in_the_tree(game_name, spec):
    check_runs_in_the_tree(game_name, spec)
