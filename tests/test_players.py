"""Players and player specs."""
import math

import pytest

import treepolicies
from bandits import ModifiedImprovedUCB, UCB1
from treepolicies import (PLAYER_FACTORIES, AlphaBetaPlayer, ConnectFour, MCTSPlayer, MiUCT, Nim, RandomPlayer, UCT,
                          make_player)
from treepolicies.players import Player


def test_uct_and_miuct_are_search_with_their_policies():
    assert UCT(0.5).policy == UCB1(0.5)
    assert MiUCT().policy == ModifiedImprovedUCB(episodic=True)
    assert UCT(playouts=10).policy == UCB1(math.sqrt(2.0))


def test_spec_search_options_go_to_the_search_not_the_policy():
    p = make_player("miucb:episodic=true,final=max,solver=true,reuse=true,node_cap=5000", playouts=100)
    assert isinstance(p, MCTSPlayer) and p.policy == ModifiedImprovedUCB(episodic=True)
    assert (p.final, p.solver, p.reuse, p.node_cap) == ("max", True, True, 5000)
    assert p.name == "miucb:episodic=true,final=max,solver=true,reuse=true,node_cap=5000"
    assert make_player("ucb1:c=1.4", playouts=10).policy == UCB1(1.4)
    assert isinstance(make_player("random"), RandomPlayer)
    ab = make_player("alphabeta:depth=3")
    assert isinstance(ab, AlphaBetaPlayer) and ab.depth == 3


def test_horizon_policies_take_the_playout_budget():
    assert make_player("iucb", playouts=500).policy.horizon == 500
    with pytest.raises(ValueError, match="horizon"):
        make_player("iucb", seconds=1.0)


def test_bad_specs_are_named():
    with pytest.raises(ValueError, match="unknown player 'foo'"):
        make_player("foo", playouts=10)
    with pytest.raises(ValueError, match="unknown parameter 'k'"):
        make_player("ucb1:k=2", playouts=10)
    with pytest.raises(ValueError, match="final"):
        make_player("ucb1:final=best", playouts=10)
    with pytest.raises(ValueError, match="solver must be true or false"):
        make_player("ucb1:solver=maybe", playouts=10)
    with pytest.raises(ValueError, match="budget"):
        make_player("ucb1")
    with pytest.raises(ValueError, match="alphabeta"):
        make_player("alphabeta")


@pytest.mark.parametrize("kwargs, message", [
    ({"depth": -1}, "alphabeta depth must be an integer in 1..128, got -1"),
    ({"depth": 0}, "alphabeta depth must be an integer in 1..128, got 0"),
    ({"depth": 2.5}, "alphabeta depth must be an integer"),
    ({"seconds": 0.0}, "alphabeta seconds must be a finite number > 0, got 0.0"),
    ({"seconds": math.inf}, "alphabeta seconds must be a finite number > 0"),
])
def test_alphabeta_player_checks_its_arguments_when_made(kwargs, message):
    with pytest.raises(ValueError, match=message):
        AlphaBetaPlayer(**kwargs)
    with pytest.raises(ValueError, match=message.split(",")[0]):
        make_player("alphabeta:" + ",".join(f"{k}={v}" for k, v in kwargs.items()))


def test_mcts_player_checks_node_cap_when_made():
    # issue 15, item 10: node_cap=2 used to be accepted and failed at the first move ("the search
    # ran no iteration"); the range holds the root and its children on every board up to 19x19
    for bad in (1, 2, 362, 999, 10**10, -5, 2.0, True):
        with pytest.raises(ValueError, match=r"^node_cap must be an integer in 1000\.\.1000000000, got "):
            MCTSPlayer(UCB1(1.0), playouts=10, node_cap=bad)
    for spec in ("ucb1:node_cap=2", "ucb1:node_cap=x"):
        with pytest.raises(ValueError, match=r"^node_cap must be an integer in 1000\.\.1000000000, got "):
            make_player(spec, playouts=10)
    assert MCTSPlayer(UCB1(1.0), playouts=10, node_cap=1000).node_cap == 1000


