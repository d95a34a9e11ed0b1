"""Parallel MCTS (treepolicies.mcts.parallel, docs/parallel.md): tree, root and leaf parallelism.

No timing assertions: what is checked is that no visit is lost or counted twice, that root
parallelism is exactly the sum of independent searches, that the solver still proves, that every
mode runs on every game with every policy, and that bad values are refused in one line.
"""
import math

import numba as nb
import numpy as np
import pytest
import scipy.special

import bandits
from bandits.rng import Stream, randint
from bandits.stats import COUNT, MEAN, SUM
from treepolicies import ConnectFour, TicTacToe, make_player, search
from treepolicies.games import GAMES, CompiledGame, GameKernels, make_game

@nb.njit(cache=True)
def _nim_legal(state, out):
    n = min(3, state[0])
    for j in range(n):
        out[j] = j + 1
    return n


@nb.njit(cache=True)
def _nim_play(state, move):
    state[0] -= move
    state[1] = 1 - state[1]


@nb.njit(cache=True)
def _nim_to_move(state):
    return state[1]


@nb.njit(cache=True)
def _nim_terminal(state):
    return state[0] == 0


@nb.njit(cache=True)
def _nim_result(state, player):
    return 1.0 if player == 1 - state[1] else 0.0  # who took the last stone wins


@nb.njit(cache=True)
def _nim_playout(state, rng):
    while state[0] > 0:
        _nim_play(state, randint(rng, min(3, state[0])) + 1)


class CompiledNim(CompiledGame):
    """A user's compiled game (one pile, take 1 to 3 stones, the last stone wins): not a built-in."""

    kernels = GameKernels(_nim_legal, _nim_play, _nim_to_move, _nim_terminal, _nim_result, _nim_playout)
    max_moves, name = 3, "compiled-nim"

    def __init__(self, stones=10):
        self.state = np.array([stones, 0], np.int64)


@pytest.mark.parametrize("mode", ["tree", "root", "leaf"])
def test_a_users_compiled_game_in_every_mode(mode):
    # from 10 stones the winning move takes 2 (leaving a multiple of 4)
    r = search(CompiledNim(10), "ucb1", iterations=4000, seed=0, threads=2, parallel=mode, early_stop=False)
    assert r.move == 2 and r.visits.sum() == 4000
    if mode == "tree":
        check_tree(r.tree, 4000)


# every built-in policy (the zoo included), with the variants whose per-node state differs
BUILTIN = [name for name in bandits.POLICIES if not name.startswith("t_")]
STATEFUL = ["miucb:episodic=true", "iucb", "iucb:episodic=true", "thompson", "swucb:window=20", "exp3"]


def check_tree(tree, iterations, vl_free=True):
    """Every node's count = its children's counts + the iterations that ended at it (tree.par.ends);
    the root's count = the iterations; no virtual loss left (pend = 0, SUM / COUNT = MEAN)."""
    n = tree.size
    count = tree.stats[COUNT, :n]
    ends = tree.par.ends[:n]
    first, nchild = tree.first[:n], tree.nchild[:n]
    assert count[0] == iterations and ends.sum() == iterations
    assert np.all(tree.par.pend[:n] == 0) and np.all(tree.par.locks[:n] == 0)
    for p in range(n):
        below = count[first[p]:first[p] + nchild[p]].sum() if first[p] >= 0 else 0.0
        assert count[p] == below + ends[p], p
    visited = count > 0
    np.testing.assert_allclose(tree.stats[MEAN, :n][visited], tree.stats[SUM, :n][visited] / count[visited])
    assert np.all(tree.stats[MEAN, :n][~visited] == 0.0)
    # nodes are allocated in blocks, each block exactly the children of one node: none twice, none lost
    expanded = np.flatnonzero(first >= 0)
    blocks = sorted((int(first[p]), int(nchild[p])) for p in expanded)
    pos = 1
    for f, k in blocks:
        assert f == pos
        pos += k
    assert pos == n


@pytest.mark.parametrize("game_name, options", [("connect4", {}), ("tictactoe", {}), ("go", {"size": 5}),
                                                ("nogo", {"size": 5})])
