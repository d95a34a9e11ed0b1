"""Every enhancement option, alone and combined, with every node policy (built-in and a plugin
defined here) on every game: it runs, stays reproducible, or is refused with one clear line."""
import numpy as np
import pytest

import bandits
from treepolicies import search
from treepolicies.games import GAMES, make_game
from treepolicies.players import make_player


@bandits.index_policy("conf_ucb", c=bandits.Param(1.0, low=0.0, doc="exploration constant"))
def conf_ucb(stats, i, t, params, state):
    """A user's UCB1 written as a plugin: mean + c sqrt(ln t / n)."""
    return stats[3, i] + params[0] * np.sqrt(np.log(t) / stats[0, i])


def half(states, moves, counts):
    """An evaluator: uniform priors, value 1/2."""
    return np.ones(moves.shape), np.full(len(states), 0.5)


SPECS = ["ucb1:c=0.5", "miucb:episodic=true", "iucb:episodic=true", "iucb", "klucb:family=bernoulli",
         "thompson:prior=beta", "thompson:prior=gaussian", "egreedy:epsilon=0.1", "greedy", "conf_ucb:c=0.7", "puct:c=1.5"]

OPTIONS = {
    "rave": dict(rave=True),
    "rave-mse": dict(rave=True, rave_schedule="mse", rave_bias=0.05),
    "grave": dict(grave_ref=8),
    "heuristic": dict(rollout="heuristic"),
    "cap": dict(rollout_cap=4),
    "rave+heuristic+cap": dict(rave=True, rollout="heuristic", rollout_cap=30),
    "grave+heuristic": dict(grave_ref=8, rollout="heuristic", rave_k=50),
    "bounds": dict(reward_bounds=(0.0, 1.0)),
    "fpu-parent": dict(fpu="parent"),
    "fpu-reduction+rave": dict(fpu_reduction=0.2, rave=True),
    "fpu-value": dict(fpu=0.4),
    "prior": dict(prior="heuristic"),
    "widen": dict(widen_k=2.0, widen_alpha=0.5),
    "widen+prior+rave+heuristic": dict(widen_k=1.0, prior="heuristic", rave=True, rollout="heuristic"),
    "evaluator": dict(evaluator=half, eval_batch=4, value_mix=0.5, fpu="parent"),
    "evaluator+widen": dict(evaluator=half, widen_k=1.0, widen_alpha=0.6),
    "evaluator+rave": dict(evaluator=half, rave=True, value_mix=0.5, eval_batch=4),
    "evaluator+grave+widen": dict(evaluator=half, grave_ref=8, widen_k=1.0),
    "transpositions+evaluator": dict(transpositions=True, evaluator=half, eval_batch=4, value_mix=0.5, fpu="parent"),
    "transpositions+evaluator+rave+widen": dict(transpositions=True, evaluator=half, rave=True, widen_k=1.0,
                                                value_mix=0.3),
    "transpositions": dict(transpositions=True),
    "transpositions+heuristic+cap+bounds": dict(transpositions=True, rollout="heuristic", rollout_cap=40,
                                                reward_bounds=(0, 1)),
    "transpositions+fpu+widen": dict(transpositions=True, fpu_reduction=0.1, widen_k=2.0),
    "transpositions+rave": dict(transpositions=True, rave=True),
    "transpositions+grave+heuristic+prior": dict(transpositions=True, grave_ref=8, rollout="heuristic",
                                                 prior="heuristic", widen_k=2.0),
    "transpositions+prior+widen+value": dict(transpositions=True, prior="heuristic", widen_k=1.0, fpu=0.3),
}

#: (game, option) pairs a game cannot support, and the words its one-line refusal must contain
REFUSED = {
    ("tictactoe", "heuristic"): "rollout='heuristic'", ("tictactoe", "rave+heuristic+cap"): "rollout='heuristic'",
    ("tictactoe", "grave+heuristic"): "rollout='heuristic'",
    ("nim", "heuristic"): "rollout='heuristic'", ("nim", "rave+heuristic+cap"): "rollout='heuristic'",
    ("nim", "grave+heuristic"): "rollout='heuristic'", ("nim", "cap"): "rollout_cap",
    ("nim", "prior"): "prior='heuristic'", ("nim", "widen+prior+rave+heuristic"): "rollout='heuristic'",
    ("tictactoe", "widen+prior+rave+heuristic"): "rollout='heuristic'",
    ("nim", "evaluator"): "needs a compiled game", ("nim", "evaluator+widen"): "needs a compiled game",
    ("nim", "evaluator+rave"): "needs a compiled game", ("nim", "evaluator+grave+widen"): "needs a compiled game",
    ("nim", "transpositions+evaluator"): "needs a compiled game",
    ("nim", "transpositions+evaluator+rave+widen"): "needs a compiled game",
    ("nim", "transpositions+heuristic+cap+bounds"): "rollout='heuristic'",
    ("nim", "transpositions+prior+widen+value"): "prior='heuristic'",
    ("nim", "transpositions+grave+heuristic+prior"): "rollout='heuristic'",
    ("tictactoe", "transpositions+grave+heuristic+prior"): "rollout='heuristic'",
    ("tictactoe", "transpositions+heuristic+cap+bounds"): "rollout='heuristic'",
}

