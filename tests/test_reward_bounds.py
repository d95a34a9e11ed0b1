"""Rewards outside [0, 1]: declared bounds scale them; undeclared ones are a clear error."""
import numpy as np
import pytest

from treepolicies import search
from treepolicies.games import make_game
from treepolicies.games.nim import Nim


class HundredNim(Nim):
    """Nim scored in [-100, 100]: +100 for taking the last stone, -100 for the other player
    (the [0, 1] result r becomes 200 r - 100)."""

    def copy(self):
        new = HundredNim.__new__(HundredNim)
        new.stones, new.to_move, new.last = self.stones, self.to_move, self.last
        return new

    def reward(self, player):
        return 200.0 * super().reward(player) - 100.0


class DeclaredNim(HundredNim):
    reward_bounds = (-100, 100)

    def copy(self):
        new = DeclaredNim.__new__(DeclaredNim)
        new.stones, new.to_move, new.last = self.stones, self.to_move, self.last
        return new


@pytest.mark.parametrize("spec", ["ucb1:c=0.7", "miucb:episodic=true", "thompson:prior=gaussian", "klucb"])
@pytest.mark.parametrize("stones", [7, 10, 13])
def test_bounded_game_makes_exactly_the_choices_of_the_rescaled_game(spec, stones):
    # (x + 100) / 200 maps -100, 100 to 0, 1 exactly: the tree sees the same numbers
    ref = search(Nim(stones), spec, iterations=400, seed=stones)
    by_keyword = search(HundredNim(stones), spec, iterations=400, seed=stones, reward_bounds=(-100, 100))
    by_attribute = search(DeclaredNim(stones), spec, iterations=400, seed=stones)
    for r in (by_keyword, by_attribute):
        assert r.move == ref.move and (r.visits == ref.visits).all() and np.array_equal(r.values, ref.values)


def test_rewards_outside_unit_interval_without_bounds_are_a_clear_error():
    with pytest.raises(ValueError, match=r"HundredNim.reward\(\d\) must be a number in \[0, 1\].*reward_bounds"):
        search(HundredNim(5), "ucb1", iterations=50)
    with pytest.raises(ValueError, match=r"must be a number in \[-10, 10\]"):
        search(HundredNim(5), "ucb1", iterations=50, reward_bounds=(-10, 10))
    for bad in [(1, 0), (0, float("inf")), "ab", (0,)]:
        with pytest.raises(ValueError, match="reward_bounds must be two finite numbers"):
            search(Nim(5), "ucb1", iterations=10, reward_bounds=bad)


@pytest.mark.parametrize("name", ["connect4", "go", "nogo", "tictactoe"])
def test_unit_bounds_through_the_enhanced_loop_equal_the_plain_loop(name):
    # reward_bounds=(0, 1) runs the enhanced compiled loop with the "random" rollout, which makes the
    # playouts' own random draws: the search must come out exactly as the plain loop's
    g = make_game(name)
    plain = search(g, "ucb1:c=0.5", iterations=700, seed=9)
    enhanced = search(g, "ucb1:c=0.5", iterations=700, seed=9, reward_bounds=(0, 1))
    assert plain.move == enhanced.move and (plain.visits == enhanced.visits).all()
    assert np.array_equal(plain.values, enhanced.values)


def test_compiled_rewards_outside_the_bounds_are_an_error():
    with pytest.raises(ValueError, match="outside reward_bounds"):
        search(make_game("connect4"), "ucb1", iterations=200, reward_bounds=(0.2, 0.8))