@pytest.mark.parametrize("kwargs, message", [
    (dict(playouts=0), "playouts must be an integer in 1..1000000000, got 0"),
    (dict(playouts=10**30), "playouts must be an integer in 1..1000000000, got 10000000000"),
    (dict(playouts=2.5), "playouts must be an integer in 1..1000000000, got 2.5"),
    (dict(seconds=float("inf")), "seconds must be a number > 0 and <= 86400, got inf"),
    (dict(seconds=float("nan")), "seconds must be a number > 0 and <= 86400, got nan"),
    (dict(seconds=0), "seconds must be a number > 0 and <= 86400, got 0"),
])
def test_mcts_player_checks_its_budget_when_made(kwargs, message):
    # issue 15, item 7: seconds=inf or playouts=10**30 were accepted and every move then failed
    # ('? internal error' at each GTP genmove)
    with pytest.raises(ValueError) as err:
        make_player("ucb1", **kwargs)
    assert str(err.value).startswith(message)


def test_alphabeta_spec_names_the_bad_key_and_its_range():
    with pytest.raises(ValueError, match=r"^alphabeta depth must be an integer in 1\.\.128, got 'x'$"):
        make_player("alphabeta:depth=x")
    with pytest.raises(ValueError, match=r"^alphabeta seconds must be a finite number > 0, got 'y'$"):
        make_player("alphabeta:seconds=y")


def test_registered_player_kinds():
    class Fixed(Player):
        name = "first"

        def choose(self, game, rng):
            return game.legal_moves()[0]

    PLAYER_FACTORIES["first"] = lambda params, playouts=None, seconds=None: Fixed()
    try:
        assert make_player("first").choose(Nim(5), 0) == 1
    finally:
        del PLAYER_FACTORIES["first"]


def test_mcts_player_with_reuse_carries_the_subtree_to_the_next_move():
    player = make_player("ucb1:reuse=true", playouts=2000)
    game = ConnectFour()
    move = player.choose(game, 0)
    game.play(move)
    player.observe(move)
    reply = game.legal_moves()[0]
    expected = player._tree  # after the own move: the subtree of that move
    game.play(reply)
    player.observe(reply)
    assert player._tree is not None and player._tree.stats[0, 0] >= 1
    carried = int(player._tree.stats[0, 0])
    player.choose(game, 1)
    assert player.last.visits.sum() >= player.last.iterations + carried - 1
    assert expected is not None
    player.reset()
    assert player._tree is None


def test_random_player_plays_legal_moves_reproducibly():
    g = ConnectFour()
    moves = [RandomPlayer().choose(g, s) for s in range(20)]
    assert set(moves) <= set(g.legal_moves()) and len(set(moves)) > 1
    assert moves == [RandomPlayer().choose(g, s) for s in range(20)]


def test_reuse_after_a_missed_observe_falls_back_to_a_fresh_tree():
    # the player never hears of the opponent's reply: its re-rooted tree is for another position,
    # which the search detects (the root's position is tracked for compiled games)
    player = make_player("ucb1:reuse=true", playouts=500)
    game = ConnectFour()
    move = player.choose(game, 0)
    game.play(move)
    player.observe(move)
    game.play(game.legal_moves()[0])  # not observed
    reply = player.choose(game, 1)
    assert reply in game.legal_moves()
    assert player.last.visits.sum() == player.last.iterations  # a fresh tree


def test_reused_root_with_moves_the_game_forbids_is_dropped():
    # A reused root was expanded as an inner node, without root-only filters such as Go's positional
    # superko.  The player keeps a reused tree only when its root moves equal game.legal_moves().
    from treepolicies.games import Go
    from treepolicies.players import _root_moves_agree

    game = Go(size=5)
    result = treepolicies.search(game, "ucb1", iterations=200, seed=0)
    assert _root_moves_agree(result.tree, game)
    other = game.copy()
    other.play(12)  # the centre is now occupied: 24 root moves instead of 25
    assert not _root_moves_agree(result.tree, other)
