"""Every node policy of the bandits package runs inside the tree on every registered game."""
import numpy as np
import pytest

from treepolicies import search
from treepolicies.games import GAMES, make_game

SPECS = ["ucb1:c=0.5", "miucb:episodic=true", "miucb:r=none,episodic=true", "miucb", "iucb:episodic=true",
         "iucb", "klucb:family=bernoulli", "klucb:family=gaussian", "thompson:prior=beta",
         "thompson:prior=gaussian", "egreedy:epsilon=0.1", "greedy"]


@pytest.mark.parametrize("game_name", sorted(GAMES))
@pytest.mark.parametrize("spec", SPECS)
def test_policy_runs_in_the_tree(game_name, spec):
    game = make_game(game_name)
    before = game.copy()
    result = search(game, spec, iterations=300, seed=3, early_stop=False)
    assert result.move in game.legal_moves()
    assert sorted(result.moves, key=str) == sorted(game.legal_moves(), key=str)
    assert result.iterations == 300 and result.visits.sum() == 300 and result.stop_reason == "iterations"
    assert np.all((result.values >= 0) & (result.values <= 1))
    assert 1 < result.tree_size <= 1 + 300 * len(result.moves) + 1000
    assert game.legal_moves() == before.legal_moves()  # the search does not change the game
