"""Every combination the old drivers refused now runs (issue 23): each option with tree and leaf
parallelism, transpositions and evaluators with threads, ``specialize`` on every path, a root
policy everywhere; and the storage's invariants hold after it:

* the tree: a node's visits = its children's visits + the iterations that ended at it (with tree
  parallelism exactly, counted in ``tree.par.ends``), the root's = the iterations; no virtual loss
  left (``pend`` = 0, MEAN = SUM / COUNT); AMAF_N of a child between its own visits and its
  chooser's;
* the DAG: a position's visits = the visits of the edges into it, the root's = the iterations, an
  expanded position's out-edges hold at most its visits minus the first arrival.

The default tier runs a diagonal of the product (every option, executor, game and policy at least
once); ``--slow`` the whole product.
"""
import itertools
import math

import numpy as np
import pytest

import bandits
from bandits.stats import COUNT, MEAN, SUM
from treepolicies import search
from treepolicies.games import make_game
from treepolicies.mcts.tree import AMAF_N


@bandits.index_policy("combo_ucb", c=bandits.Param(1.0, low=0.0, doc="exploration constant"))
def combo_ucb(stats, i, t, params, state):
    """A user's UCB1 as a plugin: mean + c sqrt(ln t / n)."""
    return stats[MEAN, i] + params[0] * math.sqrt(math.log(t) / stats[COUNT, i])


def wins(states, moves, counts):
    """A deterministic evaluator: priors ~ 1 + (move mod 2), value 0.5 + 0.2 cos(sum of the state)."""
    return 1.0 + (np.maximum(moves, 0) % 2), 0.5 + 0.2 * np.cos(np.asarray(states, dtype=np.float64).sum(axis=1))


GAMES = {"tictactoe": {}, "connect4": {}, "go": {"size": 5}, "nogo": {"size": 5}}
POLICIES = ["ucb1:c=0.5", "miucb:episodic=true", "combo_ucb:c=0.7", "puct:c=1.5"]
OPTIONS = {
    "rave": dict(rave=True),
    "grave": dict(grave_ref=8, rave_k=50),
    "heuristic": dict(rollout="heuristic"),
    "cap": dict(rollout_cap=5),
    "bounds": dict(reward_bounds=(-1.0, 2.0)),
    "fpu": dict(fpu="parent", fpu_reduction=0.1),
    "prior": dict(prior="heuristic"),
    "widen": dict(widen_k=1.0, widen_alpha=0.5),
    "evaluator": dict(evaluator=wins, eval_batch=4, value_mix=0.5),
    "dag": dict(transpositions=True),
    "dag+rave+prior": dict(transpositions=True, rave=True, prior="heuristic"),
    "dag+evaluator": dict(transpositions=True, evaluator=wins, eval_batch=4, value_mix=0.3),
    "specialize": dict(specialize=True),
    "root-policy": dict(root_policy="thompson:prior=beta"),
    "all": dict(rave=True, prior="heuristic", fpu="parent", widen_k=2.0, rollout_cap=40,
                root_policy="klucb:family=bernoulli"),
}
HEURISTIC = ("connect4", "go", "nogo")
N = 400


def _runs(game, option):
    kw = OPTIONS[option]
    return not (kw.get("rollout") == "heuristic" and game not in HEURISTIC)


def check_storage(result, evaluated=False):
    """The invariants of the module docstring for ``result``'s tree or DAG."""
    tree = result.tree
    a, n = tree.arrays, tree.size
    count, first, nchild = a.stats[COUNT, :n], a.first[:n], a.nchild[:n]
    visited = count > 0
    np.testing.assert_allclose(a.stats[MEAN, :n][visited], a.stats[SUM, :n][visited] / count[visited])
    par = tree.par
    if par is not None:
        assert np.all(par.pend[:n] == 0) and np.all(par.locks[:n] == 0)
    if tree.dag is None:
        assert count[0] == result.iterations
        threads = par is not None
        for p in range(n):
            below = count[first[p]:first[p] + nchild[p]].sum() if first[p] >= 0 else 0.0
            if threads:
                assert count[p] == below + par.ends[p], p
            else:
                assert below <= count[p], p
        if a.amaf.shape[1] == a.parent.shape[0]:
            for c in range(1, n):
                assert count[c] <= a.amaf[AMAF_N, c] <= count[a.parent[c]], c
        return
    d = tree.dag
    into = np.zeros(n)
    linked = d.canon[1:n] >= 0
    assert not np.any(~linked & (count[1:n] > 0))  # every edge taken is linked to its position
    np.add.at(into, d.canon[1:n][linked], count[1:n][linked])
    positions = np.flatnonzero(d.canon[:n] == np.arange(n))
    assert d.pvis[0] == result.iterations
    for q in positions:
        if q != 0:
            assert into[q] == d.pvis[q], q
        if first[q] >= 0:
            out = count[first[q]:first[q] + nchild[q]].sum()
            assert out <= d.pvis[q] - (1 if (q != 0 or evaluated) else 0), q
    if a.amaf.shape[1] == a.parent.shape[0]:
        for c in range(1, n):
            chooser = a.parent[c]
            assert count[c] <= a.amaf[AMAF_N, c] <= d.pvis[chooser], c


