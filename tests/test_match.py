"""play_game, match, per-game seeds and the Wilson interval."""
import pytest

from treepolicies import (GameRecord, Nim, RandomPlayer, UCT, game_seed, make_game, make_player, match, play_game,
                          wilson_interval)
from treepolicies.players import Player


def test_wilson_interval_hand_values():
    # 50 of 100, z = 1.96: centre = (0.5 + 1.96^2/200) / (1 + 1.96^2/100) = 0.5;
    # half = 1.96 sqrt(0.25/100 + 1.96^2/40000) / 1.038416 = 1.96 * 0.0509513 / 1.038416 = 0.0961702
    lo, hi = wilson_interval(50, 100)
    assert lo == pytest.approx(0.5 - 0.0961702, abs=1e-6) and hi == pytest.approx(0.5 + 0.0961702, abs=1e-6)
    # 0 of 10: centre = half = (1.96^2/20) / (1 + 1.96^2/10) = 0.19208 / 1.38416 = 0.138770
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(2 * 0.138770, abs=1e-5)
    with pytest.raises(ValueError, match="n must"):
        wilson_interval(0, 0)
    with pytest.raises(ValueError, match="successes"):
        wilson_interval(11, 10)


def test_game_seeds_are_fixed_and_distinct():
    seeds = [game_seed(0, i) for i in range(100)]
    assert len(set(seeds)) == 100 and seeds == [game_seed(0, i) for i in range(100)]
    assert game_seed(1, 0) != game_seed(0, 0)
    with pytest.raises(ValueError, match="seed"):
        game_seed(-1, 0)


def test_same_seed_same_moves():
    a, b = make_player("miucb:episodic=true", playouts=300), make_player("ucb1", playouts=300)
    r1 = play_game("connect4", a, b, seed=5)
    r2 = play_game("connect4", a, b, seed=5)
    r3 = play_game("connect4", a, b, seed=6)
    assert isinstance(r1, GameRecord) and r1.moves == r2.moves and r1.winner == r2.winner
    assert r1.moves != r3.moves


def test_match_alternates_colours_and_counts_from_a():
    # Nim(4) is lost for the player to move, so perfect play wins exactly the games it moves second in.
    result = match(UCT(playouts=500), RandomPlayer(), Nim(4), 6, seed=0)
    assert [r.first for r in result.records] == ["ucb1:c=1.4142135623730951", "random"] * 3
    assert result.wins + result.draws + result.losses == 6 == result.n_games
    assert result.wins >= 3  # every game where the random player moves first
    assert result.score == (result.wins + 0.5 * result.draws) / 6


def test_illegal_move_by_a_player_is_named():
    class Cheat(Player):
        name = "cheat"

        def choose(self, game, rng):
            return 99

    with pytest.raises(ValueError, match="'cheat' chose the illegal move 99"):
        play_game(Nim(5), Cheat(), RandomPlayer(), seed=0)
    with pytest.raises(ValueError, match="n_games"):
        match(RandomPlayer(), RandomPlayer(), "nim", 0)
    with pytest.raises(ValueError, match="unknown game"):
        match(RandomPlayer(), RandomPlayer(), "chess", 2)


def test_a_pass_the_search_leaves_out_is_still_a_legal_move():
    # Go's legal_moves() lists what the search considers (no pass while a non-eye point is free), but
    # an external engine may pass at any time: play_game accepts every move the rules allow.  Two
    # passes end a 5x5 game on the empty board: area 0 - 0, komi 7.5 -> White (second) wins.
    from treepolicies.games import Go

    class Passer(Player):
        name = "passer"

        def choose(self, game, rng):
            return game.str_to_move("pass")

    game = Go(size=5)
    assert game.str_to_move("pass") not in game.legal_moves()
    record = play_game(game, Passer(), Passer(), seed=0)
    assert record.moves == [25, 25] and record.winner == 1 and record.capped is False


# -- games of n players: seats rotated --------------------------------------------------------------

class _Always(Player):
    """Plays ``move`` whenever it is to move (scripted, for hand-traced matches)."""

    def __init__(self, name, move):
        self.name, self.move = name, move

    def choose(self, game, rng):
        return self.move


def test_seats_rotate_and_each_player_scores_its_own_reward():
    # Triple (tests/small_games.py): seat 0 moves, then seat 1, seat 2 never moves; payoffs by the two
    # moves.  A always plays 0, B and C always 1.  Game i puts player (s + i) % 3 in seat s:
    #   game 0: seats A B C, moves (0, 1) -> (0.9, 0.1, 0.0): A 0.9 (seat 0), B 0.1 (1), C 0.0 (2)
    #   game 1: seats B C A, moves (1, 1) -> (0.4, 0.9, 0.2): B 0.4 (0), C 0.9 (1), A 0.2 (2)
    #   game 2: seats C A B, moves (1, 0) -> (0.5, 0.3, 0.7): C 0.5 (0), A 0.3 (1), B 0.7 (2)
    from tests.small_games import Triple
    from treepolicies import match_seats

    a, b, c = _Always("A", 0), _Always("B", 1), _Always("C", 1)
    r = match_seats([a, b, c], Triple(), 3, seed=0)
    assert r.scores == [[[0.9], [0.3], [0.2]], [[0.4], [0.1], [0.7]], [[0.5], [0.9], [0.0]]]
    assert [rec.players for rec in r.records] == [["A", "B", "C"], ["B", "C", "A"], ["C", "A", "B"]]
    assert r.score(0) == pytest.approx(1.4 / 3) and r.score(1) == pytest.approx(1.2 / 3)
    assert r.interval(2) == wilson_interval(1.4, 3) and r.seat_score(1, 2) == pytest.approx(0.7)
    assert r.summary().splitlines()[0].startswith("A: score 0.467")


def test_two_seats_are_the_two_player_match():
    # With two players the seats are play_game's colours (A first in even games, the same streams), so
    # each game's reward is the match's score of that game.
    from treepolicies import match_seats

    a, b = make_player("ucb1", playouts=30), RandomPlayer()
    seats = match_seats([a, b], make_game("tictactoe"), 6, seed=4)
    two = match(a, b, make_game("tictactoe"), 6, seed=4)
    assert [rec.moves for rec in seats.records] == [rec.moves for rec in two.records]
    assert seats.score(0) == two.score and seats.interval(0) == two.interval


def test_a_match_needs_one_player_a_seat():
    from tests.small_games import Triple
    from treepolicies import match_seats, play_seats

    with pytest.raises(ValueError, match="Triple has 3 seats, got 2 players"):
        match_seats([RandomPlayer(), RandomPlayer()], Triple(), 2)
    with pytest.raises(ValueError, match="play_game is for two players; Triple has 3"):
        play_game(Triple(), RandomPlayer(), RandomPlayer(), seed=0)
    with pytest.raises(ValueError, match="n_games must be an integer >= 1"):
        match_seats([RandomPlayer()] * 3, Triple(), 0)
    assert play_seats(Triple(), [_Always("A", 1), _Always("B", 0), RandomPlayer()], seed=0).rewards == [0.5, 0.3, 0.7]