@pytest.mark.parametrize("spec", ["ucb1", *STATEFUL])
def test_tree_parallel_loses_and_doubles_no_visit(game_name, options, spec):
    game = make_game(game_name, **options)
    for seed in range(4):
        for vl in (1, 3, 0):
            r = search(game, spec, iterations=1500, seed=seed, threads=2, parallel="tree", virtual_loss=vl,
                       early_stop=False)
            assert r.iterations == 1500 and r.visits.sum() == 1500 and r.stop_reason == "iterations"
            check_tree(r.tree, 1500)


def test_tree_parallel_with_more_threads_than_cores_and_a_growing_tree():
    # node_cap small enough that the tree grows between chunks; four threads on two cores
    r = search(ConnectFour(), "miucb:episodic=true", iterations=20000, seed=3, threads=4, parallel="tree",
               early_stop=False)
    check_tree(r.tree, 20000)
    r = search(ConnectFour(), "ucb1", iterations=5000, seed=3, threads=3, parallel="tree", node_cap=2000)
    assert r.stop_reason == "node_cap" and r.tree_size <= 2000
    assert np.all(r.tree.par.pend[:r.tree_size] == 0)


def test_tree_parallel_with_a_seconds_budget_and_the_early_stop():
    r = search(make_game("go", size=5), "ucb1", seconds=0.2, seed=0, threads=2, parallel="tree")
    assert r.stop_reason == "seconds" and r.iterations > 0
    check_tree(r.tree, r.iterations)
    r = search(TicTacToe(), "ucb1:c=0.1", iterations=50000, seed=0, threads=2, parallel="tree")
    assert r.stop_reason == "early" and r.iterations < 50000
    visits = np.sort(r.visits)
    assert visits[-1] - visits[-2] >= 50000 - r.iterations  # the leader could not be overtaken


@pytest.mark.parametrize("spec", ["ucb1", "miucb:episodic=true", "iucb"])
def test_root_parallel_is_the_sum_of_independent_searches(spec):
    game = ConnectFour()
    r = search(game, spec, iterations=3001, seed=11, threads=3, parallel="root", early_stop=False)
    stream = Stream(11)
    subs = [stream.spawn() for _ in range(3)]  # the documented per-tree streams
    parts = [search(game, spec, iterations=n, seed=s, early_stop=False) for n, s in zip((1001, 1000, 1000), subs)]
    assert r.moves == parts[0].moves
    assert list(r.visits) == list(sum(p.visits for p in parts))
    sums = sum(p.values * p.visits for p in parts)
    np.testing.assert_allclose(r.values, sums / np.maximum(1, r.visits))
    assert r.iterations == 3001 and r.tree_size == sum(p.tree_size for p in parts)
    again = search(game, spec, iterations=3001, seed=11, threads=3, parallel="root", early_stop=False)
    assert list(again.visits) == list(r.visits) and again.move == r.move  # same seed, same result


def test_root_parallel_runs_a_python_game_and_the_enhancements():
    r = search(make_game("nim"), "ucb1", iterations=400, seed=0, threads=2, parallel="root")
    assert r.visits.sum() == r.iterations
    r = search(ConnectFour(), "ucb1", iterations=400, seed=0, threads=2, parallel="root", rave=True,
               rollout="heuristic")
    assert r.visits.sum() == 400


def test_leaf_parallel_backs_up_every_playout_and_is_reproducible():
    game = make_game("go", size=5)
    a = search(game, "miucb:episodic=true", iterations=2001, seed=4, threads=3, parallel="leaf", early_stop=False)
    b = search(game, "miucb:episodic=true", iterations=2001, seed=4, threads=3, parallel="leaf", early_stop=False)
    assert a.iterations == 2001 and a.visits.sum() == 2001 and a.tree.stats[COUNT, 0] == 2001
    assert list(a.visits) == list(b.visits) and np.array_equal(a.values, b.values)
    # one node is expanded per descent, so the tree is about three times smaller than a plain search's
    plain = search(game, "miucb:episodic=true", iterations=2001, seed=4, early_stop=False)
    assert a.tree_size < plain.tree_size