N = 64


@pytest.mark.parametrize("option", sorted(OPTIONS))
@pytest.mark.parametrize("game_name", sorted(GAMES))
def test_every_option_with_every_policy(game_name, option):
    game = make_game(game_name)
    before = game.copy()
    kw = OPTIONS[option]
    for spec in SPECS:
        if (game_name, option) in REFUSED:
            with pytest.raises(ValueError) as err:
                search(game, spec, iterations=N, seed=1, **kw)
            message = str(err.value)
            assert REFUSED[game_name, option] in message and "\n" not in message
            continue
        a = search(game, spec, iterations=N, seed=1, early_stop=False, **kw)
        assert a.move in game.legal_moves()
        # (with an evaluator the root's own evaluation is an iteration that visits no child)
        assert a.iterations == N and a.visits.sum() == N - ("evaluator" in option), spec
        assert np.all((a.values >= 0) & (a.values <= 1))
        b = search(game, spec, iterations=N, seed=1, early_stop=False, **kw)  # same seed, same result
        assert a.move == b.move and (a.visits == b.visits).all() and np.array_equal(a.values, b.values), spec
    assert game.legal_moves() == before.legal_moves()


def test_options_reach_the_search_through_player_specs():
    g = make_game("connect4")
    p = make_player("conf_ucb:c=0.7,rave=true,rollout=heuristic,rollout_cap=20", playouts=200)
    assert p.options.rave and p.options.rollout == "heuristic" and p.options.rollout_cap == 20
    move = p.choose(g, 3)
    direct = search(g, "conf_ucb:c=0.7", iterations=200, seed=3, rave=True, rollout="heuristic", rollout_cap=20)
    assert move == direct.move and (p.last.visits == direct.visits).all()


@pytest.mark.parametrize("bad,words", [
    ("ucb1:rave=maybe", "rave"), ("ucb1:rave_k=0", "rave_k"), ("ucb1:rave_k=abc", "rave_k"),
    ("ucb1:grave_ref=-1", "grave_ref"), ("ucb1:rollout_cap=0", "rollout_cap"), ("ucb1:rave_schedule=x", "rave_schedule"),
    ("ucb1:reward_bounds=1:0", "reward_bounds"), ("ucb1:rave_bias=-2", "rave_bias"),
])
def test_bad_option_values_are_one_line_errors_naming_the_key(bad, words):
    with pytest.raises(ValueError) as err:
        make_player(bad, playouts=10)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_a_compiled_game_without_rollouts_refuses_rave_in_one_line():
    from treepolicies.games import CompiledGame
    from treepolicies.games.tictactoe import KERNELS

    class Bare(CompiledGame):  # a user's compiled game with only its GameKernels
        kernels, max_moves, name = KERNELS, 9, "bare"

        def __init__(self):
            self.state = np.array([0, 0, 0, -1], np.int64)

    with pytest.raises(ValueError, match="rollout kernels") as err:
        search(Bare(), "ucb1", iterations=10, rave=True)
    assert "\n" not in str(err.value)
    assert search(Bare(), "ucb1", iterations=10, rave=True, compiled=False).iterations == 10  # the Python path can


def test_a_compiled_game_without_rollouts_records_its_playout_moves_on_the_python_path():
    from treepolicies.games import CompiledGame
    from treepolicies.games.tictactoe import KERNELS
    from treepolicies.mcts.tree import AMAF_N

    class Bare(CompiledGame):
        kernels, max_moves, name = KERNELS, 9, "bare"

        def __init__(self):
            self.state = np.array([0, 0, 0, -1], np.int64)

    r = search(Bare(), "ucb1", iterations=200, seed=2, rave=True, compiled=False)
    a = r.tree.arrays
    # playout moves are credited: more AMAF samples at the root's children than tree visits
    f, n = int(a.first[0]), int(a.nchild[0])
    assert a.amaf[AMAF_N, f:f + n].sum() > a.stats[0, f:f + n].sum()
