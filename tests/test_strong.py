"""The named strongest player, ``strong`` (treepolicies.strong): the game's spec, overrides, refusals,
and the same moves as the MCTS player of that spec (an independent construction of the same player)."""
import pytest

from treepolicies import make_game, make_player, play_game
from treepolicies.players import MCTSPlayer, RandomPlayer, with_search_keys
from treepolicies.strong import STRONG, StrongPlayer, strong_spec


def test_the_spec_of_each_game_and_overrides():
    # the table's entries as they are, and a key given in the strong spec replaces or joins them
    assert strong_spec("nogo") == "ucb1:c=0.5,rave=true,rollout=ppa,reuse=true"
    assert strong_spec("nogo", {"threads": "2"}) == "ucb1:c=0.5,rave=true,rollout=ppa,reuse=true,threads=2"
    assert strong_spec("go") == \
        "ucb1:c=0.1,rave=true,rollout=nakade,widen_k=2,prior=knowledge,prior_visits=20,reuse=true"
    assert strong_spec("go", {"reuse": "false", "c": "0.4"}) == \
        "ucb1:c=0.4,rave=true,rollout=nakade,widen_k=2,prior=knowledge,prior_visits=20,reuse=false"
    assert set(STRONG) == {"go", "nogo", "connect4", "tictactoe", "nim"}


def test_a_game_without_a_configuration_is_refused_in_one_line():
    with pytest.raises(ValueError) as err:
        strong_spec("chess")
    msg = str(err.value)
    assert "\n" not in msg and "'chess'" in msg and "go, nogo, connect4, tictactoe, nim" in msg


def test_one_player_one_game():
    p = make_player("strong", playouts=20)
    assert isinstance(p, StrongPlayer) and p.player is None and p.last is None
    inner = p.for_game(make_game("tictactoe"))
    assert isinstance(inner, MCTSPlayer) and inner.name == STRONG["tictactoe"] and inner.reuse and inner.solver
    assert p.for_game("tictactoe") is inner
    with pytest.raises(ValueError, match="built for 'tictactoe', not 'connect4'"):
        p.for_game("connect4")


def test_strong_plays_the_moves_of_its_spec():
    # the same seed, the same opponent: StrongPlayer and the MCTSPlayer built from STRONG's spec
    # directly choose the same moves (tic-tac-toe: the solver and tree reuse, observe included)
    game = make_game("tictactoe")
    a = play_game(game, make_player("strong", playouts=60), RandomPlayer(), seed=5)
    b = play_game(game, make_player(STRONG["tictactoe"], playouts=60), RandomPlayer(), seed=5)
    assert a.moves == b.moves and a.winner == b.winner
    c = play_game(game, RandomPlayer(), make_player("strong", playouts=60), seed=6)
    d = play_game(game, RandomPlayer(), make_player(STRONG["tictactoe"], playouts=60), seed=6)
    assert c.moves == d.moves


def test_the_command_lines_search_keys_reach_strong():
    assert with_search_keys("strong", threads=2) == "strong:threads=2"
    assert with_search_keys("strong:reuse=false", threads=2) == "strong:reuse=false,threads=2"
    assert with_search_keys("random", threads=2) == "random"


def test_gtp_builds_strong_for_its_game():
    from treepolicies.interop.gtp import GtpEngine

    e = GtpEngine(game="nogo", size=9, player="strong", playouts=100)
    assert isinstance(e.player, MCTSPlayer) and e.player.name == STRONG["nogo"]


@pytest.mark.parametrize("game", sorted(STRONG))
def test_every_entry_is_a_player_its_game_accepts(game):
    # the capabilities check (treepolicies.mcts.capabilities) of each entry on its own game, before
    # any search compiles: a spec the game cannot run would be refused here in one line
    p = make_player("strong", playouts=10)
    g = make_game(game)
    p.check_game(g)
    assert p.player.name == STRONG[game] and p.game_name == game