@pytest.mark.parametrize("mode", ["tree", "root", "leaf"])
@pytest.mark.parametrize("spec", ["ucb1", "miucb:episodic=true", "iucb", "thompson"])
def test_the_solver_with_threads_proves_tictactoe_a_draw(mode, spec):
    r = search(TicTacToe(), spec, iterations=1_000_000, seed=0, solver=True, early_stop=False, threads=2,
               parallel=mode)
    assert r.stop_reason == "proven"
    assert max(r.proven) == 0.5 and min(r.proven) >= 0.0
    if mode != "root":
        assert r.tree.proven[0] == 0.5


C4_WINS = [("""
        .......
        .......
        .......
        ...x...
        ...xo..
        ...xoo.
    """, {3}), ("""
        .......
        .......
        .......
        .......
        .oo....
        .xxx..o
    """, {0, 4})]


@pytest.mark.parametrize("mode", ["tree", "root", "leaf"])
@pytest.mark.parametrize("diagram, wins", C4_WINS)
def test_the_solver_with_threads_finds_connect4_wins(mode, diagram, wins):
    game = ConnectFour.from_string(diagram)
    r = search(game, "ucb1", iterations=20000, seed=1, solver=True, threads=2, parallel=mode)
    assert r.move in wins and r.proven[r.moves.index(r.move)] == 1.0


@pytest.mark.parametrize("mode", ["tree", "root", "leaf"])
@pytest.mark.parametrize("game_name", sorted(GAMES))
def test_every_mode_runs_every_game_with_every_builtin_policy(mode, game_name):
    options = {"size": 5} if game_name in ("go", "nogo") else {}
    game = make_game(game_name, **options)
    for spec in BUILTIN:
        if game_name == "nim" and mode != "root":
            with pytest.raises(ValueError, match=f"parallel='{mode}'.*compiled game"):
                search(game, spec, iterations=10, threads=2, parallel=mode)
            continue
        r = search(game, spec, iterations=120, seed=2, threads=2, parallel=mode, early_stop=False)
        assert r.move in game.legal_moves(), spec
        assert r.iterations == 120 and r.visits.sum() == 120, spec
        assert np.all((r.values >= 0) & (r.values <= 1)), spec


@bandits.index_policy("t_par_python", c=1.0)
def _python_ucb(stats, i, t, params, state):  # numba cannot compile it (scipy): it runs as Python, taking the GIL
    return stats[MEAN, i] + params[0] * scipy.special.erfinv(1.0 - 1.0 / (t + 1.0)) / math.sqrt(stats[COUNT, i])


def test_plugin_policies_run_in_every_mode():
    # (tests/plugin_policies.py's own Python policy, t_scipy_ucb, is left to tests/test_plugins.py, which
    # checks the notice its first use prints once per process; t_par_python above is the same kind)
    bandits.load_plugin("tests/plugin_policies.py")
    for mode in ("tree", "root", "leaf"):
        for spec in ("t_ucb1tuned", "t_etc", "t_par_python"):
            r = search(ConnectFour(), spec, iterations=150, seed=0, threads=2, parallel=mode, early_stop=False)
            assert r.visits.sum() == 150
            if mode == "tree":
                check_tree(r.tree, 150)


def test_threads_one_is_the_plain_search():
    a = search(ConnectFour(), "miucb:episodic=true", iterations=2000, seed=5)
    for mode in ("tree", "root", "leaf"):
        b = search(ConnectFour(), "miucb:episodic=true", iterations=2000, seed=5, threads=1, parallel=mode,
                   virtual_loss=7)
        assert list(a.visits) == list(b.visits) and np.array_equal(a.values, b.values) and a.tree_size == b.tree_size


def test_specialized_tree_parallel_search():
    r = search(ConnectFour(), "ucb1", iterations=3000, seed=0, threads=2, parallel="tree", specialize=True,
               early_stop=False)
    check_tree(r.tree, 3000)


def test_tree_reuse_with_tree_parallelism():
    from treepolicies import reroot

    game = ConnectFour()
    first = search(game, "ucb1", iterations=3000, seed=1, threads=2, early_stop=False)
    game.play(first.move)
    tree = reroot(first.tree, first.move, game)
    child = first.moves.index(first.move)
    reply = search(game, "ucb1", iterations=1000, seed=2, tree=tree, threads=2, early_stop=False)
    assert reply.visits.sum() == first.visits[child] - 1 + 1000


