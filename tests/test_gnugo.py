"""One short complete 9x9 game against GNU Go over GTP (CI installs gnugo; skipped if it is absent).

Besides 'no illegal move from either side', GNU Go is an independent Go implementation: after
the game its own board (``list_stones``) must equal ours, captures included.
"""
import pytest

from bandits.rng import Stream
from treepolicies.games.go import Go
from treepolicies.interop.gtp_client import GnuGoPlayer, GtpClient, GtpEngineError, find_gnugo
from treepolicies.players import PLAYER_FACTORIES, make_player

pytestmark = pytest.mark.skipif(find_gnugo() is None, reason="gnugo is not installed (apt-get install gnugo)")


@pytest.mark.slow  # (a fresh process or an outside program: minutes of the default tier; CI runs it)
def test_complete_game_against_gnugo_and_the_boards_agree():
    g = Go(size=9)
    ours = make_player("ucb1:c=0.5", playouts=300)
    gnugo = make_player("gnugo:level=0")
    assert isinstance(gnugo, GnuGoPlayer) and "gnugo" in PLAYER_FACTORIES
    try:
        k = 0
        while not g.terminal():
            player = ours if g.to_move == 0 else gnugo
            move = player.choose(g.copy(), Stream(1, k))
            k += 1
            assert g.is_legal(move), f"{player.name} chose the illegal move {g.move_to_str(move)}"
            g.play(move)
        assert g.moves[-2:] == [g.PASS, g.PASS] or g.capped
        gnugo._sync(g, Stream(1, k))  # send the last moves, then compare the boards
        board = g.board()
        for colour, value in (("black", 1), ("white", 2)):
            theirs = set(gnugo.client.send(f"list_stones {colour}").split())
            mine = {g.move_to_str(r * 9 + c) for r in range(9) for c in range(9) if board[r, c] == value}
            assert theirs == mine
    finally:
        gnugo.close()


def test_client_reports_engine_errors():
    c = GtpClient([find_gnugo(), "--mode", "gtp"])
    try:
        assert c.send("protocol_version") == "2"
        with pytest.raises(GtpEngineError, match="unknown command"):
            c.send("no_such_command")
        assert c.send("name") == "GNU Go"  # the engine still answers after an error
    finally:
        c.close()


@pytest.mark.parametrize("spec", ["gnugo:level=11", "gnugo:level=x", "gnugo:strength=3"])
def test_bad_gnugo_specs(spec):
    with pytest.raises(ValueError, match="level|strength"):
        make_player(spec)


def test_gnugo_plays_go_only():
    from treepolicies.games.nogo import NoGo

    p = make_player("gnugo:level=0")
    with pytest.raises(ValueError, match="Go only"):
        p.choose(NoGo(size=5), 0)
    p.close()


def test_banditree_gtp_engine_against_gnugo_both_over_gtp():
    # a controller relays moves between two GTP processes (as gogui-twogtp does): our engine,
    # started as `banditree gtp`, and GNU Go; any `?` answer raises GtpEngineError
    import sys

    ours = GtpClient([sys.executable, "-m", "testbeds.cli", "gtp", "--game", "go", "--size", "7",
                      "--player", "ucb1:c=0.5", "--playouts", "200"])
    theirs = GtpClient([find_gnugo(), "--mode", "gtp", "--chinese-rules", "--level", "0",
                        "--positional-superko", "--capture-all-dead", "--never-resign"])
    try:
        for c in (ours, theirs):
            c.send("boardsize 7")
            c.send("clear_board")
            c.send("komi 7.5")
        engines, colour, passes, moves = (ours, theirs), 0, 0, 0
        while passes < 2 and moves < 3 * 49:
            move = engines[colour].send(f"genmove {'bw'[colour]}")
            engines[1 - colour].send(f"play {'bw'[colour]} {move}")
            passes = passes + 1 if move.lower() == "pass" else 0
            colour, moves = 1 - colour, moves + 1
        assert moves > 10
        score = ours.send("final_score")
        assert score == "0" or score[:2] in ("B+", "W+")
    finally:
        ours.close()
        theirs.close()