def _cases():
    out = []
    combos = list(itertools.product(["tree", "leaf"], sorted(OPTIONS), sorted(GAMES), POLICIES))
    diagonal = set()
    for i, option in enumerate(sorted(OPTIONS)):
        for j, mode in enumerate(("tree", "leaf")):
            game = sorted(GAMES)[(i + j) % len(GAMES)]
            if not _runs(game, option):
                game = "connect4"
            diagonal.add((mode, option, game, POLICIES[(i + 3 * j) % len(POLICIES)]))
    for mode, option, game, spec in combos:
        if not _runs(game, option):
            continue
        marks = () if (mode, option, game, spec) in diagonal else pytest.mark.slow
        out.append(pytest.param(mode, option, game, spec, marks=marks, id=f"{mode}-{option}-{game}-{spec}"))
    return out


@pytest.mark.parametrize("mode, option, game_name, spec", _cases())
def test_every_option_runs_with_threads_and_keeps_the_invariants(mode, option, game_name, spec):
    game = make_game(game_name, **GAMES[game_name])
    kw = dict(OPTIONS[option])
    if mode == "leaf" and "evaluator" in kw:
        kw["value_mix"] = max(kw["value_mix"], 0.5)  # (leaf parallelism needs playouts to parallelise)
    r = search(game, spec, iterations=N, seed=3, threads=2, parallel=mode, early_stop=False, **kw)
    assert r.move in game.legal_moves() and r.iterations == N
    evaluated = "evaluator" in kw
    assert r.visits.sum() == N - (1 if evaluated else 0)  # (the evaluator's first iteration values the root)
    assert np.all((r.values >= 0.0) & (r.values <= 1.0))
    check_storage(r, evaluated)


def _one_thread_cases():
    # the default tier on Connect Four (the game with a loop variant of every storage and executor
    # in tests/default_variants.txt), the other games with --slow
    return [pytest.param(option, game, marks=() if game == "connect4" else pytest.mark.slow, id=f"{option}-{game}")
            for option in sorted(OPTIONS) for game in sorted(GAMES) if _runs(game, option)]


@pytest.mark.parametrize("option, game_name", _one_thread_cases())
def test_every_option_runs_in_one_thread_and_keeps_the_invariants(option, game_name):
    game = make_game(game_name, **GAMES[game_name])
    r = search(game, "combo_ucb:c=0.7", iterations=N, seed=5, early_stop=False, **OPTIONS[option])
    assert r.iterations == N and r.move in game.legal_moves()
    check_storage(r, "evaluator" in OPTIONS[option])


def test_leaf_parallelism_is_reproducible_with_the_enhancements():
    # slot k plays with stream k and the backups go in slot order: same seed, same result
    kw = dict(rave=True, rollout="heuristic", prior="heuristic", transpositions=True)
    a = search(make_game("connect4"), "ucb1:c=0.5", iterations=600, seed=9, threads=3, parallel="leaf", **kw)
    b = search(make_game("connect4"), "ucb1:c=0.5", iterations=600, seed=9, threads=3, parallel="leaf", **kw)
    assert np.array_equal(a.visits, b.visits) and np.array_equal(a.values, b.values)


def test_specialize_gives_the_same_search_on_every_path():
    # specialize=True compiles the policy's code into the loop: the same arithmetic, the same tree,
    # on the DAG, with an evaluator and with RAVE as in the plain loop (it was ignored there before)
    for kw in (dict(transpositions=True), dict(evaluator=wins, eval_batch=2), dict(rave=True, prior="heuristic")):
        a = search(make_game("connect4"), "miucb:episodic=true", iterations=500, seed=2, **kw)
        b = search(make_game("connect4"), "miucb:episodic=true", iterations=500, seed=2, specialize=True, **kw)
        assert np.array_equal(a.visits, b.visits) and np.array_equal(a.values, b.values), kw


def test_specialize_on_a_python_game_is_refused_in_one_line():
    with pytest.raises(ValueError) as err:
        search(make_game("nim", stones=7), "ucb1", iterations=10, specialize=True)
    assert str(err.value).startswith("specialize=true does not combine with a game searched from Python (nim)")
    assert "\n" not in str(err.value)