@pytest.mark.parametrize("kw, words", [
    (dict(threads=0), "threads must be an integer in 1..256, got 0"),
    (dict(threads=257), "threads must be an integer in 1..256"),
    (dict(threads=2.0), "threads must be an integer"),
    (dict(threads=2, parallel="trunk"), "parallel must be one of tree, root, leaf, got 'trunk'"),
    (dict(threads=2, virtual_loss=-1), "virtual_loss must be an integer in 0..1000, got -1"),
    (dict(threads=2, virtual_loss=0.5), "virtual_loss must be an integer in 0..1000"),
    (dict(threads=2, parallel="leaf", evaluator=lambda s, m, c: (np.ones(m.shape), np.full(len(s), 0.5))),
     "parallel='leaf' needs a playout at the leaf: evaluator=... with value_mix=0 plays none"),
    (dict(threads=2, compiled=False), "parallel='tree' does not combine with a game searched from Python (connect4)"),
])
def test_bad_values_are_refused_in_one_line(kw, words):
    with pytest.raises(ValueError) as err:
        search(ConnectFour(), "ucb1", iterations=10, **kw)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_root_parallel_refuses_a_reused_tree():
    r = search(ConnectFour(), "ucb1", iterations=100, seed=0)
    with pytest.raises(ValueError, match="parallel='root'.*tree reuse"):
        search(ConnectFour(), "ucb1", iterations=100, tree=r.tree, threads=2, parallel="root")


def test_player_specs_take_the_parallel_keys():
    p = make_player("ucb1:c=0.5,threads=2,parallel=tree,virtual_loss=2", playouts=300)
    assert (p.threads, p.parallel, p.virtual_loss) == (2, "tree", 2)
    assert p.choose(ConnectFour(), 0) in range(7) and p.last.visits.sum() == p.last.iterations <= 300
    p = make_player("miucb:episodic=true,threads=3,parallel=root", playouts=300)
    p.choose(ConnectFour(), 0)
    assert p.last.visits.sum() == p.last.iterations <= 300
    for spec, words in [("ucb1:threads=x", "threads must be an integer in 1..256"),
                        ("ucb1:threads=2,parallel=stem", "parallel must be one of tree, root, leaf"),
                        ("ucb1:virtual_loss=-2", "virtual_loss must be an integer in 0..1000"),
                        ("ucb1:threads=2,parallel=root,reuse=true", "reuse=true does not combine with parallel=root")]:
        with pytest.raises(ValueError, match=words):
            make_player(spec, playouts=100)


def test_match_and_gtp_take_threads_and_parallel(capsys, monkeypatch):
    import io
    import sys

    from testbeds.cli import main
    from treepolicies.players import with_search_keys

    assert with_search_keys("ucb1", threads=2) == "ucb1:threads=2"
    assert with_search_keys("ucb1:c=0.5,threads=3", threads=2, parallel="root") == "ucb1:c=0.5,threads=3,parallel=root"
    assert with_search_keys("random", threads=2) == "random"
    rc = main(["match", "--game", "tictactoe", "--a", "ucb1:c=1.4", "--b", "random", "--playouts", "200",
               "--games", "2", "--seed", "0", "--no-progress", "--threads", "2", "--parallel", "root"])
    out = capsys.readouterr().out
    assert rc == 0 and "A = ucb1:c=1.4,threads=2,parallel=root, B = random" in out
    assert main(["match", "--game", "tictactoe", "--a", "ucb1", "--b", "random", "--playouts", "5",
                 "--threads", "0"]) == 2
    assert "--threads must be an integer in 1..256, got 0" in capsys.readouterr().err
    assert main(["match", "--game", "nim", "--a", "ucb1", "--b", "random", "--playouts", "5", "--threads", "2"]) == 2
    err = capsys.readouterr().err
    assert "parallel='tree' does not combine with a game searched from Python (nim)" in err and err.count("\n") == 1
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"genmove b\nquit\n")))
    assert main(["gtp", "--game", "go", "--size", "5", "--player", "ucb1:c=0.5", "--playouts", "300",
                 "--threads", "2"]) == 0
    assert capsys.readouterr().out.startswith("= ")
