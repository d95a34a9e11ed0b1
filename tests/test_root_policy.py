"""A bandit at the root (``root_policy=SPEC``): a different policy picks the root's moves than the
tree's nodes, any registered policy (plugins included), its horizon bound to the iterations."""
import math

import numpy as np
import pytest

import bandits
from bandits import make_policy
from bandits.rng import Stream
from bandits.stats import COUNT, MEAN
from treepolicies import make_game, make_player, search


@bandits.index_policy("root_ucb", c=bandits.Param(1.0, low=0.0, doc="exploration constant"))
def root_ucb(stats, i, t, params, state):
    """A user's UCB1 as a plugin: mean + c sqrt(ln t / n)."""
    return stats[MEAN, i] + params[0] * math.sqrt(math.log(t) / stats[COUNT, i])


class Arms:
    """A one-move game: move k ends it with reward 1 w.p. probs[k] for the first player (the
    rewards drawn from the game's own generator, in play order)."""

    def __init__(self, probs, rng):
        self.probs, self.rng, self.result, self.to_move = probs, rng, None, 0

    def copy(self):
        new = Arms(self.probs, self.rng)
        new.result, new.to_move = self.result, self.to_move
        return new

    def legal_moves(self):
        return [] if self.result is not None else list(range(len(self.probs)))

    def play(self, k):
        self.result = float(self.rng.random() < self.probs[k])
        self.to_move = 1

    def terminal(self):
        return self.result is not None

    def reward(self, player):
        return self.result if player == 0 else 1.0 - self.result


PROBS = [0.2, 0.5, 0.45, 0.7, 0.1]


@pytest.mark.parametrize("root", ["thompson:prior=beta", "seqhalving", "sr", "miucb:episodic=true",
                                  "root_ucb:c=0.4", "klucb:family=bernoulli", "exp3"])
def test_a_one_level_tree_makes_exactly_the_root_policy_s_choices(root):
    # At depth one the tree is the root's bandit: with a tree policy that never acts (ucb1 picks only
    # below the root, and there is no below), the root's visits and means equal the pulls and means of
    # the root policy run on one bandit with the same rewards and the same random stream.
    n = 300
    result = search(Arms(PROBS, np.random.default_rng(3)), "ucb1:c=2", iterations=n, seed=Stream(11),
                    early_stop=False, root_policy=root)
    policy = make_policy(root)
    policy = policy.bind(n) if policy.needs_horizon else policy
    batch = policy.init(1, len(PROBS))
    rewards, stream = np.random.default_rng(3), Stream(11)
    for _ in range(n):
        arm = policy.select(batch, stream)
        policy.update(batch, arm, np.array([float(rewards.random() < PROBS[arm[0]])]))
    assert list(result.visits) == list(batch.counts[0])
    assert np.array_equal(result.values, batch.means[0])


@pytest.mark.parametrize("kw", [dict(), dict(rave=True), dict(transpositions=True), dict(compiled=False),
                                dict(evaluator=lambda s, m, c: (np.ones(m.shape), np.full(len(s), 0.5)))])
def test_the_tree_policy_at_the_root_is_the_search_without_a_root_policy(kw):
    # root_policy equal to the tree policy: the same calls with the same arguments, bit for bit
    game = make_game("connect4")
    a = search(game, "miucb:episodic=true", iterations=400, seed=4, **kw)
    b = search(game, "miucb:episodic=true", iterations=400, seed=4, root_policy="miucb:episodic=true", **kw)
    assert np.array_equal(a.visits, b.visits) and np.array_equal(a.values, b.values)
    assert a.tree_size == b.tree_size and a.move == b.move


def test_the_root_policy_acts_at_the_root_only():
    # sequential halving at the root of a Connect Four search: its schedule gives every root move the
    # same visits in the first round (K = 7 moves, budget T = 700: round 0 gives each move
    # floor(700 / (7 * ceil(log2 7))) = floor(700 / 21) = 33 visits), whatever UCB1 does below
    r = search(make_game("connect4"), "ucb1:c=0.5", iterations=700, seed=1, root_policy="seqhalving",
               early_stop=False)
    assert r.visits.sum() == 700 and r.visits.min() >= 33
    plain = search(make_game("connect4"), "ucb1:c=0.5", iterations=700, seed=1, early_stop=False)
    assert not np.array_equal(r.visits, plain.visits)  # (UCB1 at the root visits the centre far more)
    # below the root, the tree's own policy: a child of the root is a UCB1 bandit (its state width 0)
    assert r.tree.pstate.shape[1] >= 1


def test_root_policy_with_threads_and_on_python_games():
    for kw in (dict(threads=2, parallel="tree"), dict(threads=2, parallel="leaf"), dict(threads=2, parallel="root")):
        r = search(make_game("tictactoe"), "ucb1", iterations=600, seed=0, root_policy="thompson:prior=beta",
                   early_stop=False, **kw)
        assert r.iterations == 600 and r.move in range(9)
    r = search(make_game("nim", stones=9), "ucb1", iterations=800, seed=0, root_policy="root_ucb:c=0.3")
    assert r.move == 1  # 9 stones: take 1, leaving a multiple of 4


def test_player_specs_and_bad_root_policies():
    p = make_player("ucb1:c=0.5,root_policy=seqhalving", playouts=200)
    assert p.options.root_policy == "seqhalving" and "root_policy=seqhalving" in p.name
    assert p.choose(make_game("connect4"), 0) in range(7)
    with pytest.raises(ValueError, match="unknown policy 'nosuch'"):
        search(make_game("connect4"), "ucb1", iterations=10, root_policy="nosuch")
    with pytest.raises(ValueError, match="root_policy 'seqhalving:horizon=5' has horizon=5, fewer than the 10"):
        search(make_game("connect4"), "ucb1", iterations=10, root_policy="seqhalving:horizon=5")
